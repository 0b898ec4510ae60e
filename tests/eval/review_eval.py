"""评审模拟 benchmark: planted gaps found, false alarms on complete bids, speed, model quotes.

``python tests/eval/review_eval.py [DIR] [--base-url URL --model NAME] [--questions N]``

For every tender in ``DIR`` (default ``../shared/tenders``) with technical scoring items,
a *complete* drafted bid is built by code from the criteria points (``tests/review_bids.py``)
and reviewed without a model:

- false "missing" (and thin) on the complete bid, over all points;
- recall of planted gaps: each point's section removed in turn must come out missing
  (flagged = missing or thin is printed too);
- each ★ clause's answer removed in turn must make the 提交前检查 block; a bidder name
  written into a section must be found in 暗标 mode;
- the time to review a 300-section bid without a model.

With ``--base-url`` and ``--model`` the closed questions run against that server for up to
``--questions`` points per tender, and the answers rejected because their quote is not in
the passage are counted.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.export.submission_checks import submission_checks  # noqa: E402
from app.pipeline.evaluation.clauses import clause_coverage  # noqa: E402
from app.pipeline.evaluation.review import review_bid  # noqa: E402
from tests.review_bids import complete_bid, leak_name, remove_point, tender_analysis, unanswer_clause  # noqa: E402

BIDDER = "广州市恒信配送服务有限公司"


def _addressed(bid: object) -> dict[int, str]:
    return {c.risk_index: c.answered_by for c in clause_coverage(bid.breakdown, bid.chapters)}  # type: ignore[attr-defined]


def evaluate_tender(path: Path, verbose: bool) -> dict[str, int] | None:
    """The counts for one tender (None when it has no technical scoring items)."""
    analysis, risks = tender_analysis(path)
    if not analysis.technical_groups:
        return None
    bid = complete_bid(analysis, risks)
    counts = dict.fromkeys(("points", "false_missing", "false_thin", "planted", "missing", "flagged", "clauses",
                            "clauses_blocked", "complete_blocking", "leaks", "leaks_found"), 0)
    review = review_bid(analysis, bid.chapters)
    for item in review.items:
        for p in item.points:
            counts["points"] += 1
            if p.status == "missing":
                counts["false_missing"] += 1
            elif p.status == "thin":
                counts["false_thin"] += 1
            if verbose and p.status != "answered":
                print(f"  false {p.status}: {item.group.id} {p.label} ({p.note})")
    for (gid, index) in bid.point_sections:
        gapped = remove_point(bid, gid, index)
        item = next(i for i in review_bid(analysis, gapped.chapters).items if i.group.id == gid)
        status = item.points[index].status
        counts["planted"] += 1
        counts["missing"] += status == "missing"
        counts["flagged"] += status != "answered"
        if verbose and status != "missing":
            print(f"  gap read as {status}: {gid} {item.points[index].label} ({item.points[index].note})")
    complete = submission_checks(analysis, bid.chapters, bid.breakdown, addressed=_addressed(bid))
    counts["complete_blocking"] = sum(1 for f in complete if f.blocking)
    for index, risk in enumerate(bid.breakdown.risks):
        if risk.mark != "★" or index not in bid.clause_sections:
            continue
        gapped = unanswer_clause(bid, index)
        found = submission_checks(analysis, gapped.chapters, gapped.breakdown, addressed=_addressed(gapped))
        counts["clauses"] += 1
        blocked = any(f.blocking and f.rule == "★条款" for f in found)
        counts["clauses_blocked"] += blocked
        if verbose and not blocked:
            print(f"  ★ clause not blocked: {risk.text[:40]}")
    leaked = leak_name(bid, "恒信配送")
    found = submission_checks(analysis, leaked.chapters, leaked.breakdown, anonymous=True, bidder=BIDDER)
    counts["leaks"] += 1
    counts["leaks_found"] += any(f.blocking and f.rule == "暗标" for f in found)
    return counts


def speed(path: Path, sections: int = 300, chars: int = 1000) -> tuple[int, int, float]:
    """Sections, characters and seconds to review a bid of about ``sections`` sections of about
    ``chars`` characters each, and find its ★/▲ clauses in the text (no model)."""
    analysis, risks = tender_analysis(path)
    bid = complete_bid(analysis, risks)
    have = sum(1 for c in bid.chapters for _ in [c, *c.children])
    bid = complete_bid(analysis, risks, filler_sections=max(0, sections - have))
    for chapter in bid.chapters:
        for section in chapter.children:
            section.content = section.content * max(1, chars // max(1, len(section.content)))
    total = sum(1 for c in bid.chapters for _ in [c, *c.children])
    text = sum(len(s.content) for c in bid.chapters for s in c.children)
    started = time.perf_counter()
    review_bid(analysis, bid.chapters)
    clause_coverage(bid.breakdown, bid.chapters)
    return total, text, time.perf_counter() - started


def prepared_bids(paths: list[Path]) -> list[tuple[Any, Any]]:
    """(analysis, chapters) of the complete bid of each tender with technical items."""
    out = []
    for path in paths:
        analysis, risks = tender_analysis(path)
        if analysis.technical_groups:
            out.append((analysis, complete_bid(analysis, risks).chapters))
    return out


async def model_quotes(bids: list[tuple[Any, Any]], base_url: str, model: str, per_tender: int) -> Any:
    """Ask closed questions for the points of each complete bid; count rejected quotes."""
    from app.llm.client.llm_client import EndpointConfig, LLMClient
    from app.pipeline.evaluation.questions import QuestionStats, ask_points

    stats = QuestionStats()
    async with LLMClient(EndpointConfig(base_url=base_url, api_key="none", model=model, timeout=120.0)) as client:
        for analysis, chapters in bids:
            review = review_bid(analysis, chapters)
            await ask_points(client, review, chapters, limit=per_tender, stats=stats, only_gaps=False)
    print(f"closed questions: asked {stats.asked}, valid answers {stats.valid}, kept {stats.kept}, "
          f"rejected (quote not in passage) {stats.quote_rejected}, no valid answer {stats.failed}")
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default=str(REPO.parent / "shared" / "tenders"))
    parser.add_argument("--base-url", default="")
    parser.add_argument("--model", default="")
    parser.add_argument("--questions", type=int, default=6, help="points asked per tender with a model")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    folder = Path(args.dir)
    paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".pdf", ".docx"))
    totals: dict[str, int] = {}
    used: list[Path] = []
    for path in paths:
        counts = evaluate_tender(path, args.verbose)
        if counts is None:
            continue
        used.append(path)
        print(f"{path.name}: {counts}")
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
    n = max(1, totals.get("points", 0))
    planted = max(1, totals.get("planted", 0))
    print(f"\ntenders {len(used)}; points {totals.get('points', 0)}")
    print(f"false missing on complete bids: {totals.get('false_missing', 0)} ({totals.get('false_missing', 0) / n:.1%}); "
          f"false thin: {totals.get('false_thin', 0)} ({totals.get('false_thin', 0) / n:.1%})")
    print(f"planted gaps: {totals.get('planted', 0)}; read as missing {totals.get('missing', 0)} "
          f"({totals.get('missing', 0) / planted:.1%}); flagged (missing or thin) {totals.get('flagged', 0)} "
          f"({totals.get('flagged', 0) / planted:.1%})")
    print(f"★ clauses unanswered: {totals.get('clauses', 0)}; blocked {totals.get('clauses_blocked', 0)}; "
          f"blocking findings on complete bids: {totals.get('complete_blocking', 0)}")
    print(f"leaked names: {totals.get('leaks', 0)}; found {totals.get('leaks_found', 0)}")
    if used:
        sections, chars, seconds = speed(max(used, key=lambda p: p.stat().st_size))
        print(f"speed: {sections} sections ({chars} characters) reviewed and ★/▲ clauses matched in {seconds:.3f} s "
              "(no model)")
    if args.base_url and args.model:
        asyncio.run(model_quotes(prepared_bids(used), args.base_url, args.model, args.questions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What a weak or broken model's user gets: outlines code fills alone, on every shared tender.

    python tests/eval/code_only.py ../shared/tenders --out /tmp/code-only [--only NAME …] [--sample 30] [--depth 3]
    python tests/eval/code_only.py ../shared/tenders --out DIR --eval-only     # judge outlines already in DIR
    python tests/eval/code_only.py ../shared/tenders --out DIR --no-eval       # only generate (another checkout)

The model is the project's loopback server (``tests/openai_server.py``) answering every call with
the same unusable sentence, so the run's breaker stops asking it and code fills every chapter from
the tender and the heading library — the app's own path (``ingest`` → ``analyze_tender`` →
``generate_outline`` with default settings), as ``bidstudio-cli outline`` runs it. Each tender's
outline, analysis and report are written to ``--out``; then ``tests/eval/outline_quality.py``
judges every outline against its tender:

- ``valid``: the run's own verdict (target: every readable tender);
- ``refused``: code headings the app's own heading rules refuse when a model writes them (target 0);
- ``fragments`` / ``misfits``: what the quality script finds (pieces of sentences; headings of
  another trade than the tender's);
- ``deeper than N``: headings below the depth asked (``--depth``, default 3; target 0);
- ``points``: the share of the scoring items' criteria points that a heading (or the description
  under it) answers, by the 评审模拟 engine's matching (target ≥ 90% on every tender), and the lowest item.

``--sample N`` prints N code headings drawn at random (``--seed``) with their chapter and parent,
for a person to read and judge. Exit code 0 when every target is met.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

GARBAGE = "我不太明白你的意思，请再说一遍。"
SUFFIXES = {".pdf", ".docx", ".doc", ".wps", ".txt"}


def tenders_of(folder: Path, only: list[str]) -> list[Path]:
    """Every labelled tender in ``folder`` (labels.json), or every tender file when there are no labels."""
    labels = folder / "labels.json"
    names = sorted(json.loads(labels.read_text(encoding="utf-8"))) if labels.is_file() else sorted(
        p.name for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
    out = [folder / n for n in names if (folder / n).is_file()]
    return [p for p in out if not only or any(o in p.name for o in only)]


async def generate_one(tender: Path, out: Path, base_url: str, depth: int = 3) -> dict[str, Any]:
    """One code-only run of ``tender``: outline, analysis and report written to ``out``; the row."""
    from app.cli.common import ingest
    from app.core.limits import OutlineLimits
    from app.documents.model import DiagnosticCode
    from app.llm.client.llm_client import EndpointConfig, LLMClient
    from app.llm.client.response_format import FormatRegistry
    from app.pipeline.analysis.tender import analyze_tender
    from app.pipeline.outline.job import OutlineSettings
    from app.pipeline.outline.run import generate_outline

    started = time.monotonic()
    stem = tender.stem
    try:
        doc, scoring, _ = ingest(str(tender))
    except Exception as exc:  # an unreadable tender is a row, not a crash of the benchmark
        return {"tender": tender.name, "status": f"unreadable: {type(exc).__name__}"}
    if any(d.code == DiagnosticCode.NO_READABLE_TEXT for d in doc.diagnostics):
        return {"tender": tender.name, "status": "unreadable: no text layer"}
    cfg = EndpointConfig(base_url=base_url, api_key="k", model="garbage", backoff_base=0.01, backoff_max=0.02,
                         max_retries=1, timeout=10.0)
    async with LLMClient(cfg, formats=FormatRegistry()) as client:
        analysis = await analyze_tender(client, doc, scoring=scoring)
        res = await generate_outline(client, analysis, OutlineSettings(limits=OutlineLimits(depth=depth)))
    (out / f"{stem}.outline.json").write_text(json.dumps(res.document().model_dump(mode="json"), ensure_ascii=False,
                                                         indent=1), encoding="utf-8")
    (out / f"{stem}.analysis.json").write_text(analysis.model_dump_json(indent=1), encoding="utf-8")
    report = res.report()
    report["seconds"] = round(time.monotonic() - started, 1)
    (out / f"{stem}.report.json").write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return {"tender": tender.name, "status": "ok", "valid": res.valid, "seconds": report["seconds"]}


def generate(tenders: list[Path], out: Path, depth: int = 3) -> None:
    """Generate every tender's code-only outline against the garbage server."""
    from tests.openai_server import OpenAIServer, Reply

    with OpenAIServer() as server:
        server.default = Reply.text(GARBAGE)
        for t in tenders:
            row = asyncio.run(generate_one(t, out, server.base_url, depth))
            (out / f"{t.stem}.status.json").write_text(json.dumps(row, ensure_ascii=False), encoding="utf-8")
            print(f"generated {t.name}: {row.get('status')} valid={row.get('valid')} {row.get('seconds', '')}s",
                  flush=True)


def _misfit_note(misfit: str | None) -> str:
    """A misfit as printed: of another trade, or placed under a heading no library section puts it under."""
    if not misfit:
        return ""
    return ("位置不当：" if misfit.startswith("标题库") else "另一行业：") + misfit


def too_deep(chapters: list[Any], depth: int) -> int:
    """Headings below the depth asked (a chapter is level 1)."""
    return sum(1 for ch in chapters for path, _ in ch.walk() if len(path) + 1 > depth)


def evaluate(tenders: list[Path], out: Path, sample: int, seed: int, depth: int = 3) -> bool:
    """Judge every outline in ``out`` against its analysis; print the table and the sample."""
    from app.core.analysis import Analysis
    from tests.eval.outline_quality import code_headings, judge, load_outline, print_table

    rows: list[dict[str, object]] = []
    pool: list[tuple[str, str]] = []
    ok = True
    totals = {"code": 0, "refused": 0, "fragments": 0, "misfits": 0, "deep": 0}
    for t in tenders:
        status_path = out / f"{t.stem}.status.json"
        status = json.loads(status_path.read_text(encoding="utf-8")) if status_path.is_file() else {}
        outline_path = out / f"{t.stem}.outline.json"
        if not outline_path.is_file():
            rows.append({"tender": t.stem[:34], "valid": status.get("status", "missing")})
            continue
        report = json.loads((out / f"{t.stem}.report.json").read_text(encoding="utf-8"))
        analysis = Analysis.model_validate_json((out / f"{t.stem}.analysis.json").read_text(encoding="utf-8"))
        chapters = load_outline(outline_path)
        verdict = judge(chapters, analysis, t.stem)
        code = code_headings(verdict)
        refused = [h for h in code if h.refused]
        fragments = [h for h in code if h.fragment]
        misfits = [h for h in code if h.misfit]
        totals["code"] += len(code)
        totals["refused"] += len(refused)
        totals["fragments"] += len(fragments)
        totals["misfits"] += len(misfits)
        deep = too_deep(chapters, depth)
        totals["deep"] += deep
        cov = verdict.coverage
        low = verdict.lowest_share
        valid = bool(report.get("valid"))
        ok &= valid and not refused and not deep and verdict.points_share >= 0.9
        rows.append({"tender": t.stem[:34], "valid": "yes" if valid else "NO", "chapters": len(chapters),
                     "code": len(code), "refused": len(refused), "fragments": len(fragments), "misfits": len(misfits),
                     f"deeper than {depth}": deep, "points": (f"{verdict.points_covered}/{verdict.points_total} ({verdict.points_share:.0%})"
                                if cov else "-"),
                     "lowest item": f"{low:.0%}" if cov else "-"})
        for h in code:
            pool.append((t.stem, h.line()))
        for h in [*refused, *fragments, *misfits][:12]:
            print(f"  {t.stem}: {h.line()}  ⚠ {h.refused or h.fragment or _misfit_note(h.misfit)}")
    print_table(rows)
    print(f"# code headings {totals['code']}; refused by the app's rules {totals['refused']}; "
          f"fragments {totals['fragments']}; misfits {totals['misfits']}; deeper than {depth}: {totals['deep']}; "
          f"valid {sum(1 for r in rows if r.get('valid') == 'yes')}/{sum(1 for r in rows if r.get('valid') in ('yes', 'NO'))}")
    if sample:
        rng = random.Random(seed)
        print(f"\n== {sample} code headings drawn at random (seed {seed}) — read and judge each")
        for i, (stem, line) in enumerate(rng.sample(pool, min(sample, len(pool))), 1):
            print(f"{i:>2}. [{stem}] {line}")
    return ok


def main(argv: list[str] | None = None) -> int:
    """Generate (unless ``--eval-only``) and judge (unless ``--no-eval``); exit 0 when the targets are met."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("folder", type=Path, help="folder of tenders (../shared/tenders)")
    p.add_argument("--out", type=Path, default=Path("/tmp/bidstudio-code-only"))
    p.add_argument("--only", nargs="*", default=[], help="file names containing these words")
    p.add_argument("--eval-only", action="store_true", help="judge the outlines already in --out")
    p.add_argument("--no-eval", action="store_true", help="only generate")
    p.add_argument("--sample", type=int, default=0, help="print this many code headings drawn at random")
    p.add_argument("--seed", type=int, default=38)
    p.add_argument("--depth", type=int, default=3, help="the outline depth asked (the app's default is 3)")
    args = p.parse_args(argv)
    logging.disable(logging.WARNING)
    tenders = tenders_of(args.folder, args.only)
    if not tenders:
        print(f"no tenders in {args.folder}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.eval_only:
        generate(tenders, args.out, args.depth)
    if args.no_eval:
        return 0
    return 0 if evaluate(tenders, args.out, args.sample, args.seed, args.depth) else 1


if __name__ == "__main__":
    sys.exit(main())

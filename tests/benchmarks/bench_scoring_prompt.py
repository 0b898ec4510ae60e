"""How large the scoring-extraction prompt is on the real tenders, and whether it fits a context.

For each tender of ``../shared/tenders`` whose scoring table code reads: the prompt the
scoring call sends now (the tables as rows, fitted by :mod:`app.pipeline.analysis.scoring_prompt`)
against the located pages it used to send, both in the client's token estimate, and the
answer budget left at the given context size. No model is called: the client only measures.
Usage::

    python tests/benchmarks/bench_scoring_prompt.py [--context 8192]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from app.core.resources import load_prompt  # noqa: E402
from app.documents.loader import load_tender  # noqa: E402
from app.documents.locate import chars_for_context, locate_sections, section_text  # noqa: E402
from app.documents.scoring.table import parse_scoring  # noqa: E402
from app.llm.client.completion import EndpointConfig  # noqa: E402
from app.llm.client.llm_client import LLMClient  # noqa: E402
from app.pipeline.analysis.scoring_groups import scoring_items, scoring_tables  # noqa: E402
from app.pipeline.analysis.scoring_prompt import fit_scoring_prompt  # noqa: E402
from app.pipeline.outline.job import user_messages  # noqa: E402

TENDERS = REPO.parent / "shared" / "tenders"


def main() -> int:
    """Print one line per tender and a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", type=int, default=8192)
    args = parser.parse_args()
    if not TENDERS.is_dir():
        print("../shared/tenders is not present")
        return 0
    client = LLMClient(EndpointConfig(base_url="http://127.0.0.1:9/v1", api_key="k", model="m",
                                      context_size=args.context))
    print(f"context {args.context}; tokens as the client estimates them")
    print(f"{'tender':42} {'pages(old)':>10} {'+1500':>6} {'tables(new)':>11} {'answer':>6}  sent")
    over_old = over_new = 0
    for path in sorted(p for p in TENDERS.iterdir() if p.suffix in (".pdf", ".docx")):
        try:
            doc = load_tender(path)
        except Exception as exc:  # a tender the reader refuses is not this benchmark's concern
            print(f"{path.name[:42]:42} unreadable: {type(exc).__name__}")
            continue
        scoring = parse_scoring(doc)
        sections = locate_sections(doc, scoring)
        budget = max(1500, min(12000, chars_for_context(args.context, reserve_tokens=2500, chars_per_token=1.0)))
        old_text = section_text(doc, sections.scoring, budget)
        if not old_text:
            continue
        old_prompt = load_prompt("analysis_scoring").format_map({"text": old_text, "table_hint": ""})
        old = client.estimate_prompt_tokens(user_messages(old_prompt))
        technical = [g for g in scoring_items(scoring_tables(scoring)) if g.category == "technical"]
        asked = fit_scoring_prompt(client, doc, scoring, sections.scoring, technical)
        over_old += old + 1500 > args.context
        over_new += bool(asked.messages) and asked.prompt_tokens + asked.max_tokens > args.context
        sent = asked.source or "not sent"
        print(f"{path.name[:42]:42} {old:>10} {'over' if old + 1500 > args.context else 'ok':>6} "
              f"{asked.prompt_tokens:>11} {asked.max_tokens:>6}  {sent}{'; ' + asked.note_zh[:40] if asked.note_zh else ''}")
    print(f"over the context with the old prompt + 1500: {over_old}; with the fitted prompt: {over_new}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

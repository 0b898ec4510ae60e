"""Figures for the requirement breakdown on the real tenders in ../shared/tenders.

Without ``--base-url``: the model-free part only — located requirement pages, ★/▲ and
phrase clauses found, chunks, and the time of the clause finder. With ``--base-url``
(e.g. Gemma 3 270M on llama.cpp) the whole breakdown runs on one tender and the
outcome (status, item counts, calls, tokens, seconds) is printed. Prints; asserts nothing.

    python -m tests.benchmarks.bench_breakdown
    python -m tests.benchmarks.bench_breakdown --base-url http://127.0.0.1:8091/v1 --model gemma3-270m \
        --tender yangjiang-tax-canteen.pdf --max-pages 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from app.documents.clauses import count_marks, find_clauses
from app.documents.errors import DocumentError
from app.documents.loader import load_tender
from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.pipeline.analysis.breakdown import requirement_input, run_breakdown
from app.pipeline.analysis.breakdown_input import assess_input, split_into_chunks

TENDERS = Path(__file__).resolve().parents[3] / "shared" / "tenders"


def model_free() -> None:
    """Print what code alone finds in every tender."""
    print(f"{'tender':34} {'req pages':>10} {'★':>3} {'▲':>3} {'phr':>4} {'chunks':>6} {'find ms':>8}  input check")
    for path in sorted(TENDERS.glob("*")):
        if path.suffix.lower() not in (".pdf", ".docx"):
            continue
        try:
            doc = load_tender(str(path))
        except DocumentError as exc:
            print(f"{path.name:34} {exc.message_zh}")
            continue
        pages, heads = requirement_input(doc)
        t0 = time.perf_counter()
        counts = count_marks(find_clauses(pages))
        ms = (time.perf_counter() - t0) * 1000
        span = f"{pages[0].page}-{pages[-1].page}" if pages else "-"
        chunks = len(split_into_chunks(pages, 8192 - 2048 - 1600, heads)) if pages else 0
        check = assess_input(pages) or "ok"
        print(f"{path.name:34} {span:>10} {counts['★']:3d} {counts['▲']:3d} {counts['phrase']:4d} {chunks:6d} "
              f"{ms:8.1f}  {check[:40]}")


async def with_model(args: argparse.Namespace) -> None:
    """Run the whole breakdown on one tender against a real endpoint."""
    doc = load_tender(str(TENDERS / args.tender))
    pages, heads = requirement_input(doc)
    if args.max_pages:
        pages = pages[: args.max_pages]
    cfg = EndpointConfig(base_url=args.base_url, api_key="none", model=args.model, max_tokens=args.max_tokens,
                         context_size=args.context_size, timeout=args.timeout, max_retries=1)
    t0 = time.monotonic()
    async with LLMClient(cfg) as client:
        out = await run_breakdown(client, pages, headings=heads, max_attempts=args.attempts,
                                  progress=lambda m, f: print(f"  [{time.monotonic() - t0:6.1f}s] {m}", flush=True))
    b = out.breakdown
    print(f"\n{args.tender} pages {pages[0].page}-{pages[-1].page} with {args.model}: {time.monotonic() - t0:.1f} s")
    print(f"status {b.status}; goals {len(b.goals)}, tasks {len(b.tasks)}, risks {len(b.risks)} "
          f"(code {len(b.clause_risks())}); chunks {out.chunks}, failed {out.failed_chunks}, calls {out.calls}, "
          f"tokens {out.prompt_tokens}+{out.completion_tokens}")
    print(json.dumps(b.model_dump(mode="json"), ensure_ascii=False, indent=1)[:3000])


def main() -> None:
    """Parse options and run."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base-url")
    ap.add_argument("--model", default="gemma3-270m")
    ap.add_argument("--tender", default="yangjiang-tax-canteen.pdf")
    ap.add_argument("--max-pages", type=int, default=0)
    ap.add_argument("--max-tokens", type=int, default=700)
    ap.add_argument("--context-size", type=int, default=8192)
    ap.add_argument("--attempts", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args()
    model_free()
    if args.base_url:
        asyncio.run(with_model(args))


if __name__ == "__main__":
    main()

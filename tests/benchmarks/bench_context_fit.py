"""Whether the analysis and breakdown requests fit a small context on the real tenders.

For each tender of ``../shared/tenders``: the tender analysis (overview and scoring calls)
and the requirement breakdown run against the loopback OpenAI server
(``tests/openai_server.py``) with the given context size; every request the server receives
is measured — prompt (the client's estimate) plus the answer budget it asks for — and the
largest is printed with the number of requests over the context. Answers are minimal stubs
(the server only records). Usage::

    python tests/benchmarks/bench_context_fit.py [--context 4096] [--limit 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from app.documents.loader import load_tender  # noqa: E402
from app.llm.client.completion import EndpointConfig, estimate_tokens  # noqa: E402
from app.llm.client.llm_client import LLMClient  # noqa: E402
from app.llm.client.response_format import FormatRegistry  # noqa: E402
from app.pipeline.analysis.breakdown import run_document_breakdown  # noqa: E402
from app.pipeline.analysis.tender import analyze_tender  # noqa: E402
from tests.openai_server import OpenAIServer, RecordedRequest, Reply  # noqa: E402

TENDERS = REPO.parent / "shared" / "tenders"
STUB = {"project_name": "项目", "groups": [], "status": "executable", "background": "为采购人提供服务。",
        "goals": [], "tasks": [{"text": "按要求提供服务"}], "risks": []}


def _stub(_req: RecordedRequest) -> Reply:
    return Reply.text(json.dumps(STUB, ensure_ascii=False))


def _size(req: RecordedRequest) -> int:
    prompt = sum(estimate_tokens(str(m.get("content") or "")) + 4 for m in req.messages)
    return prompt + int(req.body.get("max_tokens") or 0)


async def _one(server: OpenAIServer, path: Path, context: int) -> tuple[int, int, int] | None:
    try:
        doc = load_tender(path)
    except Exception:  # a tender the reader refuses is not this benchmark's concern
        return None
    if not doc.has_readable_text:
        return None
    start = len(server.completion_requests)
    cfg = EndpointConfig(base_url=server.base_url, api_key="k", model="m", context_size=context, max_tokens=2048,
                         max_retries=0, backoff_base=0.01, timeout=30.0)
    async with LLMClient(cfg, formats=FormatRegistry()) as client:
        await analyze_tender(client, doc, model_groups=True, json_attempts=1)
        await run_document_breakdown(client, doc, max_attempts=1)
    sizes = [_size(r) for r in server.completion_requests[start:]]
    return len(sizes), max(sizes, default=0), sum(s > context for s in sizes)


def main() -> int:
    """Print one line per tender and a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--limit", type=int, default=0, help="only the first N tenders")
    args = parser.parse_args()
    if not TENDERS.is_dir():
        print("../shared/tenders is not present")
        return 0
    paths = sorted(p for p in TENDERS.iterdir() if p.suffix in (".pdf", ".docx"))
    paths = paths[: args.limit] if args.limit else paths
    print(f"context {args.context}; prompt + max_tokens as the client estimates them")
    print(f"{'tender':42} {'requests':>8} {'largest':>8} {'over':>5}")
    total = over = 0
    with OpenAIServer() as server:
        server.handler = _stub
        for path in paths:
            got = asyncio.run(_one(server, path, args.context))
            if got is None:
                print(f"{path.name[:42]:42} skipped (unreadable)")
                continue
            n, largest, bad = got
            total += n
            over += bad
            print(f"{path.name[:42]:42} {n:>8} {largest:>8} {bad:>5}")
    print(f"requests: {total}; over the context {args.context}: {over}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

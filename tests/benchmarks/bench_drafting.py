"""Draft one chapter against a real OpenAI-compatible server and print timing per section.

Usage (e.g. Gemma 3 270M on llama.cpp, see ../shared/llm/README.md)::

    python -m tests.benchmarks.bench_drafting --base-url http://127.0.0.1:8091/v1 --model gemma3-270m \
        --max-tokens 400 --target-chars 300

Prints one line per section (status, seconds, characters, continuations, tokens) and any
near-duplicate warnings. A script, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.core.drafting_state import SectionDraft
from app.core.outline import Outline, OutlineNode
from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.pipeline.drafting.context import section_requests
from app.pipeline.drafting.engine import DraftingEngine

CHAPTER = OutlineNode(id="1", title="食品配送服务方案", source_requirement_id="R1", children=[
    OutlineNode(id="1.1", title="配送组织与时效", children=[
        OutlineNode(id="1.1.1", title="配送时间安排", description="每日送达时间、节假日安排"),
        OutlineNode(id="1.1.2", title="配送车辆与冷链", description="冷藏车、温度记录、消毒"),
    ]),
    OutlineNode(id="1.2", title="食品质量保障", children=[
        OutlineNode(id="1.2.1", title="食品来源追溯", description="供应商资质、检验检疫票证"),
        OutlineNode(id="1.2.2", title="应急补货处理", description="一小时内补货、不合格退换"),
    ]),
])
ANALYSIS = Analysis(
    overview=ProjectOverview(project_name="税务局食堂食品配送服务采购项目", buyer="国家税务总局某税务局",
                             summary="为单位食堂提供粮油、肉禽蛋、蔬菜、水果等食品配送服务", service_period="一年"),
    groups=[ScoringGroup(id="R1", title="配送方案", points=10,
                         detail_points=["配送时间、车辆安排合理", "食品来源可追溯", "应急方案完整可行"])],
)


async def main() -> None:
    """Run the benchmark with the command-line settings."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base-url", default="http://127.0.0.1:8091/v1")
    ap.add_argument("--model", default="gemma3-270m")
    ap.add_argument("--api-key", default="none")
    ap.add_argument("--max-tokens", type=int, default=400)
    ap.add_argument("--target-chars", type=int, default=300)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--max-continuations", type=int, default=1)
    args = ap.parse_args()
    cfg = EndpointConfig(base_url=args.base_url, api_key=args.api_key, model=args.model, max_tokens=args.max_tokens,
                         timeout=args.timeout, concurrency=args.concurrency, max_retries=1)
    requests = section_requests(Outline([CHAPTER]), ANALYSIS, target_chars=args.target_chars)
    first_piece: dict[str, float] = {}
    started: dict[str, float] = {}
    t0 = time.monotonic()

    def on_delta(key: str, piece: str) -> None:
        first_piece.setdefault(key, time.monotonic() - started.get(key, t0))

    def on_state(d: SectionDraft) -> None:
        if d.status == "writing":
            started.setdefault(d.key, time.monotonic())
        print(f"  [{time.monotonic() - t0:7.1f}s] {d.key} {d.status}", flush=True)

    async with LLMClient(cfg) as client:
        engine = DraftingEngine(client, concurrency=args.concurrency, on_delta=on_delta, on_state=on_state,
                                max_continuations=args.max_continuations)
        state = await engine.run(requests)
    total = time.monotonic() - t0
    print(f"\nmodel {args.model} at {args.base_url}, max_tokens {args.max_tokens}, target {args.target_chars} chars,"
          f" concurrency {engine.limit}, max continuations {args.max_continuations}")
    print(f"{'section':8} {'status':9} {'seconds':>8} {'ttft':>7} {'chars':>6} {'cont':>4} {'p_tok':>6} {'c_tok':>6}  note")
    for key, d in state.sections.items():
        print(f"{key:8} {d.status:9} {d.elapsed_s:8.1f} {first_piece.get(key, float('nan')):7.1f} {len(d.text):6d} "
              f"{d.continuations:4d} {d.prompt_tokens:6d} {d.completion_tokens:6d}  {d.error[:60]}")
    print(f"total {total:.1f} s")
    for w in engine.warnings:
        print("duplicate:", w.message_zh)
    for key, d in state.sections.items():
        print(f"\n--- {key} {d.title} ---\n{d.text[:400]}")


if __name__ == "__main__":
    asyncio.run(main())

"""collect_json on the broken-output corpus: outcome counts and per-call overhead.

Run: ``python tests/benchmarks/bench_collect_json.py [rounds]``. Every corpus answer is
played by the local OpenAI-compatible test server (real socket, real ``openai`` client);
where the manifest says so the server then plays a valid repair. Prints how many answers
were fixed locally, needed a model repair, or ended in a structured failure, then the
overhead of collect_json excluding the network, measured two ways:

* in-process: ``evaluate_output`` (extract → parse → local repair → normalise → validate →
  rules) timed directly on each corpus answer, no client at all;
* end to end: wall time of ``collect_json`` minus the time spent inside ``client.complete``
  (``CollectResult.model_time_s``), divided by the number of model calls.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.outline import OutlineDocument
from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.llm.client.response_format import FormatRegistry
from app.llm.json.collect import collect_json, evaluate_output
from tests.corpus_cases import MESSAGES, NORMALIZERS, load_cases, rules_for, script_server
from tests.openai_server import OpenAIServer


async def run(rounds: int) -> None:
    cases = load_cases()
    outcome: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    mismatches: list[str] = []
    overhead_per_call: list[float] = []
    calls_total = 0
    with OpenAIServer() as server:
        for r in range(rounds):
            for case in cases:
                server.requests.clear()
                script_server(server, case)
                client = LLMClient(EndpointConfig(base_url=server.base_url, api_key="bench", model="bench-model",
                                                  backoff_base=0.01), formats=FormatRegistry())
                t0 = time.perf_counter()
                res = await collect_json(client, MESSAGES, OutlineDocument, rules=rules_for(case),
                                         normalizers=NORMALIZERS, max_attempts=3, stage="bench")
                wall = time.perf_counter() - t0
                await client.aclose()
                overhead_per_call.append((wall - res.model_time_s) / max(1, res.attempts))
                calls_total += res.attempts
                if r:
                    continue
                label = ("fixed locally" if res.ok and res.model_repairs == 0 else
                         "needed model repair" if res.ok else "failed (structured)")
                outcome[label] += 1
                by_kind.setdefault(case.kind, Counter())[label] += 1
                expected = {"local": "fixed locally", "model_repair": "needed model repair",
                            "fail": "failed (structured)"}[case.expect]
                if label != expected:
                    mismatches.append(f"{case.name}: expected {expected}, got {label}")

    evals: list[float] = []
    for case in cases:
        truncated = case.finish == "length"
        reps = 20
        t0 = time.perf_counter()
        for _ in range(reps):
            evaluate_output(case.text, OutlineDocument, rules_for(case), truncated=truncated, normalizers=NORMALIZERS)
        evals.append((time.perf_counter() - t0) / reps)

    print(f"corpus: {len(cases)} broken outputs (tests/corpus/broken_outputs)")
    for label in ("fixed locally", "needed model repair", "failed (structured)"):
        print(f"  {label:22s} {outcome[label]:3d}")
    print("  by kind:")
    for kind in sorted(by_kind):
        print(f"    {kind:12s} " + ", ".join(f"{k}: {v}" for k, v in sorted(by_kind[kind].items())))
    print(f"  differing from manifest: {len(mismatches)}")
    for m in mismatches:
        print("    " + m)
    ms = [x * 1000 for x in evals]
    print(f"in-process evaluate_output per answer: mean {statistics.mean(ms):.3f} ms, "
          f"median {statistics.median(ms):.3f} ms, max {max(ms):.3f} ms")
    oh = sorted(x * 1000 for x in overhead_per_call)
    print(f"collect_json overhead per model call excluding client.complete "
          f"({rounds} rounds, {calls_total} calls): mean {statistics.mean(oh):.3f} ms, "
          f"median {statistics.median(oh):.3f} ms, p95 {oh[int(len(oh) * 0.95) - 1]:.3f} ms")


def main() -> None:
    """Entry point: optional number of rounds (default 5)."""
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    logging.basicConfig(level=logging.ERROR)  # the corpus is meant to trigger warnings
    asyncio.run(run(rounds))


if __name__ == "__main__":
    main()

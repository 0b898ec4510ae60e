"""Throughput of the instruction stream: parse, parse + validate + apply (no UI).

Run: ``python tests/benchmarks/bench_instructions.py [documents] [repeats]``. Each document is a
realistic stream (thinking lines between instructions; 12 chapters x 6 sections x 4
points appended, then a description set on every node, then ``done``) applied to a fresh
:class:`Outline` with one listener attached, as the UI adapter would be.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.outline import Outline
from app.core.stream_events import Instruction, InstructionRejected, MalformedInstruction
from app.llm.instructions.apply import InstructionApplier
from app.llm.instructions.stream import InstructionParser


def document_stream(chapters: int = 12, sections: int = 6, points: int = 4) -> tuple[str, int]:
    """One document's stream text and its instruction count."""
    lines: list[str] = []
    n = 0

    def add(obj: dict[str, object]) -> None:
        nonlocal n
        lines.append(json.dumps(obj, ensure_ascii=False))
        n += 1

    for i in range(chapters):
        lines.append(f"第 {i + 1} 章围绕评分项 R{i + 1} 展开，先写总体思路，再写保障措施。")
        add({"op": "append", "path": "/outline", "value": {"title": f"技术方案第{i}部分", "description": "总体思路与目标"}})
        for j in range(sections):
            add({"op": "append", "path": f"/outline/{i}/children", "value": {"title": f"技术措施{i}-{j}"}})
            for k in range(points):
                add({"op": "append", "path": f"/outline/{i}/children/{j}/children",
                     "value": {"title": f"措施{i}-{j}细则{k}", "description": "具体做法、责任人与检查方式"}})
    for i in range(chapters):
        add({"op": "set", "path": f"/outline/{i}/description", "value": f"本章说明第{i}部分的实施方法、组织与质量保证"})
        for j in range(sections):
            add({"op": "set", "path": f"$.outline[{i}].children[{j}].description", "value": "本节写清做法与标准"})
    add({"op": "done"})
    return "\n".join(lines) + "\n", n


def _timed(fn: Callable[[], int], repeats: int) -> tuple[list[float], list[float], int]:
    """Wall and CPU seconds of each of ``repeats`` runs of ``fn``, and what the last returned.

    Like ``timeit``, the best run is the figure for the code (the others carry the machine's
    noise: other processes, a busy neighbour on the host); the median is printed beside it.
    """
    walls, cpus, out = [], [], 0
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return walls, cpus, out


def bench(documents: int, repeats: int = 5) -> None:
    """Print instructions per second (wall clock and CPU time) for each stage: best and median of ``repeats``."""
    text, per_doc = document_stream()
    total = per_doc * documents
    chunks = [text[i:i + 16] for i in range(0, len(text), 16)]
    instructions = [e for e in InstructionParser().feed(text) if isinstance(e, Instruction)]
    print(f"stream: {per_doc} instructions, {len(text)} characters per document; {documents} documents")

    def parse_whole() -> int:
        for _ in range(documents):
            p = InstructionParser()
            p.feed(text)
            p.close()
        return 0

    def parse_chunks() -> int:
        for _ in range(documents):
            p = InstructionParser()
            for c in chunks:
                p.feed(c)
            p.close()
        return 0

    def apply_only() -> int:
        rejected = 0
        for _ in range(documents):
            outline = Outline()
            outline.subscribe(lambda phase, ev: None)
            applier = InstructionApplier(outline)
            for ins in instructions:
                rejected += isinstance(applier.apply(ins), InstructionRejected)
        return rejected

    def everything() -> int:
        rejected = 0
        for _ in range(documents):
            outline = Outline()
            outline.subscribe(lambda phase, ev: None)
            applier = InstructionApplier(outline)
            p = InstructionParser()
            for c in chunks:
                for ev in p.feed(c):
                    if isinstance(ev, Instruction):
                        rejected += isinstance(applier.apply(ev), InstructionRejected)
                    elif isinstance(ev, MalformedInstruction):
                        rejected += 1
            p.close()
        return rejected

    for label, fn in (("parse only (whole text)", parse_whole), ("parse only (16-char chunks)", parse_chunks),
                      ("validate + apply", apply_only), ("parse + validate + apply (16-char chunks)", everything)):
        walls, cpus, rejected = _timed(fn, repeats)
        note = f"  rejected: {rejected}" if fn in (apply_only, everything) else ""
        print(f"{label:42s}: best {total / min(walls):10,.0f}/s wall {total / min(cpus):10,.0f}/s CPU; "
              f"median {total / statistics.median(walls):10,.0f}/s wall{note}")
    print(f"load average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    bench(int(sys.argv[1]) if len(sys.argv) > 1 else 20, int(sys.argv[2]) if len(sys.argv) > 2 else 5)

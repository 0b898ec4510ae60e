"""Benchmark: export a 1,000-node outline with 300 characters of text per leaf to .docx.

Run: ``python tests/benchmarks/bench_export.py [--runs N] [--layout]`` (from the repository
root). Prints the time of each run and the median; the target is under 3 s without the
layout pass. ``--layout`` also exports with the 评分索引表, the 技术偏离表 and the LibreOffice
layout pass (real page numbers), target under 10 s, and prints how the time splits between
building, laying out and saving. Not a test: figures only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.core.analysis import Analysis, ScoringGroup
from app.core.breakdown import Breakdown, RiskItem
from app.core.outline import OutlineNode
from app.export import ExportMeta, ExportOptions, build_document, export_docx
from app.export.docx_writer import export_bid

_SENTENCE = (
    "本节围绕招标文件的技术要求，说明系统的设计思路、实施步骤与质量控制措施，确保满足采购人的各项指标要求。"
)


def leaf_text(seed: int) -> str:
    """About 300 characters: two paragraphs, every tenth leaf ends with a three-item list."""
    body = (f"第{seed}节：" + _SENTENCE * 7)[:300]
    half = len(body) // 2
    text = f"{body[:half]}\n{body[half:]}"
    if seed % 10 == 0:
        text += "\n- 第一项措施\n- 第二项措施\n- 第三项措施"
    return text


def big_outline() -> list[OutlineNode]:
    """10 chapters x 9 sections x 10 subsections = 1,000 nodes; 900 leaves carry text."""
    chapters = []
    seed = 0
    for c in range(10):
        sections = []
        for s in range(9):
            leaves = []
            for x in range(10):
                seed += 1
                leaves.append(OutlineNode(title=f"技术措施{c + 1}-{s + 1}-{x + 1}", content=leaf_text(seed)))
            sections.append(
                OutlineNode(title=f"专项方案{c + 1}-{s + 1}", description="说明本节要点", children=leaves)
            )
        chapters.append(OutlineNode(title=f"第{c + 1}部分技术方案", children=sections))
    return chapters


def scoring_and_clauses(chapters: list[OutlineNode]) -> tuple[Analysis, Breakdown]:
    """One scoring item per chapter (one-to-one) and twenty ★/▲ clauses answered by sections."""
    groups = []
    for i, chapter in enumerate(chapters):
        chapter.source_requirement_id = f"R{i + 1}"
        groups.append(ScoringGroup(id=f"R{i + 1}", title=chapter.title, points=10, description=_SENTENCE))
    risks = [RiskItem(text=f"★第{i + 1}项实质性要求：" + _SENTENCE, page=10 + i, origin="code", mark="★",
                      category="rejection", answered_in=f"{i % 10 + 1}.{i % 9 + 1}") for i in range(20)]
    return Analysis(groups=groups), Breakdown(status="executable", risks=risks)


def main(runs: int = 3, layout: bool = False) -> None:
    """Time ``runs`` full exports (build + atomic save) and print the figures."""
    chapters = big_outline()
    nodes = sum(1 + len(c.children) + sum(len(s.children) for s in c.children) for c in chapters)
    chars = sum(
        len(leaf.content.split("\n- ")[0]) - 1 for c in chapters for s in c.children for leaf in s.children
    )
    meta = ExportMeta(project_name="基准测试项目")
    options = ExportOptions(include_descriptions=True)
    times = []
    build_times = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            t0 = time.perf_counter()
            build_document(chapters, meta, options)
            build_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            path = export_docx(chapters, Path(tmp) / f"bench{i}.docx", meta, options)
            times.append(time.perf_counter() - t0)
            size_kb = path.stat().st_size / 1024
    print(f"outline: {nodes} nodes, {chars} characters of leaf text (avg {chars / 900:.0f} per leaf)")
    print(f"build_document (in memory): {', '.join(f'{t:.2f}' for t in build_times)} s")
    print(f"export_docx (build + save): {', '.join(f'{t:.2f}' for t in times)} s; file {size_kb:.0f} KB")
    print(f"median export: {statistics.median(times):.2f} s (target < 3 s)")
    if not layout:
        return
    analysis, breakdown = scoring_and_clauses(chapters)
    laid = ExportOptions(include_descriptions=True, index_table=True, deviation_table=True, layout_pass=True)
    totals, passes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            t0 = time.perf_counter()
            # A kept profile, as the app keeps one: the first run creates it.
            report = export_bid(chapters, Path(tmp) / f"laid{i}.docx", meta, laid, analysis=analysis,
                                breakdown=breakdown, layout_profile=Path(tmp) / "lo-profile")
            totals.append(time.perf_counter() - t0)
            passes.append(report.layout_seconds or 0.0)
            if not report.laid_out:
                print(f"layout pass did not run: {report.summary_zh()}")
                return
    print(f"with index, deviation table and layout pass: {', '.join(f'{t:.2f}' for t in totals)} s "
          f"({report.body_pages} body pages)")
    print(f"  of which LibreOffice layout (save, convert, read pages): {', '.join(f'{t:.2f}' for t in passes)} s")
    print(f"median export with layout: {statistics.median(totals):.2f} s (target < 10 s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--layout", action="store_true", help="also time the LibreOffice layout pass")
    args = parser.parse_args()
    main(args.runs, args.layout)

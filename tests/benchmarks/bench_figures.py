"""Benchmark: draw the three figure kinds and export a bid with ten figures.

Run: ``python tests/benchmarks/bench_figures.py [--runs N] [--no-layout]`` (from the repository
root). Prints, for a 40-box org chart, a 20-step flowchart and a 30-task Gantt chart, the cold
render time at print resolution (300 dpi, cache cleared before each run; target under 1 s
each) and the PNG size; then the export of the sample bid with ten figures (target under
10 s with the LibreOffice layout pass, when installed). Not a test: figures only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.export import ExportOptions
from app.export.docx_writer import export_bid
from app.export.figures.fonts import cjk_font
from app.export.figures.render import clear_cache, render_png
from app.export.layout_pass import find_soffice
from tests.export_sample import sample_chapters, sample_meta
from tests.figure_samples import flow_figure, gantt_figure, org_figure


def _render(runs: int) -> None:
    t0 = time.perf_counter()
    render_png(org_figure(6))  # imports matplotlib and loads the font once
    print(f"first render (font lookup, warm-up): {time.perf_counter() - t0:.2f} s; font: {cjk_font().family}")
    for label, make in (("org chart, 40 boxes", lambda: org_figure(40)), ("flowchart, 20 steps", lambda: flow_figure(20)),
                        ("Gantt, 30 tasks", lambda: gantt_figure(30))):
        figure = make()
        times = []
        size = 0
        for _ in range(runs):
            clear_cache()
            start = time.perf_counter()
            rendered = render_png(figure)
            times.append(time.perf_counter() - start)
            size = len(rendered.png)
        print(f"{label:22s} median {statistics.median(times):.3f} s  max {max(times):.3f} s  "
              f"({rendered.width_in:.1f} x {rendered.height_in:.1f} in, {size / 1024:.0f} KiB PNG)")


def _export(runs: int, layout: bool) -> None:
    chapters = sample_chapters()
    makers = [lambda: org_figure(40), lambda: flow_figure(20), lambda: gantt_figure(30)]
    leaves = [n for c in chapters for _, n in c.walk() if not n.children]
    for i in range(10):
        leaves[i % len(leaves)].figures = [*leaves[i % len(leaves)].figures, makers[i % 3]()]
    soffice = find_soffice() if layout else None
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):
            clear_cache()
            start = time.perf_counter()
            report = export_bid(chapters, Path(tmp) / f"bid{run}.docx", sample_meta(),
                                ExportOptions(layout_pass=soffice is not None), soffice=soffice)
            times.append(time.perf_counter() - start)
            print(f"export with 10 figures, run {run + 1}: {times[-1]:.2f} s  laid out: {report.laid_out}  "
                  f"body pages: {report.body_pages}  layout: {report.layout_seconds or 0:.2f} s  "
                  f"size: {report.path.stat().st_size / 1024:.0f} KiB")
    print(f"export with 10 figures median {statistics.median(times):.2f} s"
          + ("" if soffice else " (no LibreOffice: without the layout pass)"))


def main() -> None:
    """Parse arguments and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-layout", action="store_true")
    args = parser.parse_args()
    _render(args.runs)
    _export(max(1, args.runs - 1), not args.no_layout)


if __name__ == "__main__":
    main()

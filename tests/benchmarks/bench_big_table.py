"""Benchmark: ``bidstudio-cli analyze`` on PDFs made of one huge table (issue 17 row 19).

    python tests/benchmarks/bench_big_table.py [--rows 50000] [--keep DIR]

Generates (once, cached in DIR) two PDFs holding ``--rows`` table rows with a scoring
header: 50 rows per A4 page with the header repeated on every page (1,000 pages), and
~940 rows per very tall page. Runs ``analyze`` on each in a subprocess and prints wall
seconds, CPU seconds, the child's peak RSS and the table-limit diagnostics. Prints
figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pymupdf

REPO = Path(__file__).resolve().parents[2]
# the CLI in a child that reports its own peak RSS (RUSAGE_CHILDREN would give the max over all runs)
_CHILD = (
    "import resource, sys\n"
    "from app.cli import main\n"
    "code = main(['analyze', sys.argv[1], '--json'])\n"
    "print('peak_kb=%d' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "raise SystemExit(code)\n"
)
WIDTHS = [60.0, 120.0, 300.0, 60.0]
ROW_H = 15.0


def make_pdf(path: Path, rows: int, per_page: int) -> None:
    """A PDF of ``rows`` ruled table rows, ``per_page`` per page, the header on every page."""
    doc = pymupdf.open()
    done = 0
    while done < rows:
        n = min(per_page, rows - done)
        lines = [["序号", "评分因素", "评分标准", "分值"]]
        lines += [[str(done + k + 1), f"因素{done + k}", f"评分标准第{done + k}项", "1"] for k in range(n)]
        page = doc.new_page(width=595, height=min(14400.0, max(842.0, 80 + len(lines) * ROW_H)))
        x = 40.0
        for col, width in enumerate(WIDTHS):
            text = "\n".join(r[col] for r in lines)
            page.insert_text((x + 2, 51), text, fontname="china-s", fontsize=8, lineheight=ROW_H / 8)
            x += width
        shape = page.new_shape()
        bottom = 40 + len(lines) * ROW_H
        for r in range(len(lines) + 1):
            shape.draw_line((40, 40 + r * ROW_H), (40 + sum(WIDTHS), 40 + r * ROW_H))
        x = 40.0
        for width in [*WIDTHS, 0.0]:
            shape.draw_line((x, 40), (x, bottom))
            x += width
        shape.finish(color=(0, 0, 0), width=0.5)
        shape.commit()
        done += n
    doc.save(str(path), deflate=True)
    doc.close()


def run_analyze(path: Path) -> dict[str, object]:
    """One ``analyze --json`` run in a child process: seconds, CPU, peak RSS, limit diagnostics."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(path)], cwd=REPO, capture_output=True, text=True,
                          check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(proc.stdout) if proc.returncode == 0 else {}
    peak = proc.stderr.strip().rsplit("peak_kb=", 1)[-1] if "peak_kb=" in proc.stderr else "0"
    limits = [d["message_zh"] for d in report.get("diagnostics", []) if d.get("code") == "tables_limited"]
    return {"exit": proc.returncode, "wall_s": round(wall, 1),
            "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
            "peak_rss_mb": round(int(peak) / 1024, 1), "limits": limits,
            "scoring": report.get("scoring", {}).get("message_zh", proc.stderr[-200:])}


def main() -> int:
    """Generate the files if needed and print one line per file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "bidstudio-bench-big-table")
    args = ap.parse_args()
    args.keep.mkdir(parents=True, exist_ok=True)
    for name, per_page in (("a4", 50), ("tall", 940)):
        path = args.keep / f"table-{args.rows}-{name}.pdf"
        if not path.exists():
            t0 = time.perf_counter()
            make_pdf(path, args.rows, per_page)
            print(f"generated {path.name} in {time.perf_counter() - t0:.1f} s")
        figures = run_analyze(path)
        print(f"{path.name}: exit {figures['exit']}, {figures['wall_s']} s wall, {figures['cpu_s']} s CPU, "
              f"peak RSS {figures['peak_rss_mb']} MB")
        for line in figures["limits"]:  # type: ignore[attr-defined]
            print(f"    {line}")
        print(f"    评分表：{figures['scoring']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

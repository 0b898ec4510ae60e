"""Benchmark: full model-free ingestion of a tender, printed per stage.

    python tests/benchmarks/bench_ingest.py [TENDER ...] [--repeat N]

Default tender: ../shared/tenders/yangjiang-tax-canteen.pdf (111 pages). Stages: PDF text
and page diagnostics, candidate-page table extraction, scoring parse, section location.
Prints figures; asserts nothing (targets are judged by a reader, not by the test suite).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from app.documents.loader import load_tender  # noqa: E402
from app.documents.locate import locate_sections  # noqa: E402
from app.documents.scoring.table import parse_scoring  # noqa: E402

DEFAULT = REPO.parent / "shared" / "tenders" / "yangjiang-tax-canteen.pdf"


def run_once(path: Path) -> dict[str, float]:
    """One full ingestion; returns seconds per stage."""
    t0 = time.perf_counter()
    doc = load_tender(path)
    t1 = time.perf_counter()
    scoring = parse_scoring(doc)
    t2 = time.perf_counter()
    locate_sections(doc, scoring)
    t3 = time.perf_counter()
    stages = {k: v for k, v in doc.timings.items() if k != "load_total"}
    stages["load (all)"] = t1 - t0
    stages["scoring_parse"] = t2 - t1
    stages["locate"] = t3 - t2
    stages["TOTAL"] = t3 - t0
    stages["_pages"] = doc.page_count
    stages["_tables"] = len(doc.tables)
    stages["_rows"] = len(scoring.rows)
    return stages


def main() -> int:
    """Run the benchmark and print a table of median/min seconds per stage."""
    ap = argparse.ArgumentParser()
    ap.add_argument("tenders", nargs="*", type=Path, default=[DEFAULT])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    for path in args.tenders:
        if not path.is_file():
            print(f"skip: {path} not found")
            continue
        runs = [run_once(path) for _ in range(args.repeat)]
        first = runs[0]
        print(f"{path.name}: {int(first['_pages'])} pages, {int(first['_tables'])} candidate tables, "
              f"{int(first['_rows'])} scoring rows; {args.repeat} runs (first run includes imports' warm-up)")
        for key in first:
            if key.startswith("_"):
                continue
            values = [r[key] for r in runs]
            print(f"  {key:<16} median {statistics.median(values) * 1000:8.1f} ms   "
                  f"min {min(values) * 1000:8.1f} ms   first {values[0] * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

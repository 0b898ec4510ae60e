"""Start-up time: process start -> main window shown and painted (target < 2 s here).

Run from the repository root::

    python tests/benchmarks/bench_startup.py [--runs 5]

Each run starts ``python -m app --quit-when-visible`` (offscreen, empty config and data
folders) and takes the time from just before the process is spawned to the wall-clock
moment the app reports its first event-loop turn after ``show()``. Prints the figures;
asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def one_run(env: dict[str, str]) -> tuple[float, float]:
    """(seconds to visible from spawn, seconds from run() entry to visible)."""
    t0 = time.time()
    out = subprocess.run([sys.executable, "-m", "app", "--quit-when-visible"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=60)
    m = re.search(r"visible_at=([\d.]+) started_at=([\d.]+)", out.stdout)
    if not m:
        raise SystemExit(f"app did not report: rc={out.returncode}\n{out.stdout}\n{out.stderr}")
    visible, started = float(m.group(1)), float(m.group(2))
    return visible - t0, visible - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                   BIDSTUDIO_CONFIG_DIR=str(Path(tmp, "config")), BIDSTUDIO_DATA_DIR=str(Path(tmp, "data")),
                   PYTHONDONTWRITEBYTECODE="1")
        one_run(env)  # warm the OS file cache and .pyc files once
        results = [one_run(env) for _ in range(args.runs)]
    total = [r[0] for r in results]
    inner = [r[1] for r in results]
    print(f"platform: {env['QT_QPA_PLATFORM']}, python {sys.version.split()[0]}, runs: {args.runs}")
    print(f"process start -> window visible: median {statistics.median(total):.3f} s, "
          f"min {min(total):.3f} s, max {max(total):.3f} s (target < 2 s)")
    print(f"run() entry -> window visible:   median {statistics.median(inner):.3f} s")


if __name__ == "__main__":
    main()

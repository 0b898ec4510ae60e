"""Two checkouts' GUI benchmarks in one sitting, alternating runs: stream stalls and start-up.

Run from the repository root (the new code), naming a clone of the old one::

    python tests/benchmarks/side_by_side.py --old ../old-clone [--rounds 5] [--skip-startup]

Each round runs this checkout's ``bench_stream_stall.py`` on the old code, then on this one,
then ``bench_startup.py --runs 1`` on each (old first on even rounds, new first on odd ones):
the same scripts on both sides (copied into the old checkout for the run), each with the
checkout's own ``.venv/bin/python`` when it has one, and an empty config and data folder (no
library, no saved layout). Code too old for this checkout's script (modules moved since) runs its
own version of the benchmark instead, and says so. Printed: per round and as medians over the rounds, the
longest GUI-thread stall while 20 chapters stream (target < 50 ms), the median time from a
title's closing quote on the socket to its item in the Qt model (target <= 50 ms), the GUI
thread's CPU time during that run (steadier than the stalls when the machine is shared) and the time
from process start to a visible window, with the load average of each run (a shared machine
shows in it). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

FIGURES = {
    "stall_ms": re.compile(r"GUI-thread stalls over \d+ ticks of \d+ ms: longest ([\d.]+) ms"),
    "latency_ms": re.compile(r"closing quote on the socket -> item in the Qt model, \d+ titles: median ([\d.]+) ms"),
    "gui_cpu_ms": re.compile(r"GUI-thread CPU time during the run: ([\d.]+) ms"),
    "visible_s": re.compile(r"process start -> window visible:\s+median ([\d.]+) s"),
    "visible_cpu_s": re.compile(r"process start -> window visible:.*CPU median ([\d.]+) s"),
    "help_s": re.compile(r"bidstudio-cli --help:\s+median ([\d.]+) s"),
    "analyze_s": re.compile(r"bidstudio-cli analyze small.docx:\s+median ([\d.]+) s"),
}


def python_of(checkout: Path) -> str:
    """The checkout's own virtualenv interpreter, else this one."""
    venv = checkout / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def run(checkout: Path, script: str, *args: str) -> dict[str, float]:
    """One run of this checkout's benchmark ``script`` on ``checkout``'s code: the figures it printed, and
    the load average before it. The script is copied into the other checkout, so both sides run the same
    measurement (an empty data folder, the GUI thread's CPU time) on their own code."""
    source = REPO / "tests" / "benchmarks" / script
    target = checkout / "tests" / "benchmarks" / script
    if checkout != REPO:
        target = target.with_name(f"_side_by_side_{script}")
        shutil.copyfile(source, target)
    try:
        return _run(checkout, target, *args)
    except NoFigures:
        own = checkout / "tests" / "benchmarks" / script
        if checkout == REPO or not own.exists():
            raise
        # code too old for this script (modules since moved): its own version of the benchmark
        print(f"  ({checkout.name}: this {script} does not run on that code; its own {script} instead)", flush=True)
        return _run(checkout, own, *args)
    finally:
        if checkout != REPO:
            target.unlink(missing_ok=True)


class NoFigures(RuntimeError):
    """A benchmark run printed none of the figures looked for."""


def _run(checkout: Path, script: Path, *args: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BIDSTUDIO_CONFIG_DIR=str(Path(tmp, "config")),
                   BIDSTUDIO_DATA_DIR=str(Path(tmp, "data")))
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # .pyc files, as an installed app has them
        load = os.getloadavg()[0]
        out = subprocess.run([python_of(checkout), str(script), *args], cwd=checkout, env=env,
                             capture_output=True, text=True, timeout=900)
    figures = {"load": load}
    for name, pattern in FIGURES.items():
        found = pattern.search(out.stdout)
        if found:
            figures[name] = float(found.group(1))
    if len(figures) == 1:
        raise NoFigures(f"{checkout}: {script} printed no figures\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="a checkout of the code to compare with")
    parser.add_argument("--new", type=Path, default=REPO, help="the new checkout (default: this one)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-startup", action="store_true", help="only the streaming benchmark")
    args = parser.parse_args()
    sides = {"old": args.old.resolve(), "new": args.new.resolve()}
    for label, path in sides.items():
        head = subprocess.run(["git", "-C", str(path), "log", "-1", "--format=%h %s"], capture_output=True, text=True)
        print(f"{label}: {path} at {head.stdout.strip()[:90]}")
    results: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for n in range(args.rounds):
        order = ["old", "new"] if n % 2 == 0 else ["new", "old"]
        for label in order:
            figures = run(sides[label], "bench_stream_stall.py")
            if not args.skip_startup:
                figures.update({k: v for k, v in run(sides[label], "bench_startup.py", "--runs", "1").items()
                                if k != "load"})
            results[label].append(figures)
            shown = ", ".join(f"{k} {v:.3g}" for k, v in figures.items())
            print(f"round {n + 1} {label}: {shown}", flush=True)
    print(f"\nmedians over {args.rounds} rounds (old -> new):")
    for name in ("stall_ms", "latency_ms", "gui_cpu_ms", "visible_s", "visible_cpu_s", "help_s", "analyze_s", "load"):
        old = [r[name] for r in results["old"] if name in r]
        new = [r[name] for r in results["new"] if name in r]
        if old and new:
            print(f"  {name:11s} {statistics.median(old):8.3f} -> {statistics.median(new):8.3f}   "
                  f"(old {min(old):.3f}–{max(old):.3f}, new {min(new):.3f}–{max(new):.3f})")


if __name__ == "__main__":
    main()

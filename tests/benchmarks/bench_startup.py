"""Start-up time of whole processes, median of ``--runs`` (5): the CLI and the window.

Run from the repository root::

    python tests/benchmarks/bench_startup.py [--runs 5]

* ``bidstudio-cli --help`` (target < 0.3 s);
* ``bidstudio-cli analyze small.docx`` on a generated two-page tender with a scoring table
  (target < 0.8 s);
* ``python -m app --quit-when-visible`` (offscreen, empty config and data folders): from
  just before the process is spawned to the wall-clock moment the app reports its first
  event-loop turn after ``show()`` (target < 1 s).

One unmeasured run of each warms the OS file cache and writes the ``.pyc`` files (even where
``PYTHONDONTWRITEBYTECODE`` is set: an installed app has them). Prints the
figures, the processes' CPU time (steadier than wall time when the machine is shared) and
the load average; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
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


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


CPU: dict[str, list[float]] = {}


def timed(command: list[str], env: dict[str, str], label: str = "") -> float:
    """Wall seconds of one whole process (it must succeed); its CPU seconds go to ``CPU[label]``."""
    c0, t0 = _child_cpu(), time.perf_counter()
    out = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    elapsed = time.perf_counter() - t0
    CPU.setdefault(label, []).append(_child_cpu() - c0)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: rc={out.returncode}\n{out.stderr[-2000:]}")
    return elapsed


def cli() -> list[str]:
    """The installed ``bidstudio-cli`` script next to this interpreter (or ``python -m app.cli``)."""
    script = Path(sys.executable).with_name("bidstudio-cli")
    return [str(script)] if script.exists() else [sys.executable, "-m", "app.cli"]


def report(label: str, values: list[float], target: str, cpu: list[float]) -> None:
    print(f"{label:34s} median {statistics.median(values):.3f} s, min {min(values):.3f} s, "
          f"max {max(values):.3f} s (target {target}); CPU median {statistics.median(cpu):.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from tests.document_fixtures import merged_docx

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                   BIDSTUDIO_CONFIG_DIR=str(Path(tmp, "config")), BIDSTUDIO_DATA_DIR=str(Path(tmp, "data")))
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed app has its .pyc files; so does the warm run
        docx_path = merged_docx(Path(tmp, "small.docx"))
        commands = {"help": [*cli(), "--help"], "analyze": [*cli(), "analyze", str(docx_path)]}
        for command in commands.values():
            timed(command, env)  # warm the OS file cache and .pyc files once
        one_run(env)
        helps = [timed(commands["help"], env, "help") for _ in range(args.runs)]
        analyses = [timed(commands["analyze"], env, "analyze") for _ in range(args.runs)]
        window_cpu = []
        results = []
        for _ in range(args.runs):
            c0 = _child_cpu()
            results.append(one_run(env))
            window_cpu.append(_child_cpu() - c0)
    print(f"platform: {env['QT_QPA_PLATFORM']}, python {sys.version.split()[0]}, runs: {args.runs}, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    report("bidstudio-cli --help:", helps, "< 0.3 s", CPU["help"])
    report("bidstudio-cli analyze small.docx:", analyses, "< 0.8 s", CPU["analyze"])
    report("process start -> window visible:", [r[0] for r in results], "< 1 s", window_cpu)
    print(f"{'run() entry -> window visible:':34s} median {statistics.median([r[1] for r in results]):.3f} s")


if __name__ == "__main__":
    main()

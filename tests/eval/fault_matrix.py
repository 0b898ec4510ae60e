"""Run every bad-input and fault probe of issue 17 (and the next ones) and print one line per row.

Each row builds its input in a fresh temporary folder, runs the real program in a child
process (the CLI, the GUI offscreen, or a few lines of Python over the core) and judges
the outcome against what a user should see. Child processes get an address-space limit so
a breaking row cannot take the machine down; peak memory is the child's own maximum RSS
(``wait4``). Only loopback traffic: model behaviour comes from ``tests/openai_server.py``
and, for the dripping server, from a socket in this script. Usage::

    python tests/eval/fault_matrix.py             # all rows
    python tests/eval/fault_matrix.py --rows 1,14,21-25 --keep
    python tests/eval/fault_matrix.py --app ../old-checkout   # the same probes against older code

Columns: row, held/broke, exit code (``-`` while a GUI was still running when checked,
``kill`` when the probe had to stop it), seconds, peak MB, what was probed, what was seen.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

#: The checkout whose ``app`` the children run (``--app`` probes another one, e.g. the code before a fix).
APP_ROOT = REPO

#: Address-space limit for probed children (a zip bomb that inflates is stopped here, not by the OOM killer).
CHILD_MEMORY_LIMIT = 3 * 1024**3


@dataclass
class Run:
    """What one child process did."""

    code: int | None  # None: still running when we stopped it (GUI rows) or killed on timeout
    out: str
    err: str
    seconds: float
    peak_mb: float
    killed: bool = False

    @property
    def text(self) -> str:
        return self.out + self.err


@dataclass
class Outcome:
    """A row's verdict and the figures printed for it."""

    held: bool
    note: str
    run: Run | None = None
    extra_seconds: float = 0.0


@dataclass
class Row:
    """One probe: its number, what it feeds the program, who owns the fix, the probe itself."""

    number: int
    title: str
    owner: str
    probe: Callable[[Path], Outcome]
    tags: list[str] = field(default_factory=list)


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a probed child: offscreen Qt, no real data or config folders, no proxy."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(APP_ROOT), PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def _limit_memory() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY_LIMIT, CHILD_MEMORY_LIMIT))


def run(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120.0,
        until: Callable[[], bool] | None = None, settle: float = 0.0, stdin: str | None = None) -> Run:
    """Run ``argv`` and measure it. With ``until``, stop the child once ``until()`` is true
    (after ``settle`` more seconds) — for the GUI, which runs until closed."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, env=env or child_env(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_limit_memory)
    chunks: dict[str, list[bytes]] = {"out": [], "err": []}

    def pump(stream: object, key: str) -> None:
        for piece in iter(lambda: stream.read(65536), b""):  # type: ignore[attr-defined]
            chunks[key].append(piece)

    readers = [threading.Thread(target=pump, args=(proc.stdout, "out"), daemon=True),
               threading.Thread(target=pump, args=(proc.stderr, "err"), daemon=True)]
    for reader in readers:
        reader.start()
    assert proc.stdin is not None
    try:
        if stdin:
            proc.stdin.write(stdin.encode("utf-8"))
        proc.stdin.close()
    except BrokenPipeError:
        pass
    code: int | None = None
    killed = False
    peak_kb = 0
    reached_at: float | None = None
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            code = os.waitstatus_to_exitcode(status)
            peak_kb = usage.ru_maxrss
            break
        now = time.monotonic()
        if until is not None and reached_at is None and until():
            reached_at = now
        if (reached_at is not None and now - reached_at >= settle) or now - started > timeout:
            killed = reached_at is None
            os.kill(proc.pid, signal.SIGKILL)
            _pid, status, usage = os.wait4(proc.pid, 0)
            peak_kb = usage.ru_maxrss
            code = None
            break
        time.sleep(0.02)
    proc.returncode = -1  # reaped by wait4; keep Popen from waiting again
    for reader in readers:
        reader.join(timeout=5)
    seconds = time.monotonic() - started
    return Run(code, b"".join(chunks["out"]).decode("utf-8", "replace"),
               b"".join(chunks["err"]).decode("utf-8", "replace"), seconds, peak_kb / 1024, killed)


def cli(args: list[str], cwd: Path, **kw: object) -> Run:
    """``python -m app.cli ARGS``."""
    return run([sys.executable, "-m", "app.cli", *args], cwd=cwd, **kw)  # type: ignore[arg-type]


def py(code: str, cwd: Path, **kw: object) -> Run:
    """``python -c CODE`` with the repository importable."""
    return run([sys.executable, "-c", code], cwd=cwd, **kw)  # type: ignore[arg-type]


def gui(cwd: Path, data: Path, config: Path, *extra: str, **kw: object) -> Run:
    """The desktop app, offscreen, with its own data and config folders."""
    env = child_env(BIDSTUDIO_DATA_DIR=str(data), BIDSTUDIO_CONFIG_DIR=str(config),
                    XDG_CONFIG_HOME=str(cwd / "xdg-config"))  # QSettings: never the user's own file
    return run([sys.executable, "-m", "app", *extra], cwd=cwd, env=env, **kw)  # type: ignore[arg-type]


def tender_docx(folder: Path) -> Path:
    """A small tender with a three-item technical scoring table (written here, never copied)."""
    import docx

    d = docx.Document()
    d.add_heading("第一章 招标公告", level=1)
    d.add_paragraph("项目名称：某区智慧社区运维服务项目；预算金额：120万元")
    d.add_heading("第三章 评标办法", level=1)
    d.add_paragraph("技术评分表（60分）")
    table = d.add_table(rows=1, cols=4)
    for cell, head in zip(table.rows[0].cells, ["序号", "评分因素", "分值", "评分标准"], strict=True):
        cell.text = head
    for i, (factor, points) in enumerate([("服务方案", "30"), ("培训方案", "20"), ("应急预案", "10")], 1):
        for cell, value in zip(table.add_row().cells, [str(i), factor, points, f"{factor}完整得满分"], strict=True):
            cell.text = value
    path = folder / "tender.docx"
    d.save(str(path))
    return path


def _select(spec: str | None, rows: list[Row]) -> list[Row]:
    if not spec:
        return rows
    wanted: set[int] = set()
    for part in spec.split(","):
        if "-" in part:
            low, high = part.split("-", 1)
            wanted.update(range(int(low), int(high) + 1))
        elif part.strip():
            wanted.add(int(part))
    return [r for r in rows if r.number in wanted]


def main(argv: list[str] | None = None) -> int:
    """Run the selected rows, print one line each and a summary; exit 1 when any row broke."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", help="rows to run, e.g. 1,4,9-15 (default: all)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    parser.add_argument("--app", type=Path, help="probe the app of another checkout (default: this one)")
    args = parser.parse_args(argv)
    if args.app:
        global APP_ROOT
        APP_ROOT = args.app.resolve()
        import fault_matrix  # the row modules read the helpers from the imported module

        fault_matrix.APP_ROOT = APP_ROOT
    from fault_rows import ISSUE_ROWS
    from fault_rows_30 import ISSUE30_ROWS
    from fault_rows_more import MORE_ROWS

    rows = _select(args.rows, [*ISSUE_ROWS, *MORE_ROWS, *ISSUE30_ROWS])
    base = Path(tempfile.mkdtemp(prefix="bidstudio-faults-"))
    print(f"{'row':>3}  {'verdict':7} {'exit':>5} {'sec':>6} {'peakMB':>7}  {'owner':9} probe — seen")
    broke = 0
    total = time.monotonic()
    for row in rows:
        folder = base / f"row{row.number:02d}"
        folder.mkdir()
        started = time.monotonic()
        try:
            outcome = row.probe(folder)
        except Exception as exc:  # a probe that cannot run is reported, not hidden
            outcome = Outcome(False, f"probe error: {type(exc).__name__}: {exc}")
        r = outcome.run
        exit_text = "-" if r is None else ("kill" if r.killed else ("-" if r.code is None else str(r.code)))
        seconds = time.monotonic() - started
        peak = f"{r.peak_mb:7.0f}" if r is not None else "      -"
        verdict = "held" if outcome.held else "BROKE"
        broke += not outcome.held
        print(f"{row.number:>3}  {verdict:7} {exit_text:>5} {seconds:6.1f} {peak}  {row.owner:9} "
              f"{row.title} — {outcome.note}", flush=True)
    print(f"{len(rows) - broke} held, {broke} broke, {time.monotonic() - total:.0f} s in all"
          + (f"; inputs kept in {base}" if args.keep else ""))
    if not args.keep:
        import shutil

        shutil.rmtree(base, ignore_errors=True)
    return 1 if broke else 0


if __name__ == "__main__":
    sys.exit(main())

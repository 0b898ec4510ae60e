"""Probe which worker-thread patterns survive next to a Qt event loop (prints figures, asserts nothing).

    python tests/benchmarks/thread_safety_probe.py [seconds-per-scenario]

Each scenario runs in its own subprocess for a bounded time: the main thread runs a Qt
event loop whose 1 ms timer executes ordinary Python (as the GUI thread does) while a
worker thread does one kind of work. A scenario either survives or dies with CPython's
``Fatal Python error: none_dealloc`` / ``bool_dealloc`` (a reference count driven to
zero by unsynchronised updates). Observed here (PySide6 6.12.0, PyMuPDF 2.0, CPython
3.11.7): ``app.exec()`` with Python threads, even PyMuPDF ones, survives; emitting any
Qt signal from a Python thread, and calling ``processEvents()`` from Python while a
Python thread runs, crash within seconds. Hence in BidStudio only the GUI thread touches
Qt: workers hand results over through plain queues that a GUI ``QTimer`` drains.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

PRELUDE = """
import sys, time, threading
from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, QTimer, Signal
app = QCoreApplication([])
stop = threading.Event()
count = [0]
class Box(QObject):
    ping = Signal()
box = Box()
box.ping.connect(lambda: None)
def gui_work():
    junk = {i: (None, True) for i in range(200)}
def run_gui(seconds, use_process_events=False):
    if use_process_events:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
            gui_work()
    else:
        timer = QTimer(); timer.setInterval(1); timer.timeout.connect(gui_work); timer.start()
        QTimer.singleShot(int(seconds * 1000), app.quit)
        app.exec()
    stop.set()
def start(work):
    t = threading.Thread(target=work); t.start(); return t
def pure_python():
    while not stop.is_set():
        _ = [None, True] * 10; count[0] += 1
"""

SCENARIOS = {
    "app.exec() + Python thread (pure Python)": "t = start(pure_python); run_gui(SECONDS); t.join()",
    "app.exec() + PyMuPDF render/search in a thread": """
import pymupdf
doc0 = pymupdf.open(); page = doc0.new_page()
page.insert_text((72, 72), "评分标准 技术方案", fontname="china-s", fontsize=14)
data = doc0.tobytes()
def work():
    doc = pymupdf.open(stream=data, filetype="pdf")
    while not stop.is_set():
        doc[0].get_pixmap(alpha=False); doc[0].search_for("评分"); count[0] += 1
t = start(work); run_gui(SECONDS); t.join()
""",
    "app.exec() + signal emitted from a Python thread": """
def work():
    while not stop.is_set():
        box.ping.emit(); count[0] += 1
t = start(work); run_gui(SECONDS); t.join()
""",
    "processEvents() loop + Python thread (pure Python)": "t = start(pure_python); run_gui(SECONDS, True); t.join()",
}


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in SCENARIOS.items():
            script = Path(tmp) / "probe.py"
            script.write_text(PRELUDE + f"SECONDS = {seconds}\n" + textwrap.dedent(body) + "\n"
                              + "print('survived', count[0], 'iterations')\n", encoding="utf-8")
            try:
                proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                                      timeout=seconds + 60, env={"QT_QPA_PLATFORM": "offscreen", **_env()})
                out = proc.stdout + proc.stderr
                fatal = next((line for line in out.splitlines() if line.startswith("Fatal Python error")), None)
                verdict = fatal or next((line for line in out.splitlines() if line.startswith("survived")),
                                        f"exit code {proc.returncode}")
            except subprocess.TimeoutExpired:
                verdict = "hung (timeout)"
            print(f"{name:48s} -> {verdict}", flush=True)


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}


if __name__ == "__main__":
    main()

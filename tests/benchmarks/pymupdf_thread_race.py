"""Measure why BidStudio never calls PyMuPDF from a worker thread (prints figures, asserts nothing).

    python tests/benchmarks/pymupdf_thread_race.py [seconds]

A worker thread calls PyMuPDF in a loop while the main thread runs ordinary Python code,
as the GUI thread does. The script prints how far ``sys.getrefcount(None)`` drifted; a
pure-Python worker is the baseline. PyMuPDF 2.0 touches reference counts with the GIL
released, so the PyMuPDF runs drift by hundreds, and on Python 3.11 (``None`` is not
immortal there) a long session ends in ``Fatal Python error: none_dealloc``. Hence the
document pane renders in child processes (app/ui/pdf_process.py); loading tenders in a
thread pool has the same exposure.
"""

from __future__ import annotations

import gc
import sys
import tempfile
import threading
import time
from pathlib import Path

import pymupdf


def run(mode: str, path: str, seconds: float) -> tuple[int, int]:
    stop = threading.Event()
    calls = 0

    def worker() -> None:
        nonlocal calls
        doc = pymupdf.open(path)
        while not stop.is_set():
            if mode == "pure-python":
                _ = [None] * 10
            elif mode == "open/close":
                pymupdf.open(path).close()
            elif mode == "render":
                doc[0].get_pixmap(alpha=False)
            elif mode == "search":
                doc[0].search_for("评分")
            calls += 1
        doc.close()

    gc.collect()
    before = sys.getrefcount(None)
    thread = threading.Thread(target=worker)
    thread.start()
    end = time.monotonic() + seconds
    while time.monotonic() < end:  # the "GUI thread": ordinary Python work
        junk = {i: None for i in range(200)}
        del junk
    stop.set()
    thread.join()
    gc.collect()
    return sys.getrefcount(None) - before, calls


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    print(f"Python {sys.version.split()[0]}, {pymupdf.__doc__.splitlines()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "t.pdf")
        doc = pymupdf.open()
        page = doc.new_page()
        page.insert_text((72, 72), "评分标准 技术方案", fontname="china-s", fontsize=14)
        doc.save(path)
        doc.close()
        for mode in ("pure-python", "open/close", "render", "search"):
            drift, calls = run(mode, path, seconds)
            print(f"{mode:12s} {calls:7d} calls in a worker thread: None refcount drift {drift:+d}")


if __name__ == "__main__":
    main()

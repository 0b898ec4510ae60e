"""Benchmark the document pane on a generated 100-page tender PDF (prints figures, asserts nothing).

    QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_document_pane.py [pages]

Figures: time from ``set_document`` to the first page image, time to render every page
while paging through the document, and the longest GUI-thread stall meanwhile (measured
as the largest gap between ticks of a 5 ms QTimer; rendering and search run on the pane's
child processes, so stalls come only from painting and copying page images into QImages).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# Heavy imports live inside the functions: the pane's spawned PDF processes re-import this
# script as their main module, and a light one keeps their start-up realistic.

LINE = "投标人应根据招标文件要求，提供完整的技术方案、实施计划、质量保证措施和售后服务承诺。"


def make_pdf(path: Path, pages: int) -> None:
    import pymupdf

    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page(width=595, height=842)
        page.insert_text((60, 60), f"第 {n + 1} 页  评分标准", fontname="china-s", fontsize=16)
        for i in range(40):
            page.insert_text((60, 90 + i * 18), LINE, fontname="china-s", fontsize=10)
        page.draw_rect(pymupdf.Rect(60, 820 - (n % 7) * 10, 300, 830), color=(0.2, 0.2, 0.6), fill=(0.8, 0.8, 1))
    doc.save(str(path))
    doc.close()


class StallMeter:
    """Largest gap between ticks of a fast timer on the GUI thread."""

    def __init__(self) -> None:
        from PySide6.QtCore import QElapsedTimer, QTimer

        self.clock = QElapsedTimer()
        self.last = 0
        self.worst = 0
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)

    def start(self) -> None:
        self.clock.start()
        self.last = 0
        self.worst = 0
        self.timer.start()

    def _tick(self) -> None:
        now = self.clock.elapsed()
        self.worst = max(self.worst, now - self.last)
        self.last = now

    def stop(self) -> int:
        self.timer.stop()
        return self.worst


def wait_until(app, cond, timeout_s: float = 60.0) -> bool:
    """Spin a local event loop until ``cond()`` (a timer checks it every 2 ms)."""
    from PySide6.QtCore import QEventLoop, QTimer

    deadline = time.monotonic() + timeout_s
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(2)
    timer.timeout.connect(lambda: (cond() or time.monotonic() > deadline) and loop.quit())
    timer.start()
    if not cond():
        loop.exec()
    timer.stop()
    return bool(cond())


def main() -> None:
    from PySide6.QtWidgets import QApplication

    from app.documents.model import Page, TenderDocument, TextBlock
    from app.ui.tender.document_pane import DocumentPane


    pages = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    app = QApplication.instance() or QApplication(sys.argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tender.pdf"
        t0 = time.perf_counter()
        make_pdf(path, pages)
        print(f"generated {pages}-page PDF ({path.stat().st_size / 1024:.0f} KiB) in {time.perf_counter() - t0:.1f} s")
        doc = TenderDocument(source_path=str(path), kind="pdf",
                             pages=[Page(number=n + 1, blocks=[TextBlock(page=n + 1, text=LINE)]) for n in range(pages)])
        pane = DocumentPane()
        pane.resize(700, 1000)
        pane.show()
        meter = StallMeter()
        meter.start()
        t0 = time.perf_counter()
        pane.set_document(doc)
        wait_until(app, lambda: pane.page_image(1) is not None)
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        for n in range(1, pages + 1):
            pane.show_page(n)
            wait_until(app, lambda n=n: pane.page_image(n) is not None)
        all_pages = time.perf_counter() - t0
        t0 = time.perf_counter()
        found = []
        pane.searchFinished.connect(lambda q, c: found.append(c))
        pane.search("评分标准")
        wait_until(app, lambda: bool(found))
        search = time.perf_counter() - t0
        stall = meter.stop()
        print(f"zoom {pane.zoom():.2f}, render processes used: {len(pane.render_pids)}")
        print(f"first page visible after set_document: {first * 1000:.0f} ms")
        print(f"paging through all {pages} pages (each rendered on arrival): {all_pages:.2f} s "
              f"({all_pages / pages * 1000:.0f} ms/page)")
        print(f"search '评分标准' over {pages} pages: {search * 1000:.0f} ms, {found[0]} hits")
        print(f"longest GUI-thread stall meanwhile: {stall} ms")
        pane.shutdown()
        pane.close()


if __name__ == "__main__":
    main()

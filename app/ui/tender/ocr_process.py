"""OCR in a worker process, with per-page progress and cancel, driven by a GUI timer.

The child (:func:`app.ui.tender.ocr_child.serve_ocr`, no Qt) reads the pages with
:func:`app.documents.ocr.runner.recognize_pages`, which stores every page in the OCR
cache as soon as it is read, and reports each page over a pipe. Why a process: OCR keeps
both cores busy for seconds per page, and PyMuPDF and onnxruntime in a child can neither
freeze the window nor take unsaved work down with them. Cancel sets an event the child
checks between pages; a child that does not stop in time is terminated (the pages it
finished are already cached).

:class:`OcrJob` is the Qt side. Signals:
    progress(int, int, int): pages done, pages in all, the page just read.
    finished(bool, bool, str): whether any page was read, whether the run was cancelled, a Chinese message.
"""

from __future__ import annotations

import multiprocessing
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.ui.tender.ocr_child import serve_ocr

POLL_MS = 100
STOP_GRACE_S = 3.0


class OcrJob(QObject):
    """One OCR run in a spawned child process; :meth:`cancel` stops it between pages."""

    progress = Signal(int, int, int)
    finished = Signal(bool, bool, str)

    def __init__(self, path: str, password: str | None, pages: list[int], *, cache_dir: str | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.pages = list(pages)
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe(duplex=False)
        self._cancel = ctx.Event()
        self._process: Any = ctx.Process(target=serve_ocr, name="bidstudio-ocr", daemon=True,
                                         args=(child, self._cancel, path, password, self.pages, cache_dir))
        self._child_conn = child
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._on_poll)
        self._stop_timer = QTimer(self)
        self._stop_timer.setSingleShot(True)
        self._stop_timer.timeout.connect(self._on_stop_overdue)
        self.done = 0
        self.running = False
        self.cancelled = False

    def start(self) -> None:
        """Start the child and begin polling it."""
        self._process.start()
        self._child_conn.close()
        self.running = True
        self._timer.start()

    def cancel(self) -> None:
        """Ask the child to stop after its current page (terminated if it has not stopped soon)."""
        if not self.running or self.cancelled:
            return
        self.cancelled = True
        self._cancel.set()
        self._stop_timer.start(int(STOP_GRACE_S * 1000))

    def _on_poll(self) -> None:
        try:
            while self._conn.poll():
                message = self._conn.recv()
                if message[0] == "page":
                    self.done = int(message[1])
                    self.progress.emit(int(message[1]), int(message[2]), int(message[3]))
                elif message[0] == "done":
                    read, cancelled = int(message[1]), bool(message[2])
                    text = f"已识别 {read} 页" + ("（已取消，其余页未识别）" if cancelled else "")
                    self._end(read > 0, cancelled, text)
                    return
                else:
                    self._end(self.done > 0, self.cancelled, f"文字识别失败：{message[1]}")
                    return
        except (EOFError, OSError):
            self._end(self.done > 0, self.cancelled,
                      "文字识别已停止" if self.cancelled else "文字识别进程意外退出")
            return
        if not self._process.is_alive() and not self._conn.poll():
            self._end(self.done > 0, self.cancelled, "文字识别已停止" if self.cancelled else "文字识别进程意外退出")

    def _on_stop_overdue(self) -> None:
        if self.running:
            self._process.terminate()
            self._end(self.done > 0, True, f"已识别 {self.done} 页（已取消，其余页未识别）")

    def _end(self, any_read: bool, cancelled: bool, message: str) -> None:
        if not self.running:
            return
        self.running = False
        self._timer.stop()
        self._stop_timer.stop()
        self._process.join(1.0)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(1.0)
        self._conn.close()
        self.finished.emit(any_read, cancelled, message)

    def shutdown(self) -> None:
        """Stop the child at once (window closing)."""
        if self.running:
            self._cancel.set()
            self._process.terminate()
            self._end(self.done > 0, True, "文字识别已停止")

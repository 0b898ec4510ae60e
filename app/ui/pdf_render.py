"""PDF work for the document pane, off the GUI thread: page sizes, page images, text search.

All PyMuPDF work runs in spawned child processes (:mod:`app.ui.pdf_process`). Finished
futures are put on a plain ``queue.Queue`` by the executor's own thread, and the GUI
thread drains that queue on a short ``QTimer`` while work is pending. No thread of ours
emits Qt signals or calls ``processEvents()``: with PySide6 6.12 on CPython 3.11 both
corrupt reference counts when another Python thread runs (``Fatal Python error:
none_dealloc`` / ``bool_dealloc`` within seconds; ``tests/benchmarks/thread_safety_probe.py``
reproduces it), so results reach Qt only from the GUI thread.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QImage

from app.ui import pdf_process
from app.ui.pdf_process import PageSize, Rect

log = logging.getLogger(__name__)
SEARCH_CHUNK = 25  # pages per search call, so a new search or document cancels the rest quickly

__all__ = ["PageSize", "PdfRenderer", "Rect", "rgb_to_qimage"]


def rgb_to_qimage(width: int, height: int, stride: int, samples: bytes) -> QImage:
    """Copy RGB rows into a QImage that owns its memory (QImage pads rows to 4 bytes)."""
    image = QImage(width, height, QImage.Format.Format_RGB888)
    dest = memoryview(image.bits())
    line = image.bytesPerLine()
    if stride == line:
        dest[: stride * height] = samples[: stride * height]
    else:
        view = memoryview(samples)
        for y in range(height):
            dest[y * line : y * line + stride] = view[y * stride : (y + 1) * stride]
    return image


def _message(exc: BaseException) -> str:
    if isinstance(exc, BrokenProcessPool):
        return "PDF 渲染进程意外退出，将自动重启"
    return str(exc) or type(exc).__name__


@dataclass(frozen=True)
class _Request:
    kind: str  # warm_up / layout / render / search
    generation: int
    page: int = 0
    scale: float = 0.0
    dpr: float = 1.0
    query: str = ""


class PdfRenderer(QObject):
    """Runs PyMuPDF requests in child processes and reports results in the GUI thread.

    Requests carry the caller's *generation*; the pane drops results of older ones.

    Signals:
        laidOut(int, object): generation, ``list[PageSize]`` (or ``str`` Chinese error).
        rendered(int, int, float, QImage, int): generation, page (1-based), scale, image,
            id of the process that rendered it.
        renderFailed(int, int, str): generation, page, Chinese message.
        searched(int, str, object): generation, query, ``dict[int, list[Rect]]`` of hits.
    """

    laidOut = Signal(int, object)
    rendered = Signal(int, int, float, QImage, int)
    renderFailed = Signal(int, int, str)
    searched = Signal(int, str, object)

    def __init__(self, processes: int = 2, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._processes = processes
        self._executor: ProcessPoolExecutor | None = None
        self._done: queue.Queue[tuple[_Request, Future[Any]]] = queue.Queue()
        self._pending: dict[Future[Any], _Request] = {}
        self._search_parts: dict[tuple[int, str], tuple[int, dict[int, list[Rect]]]] = {}
        self._lock = threading.Lock()
        self.timer = QTimer(self)
        self.timer.setObjectName("pdfResultTimer")
        self.timer.setInterval(15)
        self.timer.timeout.connect(self._drain)

    # ------------------------------------------------------------------ requests
    def layout(self, generation: int, path: str, password: str | None) -> None:
        """Ask for every page's size."""
        self._submit(_Request("layout", generation), pdf_process.page_sizes, path, password)

    def render(self, generation: int, path: str, password: str | None, page: int, scale: float, dpr: float) -> None:
        """Ask for one page (1-based) at ``scale`` pixels per point on a ``dpr`` screen."""
        self._submit(_Request("render", generation, page, scale, dpr), pdf_process.render_page,
                     path, password, page - 1, scale * dpr)

    def search(self, generation: int, path: str, password: str | None, query: str, page_count: int) -> None:
        """Find ``query`` on all pages (a chunk of pages per child call)."""
        chunks = range(1, page_count + 1, SEARCH_CHUNK)
        self._search_parts[(generation, query)] = (len(chunks), {})
        if not chunks:
            self.searched.emit(generation, query, {})
        for first in chunks:
            self._submit(_Request("search", generation, query=query), pdf_process.search_pages,
                         path, password, query, first, first + SEARCH_CHUNK - 1)

    def warm_up(self) -> None:
        """Start a child process and import PyMuPDF in it, so the first page shows sooner."""
        if self._executor is None:
            self._submit(_Request("warm_up", -1), pdf_process.warm_up)

    def cancel(self, keep: Callable[[_Request], bool] | None = None) -> None:
        """Cancel queued requests (all, or those ``keep`` rejects); running ones finish and are dropped."""
        for future, request in list(self._pending.items()):
            if keep is None or not keep(request):
                future.cancel()
        if keep is None:
            self._search_parts.clear()  # a cancelled search never completes: forget its partial hits

    def cancel_renders(self, wanted: set[tuple[int, float]]) -> set[tuple[int, float]]:
        """Cancel queued renders not in ``wanted``; returns the (page, scale) keys still pending."""
        self.cancel(lambda r: r.kind != "render" or (r.page, r.scale) in wanted)
        return {(r.page, r.scale) for f, r in self._pending.items() if r.kind == "render" and not f.cancelled()}

    def busy(self) -> bool:
        """Whether requests are still pending."""
        return bool(self._pending)

    def shutdown(self) -> None:
        """Cancel everything and stop the child processes (waits for the call in progress)."""
        self.cancel()
        self.timer.stop()
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
        self._pending.clear()
        self._search_parts.clear()
        while not self._done.empty():
            self._done.get_nowait()

    # ------------------------------------------------------------------ internals
    def _submit(self, request: _Request, fn: Callable[..., Any], *args: Any) -> None:
        with self._lock:
            if self._executor is None:
                self._executor = pdf_process.make_pdf_executor(self._processes)
            executor = self._executor
        future = executor.submit(fn, *args)
        self._pending[future] = request
        done = self._done

        def finished(f: Future[Any]) -> None:  # runs in the executor's thread: touch only the queue
            done.put((request, f))

        future.add_done_callback(finished)
        if not self.timer.isActive():
            self.timer.start()

    def _drain(self) -> None:
        """GUI thread: hand finished results to the pane."""
        while True:
            try:
                request, future = self._done.get_nowait()
            except queue.Empty:
                break
            self._pending.pop(future, None)
            if future.cancelled():
                continue
            self._deliver(request, future)
        if not self._pending:
            self.timer.stop()

    def _deliver(self, request: _Request, future: Future[Any]) -> None:
        exc = future.exception()
        if isinstance(exc, BrokenProcessPool):
            with self._lock:
                self._executor = None  # the next request starts fresh processes
        if request.kind == "warm_up":
            return
        if request.kind == "layout":
            if exc is not None:
                log.warning("cannot lay out PDF: %s", exc)
                self.laidOut.emit(request.generation, f"无法显示该 PDF：{_message(exc)}")
            else:
                self.laidOut.emit(request.generation, future.result())
        elif request.kind == "render":
            if exc is not None:
                log.warning("cannot render page %d: %s", request.page, exc)
                self.renderFailed.emit(request.generation, request.page,
                                       f"第 {request.page} 页无法显示：{_message(exc)}")
                return
            width, height, stride, samples, pid = future.result()
            image = rgb_to_qimage(width, height, stride, samples)
            image.setDevicePixelRatio(request.dpr)
            self.rendered.emit(request.generation, request.page, request.scale, image, pid)
        else:
            key = (request.generation, request.query)
            if key not in self._search_parts:
                return
            left, hits = self._search_parts[key]
            if exc is not None:
                log.warning("search failed: %s", exc)
            else:
                hits.update(future.result())
            if left <= 1:
                del self._search_parts[key]
                self.searched.emit(request.generation, request.query, hits)
            else:
                self._search_parts[key] = (left - 1, hits)

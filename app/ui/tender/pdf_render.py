"""PDF work for the document pane, off the GUI thread: page sizes, page images, text search.

All PyMuPDF work runs in spawned child processes (:class:`app.ui.tender.pdf_process.PdfProcess`),
each fed one request at a time over a pipe. The GUI thread sends requests and, on a short
``QTimer`` while work is pending, polls the pipes without blocking, then builds the
``QImage`` and emits the results. The GUI process needs no helper threads for this, so
nothing but the GUI thread ever touches Qt objects.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QImage

from app.ui.tender.pdf_process import PageSize, PdfProcess, Rect

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


@dataclass(frozen=True)
class _Request:
    kind: str  # warm_up / layout / render / search
    generation: int
    page: int = 0
    scale: float = 0.0
    dpr: float = 1.0
    query: str = ""
    call: tuple[str, tuple[Any, ...]] = field(default=("warm_up", ()), compare=False)


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
        self._max_processes = max(1, processes)
        self._workers: list[PdfProcess] = []
        self._queue: deque[_Request] = deque()
        self._running: dict[PdfProcess, _Request] = {}
        self._search_parts: dict[tuple[int, str], tuple[int, dict[int, list[Rect]]]] = {}
        self.timer = QTimer(self)
        self.timer.setObjectName("pdfResultTimer")
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._poll)

    # ------------------------------------------------------------------ requests
    def warm_up(self) -> None:
        """Start a child process and import PyMuPDF in it, so the first page shows sooner."""
        if not self._workers:
            self._submit(_Request("warm_up", -1, call=("warm_up", ())))

    def layout(self, generation: int, path: str, password: str | None) -> None:
        """Ask for every page's size."""
        self._submit(_Request("layout", generation, call=("page_sizes", (path, password))))

    def render(self, generation: int, path: str, password: str | None, page: int, scale: float, dpr: float) -> None:
        """Ask for one page (1-based) at ``scale`` pixels per point on a ``dpr`` screen."""
        self._submit(_Request("render", generation, page, scale, dpr,
                              call=("render_page", (path, password, page - 1, scale * dpr))))

    def search(self, generation: int, path: str, password: str | None, query: str, page_count: int) -> None:
        """Find ``query`` on all pages (a chunk of pages per child call)."""
        chunks = range(1, page_count + 1, SEARCH_CHUNK)
        self._search_parts[(generation, query)] = (len(chunks), {})
        if not chunks:
            self.searched.emit(generation, query, {})
        for first in chunks:
            self._submit(_Request("search", generation, query=query,
                                  call=("search_pages", (path, password, query, first, first + SEARCH_CHUNK - 1))))

    def cancel(self, keep: Callable[[_Request], bool] | None = None) -> None:
        """Drop queued requests (all, or those ``keep`` rejects); running ones finish and are delivered."""
        self._queue = deque(r for r in self._queue if keep is not None and keep(r))
        if keep is None:
            self._search_parts.clear()  # a cancelled search never completes: forget its partial hits

    def cancel_renders(self, wanted: set[tuple[int, float]], generation: int | None = None) -> set[tuple[int, float]]:
        """Drop queued renders not in ``wanted``; returns the (page, scale) keys still pending.

        With ``generation`` only that caller's renders are dropped and counted: another user of
        the same processes (the analysis page's preview) keeps its own.
        """
        def mine(r: _Request) -> bool:
            return generation is None or r.generation == generation

        self.cancel(lambda r: r.kind != "render" or not mine(r) or (r.page, r.scale) in wanted)
        pending = list(self._queue) + list(self._running.values())
        return {(r.page, r.scale) for r in pending if r.kind == "render" and mine(r)}

    def busy(self) -> bool:
        """Whether requests are queued or running."""
        return bool(self._queue or self._running)

    def process_ids(self) -> list[int]:
        """Ids of the running child processes."""
        return [w.pid for w in self._workers if w.pid is not None]

    def shutdown(self) -> None:
        """Drop everything and stop the child processes (each finishes its current call first)."""
        self.timer.stop()
        self._queue.clear()
        self._running.clear()
        self._search_parts.clear()
        workers, self._workers = self._workers, []
        for worker in workers:  # all children wind down at once, then each is joined
            worker.ask_to_stop()
        for worker in workers:
            worker.close()

    # ------------------------------------------------------------------ internals
    def _submit(self, request: _Request) -> None:
        self._queue.append(request)
        self._dispatch()
        if not self.timer.isActive():
            self.timer.start()

    def _dispatch(self) -> None:
        """Give queued requests to idle children, starting children up to the limit."""
        while self._queue:
            worker = next((w for w in self._workers if not w.busy), None)
            if worker is None and len(self._workers) < self._max_processes:
                worker = PdfProcess()
                self._workers.append(worker)
            if worker is None:
                return
            request = self._queue.popleft()
            name, args = request.call
            try:
                worker.send(name, *args)
            except (OSError, ValueError) as exc:  # the child is gone
                log.warning("PDF process unusable: %s", exc)
                self._retire(worker)
                self._deliver(request, ("dead", "PDF 渲染进程意外退出"))
                continue
            self._running[worker] = request

    def _retire(self, worker: PdfProcess) -> None:
        self._running.pop(worker, None)
        if worker in self._workers:
            self._workers.remove(worker)
        worker.close(timeout=0.5)

    def _poll(self) -> None:
        """GUI thread: collect finished answers, hand them out, feed the children."""
        for worker, request in list(self._running.items()):
            reply = worker.poll_reply()
            if reply is None:
                continue
            if reply[0] == "dead":
                self._retire(worker)
            else:
                del self._running[worker]
            self._deliver(request, reply)
        self._dispatch()
        if not self.busy():
            self.timer.stop()

    def _deliver(self, request: _Request, reply: tuple[str, Any]) -> None:
        status, value = reply
        failed = None if status == "ok" else str(value)
        if request.kind == "warm_up":
            return
        if request.kind == "layout":
            if failed is not None:
                log.warning("cannot lay out PDF: %s", failed)
                self.laidOut.emit(request.generation, f"无法显示该 PDF：{failed}")
            else:
                self.laidOut.emit(request.generation, value)
        elif request.kind == "render":
            if failed is not None:
                log.warning("cannot render page %d: %s", request.page, failed)
                self.renderFailed.emit(request.generation, request.page, f"第 {request.page} 页无法显示：{failed}")
                return
            width, height, stride, samples, pid = value
            image = rgb_to_qimage(width, height, stride, samples)
            image.setDevicePixelRatio(request.dpr)
            self.rendered.emit(request.generation, request.page, request.scale, image, pid)
        else:
            key = (request.generation, request.query)
            if key not in self._search_parts:
                return
            left, hits = self._search_parts[key]
            if failed is not None:
                log.warning("search failed: %s", failed)
            else:
                hits.update(value)
            if left <= 1:
                del self._search_parts[key]
                self.searched.emit(request.generation, request.query, hits)
            else:
                self._search_parts[key] = (left - 1, hits)

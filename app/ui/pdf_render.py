"""PDF work for the document pane, off the GUI thread: page sizes, page images, text search.

Each task is a ``QRunnable`` on the pane's thread pool. It hands the PyMuPDF part to a
child process (:mod:`app.ui.pdf_process` explains why not a thread), waits for the bytes,
builds the ``QImage`` in its own thread and reports through a shared
:class:`RenderSignals` object (queued into the GUI thread). Tasks carry the pane's
*generation*: results for a document no longer shown are dropped by the pane, and a
cancelled generation skips its queued work.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TypeVar

from PySide6.QtCore import QObject, QRunnable, Signal
from PySide6.QtGui import QImage

from app.ui import pdf_process
from app.ui.pdf_process import PageSize, Rect

log = logging.getLogger(__name__)
T = TypeVar("T")
SEARCH_CHUNK = 25  # pages per search call, so a cancelled search stops soon

__all__ = ["Job", "LayoutTask", "PageSize", "PdfWorkers", "Rect", "RenderSignals", "RenderTask", "SearchTask"]


class RenderSignals(QObject):
    """Results of the PDF tasks; one instance per pane, living in the GUI thread.

    Signals:
        laidOut(int, object): generation, ``list[PageSize]`` (or ``str`` Chinese error).
        rendered(int, int, float, QImage, object): generation, page (1-based), scale, image,
            ``(thread id, process id)`` that produced it.
        renderFailed(int, int, str): generation, page, Chinese message.
        searched(int, str, object): generation, query, ``dict[int, list[Rect]]`` of hits.
    """

    laidOut = Signal(int, object)
    rendered = Signal(int, int, float, QImage, object)
    renderFailed = Signal(int, int, str)
    searched = Signal(int, str, object)


class WorkersClosed(Exception):
    """The pane shut its PDF processes down; pending work is dropped."""


class PdfWorkers:
    """The pane's PyMuPDF child processes, started on first use and restarted if one dies."""

    def __init__(self, processes: int = 2) -> None:
        self._processes = processes
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._closed = False

    def reopen(self) -> None:
        """Allow work again after :meth:`shutdown` (a new document was set)."""
        with self._lock:
            self._closed = False

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in a child process and wait for its result (worker threads only)."""
        with self._lock:
            if self._closed:
                raise WorkersClosed
            if self._executor is None:
                self._executor = pdf_process.make_pdf_executor(self._processes)
            executor = self._executor
        try:
            return executor.submit(fn, *args).result()
        except BrokenProcessPool:
            with self._lock:
                if self._executor is executor:
                    self._executor = None
            executor.shutdown(wait=False, cancel_futures=True)
            raise
        except (CancelledError, RuntimeError) as exc:  # shut down while waiting / after shutdown
            raise WorkersClosed from exc

    def shutdown(self) -> None:
        """Stop the child processes (waits for the page being rendered)."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


@dataclass
class Job:
    """What tasks share: the file, its password, the generation and the cancel flag."""

    path: str
    password: str | None
    generation: int
    signals: RenderSignals
    workers: PdfWorkers
    cancelled: threading.Event = field(default_factory=threading.Event)
    wanted: set[tuple[int, float]] = field(default_factory=set)
    wanted_lock: threading.Lock = field(default_factory=threading.Lock)

    def is_wanted(self, page: int, scale: float) -> bool:
        """Whether the pane still wants this page at this scale (skips stale queued renders)."""
        with self.wanted_lock:
            return (page, scale) in self.wanted

    def set_wanted(self, keys: set[tuple[int, float]]) -> None:
        """Replace the set of pages the pane currently wants rendered."""
        with self.wanted_lock:
            self.wanted = set(keys)


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


class LayoutTask(QRunnable):
    """Read every page's size so the pane can lay out all pages before any is rendered."""

    def __init__(self, job: Job) -> None:
        super().__init__()
        self.job = job

    def run(self) -> None:
        """Qt override: ask the child for the sizes, report them (or a message)."""
        job = self.job
        if job.cancelled.is_set():
            return
        try:
            result: object = job.workers.call(pdf_process.page_sizes, job.path, job.password)
        except WorkersClosed:
            return
        except Exception as exc:  # any MuPDF failure becomes a message for the pane
            log.warning("cannot lay out %s: %s", job.path, exc)
            result = f"无法显示该 PDF：{_message(exc)}"
        if not job.cancelled.is_set():
            job.signals.laidOut.emit(job.generation, result)


class RenderTask(QRunnable):
    """Render one page at one scale into a ``QImage`` (device pixel ratio applied)."""

    def __init__(self, job: Job, page: int, scale: float, dpr: float) -> None:
        super().__init__()
        self.job = job
        self.page = page
        self.scale = scale
        self.dpr = dpr

    def run(self) -> None:
        """Qt override: skip when cancelled or no longer wanted, else render and report."""
        job = self.job
        if job.cancelled.is_set() or not job.is_wanted(self.page, self.scale):
            return
        try:
            width, height, stride, samples, pid = job.workers.call(
                pdf_process.render_page, job.path, job.password, self.page - 1, self.scale * self.dpr)
            image = rgb_to_qimage(width, height, stride, samples)
            image.setDevicePixelRatio(self.dpr)
        except WorkersClosed:
            return
        except Exception as exc:  # a broken page must not take the pane down
            log.warning("cannot render page %d of %s: %s", self.page, job.path, exc)
            if not job.cancelled.is_set():
                job.signals.renderFailed.emit(job.generation, self.page, f"第 {self.page} 页无法显示：{_message(exc)}")
            return
        if not job.cancelled.is_set():
            job.signals.rendered.emit(job.generation, self.page, self.scale, image, (threading.get_ident(), pid))


class SearchTask(QRunnable):
    """Find ``query`` on every page, a chunk of pages per child call; reports hits per 1-based page."""

    def __init__(self, job: Job, query: str, page_count: int) -> None:
        super().__init__()
        self.job = job
        self.query = query
        self.page_count = page_count

    def run(self) -> None:
        """Qt override: search chunk by chunk, stopping when the job is cancelled."""
        job = self.job
        hits: dict[int, list[Rect]] = {}
        try:
            for first in range(1, self.page_count + 1, SEARCH_CHUNK):
                if job.cancelled.is_set():
                    return
                hits.update(job.workers.call(pdf_process.search_pages, job.path, job.password, self.query,
                                             first, first + SEARCH_CHUNK - 1))
        except WorkersClosed:
            return
        except Exception as exc:
            log.warning("search failed in %s: %s", job.path, exc)
        if not job.cancelled.is_set():
            job.signals.searched.emit(job.generation, self.query, hits)

"""PDF work for the document pane, off the GUI thread: page sizes, page images, text search.

Each task is a ``QRunnable`` that opens its own PyMuPDF document, does one job and
reports through a shared :class:`RenderSignals` object (queued into the GUI thread).
MuPDF is not made for concurrent use, so every PyMuPDF call here holds
:data:`PDF_LOCK`; other UI code that touches PyMuPDF from a worker should take it too.
Tasks carry the pane's *generation*: results for a document that is no longer shown are
dropped by the pane, and a cancelled generation skips its queued work.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

import pymupdf as _pymupdf_module
from PySide6.QtCore import QObject, QRunnable, Signal
from PySide6.QtGui import QImage

log = logging.getLogger(__name__)

pymupdf: Any = _pymupdf_module  # only partly typed: used as a dynamic module
PDF_LOCK = threading.RLock()

PageSize = tuple[float, float]  # points
Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in points


class RenderSignals(QObject):
    """Results of the PDF tasks; one instance per pane, living in the GUI thread.

    Signals:
        laidOut(int, object): generation, ``list[PageSize]`` (or ``str`` Chinese error).
        rendered(int, int, float, QImage, int): generation, page (1-based), scale, image,
            id of the rendering thread.
        renderFailed(int, int, str): generation, page, Chinese message.
        searched(int, str, object): generation, query, ``dict[int, list[Rect]]`` of hits.
    """

    laidOut = Signal(int, object)
    rendered = Signal(int, int, float, QImage, object)
    renderFailed = Signal(int, int, str)
    searched = Signal(int, str, object)


@dataclass
class Job:
    """What tasks share: the file, its password, the generation and the cancel flag."""

    path: str
    password: str | None
    generation: int
    signals: RenderSignals
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

    def open(self) -> Any:
        """Open (and unlock) this task's own document; call with :data:`PDF_LOCK` held."""
        doc = pymupdf.open(self.path, filetype="pdf")
        if doc.needs_pass and not doc.authenticate(self.password or ""):
            doc.close()
            raise ValueError("需要密码才能打开此 PDF")
        return doc


class LayoutTask(QRunnable):
    """Read every page's size so the pane can lay out all pages before any is rendered."""

    def __init__(self, job: Job) -> None:
        super().__init__()
        self.job = job

    def run(self) -> None:
        """Qt override: open, read sizes, report."""
        if self.job.cancelled.is_set():
            return
        try:
            with PDF_LOCK:
                doc = self.job.open()
                try:
                    sizes: list[PageSize] = [(float(p.rect.width), float(p.rect.height)) for p in doc]
                finally:
                    doc.close()
            result: object = sizes
        except Exception as exc:  # any MuPDF failure becomes a message for the pane
            log.warning("cannot lay out %s: %s", self.job.path, exc)
            result = f"无法显示该 PDF：{exc}"
        if not self.job.cancelled.is_set():
            self.job.signals.laidOut.emit(self.job.generation, result)


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
            with PDF_LOCK:
                doc = job.open()
                try:
                    factor = self.scale * self.dpr
                    pix = doc[self.page - 1].get_pixmap(matrix=pymupdf.Matrix(factor, factor), alpha=False)
                    image = QImage(pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888).copy()
                finally:
                    doc.close()
            image.setDevicePixelRatio(self.dpr)
        except Exception as exc:  # a broken page must not take the pane down
            log.warning("cannot render page %d of %s: %s", self.page, job.path, exc)
            if not job.cancelled.is_set():
                job.signals.renderFailed.emit(job.generation, self.page, f"第 {self.page} 页无法显示：{exc}")
            return
        if not job.cancelled.is_set():
            job.signals.rendered.emit(job.generation, self.page, self.scale, image, threading.get_ident())


class SearchTask(QRunnable):
    """Find ``query`` on every page; reports hit rectangles per 1-based page."""

    def __init__(self, job: Job, query: str) -> None:
        super().__init__()
        self.job = job
        self.query = query

    def run(self) -> None:
        """Qt override: search page by page (the lock is released between pages)."""
        job = self.job
        hits: dict[int, list[Rect]] = {}
        try:
            with PDF_LOCK:
                doc = job.open()
            try:
                for index in range(doc.page_count):
                    if job.cancelled.is_set():
                        return
                    with PDF_LOCK:
                        rects = doc[index].search_for(self.query)
                    if rects:
                        hits[index + 1] = [(r.x0, r.y0, r.x1, r.y1) for r in rects]
            finally:
                with PDF_LOCK:
                    doc.close()
        except Exception as exc:
            log.warning("search failed in %s: %s", job.path, exc)
        if not job.cancelled.is_set():
            job.signals.searched.emit(job.generation, self.query, hits)

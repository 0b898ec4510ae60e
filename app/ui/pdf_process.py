"""PyMuPDF work done in a separate process (no Qt here: this module is imported by the child).

Why a process and not a thread: PyMuPDF documents that it does not support use from
multiple threads, and a child process also keeps a MuPDF crash on a malformed tender
away from the user's unsaved work (the pool is simply restarted). The GUI process never
calls PyMuPDF for the pane. The functions below run in the child;
:func:`make_pdf_executor` creates the process pool. Results are plain picklable values
(bytes, tuples) so nothing but data crosses over.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from typing import Any

PageSize = tuple[float, float]
Rect = tuple[float, float, float, float]
#: (width, height, stride, RGB bytes, pid of the rendering process)
RenderedPage = tuple[int, int, int, bytes, int]

_DOCS: OrderedDict[tuple[str, float], Any] = OrderedDict()
_MAX_OPEN = 3


#: Optional extras PyMuPDF 2.0 imports when installed (layout analysis with onnxruntime and
#: numpy, pymupdf4llm): ~2.4 s of import time the pane never needs. Marking them absent
#: makes PyMuPDF skip them (it imports each inside ``try/except ImportError``).
OPTIONAL_PYMUPDF_EXTRAS = ("pymupdf.layout", "pymupdf4llm", "onnxruntime")


def _pymupdf() -> Any:
    """PyMuPDF, imported in the child only, without its heavy optional extras."""
    import sys

    if "pymupdf" not in sys.modules:
        for name in OPTIONAL_PYMUPDF_EXTRAS:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]
    import pymupdf

    return pymupdf


def _document(path: str, password: str | None) -> Any:
    """An open document, cached per (path, mtime) in this child process."""
    pymupdf = _pymupdf()

    key = (path, os.stat(path).st_mtime)
    doc = _DOCS.get(key)
    if doc is None:
        pymupdf.TOOLS.mupdf_display_errors(False)
        pymupdf.TOOLS.mupdf_display_warnings(False)
        doc = pymupdf.open(path, filetype="pdf")
        if doc.needs_pass and not doc.authenticate(password or ""):
            doc.close()
            raise ValueError("需要正确的密码才能打开此 PDF")
        _DOCS[key] = doc
        while len(_DOCS) > _MAX_OPEN:
            _, old = _DOCS.popitem(last=False)
            old.close()
    else:
        _DOCS.move_to_end(key)
    return doc


def warm_up() -> int:
    """Import PyMuPDF in the child ahead of the first real request; returns the child's pid."""
    _pymupdf()
    return os.getpid()


def page_sizes(path: str, password: str | None) -> list[PageSize]:
    """Every page's size in points."""
    doc = _document(path, password)
    return [(float(p.rect.width), float(p.rect.height)) for p in doc]


def render_page(path: str, password: str | None, index: int, factor: float) -> RenderedPage:
    """Render page ``index`` (0-based) at ``factor`` pixels per point as RGB bytes."""
    pymupdf = _pymupdf()

    doc = _document(path, password)
    pix = doc[index].get_pixmap(matrix=pymupdf.Matrix(factor, factor), alpha=False)
    return pix.width, pix.height, pix.stride, bytes(pix.samples), os.getpid()


def search_pages(path: str, password: str | None, query: str, first: int, last: int) -> dict[int, list[Rect]]:
    """Hit rectangles of ``query`` on pages ``first..last`` (1-based, inclusive)."""
    doc = _document(path, password)
    hits: dict[int, list[Rect]] = {}
    for number in range(first, min(last, doc.page_count) + 1):
        rects = doc[number - 1].search_for(query)
        if rects:
            hits[number] = [(r.x0, r.y0, r.x1, r.y1) for r in rects]
    return hits


def make_pdf_executor(workers: int = 2) -> ProcessPoolExecutor:
    """A pool of PyMuPDF child processes (spawned: no fork of a Qt process)."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))

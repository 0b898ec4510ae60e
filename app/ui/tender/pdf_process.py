"""PyMuPDF work done in a separate process (no Qt here: this module is imported by the child).

Why a process and not a thread: PyMuPDF documents that it does not support use from
multiple threads, and a child process also keeps a MuPDF crash on a malformed tender
away from the user's unsaved work (the pool is simply restarted). The GUI process never
calls PyMuPDF for the pane. The functions below run in the child;
:class:`PdfProcess` starts one child and talks to it over a pipe. Results are plain
picklable values (bytes, tuples) so nothing but data crosses over.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

PageSize = tuple[float, float]
Rect = tuple[float, float, float, float]
#: (width, height, stride, RGB bytes, pid of the rendering process)
RenderedPage = tuple[int, int, int, bytes, int]

_DOCS: OrderedDict[tuple[str, float], Any] = OrderedDict()
_MAX_OPEN = 3


def _pymupdf() -> Any:
    """PyMuPDF, imported in the child only (pinned below 2, which would import layout extras)."""
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
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:  # a non-UTF-8 file name: MuPDF cannot open it by name
            with open(path, "rb") as handle:
                doc = pymupdf.open(stream=handle.read(), filetype="pdf")
        else:
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


#: What a child can be asked to run, by name.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "warm_up": warm_up, "page_sizes": page_sizes, "render_page": render_page, "search_pages": search_pages,
}


def serve(conn: Connection) -> None:
    """Child main loop: answer ``(name, args)`` requests with ``("ok", value)`` / ``("error", text)``."""
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        name, args = message
        try:
            reply: tuple[str, Any] = ("ok", FUNCTIONS[name](*args))
        except Exception as exc:  # report, keep serving
            reply = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return


class PdfProcess:
    """One spawned PyMuPDF child talked to over a pipe, with no helper threads in the parent.

    The parent sends one request at a time (:meth:`send`) and collects the answer without
    blocking (:meth:`poll_reply`), so a GUI timer can drive it.
    """

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child_conn = ctx.Pipe()
        self._process = ctx.Process(target=serve, args=(child_conn,), name="bidstudio-pdf", daemon=True)
        self._process.start()
        child_conn.close()
        self.busy = False

    @property
    def pid(self) -> int | None:
        """The child's process id."""
        return self._process.pid

    def alive(self) -> bool:
        """Whether the child still runs."""
        return self._process.is_alive()

    def send(self, name: str, *args: Any) -> None:
        """Start a request (the previous one must have been answered)."""
        self._conn.send((name, args))
        self.busy = True

    def poll_reply(self) -> tuple[str, Any] | None:
        """The answer if it has arrived, else None; ``("error", ...)`` when the child died."""
        try:
            if not self._conn.poll():
                if not self._process.is_alive():
                    self.busy = False
                    return ("dead", "PDF 渲染进程意外退出")
                return None
            reply: tuple[str, Any] = self._conn.recv()
        except (EOFError, OSError):
            self.busy = False
            return ("dead", "PDF 渲染进程意外退出")
        self.busy = False
        return reply

    def ask_to_stop(self) -> None:
        """Tell the child to exit after its current call (returns at once)."""
        try:
            self._conn.send(None)
        except (OSError, ValueError):
            pass

    def close(self, timeout: float = 3.0) -> None:
        """Ask the child to stop, then make sure it has."""
        self.ask_to_stop()
        self._process.join(timeout)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(1.0)
        self._conn.close()

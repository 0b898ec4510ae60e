"""The OCR worker process's side (no Qt here: a spawned child imports this module only).

See :mod:`app.ui.tender.ocr_process` for the Qt side that starts it and reads its reports.
"""

from __future__ import annotations

import os
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path


def serve_ocr(conn: Connection, cancel: Event, path: str, password: str | None, pages: list[int],
              cache_dir: str | None) -> None:
    """Child: OCR ``pages`` of ``path`` into the cache, sending ``("page", done, total, n)`` then the end."""
    if hasattr(os, "nice"):  # the window's process keeps the upper hand on a two-core laptop
        try:
            os.nice(5)
        except OSError:
            pass
    try:
        from app.documents.ocr.cache import OcrCache
        from app.documents.ocr.runner import recognize_pages

        cache = OcrCache.for_file(Path(path), Path(cache_dir) if cache_dir else None)
        run = recognize_pages(
            Path(path), pages, password=password, cache=cache,
            progress=lambda done, total, number: conn.send(("page", done, total, number)),
            cancelled=cancel.is_set,
        )
        conn.send(("done", len(run.results), run.cancelled))
    except Exception as exc:  # reported to the window, never a traceback
        message = getattr(exc, "message_zh", None) or f"{type(exc).__name__}: {exc}"
        try:
            conn.send(("error", message))
        except (OSError, ValueError):
            pass
    finally:
        conn.close()

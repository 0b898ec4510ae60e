"""Read a list of PDF pages by OCR with progress and cancel, using and filling the cache.

A plain function (no Qt, no threads): the CLI calls it in-process, the desktop app calls
it in its worker process. Cancel is checked between pages; a cancelled run returns what
it finished (each page is cached as soon as it is read, so nothing is read twice).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.documents.model import OcrLine
from app.documents.ocr.cache import OcrCache, OcrPageResult
from app.documents.ocr.engine import OcrEngine
from app.documents.ocr.layout import normalize_punctuation

#: ``progress(done, total, page_number)`` after each page.
OcrProgress = Callable[[int, int, int], None]
PdfPage = Any


@dataclass
class OcrRun:
    """The outcome of :func:`recognize_pages`."""

    results: dict[int, OcrPageResult] = field(default_factory=dict)
    cancelled: bool = False
    from_cache: int = 0
    seconds: float = 0.0


def recognize_page(page: PdfPage, number: int, engine: OcrEngine) -> OcrPageResult:
    """OCR one PyMuPDF page: its lines (page points) and ruling lines (image pixels)."""
    from app.documents.ocr.deskew import MIN_SKEW, estimate_skew
    from app.documents.ocr.grid import find_rulings  # numpy: loaded when a page is read, not at start
    from app.documents.ocr.render import render_gray

    t0 = time.perf_counter()
    image = render_gray(page)
    skew = estimate_skew(image.without_red)
    if abs(skew) >= MIN_SKEW:  # a crooked scan: read it straightened (lines level, rulings upright)
        image = render_gray(page, skew)
    lines = [
        OcrLine(text=normalize_punctuation(ln.text), bbox=image.to_points(ln.box), confidence=round(ln.confidence, 4))
        for ln in engine.recognize(image.pixels)
    ]
    horizontal, vertical = find_rulings(image.without_red)  # a red seal is not a table ruling
    return OcrPageResult(
        number=number, width=float(page.rect.width), height=float(page.rect.height), zoom=image.zoom,
        lines=lines, rulings_h=[(s.at, s.lo, s.hi, s.thick) for s in horizontal],
        rulings_v=[(s.at, s.lo, s.hi, s.thick) for s in vertical], seconds=round(time.perf_counter() - t0, 3),
        skew=image.skew,
    )


def recognize_pages(
    path: Path,
    numbers: Sequence[int],
    *,
    password: str | None = None,
    cache: OcrCache | None = None,
    engine: OcrEngine | None = None,
    progress: OcrProgress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> OcrRun:
    """OCR pages ``numbers`` (1-based) of the PDF at ``path``; cached pages are not read again."""
    from app.documents.pdf_reader import open_pdf

    t0 = time.perf_counter()
    run = OcrRun()
    todo = list(dict.fromkeys(numbers))
    eng = engine or OcrEngine()
    doc = None
    try:
        for done, number in enumerate(todo, start=1):
            if cancelled is not None and cancelled():
                run.cancelled = True
                break
            hit = cache.get(number) if cache is not None else None
            if hit is None:
                if doc is None:
                    doc = open_pdf(path)
                    if doc.needs_pass:
                        doc.authenticate(password or "")
                result = recognize_page(doc[number - 1], number, eng)
                if cache is not None:
                    cache.put(result)
            else:
                result = hit
                run.from_cache += 1
            run.results[number] = result
            if progress is not None:
                progress(done, len(todo), number)
    finally:
        if doc is not None:
            doc.close()
    run.seconds = time.perf_counter() - t0
    return run

"""Scanned copies of PDFs, made by the tests and benchmarks themselves with PyMuPDF.

A "scan" is every page rendered to a gray image and put back as an image-only page of the
same size: no text layer, exactly what a printed-and-scanned tender looks like to the app.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pymupdf

CJK_FONT = "china-s"  # PyMuPDF's built-in simplified Chinese font


def scan_pdf(source: Path, target: Path, *, dpi: int = 150, pages: Iterable[int] | None = None) -> Path:
    """Write ``target``: the pages (1-based numbers, default all) of ``source`` as images only."""
    with pymupdf.open(source) as src, pymupdf.open() as out:
        numbers = list(pages) if pages is not None else list(range(1, src.page_count + 1))
        for number in numbers:
            page = src[number - 1]
            pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
            new = out.new_page(width=page.rect.width, height=page.rect.height)
            new.insert_image(new.rect, pixmap=pix)
        out.save(target, garbage=3, deflate=True)
    return target


def text_page_pdf(path: Path, lines: list[str], *, width: float = 420, height: float = 300,
                  fontsize: float = 12) -> Path:
    """A small one-page PDF with ``lines`` of Chinese text (native text layer)."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=width, height=height)
        y = 40.0
        for line in lines:
            page.insert_text((30, y), line, fontname=CJK_FONT, fontsize=fontsize)
            y += fontsize * 2
        doc.save(path)
    return path


def scanned_text_pdf(path: Path, lines: list[str], **kwargs: float) -> Path:
    """A one-page scan of ``lines`` (rendered with the CJK font, then rasterised)."""
    native = text_page_pdf(path.with_suffix(".native.pdf"), lines, **kwargs)
    return scan_pdf(native, path)

"""PDF page → the grayscale image the OCR engine reads, and the scale back to page points.

PP-OCR reads body text best at roughly 150–200 dpi; a page is rendered so that its long
side is about :data:`TARGET_LONG_SIDE` pixels (≈170 dpi for A4), never above
:data:`MAX_ZOOM` × its point size (tiny pages) and never below :data:`MIN_ZOOM`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

TARGET_LONG_SIDE = 2000
MAX_ZOOM = 4.0
MIN_ZOOM = 1.0

PdfPage = Any  # PyMuPDF is only partly typed


@dataclass(frozen=True)
class PageImage:
    """A rendered page: H×W uint8 gray pixels and pixels per point."""

    pixels: np.ndarray
    zoom: float

    def to_points(self, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """A pixel box as page points."""
        z = self.zoom
        return (box[0] / z, box[1] / z, box[2] / z, box[3] / z)


def zoom_for(width: float, height: float) -> float:
    """Pixels per point for a page of this size in points."""
    long_side = max(width, height, 1.0)
    return max(MIN_ZOOM, min(MAX_ZOOM, TARGET_LONG_SIDE / long_side))


def render_gray(page: PdfPage) -> PageImage:
    """Render ``page`` (a PyMuPDF page) to gray pixels at :func:`zoom_for` its size."""
    import pymupdf as _pymupdf

    pymupdf: Any = _pymupdf  # only partly typed
    rect = page.rect
    zoom = zoom_for(float(rect.width), float(rect.height))
    pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, alpha=False)
    pixels = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)[:, : pix.width].copy()
    return PageImage(pixels=pixels, zoom=zoom)

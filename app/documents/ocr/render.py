"""PDF page → the grayscale image the OCR engine reads, and the scale back to page points.

PP-OCR reads body text best at roughly 150–200 dpi; a page is rendered so that its long
side is about :data:`TARGET_LONG_SIDE` pixels (≈170 dpi for A4), never above
:data:`MAX_ZOOM` × its point size (tiny pages) and never below :data:`MIN_ZOOM`.

A crooked scan (:mod:`app.documents.ocr.deskew`) is rendered turned straight about the page
centre and cropped back to the page's size, so pixels / zoom stay page points — in the
straightened frame: a box is then off the tilted page image by at most the distance from the
centre times the angle (about 9 pt at a corner of A4 for 1°).
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
    """A rendered page: H×W uint8 gray pixels, pixels per point, and the tilt it was straightened by."""

    pixels: np.ndarray
    zoom: float
    skew: float = 0.0

    def to_points(self, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """A pixel box as page points."""
        z = self.zoom
        return (box[0] / z, box[1] / z, box[2] / z, box[3] / z)


def zoom_for(width: float, height: float) -> float:
    """Pixels per point for a page of this size in points."""
    long_side = max(width, height, 1.0)
    return max(MIN_ZOOM, min(MAX_ZOOM, TARGET_LONG_SIDE / long_side))


def render_gray(page: PdfPage, skew: float = 0.0) -> PageImage:
    """Render ``page`` (a PyMuPDF page) to gray pixels at :func:`zoom_for` its size.

    ``skew`` (degrees, as :func:`~app.documents.ocr.deskew.estimate_skew` measures it) turns
    the page back by that much about its centre; the image keeps the unturned page's size.
    """
    import pymupdf as _pymupdf

    pymupdf: Any = _pymupdf  # only partly typed
    rect = page.rect
    zoom = zoom_for(float(rect.width), float(rect.height))
    matrix = pymupdf.Matrix(zoom, zoom)
    if skew:
        matrix = matrix * pymupdf.Matrix(-skew)  # MuPDF turns clockwise on screen for a positive angle
    pix = page.get_pixmap(matrix=matrix, colorspace=pymupdf.csGRAY, alpha=False)
    pixels = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)[:, : pix.width]
    if skew:
        straight = (rect * pymupdf.Matrix(zoom, zoom)).irect  # the size of the page rendered unturned
        width, height = int(straight.width), int(straight.height)
        framed = np.full((height, width), 255, dtype=np.uint8)
        top, left = (pix.height - height) // 2, (pix.width - width) // 2
        src = pixels[max(top, 0): max(top, 0) + height, max(left, 0): max(left, 0) + width]
        framed[max(-top, 0): max(-top, 0) + src.shape[0], max(-left, 0): max(-left, 0) + src.shape[1]] = src
        pixels = framed
    return PageImage(pixels=pixels.copy(), zoom=zoom, skew=skew)

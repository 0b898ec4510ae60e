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
    """A rendered page: H×W uint8 gray pixels, pixels per point, and the tilt it was straightened by.

    ``red_removed`` is the gray image without red ink (a seal stamped over a table would
    otherwise lend it ring-shaped "rulings"); the ruling search and the tilt estimate read it.
    It is ``pixels`` itself when the page has no red ink.
    """

    pixels: np.ndarray
    zoom: float
    skew: float = 0.0
    red_removed: np.ndarray | None = None

    @property
    def without_red(self) -> np.ndarray:
        """The gray pixels with red ink (seals) lightened."""
        return self.pixels if self.red_removed is None else self.red_removed

    def to_points(self, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """A pixel box as page points."""
        z = self.zoom
        return (box[0] / z, box[1] / z, box[2] / z, box[3] / z)


RED_MARGIN = 70  # red exceeds both green and blue by this much: seal ink, not black, gray or blue print


def split_red(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Gray pixels of an H×W×3 image (MuPDF's weights), and the same with red ink lightened (None: no red ink).

    A reddish pixel takes its red value, as through a red filter: the seal's ink becomes
    light, while a black ruling or character under the seal (dark red after blur) stays dark.
    """
    r, g, b = (rgb[..., k].astype(np.int16) for k in range(3))
    gray = ((r * 77 + g * 151 + b * 28) >> 8).astype(np.uint8)
    red = (r - np.maximum(g, b)) > RED_MARGIN
    if not red.any():
        return gray, None
    clean = gray.copy()
    clean[red] = r[red].astype(np.uint8)  # what a red filter sees: seal ink light, black toner under it still dark
    return gray, clean


def _frame(pixels: np.ndarray, width: int, height: int) -> np.ndarray:
    """``pixels`` cropped (or padded white) about its centre to ``height`` × ``width``."""
    framed = np.full((height, width, *pixels.shape[2:]), 255, dtype=np.uint8)
    top, left = (pixels.shape[0] - height) // 2, (pixels.shape[1] - width) // 2
    src = pixels[max(top, 0): max(top, 0) + height, max(left, 0): max(left, 0) + width]
    framed[max(-top, 0): max(-top, 0) + src.shape[0], max(-left, 0): max(-left, 0) + src.shape[1]] = src
    return framed


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
    pix = page.get_pixmap(matrix=matrix, colorspace=pymupdf.csRGB, alpha=False)
    rgb = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)[:, : pix.width * 3]
    rgb = rgb.reshape(pix.height, pix.width, 3)
    if skew:
        straight = (rect * pymupdf.Matrix(zoom, zoom)).irect  # the size of the page rendered unturned
        rgb = _frame(rgb, int(straight.width), int(straight.height))
    gray, without_red = split_red(rgb)
    return PageImage(pixels=gray, zoom=zoom, skew=skew, red_removed=without_red)

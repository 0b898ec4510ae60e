"""Scanned copies of PDFs, made by the tests and benchmarks themselves with PyMuPDF.

A "scan" is every page rendered to a gray image and put back as an image-only page of the
same size: no text layer, exactly what a printed-and-scanned tender looks like to the app.
:func:`print_scan_pdf` goes further and imitates paper (:class:`PrintScan`): a red seal over
the text, a crooked sheet, uneven light, blur, sensor noise and JPEG compression.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
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


# ---------------------------------------------------------------------------------------------
# Printed-and-scanned copies: what a stamped page looks like after a printer and a scanner.

#: The degradations :class:`PrintScan` can apply, by name (``--degrade`` of bench_ocr.py).
DEGRADATIONS = ("stamp", "rotation", "shading", "blur", "noise", "jpeg")


@dataclass(frozen=True)
class PrintScan:
    """How a printed, stamped and scanned copy differs from the clean render.

    Applied in the order things happen to paper: a red seal is stamped over the text, the
    sheet lies slightly crooked on the scanner (``rotation`` degrees, sign random), the lamp
    lights it unevenly (brightness falls by up to ``shading`` across the sheet), the optics
    soften it (Gaussian ``blur`` radius in pixels), the sensor adds ``noise`` (gray-level σ)
    and the scanner saves a JPEG at ``jpeg_quality``. A zero / None turns one off.
    """

    stamp: bool = True
    rotation: tuple[float, float] | None = (0.5, 2.0)
    shading: float = 0.25
    blur: float = 0.8
    noise: float = 8.0
    jpeg_quality: int | None = 60
    seed: int = 0
    stamp_on: str = ""  # the seal goes over the text block containing this (default: a block chosen at random)

    @classmethod
    def only(cls, names: Iterable[str], seed: int = 0) -> PrintScan:
        """Just the named degradations (see :data:`DEGRADATIONS`); the rest off."""
        chosen = set(names)
        unknown = chosen - set(DEGRADATIONS)
        if unknown:
            raise ValueError(f"unknown degradation(s): {sorted(unknown)}; known: {DEGRADATIONS}")
        full = cls()
        return cls(stamp="stamp" in chosen, rotation=full.rotation if "rotation" in chosen else None,
                   shading=full.shading if "shading" in chosen else 0.0, blur=full.blur if "blur" in chosen else 0.0,
                   noise=full.noise if "noise" in chosen else 0.0,
                   jpeg_quality=full.jpeg_quality if "jpeg" in chosen else None, seed=seed)


def _stamp(text_page: Any, page: Any, rng: random.Random, on: str = "") -> None:
    """A red round seal (ring, star, name) drawn on ``page`` (a blank sheet) over where a text
    block of ``text_page`` lies; the two are multiplied like ink on toner (:func:`_render_rgb`)."""
    blocks = [b for b in text_page.get_text("blocks") if b[4].strip()]
    if on and any(on in b[4] for b in blocks):
        blocks = [b for b in blocks if on in b[4]]
    if blocks:
        x0, y0, x1, y1 = rng.choice(blocks)[:4]
        cx, cy = rng.uniform(x0 + (x1 - x0) * 0.4, x1), rng.uniform(y0, max(y0, y1))
    else:
        cx, cy = page.rect.width * 0.65, page.rect.height * 0.3
    radius = min(page.rect.width, page.rect.height) * rng.uniform(0.09, 0.12)
    red = (0.85, 0.1, 0.12)
    center = pymupdf.Point(cx, cy)
    page.draw_circle(center, radius, color=red, width=radius * 0.06, stroke_opacity=0.85)
    star = [pymupdf.Point(cx + radius * 0.28 * (1 if k % 2 == 0 else 0.4) * math.sin(k * math.pi / 5),
                          cy - radius * 0.1 - radius * 0.28 * (1 if k % 2 == 0 else 0.4) * math.cos(k * math.pi / 5))
            for k in range(10)]
    page.draw_polyline([*star, star[0]], color=red, fill=red, width=0.5, fill_opacity=0.85, stroke_opacity=0.85)
    name = "招标专用章"
    size = radius * 0.22
    for k, ch in enumerate(name):  # the name along the upper arc, like a real seal
        angle = math.pi * (-0.75 + 1.5 * k / (len(name) - 1))
        px, py = cx + radius * 0.72 * math.sin(angle), cy - radius * 0.72 * math.cos(angle)
        page.insert_text((px - size / 2, py + size / 2), ch, fontname=CJK_FONT, fontsize=size, color=red,
                         fill_opacity=0.85, stroke_opacity=0.85)
    page.insert_text((cx - size * 2, cy + radius * 0.55), "2026年", fontname=CJK_FONT, fontsize=size * 0.9, color=red,
                     fill_opacity=0.85)


def print_scan_image(rgb: np.ndarray, how: PrintScan, rng: random.Random) -> bytes:
    """A clean H×W×3 page render after the scanner's degradations, as JPEG (or PNG) bytes."""
    from PIL import Image, ImageFilter

    img = rgb.astype(np.float32)
    if how.shading:
        h, w = img.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ax, ay = rng.uniform(-1, 1), rng.uniform(-1, 1)
        ramp = ax * xx / w + ay * yy / h
        ramp = (ramp - ramp.min()) / max(float(ramp.max() - ramp.min()), 1e-6)  # 0 on the bright side, 1 on the dark
        img *= (1 - how.shading * ramp)[..., None]
    pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    if how.rotation:
        low, high = how.rotation
        angle = rng.uniform(low, high) * rng.choice((-1, 1))
        pil = pil.rotate(angle, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=(250, 250, 250))
    if how.blur:
        pil = pil.filter(ImageFilter.GaussianBlur(how.blur))
    if how.noise:
        arr = np.asarray(pil).astype(np.float32)
        noise = np.random.default_rng(rng.randrange(2**32)).normal(0, how.noise, arr.shape[:2])[..., None]
        pil = Image.fromarray(np.clip(arr + noise, 0, 255).astype(np.uint8))
    out = io.BytesIO()
    if how.jpeg_quality:
        pil.save(out, format="JPEG", quality=how.jpeg_quality)
    else:
        pil.save(out, format="PNG")
    return out.getvalue()


def _render_rgb(page: Any, dpi: int) -> np.ndarray:
    """``page`` as H×W×3 RGB pixels at ``dpi``."""
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csRGB, alpha=False)
    rgb = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)[:, : pix.width * 3]
    return rgb.reshape(pix.height, pix.width, 3)


def print_scan_pdf(source: Path, target: Path, *, dpi: int = 200, pages: Iterable[int] | None = None,
                   how: PrintScan | None = None) -> Path:
    """Write ``target``: the pages of ``source`` (1-based numbers, default all) as degraded colour scans."""
    how = how or PrintScan()
    rng = random.Random(how.seed)
    with pymupdf.open(source) as src, pymupdf.open() as out:
        numbers = list(pages) if pages is not None else list(range(1, src.page_count + 1))
        for number in numbers:
            page = src[number - 1]
            rgb = _render_rgb(page, dpi)
            if how.stamp:  # red ink over black toner: the colours multiply, the text stays dark under the seal
                with pymupdf.open() as sheet:
                    ink = sheet.new_page(width=page.rect.width, height=page.rect.height)
                    _stamp(page, ink, rng, how.stamp_on)
                    seal = _render_rgb(ink, dpi)
                rgb = (rgb.astype(np.uint16) * seal // 255).astype(np.uint8)
            data = print_scan_image(rgb, how, rng)
            new = out.new_page(width=page.rect.width, height=page.rect.height)
            new.insert_image(new.rect, stream=data)
        out.save(target, garbage=3, deflate=True)
    return target

"""How crooked a scanned page is: the angle of its text lines, from a projection profile.

A sheet laid slightly askew on a scanner (0.5–2° is common) tilts every text line and
table ruling. The recognizer copes with a tilted line, but the page layout does not: row
and column order come from box positions, and ruled tables need horizontal and vertical
rulings. :func:`estimate_skew` finds the tilt so the page can be rendered straight
(:func:`app.documents.ocr.render.render_gray` with ``skew``) before it is read.

The estimate: dark pixels of a reduced image are projected onto the vertical axis after
turning them by a trial angle; text lines give the sharpest profile (largest sum of
squared row counts) when the angle matches their tilt. A coarse sweep over ±:data:`MAX_SKEW`
degrees is refined around its best angle. Numpy only.
"""

from __future__ import annotations

import numpy as np

MAX_SKEW = 3.0  # degrees searched either way; a scan more crooked than this is rare and looks broken
MIN_SKEW = 0.15  # below this the page is read as it is (at 2000 px a line drifts by under 3 px)
_MAX_POINTS = 150_000
_MIN_POINTS = 400  # fewer dark pixels: a blank or nearly blank page, nothing to measure


def _profile_sharpness(xs: np.ndarray, ys: np.ndarray, degrees: np.ndarray) -> np.ndarray:
    """Sum of squared row counts of the points turned by each angle (higher = lines more level)."""
    out = np.empty(len(degrees))
    for k, deg in enumerate(degrees):
        rad = np.deg2rad(deg)
        rows = np.round(ys * np.cos(rad) - xs * np.sin(rad)).astype(np.int64)
        counts = np.bincount(rows - rows.min())
        out[k] = float(np.dot(counts, counts))
    return out


def estimate_skew(pixels: np.ndarray, *, threshold: int = 140, step: int = 2) -> float:
    """The tilt of the text lines of a gray page image, in degrees (0.0 when unsure).

    Positive when the lines descend to the right in image coordinates (y down): a line
    starting at ``(0, y)`` passes through ``(x, y + x·tan(angle))``.
    """
    small = pixels[::step, ::step]
    ys, xs = np.nonzero(small < threshold)
    if len(xs) < _MIN_POINTS:
        return 0.0
    if len(xs) > _MAX_POINTS:
        pick = np.random.default_rng(0).choice(len(xs), _MAX_POINTS, replace=False)
        xs, ys = xs[pick], ys[pick]
    xs = xs.astype(np.float64)
    ys = ys.astype(np.float64)
    coarse = np.arange(-MAX_SKEW, MAX_SKEW + 1e-9, 0.25)
    scores = _profile_sharpness(xs, ys, coarse)
    best = float(coarse[int(np.argmax(scores))])
    fine = np.arange(best - 0.25, best + 0.25 + 1e-9, 0.05)
    fine_scores = _profile_sharpness(xs, ys, fine)
    angle = float(fine[int(np.argmax(fine_scores))])
    flat = float(_profile_sharpness(xs, ys, np.array([0.0]))[0])
    if float(fine_scores.max()) < flat * 1.02:  # no clear gain over the page as it is: leave it
        return 0.0
    return round(angle, 2)

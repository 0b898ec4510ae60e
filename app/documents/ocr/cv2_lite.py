"""The few OpenCV functions the OCR engine calls, written with numpy and Pillow.

rapidocr imports ``cv2`` for image plumbing (colour order, resizing, rotation, borders), the
text detector's post-processing (dilating the probability map, finding its connected regions,
their smallest rotated rectangle and a polygon's mean score) and cutting each text line out of
the page (a perspective warp). OpenCV's wheel is 150 MiB with video codecs and BLAS that none of
this needs, so the packaged app leaves it out and :func:`install` puts this module in its place
(``app.documents.ocr.engine`` calls it when ``import cv2`` fails). Where OpenCV is installed it
is used as it is; ``tests/test_cv2_lite.py`` checks each function here against it.

Differences from OpenCV, none of which changes what a page reads (checked on the scanned
scoring tables of the OCR benchmark): interpolation is computed in floating point instead of
OpenCV's fixed-point tables (values may differ by one grey level), and :func:`findContours`
returns each 8-connected region's convex hull rather than its traced border (the only use,
``minAreaRect``, depends on the hull alone) and no contours of holes.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

__version__ = "0.0-bidstudio-lite"

COLOR_BGR2RGB = 4
COLOR_RGB2BGR = 4
COLOR_BGRA2BGR = 1
COLOR_RGBA2BGR = 3
COLOR_GRAY2BGR = 8
COLOR_BGR2GRAY = 6
COLOR_RGB2GRAY = 7
ROTATE_90_CLOCKWISE = 0
ROTATE_180 = 1
ROTATE_90_COUNTERCLOCKWISE = 2
RETR_EXTERNAL = 0
RETR_LIST = 1
CHAIN_APPROX_NONE = 1
CHAIN_APPROX_SIMPLE = 2
INTER_NEAREST = 0
INTER_LINEAR = 1
INTER_CUBIC = 2
WARP_INVERSE_MAP = 16
BORDER_CONSTANT = 0
BORDER_REPLICATE = 1
IMREAD_COLOR = 1
IMREAD_GRAYSCALE = 0
FONT_HERSHEY_SIMPLEX = 0
LINE_AA = 16

Array = np.ndarray[Any, Any]


def cvtColor(img: Array, code: int) -> Array:
    """Convert between the channel orders rapidocr uses (gray, RGB, BGR, RGBA, BGRA)."""
    if code == COLOR_GRAY2BGR:
        gray = img[..., 0] if img.ndim == 3 else img
        return np.repeat(gray[..., None], 3, axis=2)
    if code == COLOR_RGB2BGR:  # also BGR2RGB: the same swap
        return np.ascontiguousarray(img[..., 2::-1])
    if code == COLOR_BGRA2BGR:
        return np.ascontiguousarray(img[..., :3])
    if code == COLOR_RGBA2BGR:
        return np.ascontiguousarray(img[..., 2::-1])
    if code in (COLOR_BGR2GRAY, COLOR_RGB2GRAY):
        b, g, r = (img[..., 0], img[..., 1], img[..., 2]) if code == COLOR_BGR2GRAY else \
            (img[..., 2], img[..., 1], img[..., 0])
        gray = 0.114 * b.astype(np.float32) + 0.587 * g + 0.299 * r
        return _like(gray, img.dtype)
    raise NotImplementedError(f"cvtColor code {code} is not part of the OCR engine's needs")


def _like(values: Array, dtype: np.dtype[Any]) -> Array:
    """Float results back to ``dtype``, rounded and saturated like OpenCV does for integers."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(values), info.min, info.max).astype(dtype)
    return values.astype(dtype)


def _linear_taps(n_src: int, n_dst: int) -> tuple[Array, Array, Array]:
    """Source indices and weights of bilinear resampling along one axis, as OpenCV computes them."""
    scale = 1.0 / (n_dst / n_src)
    pos = ((np.arange(n_dst, dtype=np.float64) + 0.5) * scale - 0.5).astype(np.float32)
    i0 = np.floor(pos).astype(np.intp)
    frac = pos - i0.astype(np.float32)
    frac[i0 < 0] = 0.0
    i0 = np.maximum(i0, 0)
    frac[i0 >= n_src - 1] = 0.0
    i0 = np.minimum(i0, n_src - 1)
    i1 = np.minimum(i0 + 1, n_src - 1)
    return i0, i1, frac


def resize(img: Array, dsize: tuple[int, int] | None, fx: float = 0.0, fy: float = 0.0,
           interpolation: int = INTER_LINEAR) -> Array:
    """Resize to ``dsize`` (width, height) or by ``fx``/``fy``: bilinear (or nearest), no antialiasing.

    8-bit images follow OpenCV's fixed-point arithmetic (11-bit weights), so the result is the
    same pixel for pixel; a halving in both directions averages 2×2 blocks, as OpenCV does.
    """
    h, w = img.shape[:2]
    if dsize is None or dsize[0] <= 0 or dsize[1] <= 0:
        if fx <= 0 or fy <= 0:
            raise ValueError("resize: no target size")
        dsize = (round(w * fx), round(h * fy))
    new_w, new_h = int(dsize[0]), int(dsize[1])
    if new_w <= 0 or new_h <= 0 or h == 0 or w == 0:
        raise ValueError(f"resize: bad size {dsize} for an image of {w}x{h}")
    if interpolation == INTER_NEAREST:
        ys = np.minimum((np.arange(new_h) * (h / new_h)).astype(np.intp), h - 1)
        xs = np.minimum((np.arange(new_w) * (w / new_w)).astype(np.intp), w - 1)
        return np.ascontiguousarray(img[ys][:, xs])
    if (new_w, new_h) == (w, h):
        return img.copy()
    extra = (1,) * (img.ndim - 2)
    if w == 2 * new_w and h == 2 * new_h:  # OpenCV switches to area averaging here
        blocks = img.astype(np.int32).reshape(new_h, 2, new_w, 2, *img.shape[2:]).sum(axis=(1, 3))
        if img.dtype == np.uint8:
            return np.asarray((blocks + 2) >> 2, dtype=np.uint8)
        return _like(blocks / 4.0, img.dtype)
    y0, y1, wy = _linear_taps(h, new_h)
    x0, x1, wx = _linear_taps(w, new_w)
    if img.dtype == np.uint8:
        one = 2048  # INTER_RESIZE_COEF_SCALE
        ax1 = np.rint(wx * one).astype(np.int32)
        ax0 = np.rint((1.0 - wx) * one).astype(np.int32)
        by1 = np.rint(wy * one).astype(np.int32).reshape((-1, 1, *extra))
        by0 = np.rint((1.0 - wy) * one).astype(np.int32).reshape((-1, 1, *extra))
        src = img.astype(np.int32)
        rows = src[:, x0] * ax0.reshape((1, -1, *extra)) + src[:, x1] * ax1.reshape((1, -1, *extra))
        out = (((by0 * (rows[y0] >> 4)) >> 16) + ((by1 * (rows[y1] >> 4)) >> 16) + 2) >> 2
        return np.asarray(np.clip(out, 0, 255), dtype=np.uint8)
    srcf = img.astype(np.float32)
    wy_ = wy.reshape((-1, 1, *extra))
    rows_f = srcf[y0] * (1.0 - wy_) + srcf[y1] * wy_
    wx_ = wx.reshape((1, -1, *extra))
    return _like(rows_f[:, x0] * (1.0 - wx_) + rows_f[:, x1] * wx_, img.dtype)


def rotate(img: Array, code: int) -> Array:
    """Rotate by 90° clockwise, 180° or 90° counter-clockwise."""
    if code == ROTATE_180:
        return np.ascontiguousarray(img[::-1, ::-1])
    if code == ROTATE_90_CLOCKWISE:
        return np.ascontiguousarray(np.rot90(img, -1))
    if code == ROTATE_90_COUNTERCLOCKWISE:
        return np.ascontiguousarray(np.rot90(img, 1))
    raise ValueError(f"rotate: unknown code {code}")


def copyMakeBorder(img: Array, top: int, bottom: int, left: int, right: int,
                   borderType: int = BORDER_CONSTANT, dst: Any = None, value: Any = 0) -> Array:
    """Pad the image: a constant colour or the edge pixels repeated."""
    pad = [(top, bottom), (left, right)] + [(0, 0)] * (img.ndim - 2)
    if borderType == BORDER_REPLICATE:
        return np.pad(img, pad, mode="edge")
    out = np.pad(img, pad, mode="constant")
    fill = np.atleast_1d(np.asarray(value if value is not None else 0, dtype=np.float64))
    if np.any(fill):
        channels = img.shape[2] if img.ndim == 3 else 1
        colour = np.resize(fill, channels).astype(img.dtype)
        mask = np.ones(out.shape[:2], dtype=bool)
        mask[top:top + img.shape[0], left:left + img.shape[1]] = False
        out[mask] = colour if img.ndim == 3 else colour[0]
    return out


def bitwise_not(img: Array) -> Array:
    """Each bit inverted (255 - value for uint8)."""
    return np.invert(img)


def bitwise_and(a: Array, b: Array, mask: Array | None = None) -> Array:
    """``a & b``, zero where ``mask`` is zero."""
    out = np.bitwise_and(a, b)
    if mask is not None:
        keep = mask != 0
        out = np.where(keep[..., None] if out.ndim == 3 else keep, out, 0).astype(a.dtype)
    return out


def add(a: Array, b: Array) -> Array:
    """Saturating addition (uint8 stays within 0..255)."""
    return _like(a.astype(np.float64) + b, a.dtype)


def mean(src: Array, mask: Array | None = None) -> tuple[float, float, float, float]:
    """Mean of each channel over the pixels where ``mask`` is non-zero (0 when none are)."""
    planes = src.reshape(src.shape[0], src.shape[1], -1).astype(np.float64)
    values = planes[mask != 0] if mask is not None else planes.reshape(-1, planes.shape[2])
    result = [0.0, 0.0, 0.0, 0.0]
    if values.size:
        for i, m in enumerate(values.mean(axis=0)[:4]):
            result[i] = float(m)
    return (result[0], result[1], result[2], result[3])


def _edge_pixels(poly: Array) -> tuple[Array, Array]:
    """Pixels of the polygon's closed outline, drawn as 8-connected lines (one pixel per step)."""
    xs: list[Array] = []
    ys: list[Array] = []
    for p, q in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        steps = int(max(abs(q[0] - p[0]), abs(q[1] - p[1]), 1))
        t = np.linspace(0.0, 1.0, steps + 1)
        xs.append(np.ceil(p[0] + t * (q[0] - p[0]) - 0.5).astype(np.intp))
        ys.append(np.ceil(p[1] + t * (q[1] - p[1]) - 0.5).astype(np.intp))
    return np.concatenate(xs), np.concatenate(ys)


def fillPoly(img: Array, pts: Any, color: Any, lineType: int = 8, shift: int = 0,
             offset: Any = None) -> Array:
    """Fill polygons (integer vertices) into ``img`` in place, their outline pixels included, like OpenCV."""
    from PIL import Image, ImageDraw

    polys = [np.asarray(p, dtype=np.int64).reshape(-1, 2) for p in
             (pts if isinstance(pts, list | tuple) else list(pts))]
    h, w = img.shape[:2]
    mask_img = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(mask_img)
    for poly in polys:
        if len(poly) >= 3:
            draw.polygon([(float(x), float(y)) for x, y in poly], fill=1)
    mask = np.array(mask_img, dtype=bool)
    for poly in polys:
        if not len(poly):
            continue
        xs, ys = _edge_pixels(poly)
        inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
        mask[ys[inside], xs[inside]] = True
    colour = np.atleast_1d(np.asarray(color))
    if img.ndim == 3:
        img[mask] = np.resize(colour, img.shape[2]).astype(img.dtype)
    else:
        img[mask] = colour[0]
    return img


def dilate(img: Array, kernel: Array, iterations: int = 1) -> Array:
    """Grey dilation with a rectangular kernel of ones, anchored at its centre like OpenCV."""
    kh, kw = np.asarray(kernel).shape[:2]
    ay, ax = kh // 2, kw // 2
    out = img
    for _ in range(max(1, iterations)):
        src = out
        acc = src.copy()
        h, w = src.shape[:2]
        for dy in range(kh):
            for dx in range(kw):
                if not kernel[dy][dx]:
                    continue
                sy, sx = dy - ay, dx - ax  # dst(y, x) = max src(y + sy, x + sx)
                ys, ye = max(0, -sy), min(h, h - sy)
                xs, xe = max(0, -sx), min(w, w - sx)
                if ys >= ye or xs >= xe:
                    continue
                np.maximum(acc[ys:ye, xs:xe], src[ys + sy:ye + sy, xs + sx:xe + sx], out=acc[ys:ye, xs:xe])
        out = acc
    return out


def _runs(mask: Array) -> tuple[Array, Array, Array]:
    """Horizontal runs of set pixels: row, first column, last column (inclusive)."""
    h, w = mask.shape
    padded = np.zeros((h, w + 2), dtype=np.int8)
    padded[:, 1:-1] = mask != 0
    step = np.diff(padded, axis=1)
    rows, starts = np.nonzero(step == 1)
    _, ends = np.nonzero(step == -1)
    return rows, starts, ends - 1


def _components(rows: Array, starts: Array, ends: Array) -> list[Array]:
    """Run indices grouped into 8-connected regions (runs of adjacent rows that touch, diagonals too)."""
    n = len(rows)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    row_list, start_list, end_list = rows.tolist(), starts.tolist(), ends.tolist()
    first_of_row: dict[int, int] = {}
    for i, r in enumerate(row_list):
        first_of_row.setdefault(r, i)
    for i in range(n):
        below = first_of_row.get(row_list[i] + 1)
        if below is None:
            continue
        j = below
        a0, a1 = start_list[i] - 1, end_list[i] + 1
        while j < n and row_list[j] == row_list[i] + 1 and start_list[j] <= a1:
            if end_list[j] >= a0:
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[max(ri, rj)] = min(ri, rj)
            j += 1
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return [np.asarray(g, dtype=np.intp) for g in groups.values()]


def _hull(points: Array) -> Array:
    """Convex hull (monotone chain), counter-clockwise in image coordinates, no repeated end point."""
    pts = np.unique(points, axis=0)
    if len(pts) <= 2:
        return pts
    order = np.lexsort((pts[:, 1], pts[:, 0]))
    pts = pts[order].tolist()

    def chain(seq: list[list[int]]) -> list[list[int]]:
        out: list[list[int]] = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = chain(pts), chain(pts[::-1])
    return np.asarray(lower[:-1] + upper[:-1], dtype=points.dtype)


def findContours(image: Array, mode: int, method: int, contours: Any = None,
                 hierarchy: Any = None, offset: Any = None) -> tuple[tuple[Array, ...], Array | None]:
    """One closed outline per 8-connected region of non-zero pixels: its convex hull, shape (N, 1, 2).

    Holes are not reported (``RETR_LIST`` in OpenCV lists them too); the hierarchy is None.
    """
    rows, starts, ends = _runs(np.asarray(image))
    found: list[Array] = []
    for group in _components(rows, starts, ends):
        ys = rows[group]
        pts = np.concatenate([np.stack([starts[group], ys], axis=1), np.stack([ends[group], ys], axis=1)])
        found.append(_hull(pts.astype(np.int32)).reshape(-1, 1, 2))
    return tuple(found), None


def minAreaRect(points: Array) -> tuple[tuple[float, float], tuple[float, float], float]:
    """The smallest rotated rectangle holding the points: ((cx, cy), (width, height), angle in degrees)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return (0.0, 0.0), (0.0, 0.0), 0.0
    hull = _hull(pts)
    if len(hull) == 1:
        return (float(hull[0][0]), float(hull[0][1])), (0.0, 0.0), 0.0
    edges = np.roll(hull, -1, axis=0) - hull
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    keep = lengths > 0
    units = edges[keep] / lengths[keep, None]
    best: tuple[float, Array, Array, float, float] | None = None
    for u in units:
        v = np.array([-u[1], u[0]])
        a, b = hull @ u, hull @ v
        area = float((a.max() - a.min()) * (b.max() - b.min()))
        if best is None or area < best[0] - 1e-9:
            centre = u * (a.min() + a.max()) / 2 + v * (b.min() + b.max()) / 2
            best = (area, u, centre, float(a.max() - a.min()), float(b.max() - b.min()))
    assert best is not None
    _area, u, centre, width, height = best
    angle = float(np.degrees(np.arctan2(u[1], u[0])))
    return (float(centre[0]), float(centre[1])), (width, height), angle


def boxPoints(box: tuple[tuple[float, float], tuple[float, float], float]) -> Array:
    """The four corners of a rotated rectangle from :func:`minAreaRect`, in order around it."""
    (cx, cy), (w, h), angle = box
    theta = np.radians(angle)
    u = np.array([np.cos(theta), np.sin(theta)]) * w / 2
    v = np.array([-np.sin(theta), np.cos(theta)]) * h / 2
    c = np.array([cx, cy])
    return np.array([c - u + v, c - u - v, c + u - v, c + u + v], dtype=np.float32)


def getPerspectiveTransform(src: Array, dst: Array) -> Array:
    """The 3×3 homography mapping four source points onto four destination points."""
    s = np.asarray(src, dtype=np.float64).reshape(4, 2)
    d = np.asarray(dst, dtype=np.float64).reshape(4, 2)
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for i in range(4):
        (x, y), (u, v) = s[i], d[i]
        a[i] = [x, y, 1, 0, 0, 0, -x * u, -y * u]
        a[i + 4] = [0, 0, 0, x, y, 1, -x * v, -y * v]
        b[i], b[i + 4] = u, v
    h = np.linalg.solve(a, b)
    return np.append(h, 1.0).reshape(3, 3)


def invert(src: Array, flags: int = 0) -> tuple[float, Array]:
    """(1.0, inverse) of a square matrix, or (0.0, zeros) when it is singular."""
    try:
        return 1.0, np.linalg.inv(np.asarray(src, dtype=np.float64))
    except np.linalg.LinAlgError:
        return 0.0, np.zeros_like(np.asarray(src, dtype=np.float64))


def _cubic_weights(t: Array) -> Array:
    """OpenCV's bicubic weights (a = -0.75) for the four taps around fractional offsets ``t``."""
    a = -0.75
    x = np.stack([1 + t, t, 1 - t, 2 - t], axis=-1)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.asarray(np.where(x <= 1, near, far), dtype=np.float32)


def warpPerspective(src: Array, M: Array, dsize: tuple[int, int], dst: Any = None,
                    flags: int = INTER_LINEAR, borderMode: int = BORDER_CONSTANT,
                    borderValue: Any = 0) -> Array:
    """Warp ``src`` by the homography ``M`` into a ``dsize`` (width, height) image (bilinear or bicubic)."""
    width, height = int(dsize[0]), int(dsize[1])
    matrix = np.asarray(M, dtype=np.float64)
    if not flags & WARP_INVERSE_MAP:
        matrix = np.asarray(np.linalg.inv(matrix), dtype=np.float64)
    xs, ys = np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64))
    ones = np.ones_like(xs)
    mapped = np.tensordot(matrix, np.stack([xs, ys, ones]), axes=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        sx = mapped[0] / mapped[2]
        sy = mapped[1] / mapped[2]
    h, w = src.shape[:2]
    img = src.astype(np.float32)
    outside = ~((sx > -1) & (sx < w) & (sy > -1) & (sy < h))
    sx = np.nan_to_num(sx, nan=-2.0, posinf=-2.0, neginf=-2.0)
    sy = np.nan_to_num(sy, nan=-2.0, posinf=-2.0, neginf=-2.0)
    interp = flags & 0xF
    x0 = np.floor(sx).astype(np.intp)
    y0 = np.floor(sy).astype(np.intp)
    fx = (sx - x0).astype(np.float32)
    fy = (sy - y0).astype(np.float32)
    extra = (1,) * (src.ndim - 2)
    if interp == INTER_CUBIC:
        wx, wy = _cubic_weights(fx), _cubic_weights(fy)
        offsets: tuple[int, ...] = (-1, 0, 1, 2)
    elif interp == INTER_NEAREST:
        x0, y0 = np.rint(sx).astype(np.intp), np.rint(sy).astype(np.intp)
        wx = wy = np.ones((*fx.shape, 1), dtype=np.float32)
        offsets = (0,)
    else:
        wx = np.stack([1 - fx, fx], axis=-1)
        wy = np.stack([1 - fy, fy], axis=-1)
        offsets = (0, 1)
    out = np.zeros((height, width, *src.shape[2:]), dtype=np.float32)
    for j, oy in enumerate(offsets):
        yy = np.clip(y0 + oy, 0, h - 1)
        for i, ox in enumerate(offsets):
            xx = np.clip(x0 + ox, 0, w - 1)
            weight = (wy[..., j] * wx[..., i]).reshape(height, width, *extra)
            out += img[yy, xx] * weight
    if borderMode != BORDER_REPLICATE:
        fill = np.resize(np.atleast_1d(np.asarray(borderValue, dtype=np.float32)), src.shape[2] if src.ndim == 3 else 1)
        out[outside] = fill if src.ndim == 3 else fill[0]
    return _like(out, src.dtype)


def imdecode(buf: Array, flags: int = IMREAD_COLOR) -> Array | None:
    """Decode an encoded image (PNG, JPEG, …) into BGR (or gray), None when it is not one."""
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(np.asarray(buf, dtype=np.uint8).tobytes())) as im:
            if flags == IMREAD_GRAYSCALE:
                return np.asarray(im.convert("L"))
            return np.ascontiguousarray(np.asarray(im.convert("RGB"))[..., ::-1])
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def imread(path: str, flags: int = IMREAD_COLOR) -> Array | None:
    """Read an image file into BGR (or gray), None when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    return imdecode(np.frombuffer(data, dtype=np.uint8), flags)


def imencode(ext: str, img: Array, params: Any = None) -> tuple[bool, Array]:
    """Encode a BGR (or gray) image as ``ext`` (".png", ".jpg")."""
    import io

    from PIL import Image

    rgb = img[..., ::-1] if img.ndim == 3 else img
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb)).save(out, format={"jpg": "JPEG"}.get(ext.lstrip(".").lower(),
                                                                                    ext.lstrip(".").upper()))
    return True, np.frombuffer(out.getvalue(), dtype=np.uint8)


def imwrite(path: str, img: Array, params: Any = None) -> bool:
    """Write a BGR (or gray) image to ``path``."""
    ok, data = imencode("." + path.rsplit(".", 1)[-1], img)
    with open(path, "wb") as fh:
        fh.write(data.tobytes())
    return ok


def _not_needed(name: str) -> Any:
    def fail(*_args: Any, **_kwargs: Any) -> Any:
        raise NotImplementedError(f"cv2.{name} (drawing OCR results) is not part of the packaged app")

    return fail


polylines = _not_needed("polylines")
putText = _not_needed("putText")


def install() -> bool:
    """Make ``import cv2`` find this module when OpenCV is not installed; True when it was put in place."""
    import importlib.util

    try:
        present = sys.modules.get("cv2", False) is not None and importlib.util.find_spec("cv2") is not None
    except (ImportError, ValueError):
        present = False
    if present:
        return False
    sys.modules["cv2"] = sys.modules[__name__]
    return True

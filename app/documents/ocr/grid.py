"""Tables from a page image: ruling lines found with numpy, cells filled from OCR boxes.

Ruling lines are long straight runs of dark pixels (much longer than any stroke of a
character). Horizontal and vertical segments that cross form one table; the distinct
line positions give a grid, and a missing stretch of ruling between two grid cells
means the cells are merged (the later one becomes ``None``, as in the native reader).
Each OCR character is placed in the cell holding its estimated centre (the engine gives
one box per line, so characters are spread evenly across it). Where the structure is in
doubt — rulings only partly drawn, text lying across a ruling — the table says so in
``Table.uncertain``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from app.documents.model import OcrLine, Table

DARK = 210  # gray level below which a pixel is ink, on white paper (thin rulings render light gray)
PAPER_MARGIN = 45  # on darker paper: this much darker than the paper (the page's median gray) is ink
MIN_H_RUN_PX = 90  # a horizontal ruling is at least this long (a wide hanzi is ~30 px at 170 dpi)
GAP_PX = 2  # holes this short in a ruling (scan noise, JPEG) are bridged
PAPER_BLOCK_PX = 48  # paper brightness is measured per square of this size (larger than a hanzi at 170 dpi)
MIN_V_RUN_PX = 40  # a vertical ruling at least this long (one table row at least)
JOIN_PX = 4  # segments this close are one ruling / touch each other
COVERED = 0.6  # a cell border drawn over this share of its length is a border
DOUBTFUL = 0.25  # between this and COVERED the border is in doubt
MAX_ROWS = 400
CAPTION_GAP_PT = 45.0
MARGIN_SHARE = 0.09  # top/bottom share of a scan holding running headers, logos and page numbers
_PAGE_NUMBER = re.compile(r"^[-—–\s]*(?:第?\s*\d{1,4}\s*页?(?:\s*[/共]\s*\d{1,4}\s*页?)?)[-—–\s]*$")


@dataclass
class Segment:
    """A ruling: fixed coordinate ``at`` (y for horizontal, x for vertical), span ``lo..hi``."""

    at: float
    lo: float
    hi: float
    thick: int = 1


@dataclass
class _Group:
    horizontal: list[Segment] = field(default_factory=list)
    vertical: list[Segment] = field(default_factory=list)


def _run_mask(dark: np.ndarray, length: int) -> np.ndarray:
    """Pixels lying in a horizontal run of at least ``length`` dark pixels."""
    h, w = dark.shape
    if w < length:
        return np.zeros_like(dark)
    c = np.zeros((h, w + 1), dtype=np.int32)
    np.cumsum(dark, axis=1, out=c[:, 1:])
    full = (c[:, length:] - c[:, :-length]) == length  # run of `length` starting at column i
    starts = np.zeros((h, w + 1), dtype=np.int32)
    starts[:, : full.shape[1]] += full
    starts[:, length : length + full.shape[1]] -= full
    return np.cumsum(starts, axis=1)[:, :w] > 0


def _bridge(dark: np.ndarray, gap: int = GAP_PX) -> np.ndarray:
    """``dark`` with holes of up to ``gap`` pixels along each row filled (dark within ``gap`` on both
    sides): a thin ruling on a noisy, blurred or JPEG scan breaks into dashes, text strokes keep their gaps."""
    w = dark.shape[1]
    left = np.zeros_like(dark)
    right = np.zeros_like(dark)
    for k in range(1, gap + 1):
        left[:, k:] |= dark[:, : w - k]
        right[:, : w - k] |= dark[:, k:]
    bridged: np.ndarray = dark | (left & right)
    return bridged


def _segments(mask: np.ndarray) -> list[Segment]:
    """Merge the row runs of ``mask`` across neighbouring rows into segments (rows = ``at``)."""
    out: list[Segment] = []
    open_: list[tuple[Segment, int]] = []  # segment, last row
    for y in np.flatnonzero(mask.any(axis=1)):
        row = mask[y].astype(np.int8)
        edges = np.flatnonzero(np.diff(np.concatenate(([0], row, [0]))))
        runs = list(zip(edges[0::2], edges[1::2], strict=False))
        still: list[tuple[Segment, int]] = [(s, last) for s, last in open_ if y - last <= JOIN_PX]
        for x0, x1 in runs:
            for i, (s, _last) in enumerate(still):
                if min(s.hi, x1) - max(s.lo, x0) > 0.5 * min(s.hi - s.lo, x1 - x0):
                    s.at = (s.at * s.thick + y) / (s.thick + 1)
                    s.thick += 1
                    s.lo, s.hi = min(s.lo, float(x0)), max(s.hi, float(x1))
                    still[i] = (s, int(y))
                    break
            else:
                seg = Segment(float(y), float(x0), float(x1))
                out.append(seg)
                still.append((seg, int(y)))
        open_ = still
    return [s for s in out if s.thick <= 12]  # thicker "lines" are filled areas, not rulings


def flatten_paper(pixels: np.ndarray, block: int = PAPER_BLOCK_PX) -> np.ndarray:
    """``pixels`` with unevenly lit paper evened out: each pixel divided by the paper brightness
    around it (the 90th percentile of its ``block``-sized square, the brightest of the 3×3 squares
    around it), so paper is near white all over and ink keeps its contrast to it."""
    h, w = pixels.shape
    bh, bw = -(-h // block), -(-w // block)
    padded = np.pad(pixels, ((0, bh * block - h), (0, bw * block - w)), mode="edge")  # edge squares: own paper
    tiles = padded.reshape(bh, block, bw, block).transpose(0, 2, 1, 3).reshape(bh, bw, block * block)
    paper = np.percentile(tiles, 90, axis=2)
    around = np.pad(paper, 1, mode="edge")
    paper = np.max([around[dy:dy + bh, dx:dx + bw] for dy in range(3) for dx in range(3)], axis=0)
    if float(paper.min()) >= 250:  # evenly white already (most pages): nothing to do
        return pixels
    background = np.repeat(np.repeat(paper, block, axis=0), block, axis=1)[:h, :w]
    even: np.ndarray = np.clip(pixels.astype(np.float32) * 255.0 / np.maximum(background, 1.0), 0, 255)
    return even.astype(np.uint8)


def find_rulings(pixels: np.ndarray) -> tuple[list[Segment], list[Segment]]:
    """Horizontal and vertical rulings of a gray page image (pixels); uneven light is evened out first."""
    pixels = flatten_paper(pixels)
    dark = pixels < min(DARK, int(np.median(pixels)) - PAPER_MARGIN)
    horizontal = _segments(_run_mask(_bridge(dark), MIN_H_RUN_PX))
    vertical = _segments(_run_mask(_bridge(np.ascontiguousarray(dark.T)), MIN_V_RUN_PX))
    return horizontal, vertical


def _crosses(h: Segment, v: Segment) -> bool:
    return h.lo - JOIN_PX <= v.at <= h.hi + JOIN_PX and v.lo - JOIN_PX <= h.at <= v.hi + JOIN_PX


def _groups(horizontal: list[Segment], vertical: list[Segment]) -> list[_Group]:
    """Rulings that cross each other, transitively: one group per table."""
    parent = list(range(len(horizontal) + len(vertical)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, h in enumerate(horizontal):
        for j, v in enumerate(vertical):
            if _crosses(h, v):
                parent[find(i)] = find(len(horizontal) + j)
    groups: dict[int, _Group] = {}
    for i, h in enumerate(horizontal):
        groups.setdefault(find(i), _Group()).horizontal.append(h)
    for j, v in enumerate(vertical):
        groups.setdefault(find(len(horizontal) + j), _Group()).vertical.append(v)
    return [g for g in groups.values() if len(g.horizontal) >= 2 and len(g.vertical) >= 2]


def _positions(segments: list[Segment]) -> list[float]:
    """Distinct ``at`` values (segments closer than JOIN_PX count once)."""
    out: list[float] = []
    for at in sorted(s.at for s in segments):
        if out and at - out[-1] <= JOIN_PX * 2:
            continue
        out.append(at)
    return out


def _coverage(segments: list[Segment], at: float, lo: float, hi: float) -> float:
    """Share of ``lo..hi`` drawn by rulings lying at ``at``."""
    spans = sorted((max(s.lo, lo), min(s.hi, hi)) for s in segments if abs(s.at - at) <= JOIN_PX * 2)
    covered, end = 0.0, lo
    for a, b in spans:
        a = max(a, end)
        if b > a:
            covered += b - a
            end = b
    return covered / max(hi - lo, 1.0)


def _locate(value: float, edges: list[float]) -> int | None:
    """Index of the interval of ``edges`` holding ``value``."""
    for i in range(len(edges) - 1):
        if edges[i] <= value < edges[i + 1]:
            return i
    return None


@dataclass
class GridTable:
    """A table found on an image, in pixels, before conversion to the document model."""

    box: tuple[float, float, float, float]
    rows: list[list[str | None]]
    uncertain: list[str]


def _build(group: _Group, lines: list[tuple[str, tuple[float, float, float, float]]]) -> GridTable | None:
    ys, xs = _positions(group.horizontal), _positions(group.vertical)
    if len(ys) < 2 or len(xs) < 2:
        return None
    nrows, ncols = len(ys) - 1, len(xs) - 1
    doubt: list[str] = []
    owner: list[list[tuple[int, int]]] = [[(r, c) for c in range(ncols)] for r in range(nrows)]
    merged_left = [[False] * ncols for _ in range(nrows)]
    merged_up = [[False] * ncols for _ in range(nrows)]
    unsure = 0
    for r in range(nrows):
        for c in range(ncols):
            if c > 0:
                cov = _coverage(group.vertical, xs[c], ys[r], ys[r + 1])
                merged_left[r][c] = cov < COVERED
                unsure += DOUBTFUL <= cov < COVERED
            if r > 0:
                cov = _coverage(group.horizontal, ys[r], xs[c], xs[c + 1])
                merged_up[r][c] = cov < COVERED
                unsure += DOUBTFUL <= cov < COVERED
            if merged_left[r][c]:
                owner[r][c] = owner[r][c - 1]
            elif merged_up[r][c]:
                owner[r][c] = owner[r - 1][c]
    if unsure:
        doubt.append(f"{unsure} 处表格线只画了一部分，单元格合并可能判断有误")
    texts: dict[tuple[int, int], list[tuple[float, float, str]]] = {}
    straddling = 0
    for text, (x0, y0, x1, y1) in lines:
        cy = (y0 + y1) / 2
        row_at = _locate(cy, ys)
        if row_at is None:
            continue
        step = (x1 - x0) / max(len(text), 1)
        cells_hit: set[tuple[int, int]] = set()
        for k, ch in enumerate(text):
            col_at = _locate(x0 + (k + 0.5) * step, xs)
            if col_at is None:
                continue
            key = owner[row_at][col_at]
            cells_hit.add(key)
            texts.setdefault(key, []).append((cy, x0 + (k + 0.5) * step, ch))
        straddling += len(cells_hit) > 1
    if straddling:
        doubt.append(f"{straddling} 行文字跨过了表格线，已按位置拆分到单元格，请核对")
    rows: list[list[str | None]] = []
    for r in range(min(nrows, MAX_ROWS)):
        row: list[str | None] = []
        for c in range(ncols):
            if owner[r][c] != (r, c):
                row.append(None)
                continue
            chars = sorted(texts.get((r, c), []))
            row.append(_cell_text(chars))
        rows.append(row)
    return GridTable(box=(xs[0], ys[0], xs[-1], ys[-1]), rows=rows, uncertain=doubt)


def _cell_text(chars: list[tuple[float, float, str]]) -> str:
    """Characters (centre y, centre x, char) as lines of text, top to bottom."""
    out: list[list[tuple[float, float, str]]] = []
    for ch in chars:
        if out and abs(ch[0] - out[-1][0][0]) < 4:
            out[-1].append(ch)
        else:
            out.append([ch])
    return "\n".join("".join(c for _, _, c in sorted(line, key=lambda t: t[1])) for line in out).strip()


def _is_margin(line: OcrLine, height: float) -> bool:
    """A running header or footer, a logo's caption or a bare page number."""
    if line.bbox[3] < height * MARGIN_SHARE or line.bbox[1] > height * (1 - MARGIN_SHARE):
        return True
    return bool(_PAGE_NUMBER.match(line.text))


def tables_from_image(pixels: np.ndarray, zoom: float, lines: list[OcrLine], number: int) -> list[Table]:
    """The ruled tables of one page image as document-model tables in page points.

    ``lines`` are the page's OCR lines (in points); ``zoom`` is pixels per point.
    """
    horizontal, vertical = find_rulings(pixels)
    return tables_from_rulings(horizontal, vertical, zoom, pixels.shape[0] / zoom, lines, number)


def tables_from_rulings(horizontal: list[Segment], vertical: list[Segment], zoom: float, height: float,
                        lines: list[OcrLine], number: int) -> list[Table]:
    """Tables from rulings found on an image (pixels at ``zoom``) and OCR lines (points).

    Kept apart from the image so that cached pages can be rebuilt without reading them again.
    """
    px_lines = [(ln.text, (ln.bbox[0] * zoom, ln.bbox[1] * zoom, ln.bbox[2] * zoom, ln.bbox[3] * zoom))
                for ln in lines]
    found = [t for g in _groups(horizontal, vertical) if (t := _build(g, px_lines)) is not None]
    found = [t for t in found if len(t.rows) >= 1 and any(any(c for c in row) for row in t.rows)]
    found.sort(key=lambda t: (t.box[1], t.box[0]))
    body = [ln for ln in lines if not _is_margin(ln, height)]
    out: list[Table] = []
    for k, t in enumerate(found):
        x0, y0, x1, y1 = (v / zoom for v in t.box)
        above = [ln for ln in body if ln.bbox[3] <= y0 + 1]
        below = [ln for ln in body if ln.bbox[1] >= y1 - 1]
        near = sorted((ln for ln in above if y0 - ln.bbox[3] <= CAPTION_GAP_PT), key=lambda ln: ln.bbox[1])
        out.append(Table(
            id=f"p{number}o{k + 1}",
            page=number,
            rows=t.rows,
            bbox=(x0, y0, x1, y1),
            caption=" ".join(ln.text.strip() for ln in near[-2:]),
            starts_page=not above,
            ends_page=not below,
            source="ocr",
            uncertain="；".join(t.uncertain),
        ))
    return out

"""A past bid's PDF page as prose lines and tables, in reading order.

Running PyMuPDF's table finder on every page of every imported bid costs ~20 ms a page
(minutes for a library of 200 bids). A page is searched only when its vector drawings
(``get_cdrawings``, well under a millisecond a page) hold a ruled grid: at least
``MIN_RULES`` distinct horizontal and ``MIN_RULES`` distinct vertical segments that cross
the same area. Rules are stroked lines and rectangles, or thin filled boxes; filled shapes
with curves or made of lines (letters drawn as outlines, logos) are not rules. On 5 real
tenders of ``../shared`` (380 pages) the pre-filter kept every one of the 93 tables the finder
finds when run on every page. On such a page each table found becomes a ``("t", rows)`` item at its place
among the text lines, and the lines inside the table are left out of the prose, so a cell's
text is never read twice. Every other page is just its text lines (``("p", line)``).

The work per document is bounded: ``MAX_PATHS`` drawings on a page (a plan or a chart is
not a table), ``TIME_BUDGET_S`` seconds of table search per document.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from app.documents.pdf_tables import _find as find_ruled_tables  # the scoring-table reader's line finder
from app.documents.pdf_tables import _LineIndex, _page_lines

PdfPage = Any
PageItem = tuple[str, Any]  # ("p", text) or ("t", rows)

MIN_RULES = 3  # distinct horizontal and vertical rules a grid needs (2 rows × 2 columns)
MIN_RULE_LEN = 6.0  # points; shorter strokes are glyph parts or ticks
ALIGN_TOL = 1.5  # points within which two rules count as one position
MAX_PATHS = 4000  # a page with more drawings is a figure, not searched
TIME_BUDGET_S = 15.0  # table search per document; later pages keep their text as lines


@dataclass
class TableBudget:
    """Table search left for one document, and what it did (pages searched, tables kept)."""

    deadline: float = field(default_factory=lambda: time.monotonic() + TIME_BUDGET_S)
    searched: int = 0
    tables: int = 0


def _segments(paths: list[dict[str, Any]]) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """Horizontal ``(y, x0, x1)`` and vertical ``(x, y0, y1)`` strokes of the page's drawings."""
    hs: list[tuple[float, float, float]] = []
    vs: list[tuple[float, float, float]] = []

    def add(x0: float, y0: float, x1: float, y1: float) -> None:
        if abs(y1 - y0) <= ALIGN_TOL and abs(x1 - x0) >= MIN_RULE_LEN:
            hs.append(((y0 + y1) / 2, min(x0, x1), max(x0, x1)))
        elif abs(x1 - x0) <= ALIGN_TOL and abs(y1 - y0) >= MIN_RULE_LEN:
            vs.append(((x0 + x1) / 2, min(y0, y1), max(y0, y1)))

    for path in paths:
        items = path.get("items", ())
        stroked = "s" in str(path.get("type", ""))
        if not stroked:  # a filled shape: a rule drawn as a thin box, cell shading, or a glyph/figure
            if any(it[0] == "c" for it in items):
                continue  # curves: letters drawn as outlines, logos, charts
            x0, y0, x1, y1 = (float(v) for v in path.get("rect", (0, 0, 0, 0)))
            if min(x1 - x0, y1 - y0) <= ALIGN_TOL:
                add(x0, y0, x1, y1)
                continue
            items = tuple(it for it in items if it[0] == "re")  # polygons of lines are shapes, not rules
        for item in items:
            kind = item[0]
            if kind == "l":
                (ax, ay), (bx, by) = item[1], item[2]
                add(float(ax), float(ay), float(bx), float(by))
            elif kind == "re":
                x0, y0, x1, y1 = (float(v) for v in item[1])
                if y1 - y0 <= ALIGN_TOL or x1 - x0 <= ALIGN_TOL:  # a rule drawn as a thin filled box
                    add(x0, y0, x1, y1)
                else:  # a cell or frame: its four edges
                    add(x0, y0, x1, y0)
                    add(x0, y1, x1, y1)
                    add(x0, y0, x0, y1)
                    add(x1, y0, x1, y1)
    return hs, vs


def _distinct(values: list[float]) -> int:
    count, last = 0, None
    for v in sorted(values):
        if last is None or v - last > ALIGN_TOL:
            count += 1
        last = v
    return count


def has_ruled_grid(page: PdfPage) -> bool:
    """Whether the page's drawings hold enough crossing horizontal and vertical rules for a table."""
    paths = page.get_cdrawings()
    if not paths or len(paths) > MAX_PATHS:
        return False
    hs, vs = _segments(paths)
    if _distinct([y for y, _, _ in hs]) < MIN_RULES or _distinct([x for x, _, _ in vs]) < MIN_RULES:
        return False
    if len(hs) * len(vs) > 250_000:  # dense drawings: let the finder decide rather than pair them all
        return True
    # the verticals must stand between horizontals that they cross (one grid, not scattered strokes)
    crossing_h = [y for y, x0, x1 in hs if sum(x0 - ALIGN_TOL <= x <= x1 + ALIGN_TOL and a - ALIGN_TOL <= y <= b + ALIGN_TOL
                                               for x, a, b in vs) >= 2]
    crossing_v = [x for x, a, b in vs if sum(x0 - ALIGN_TOL <= x <= x1 + ALIGN_TOL and a - ALIGN_TOL <= y <= b + ALIGN_TOL
                                             for y, x0, x1 in hs) >= 2]
    return _distinct(crossing_h) >= MIN_RULES and _distinct(crossing_v) >= MIN_RULES


def _cell(text: str) -> str:
    """A cell's lines joined (a PDF wraps long cells; Chinese needs no space between the parts)."""
    return "".join(part.strip() for part in text.splitlines())


def _tables(page: PdfPage, lines: list[Any]) -> list[tuple[tuple[float, float, float, float], list[list[str]]]]:
    """The page's tables (bbox, rows of clean cell text) with at least 2 rows and 2 columns."""
    index = _LineIndex(lines)
    out = []
    for tb in find_ruled_tables(page):
        rows = [[_cell(index.cell_text(tuple(c))) if c is not None else "" for c in row.cells] for row in tb.rows]
        rows = [r for r in rows if any(r)]
        if len(rows) >= 2 and max(len(r) for r in rows) >= 2:
            out.append((tuple(float(v) for v in tb.bbox), rows))
    out.sort(key=lambda t: t[0][1])
    return out  # type: ignore[return-value]


def _inside(bbox: tuple[float, float, float, float], box: tuple[float, float, float, float]) -> bool:
    cx, cy = (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2
    return box[0] - 1 <= cx <= box[2] + 1 and box[1] - 1 <= cy <= box[3] + 1


def page_items(page: PdfPage, budget: TableBudget | None = None) -> list[PageItem]:
    """The page's text lines, with each ruled table as one ``("t", rows)`` item in its place."""
    if budget is None or time.monotonic() > budget.deadline or not has_ruled_grid(page):
        return [("p", ln.strip()) for ln in page.get_text().splitlines() if ln.strip()]
    budget.searched += 1
    lines = _page_lines(page)
    tables = _tables(page, lines)
    if not tables:
        return [("p", ln.strip()) for ln in page.get_text().splitlines() if ln.strip()]
    budget.tables += len(tables)
    items: list[PageItem] = []
    pending = list(tables)
    for ln in lines:
        if any(_inside(ln.bbox, box) for box, _ in tables):
            continue
        while pending and (ln.bbox[1] + ln.bbox[3]) / 2 > pending[0][0][1]:
            items.append(("t", pending.pop(0)[1]))
        text = ln.text.strip()
        if text:
            items.append(("p", text))
    items.extend(("t", rows) for _, rows in pending)
    return items

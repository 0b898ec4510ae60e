"""The pages of a PDF's format chapter read again, closer: line by line, gaps kept, tables ruled.

A PDF form draws its blanks: a line under empty space, or just room between ``日期：`` and
``年  月  日``. The tender reader's text blocks lose both. Here every text line is rebuilt from its
characters: a horizontal gap wider than about one character becomes spaces in proportion, and
spaces lying over a drawn horizontal rule are marked underlined (a blank). Ruled tables are
read with the line finder of :mod:`app.documents.pdf_tables` on every chapter page, bounded by a
page count and a time budget. The result feeds :func:`app.documents.forms.flow.document_flow`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.documents.model import Table

#: Pages of a format chapter read again at most, and seconds spent on it.
MAX_PAGES = 80
TIME_BUDGET_S = 20.0


Box = tuple[float, float, float, float]
Char = tuple[str, Box]


@dataclass
class PdfLine:
    """One text line: its text with gaps as spaces, its box, and its underlined character spans."""

    text: str
    bbox: tuple[float, float, float, float]
    underlined: list[tuple[int, int]] = field(default_factory=list)
    size: float = 10.0


@dataclass
class ChapterPages:
    """Lines and tables of the pages read again, by page number; pages left out at a limit."""

    lines: dict[int, list[PdfLine]] = field(default_factory=dict)
    tables: dict[int, list[Table]] = field(default_factory=dict)
    skipped: list[int] = field(default_factory=list)


def _rules(page: Any) -> list[tuple[float, float, float]]:
    """Horizontal strokes on the page: (y, x0, x1)."""
    out: list[tuple[float, float, float]] = []
    try:
        drawings = page.get_drawings()
    except Exception:  # a broken content stream: no rules, the text still counts
        return out
    for d in drawings:
        for item in d.get("items", []):
            if item[0] == "l":
                p1, p2 = item[1], item[2]
                if abs(p1.y - p2.y) < 1.0 and abs(p2.x - p1.x) > 12:
                    out.append((float(p1.y), float(min(p1.x, p2.x)), float(max(p1.x, p2.x))))
            elif item[0] == "re":
                r = item[1]
                if r.height < 1.5 and r.width > 12:
                    out.append((float(r.y1), float(r.x0), float(r.x1)))
    return out


def _inside(b: tuple[float, float, float, float], boxes: list[tuple[float, float, float, float]]) -> bool:
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    return any(t[0] - 1 <= cx <= t[2] + 1 and t[1] - 1 <= cy <= t[3] + 1 for t in boxes)


def _line(chars: list[Char], size: float,
          rules: list[tuple[float, float, float]]) -> PdfLine:
    """A line's text from its characters: wide gaps become spaces, spaces over a rule are underlined."""
    text: list[str] = []
    under: list[tuple[int, int]] = []
    pos = 0
    prev_x1: float | None = None
    y_bottom = max(b[3] for _c, b in chars)
    unit = max(size * 0.5, 2.0)

    def ruled(x0: float, x1: float) -> bool:
        return any(abs(y - y_bottom) <= size * 0.45 and rx0 <= x0 + unit and rx1 >= x1 - unit for y, rx0, rx1 in rules)

    for c, b in chars:
        if prev_x1 is not None:
            gap = b[0] - prev_x1
            if gap > size * 0.9:
                n = min(24, max(2, round(gap / unit)))
                text.append(" " * n)
                if ruled(prev_x1, b[0]):
                    under.append((pos, pos + n))
                pos += n
        text.append(c)
        if c == " " and ruled(b[0], b[2]):
            under.append((pos, pos + 1))
        pos += 1
        prev_x1 = b[2]
    x0 = min(b[0] for _c, b in chars)
    last_x1 = max(b[2] for _c, b in chars)
    trailing = [r for r in rules if abs(r[0] - y_bottom) <= size * 0.45 and r[1] >= last_x1 - unit and r[2] - r[1] > 12]
    if trailing:  # a rule after the last character: the blank the line ends with (项目名称：______)
        n = min(24, max(3, round((max(r[2] for r in trailing) - last_x1) / unit)))
        text.append(" " * n)
        under.append((pos, pos + n))
        last_x1 = max(r[2] for r in trailing)
    y0 = min(b[1] for _c, b in chars)
    return PdfLine("".join(text), (x0, y0, last_x1, y_bottom), _merge(under), size)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _page_lines(page: Any, tables: list[Table]) -> list[PdfLine]:
    """The page's text lines outside its tables, in reading order."""
    rules = _rules(page)
    boxes = [t.bbox for t in tables if t.bbox is not None]
    raw: dict[str, Any] = page.get_text("rawdict")
    rows: list[tuple[float, float, list[Char], float]] = []
    for block in raw.get("blocks", []):
        if block.get("type") != 0:
            continue
        for line in block.get("lines", []):
            chars: list[Char] = []
            size = 10.0
            for span in line.get("spans", []):
                size = float(span.get("size", size))
                for ch in span.get("chars", []):
                    x0, y0, x1, y1 = (float(v) for v in ch["bbox"])
                    chars.append((str(ch["c"]), (x0, y0, x1, y1)))
            if not chars or not "".join(c for c, _b in chars).strip():
                continue
            lx0, ly0, lx1, ly1 = (float(v) for v in line["bbox"])
            if boxes and _inside((lx0, ly0, lx1, ly1), boxes):
                continue
            rows.append((ly0, ly1, chars, size))
    # lines PyMuPDF split at a gap (年  月  日 as three spans) share a baseline: join them
    rows.sort(key=lambda r: ((r[0] + r[1]) / 2, r[2][0][1][0]))
    merged: list[tuple[list[Char], float]] = []
    last_mid: float | None = None
    for top, bottom, chars, size in rows:
        mid = (top + bottom) / 2
        if merged and last_mid is not None and abs(mid - last_mid) <= size * 0.4:
            merged[-1][0].extend(chars)
        else:
            merged.append((list(chars), size))
            last_mid = mid
    out = []
    for chars, size in merged:
        chars.sort(key=lambda cb: cb[1][0])
        out.append(_line(chars, size, rules))
    return out


class _TooMany(Exception):
    """A page with too many text lines to search for tables."""


def _form_tables(page: Any, number: int) -> list[Table]:
    """The page's ruled tables with every row, empty ones included (a form's empty rows are its blanks)."""
    from app.documents.pdf_tables import MAX_PAGE_LINES, MAX_ROWS_PER_TABLE, _find, _LineIndex
    from app.documents.pdf_tables import _page_lines as text_lines

    lines = text_lines(page)
    if len(lines) > MAX_PAGE_LINES:
        raise _TooMany
    out = []
    index = _LineIndex(lines)
    for k, tb in enumerate(_find(page)):
        rows: list[list[str | None]] = [
            [None if c is None else index.cell_text(tuple(float(v) for v in c)) for c in row.cells]  # type: ignore[arg-type]
            for row in tb.rows[:MAX_ROWS_PER_TABLE]]
        if len(rows) < 1 or max(len(r) for r in rows) < 2:
            continue
        x0, y0, x1, y1 = (float(v) for v in tb.bbox)
        out.append(Table(id=f"p{number}f{k + 1}", page=number, rows=rows, bbox=(x0, y0, x1, y1)))
    return out


def read_chapter_pages(path: Path, first: int, last: int) -> ChapterPages:
    """Lines and ruled tables of pages ``first..last`` (1-based) of a PDF, within the page and time limits."""
    from app.documents.pdf_reader import open_pdf

    out = ChapterPages()
    deadline = time.monotonic() + TIME_BUDGET_S
    doc = open_pdf(path)
    try:
        stop = min(last, first + MAX_PAGES - 1, doc.page_count)
        for number in range(max(1, first), stop + 1):
            if time.monotonic() > deadline:
                out.skipped.extend(range(number, stop + 1))
                break
            page = doc[number - 1]
            try:
                tables = _form_tables(page, number)
            except _TooMany:
                out.skipped.append(number)
                continue
            except Exception:  # a page the table finder cannot read: its text is still worth having
                tables = []
            out.tables[number] = tables
            out.lines[number] = _page_lines(page, tables)
        out.skipped.extend(range(stop + 1, last + 1))
    finally:
        doc.close()
    return out

"""Tables from PDF pages, run only where a scoring table can be.

``find_tables`` is run with the line-based finder only (``use_layout=False``: the layout
model of PyMuPDF 2 costs ~0.5 s per page, the line finder ~15 ms) on pages whose text
mentions scoring keywords, and on the page after a table that runs to the page bottom.
Cell text is read from the page's characters inside each cell rectangle, line by line,
because ``Table.extract()`` scatters Chinese punctuation in WPS-made PDFs.

The work is bounded whatever the file: at most ``MAX_TABLE_PAGES`` pages are searched
(the pages densest in scoring words first), within ``TIME_BUDGET_S`` seconds, pages with
more than ``MAX_PAGE_LINES`` text lines are not searched and a table keeps its first
``MAX_ROWS_PER_TABLE`` rows; what was left out is reported in :class:`TableScan`.
"""

from __future__ import annotations

import bisect
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.documents.model import Table
from app.documents.pdf_grid import Grid, Rect, tidy
from app.documents.text_patterns import compact, furniture_only

if TYPE_CHECKING:
    from app.documents.model import Page

PdfDocument = Any  # PyMuPDF is only partly typed: its objects are handled as Any
PdfPage = Any

SCORING_PAGE = re.compile(
    r"评分因素|评审因素|评分标准|评分项|分值|分\s+值|评审项目|评分细则|评审要素|评分要素|评审细则|评审标准|打分"
)
_POINTS = re.compile(r"\d\s*分(?![钟析类别配])")
POINTS_PER_PAGE = 8  # a page with this many "N分" near a scoring mention is searched without the usual words
MIN_PAGE_HITS = 2.0
_MENTION = re.compile(r"评标|评分|评审|打分|比选|磋商")
_PAGE_NUMBER = re.compile(r"^(?:[-—–\s]*\d{1,4}[-—–\s]*|第\d+页(?:共\d+页)?|\d+/\d+)$")
MARGIN_SHARE = 0.06  # top/bottom share of the page treated as running header/footer
RUNNING_PAGES = 3  # pages a line must stand on, near the same edge, to be a running header/footer
RUNNING_SHARE = 0.12  # top/bottom share in which a line repeated over many pages is a running header/footer
CAPTION_GAP = 45.0  # points above a table in which its caption line may sit
MAX_FOLLOW_PAGES = 30  # how many pages a table may continue over (the page and time caps bound the work too)
MAX_BACK_PAGES = 2  # pages looked back over for the beginning of a table that opens a searched page
MAX_TABLE_PAGES = 40  # pages searched for tables at most (densest in scoring words first; see _scoring_signal)
TIME_BUDGET_S = 10.0  # table search stops after this, the remaining pages are reported
MAX_PAGE_LINES = 3000  # a page with more text lines than this is not searched
MAX_ROWS_PER_TABLE = 400  # rows kept per table fragment; the rest are reported
WHITE = 0.99  # a fill colour channel at least this bright is the page's own white
MAX_HIGHLIGHT = 22.0  # points: a filled box this tall or less around text is a highlight, not a cell
SAME_EDGE = 8.0  # points: column edges this close on two pages are the same rule


@dataclass
class TableScan:
    """Tables found, and the pages whose tables were skipped or cut at a limit."""

    tables: list[Table] = field(default_factory=list)
    skipped_pages: list[int] = field(default_factory=list)
    truncated_pages: list[int] = field(default_factory=list)
    #: Tables still running at the bottom of the last page read: (first page, last page read, why it stopped).
    cut_joins: list[tuple[int, int, str]] = field(default_factory=list)


@dataclass
class _Line:
    bbox: tuple[float, float, float, float]
    chars: list[tuple[str, float, float]]  # char, centre x, centre y

    @property
    def text(self) -> str:
        return "".join(c for c, _, _ in self.chars)


def _page_lines(page: PdfPage) -> list[_Line]:
    """All text lines of the page with their characters' centres."""
    lines: list[_Line] = []
    raw: dict[str, Any] = page.get_text("rawdict")
    for block in raw["blocks"]:
        if block.get("type") != 0:
            continue
        for line in block["lines"]:
            chars: list[tuple[str, float, float]] = []
            for span in line["spans"]:
                for ch in span["chars"]:
                    x0, y0, x1, y1 = ch["bbox"]
                    chars.append((ch["c"], (x0 + x1) / 2, (y0 + y1) / 2))
            if chars:
                lines.append(_Line(tuple(line["bbox"]), chars))
    return lines


class _LineIndex:
    """Lines sorted by top edge, so a cell finds its lines by bisection instead of a full scan."""

    def __init__(self, lines: list[_Line]) -> None:
        self.lines = sorted(lines, key=lambda ln: ln.bbox[1])
        self.tops = [ln.bbox[1] for ln in self.lines]
        self.tallest = max((ln.bbox[3] - ln.bbox[1] for ln in lines), default=0.0)

    def cell_text(self, rect: tuple[float, float, float, float]) -> str:
        """Text of the characters whose centre lies inside ``rect``, one line per text line."""
        x0, y0, x1, y1 = rect
        start = bisect.bisect_left(self.tops, y0 - self.tallest)
        stop = bisect.bisect_right(self.tops, y1)
        out: list[str] = []
        for ln in self.lines[start:stop]:
            if ln.bbox[3] < y0 or ln.bbox[1] > y1 or ln.bbox[2] < x0 or ln.bbox[0] > x1:
                continue
            s = "".join(c for c, cx, cy in ln.chars if x0 - 0.5 <= cx <= x1 + 0.5 and y0 - 0.5 <= cy <= y1 + 0.5)
            if s.strip():
                out.append(s.strip())
        return "\n".join(out)


def running_band(width: float, height: float) -> float:
    """How far from a page's top or bottom edge a running line may stand: a share of the page's longer
    side, so a landscape page (a scoring table set sideways) keeps the header distance of the portrait
    pages around it."""
    return RUNNING_SHARE * max(width, height)


def _is_margin_line(ln: _Line, height: float, running: frozenset[str] = frozenset(), width: float = 0.0) -> bool:
    """Running header/footer or a bare page number: in the page's margin, or near its edge with the text
    that stands there on many pages (a footer set higher than usual, a field code printed as text)."""
    top, bottom = ln.bbox[1], ln.bbox[3]
    if bottom < height * MARGIN_SHARE or top > height * (1 - MARGIN_SHARE):
        return True
    band = running_band(width, height)
    if running and (bottom < band or top > height - band):
        key = _running_key(ln.text)  # a running line may come in pieces (a run of spaces splits it)
        if key in running or (len(key) >= 2 and any(key in r for r in running)):
            return True
    return bool(_PAGE_NUMBER.match(compact(ln.text)))


def _page_number_top(lines: list[_Line], height: float) -> float | None:
    """The top of the bare page number in the page's bottom band, if there is one."""
    tops = [ln.bbox[1] for ln in lines if ln.bbox[1] > height * (1 - RUNNING_SHARE)
            and _PAGE_NUMBER.match(compact(ln.text))]
    return min(tops) if tops else None


_TITLE_WORDS = re.compile(r"评分|评审|评标|打分|细则|标准|评价")
_TITLE_END = re.compile(r"(?:[：:]|表|[（(]\s*(?:满分|共|总分)?\s*\d+(?:\.\d+)?\s*分\s*[)）])$")


def _title_at_foot(page: Page, furniture: frozenset[str]) -> str:
    """A table's title left alone at the foot of the page before it ("第十一条 技术部分评分标准："): the
    page's last line besides its running lines and number, when it is a short scoring title."""
    lines = [ln.strip() for b in page.blocks for ln in b.text.splitlines() if ln.strip()]
    while lines and (_running_key(lines[-1]) in furniture or _PAGE_NUMBER.match(compact(lines[-1]))):
        lines.pop()
    last = compact(lines[-1]) if lines else ""
    if len(last) <= 40 and _TITLE_WORDS.search(last) and _TITLE_END.search(last):
        return lines[-1]
    return ""


def _running_key(text: str) -> str:
    """A line's text with its numbers blanked, so "第3页" and "第4页" are the same running line."""
    return re.sub(r"\d+", "#", compact(text))


def running_lines(pages: list[Page], sizes: list[tuple[float, float]]) -> frozenset[str]:
    """Lines (numbers blanked) that stand near the top or bottom edge of three pages or more: the
    document's running headers and footers (a chapter's own header runs over its pages only).
    ``sizes``: each page's (width, height), by page number."""
    seen: dict[str, int] = {}
    readable = [p for p in pages if p.readable and 1 <= p.number <= len(sizes)]
    for p in readable:
        keys: set[str] = set()
        width, height = sizes[p.number - 1]
        band = running_band(width, height)
        for b in p.blocks:
            if b.bbox is None or b.kind == "table":
                continue
            if b.bbox[3] < band or b.bbox[1] > height - band:
                keys.update(k for line in b.text.splitlines() if (k := _running_key(line)))
        for k in keys:
            seen[k] = seen.get(k, 0) + 1
    return frozenset(k for k, n in seen.items() if n >= RUNNING_PAGES)


def _invisible(path: dict[str, Any]) -> bool:
    """A fill-only shape painted white: a text background nobody sees, not a cell border."""
    fill = path.get("fill")
    return path.get("type") == "f" and fill is not None and all(v >= WHITE for v in fill)


def _highlight(path: dict[str, Any], lines: list[_Line], width: float) -> bool:
    """A fill-only box no taller than a text line, narrower than half the page, with text inside: a
    highlight behind a run of characters, not a cell (a ruling drawn as a filled bar is thinner than
    3 points; a shaded row of a table without rules spans the table)."""
    if path.get("type") != "f" or path.get("fill") is None:
        return False
    x0, y0, x1, y1 = (float(v) for v in path["rect"])
    if not (3.0 < y1 - y0 <= MAX_HIGHLIGHT and 3.0 < x1 - x0 <= width / 2):
        return False
    return any(ln.bbox[0] < x1 and ln.bbox[2] > x0 and y0 - 1 <= (ln.bbox[1] + ln.bbox[3]) / 2 <= y1 + 1 for ln in lines)


def _find(page: PdfPage, lines: list[_Line] | None = None) -> list[Any]:
    """Line-based table finder over the page's visible drawings; falls back to the default on
    PyMuPDF without ``use_layout``.

    White fill-only rectangles behind each run of text (some converters paint one per run), and
    with ``lines`` any line-high filled box with text in it (a highlight), are left out: the line
    finder would take their edges for cell borders and cut a three-column table into dozens of
    columns and one row per text line, or find little tables inside the cells.
    """
    text = lines or []
    width = float(page.rect.width)
    paths = [p for p in page.get_drawings() if not _invisible(p) and not _highlight(p, text, width)]
    sides = open_sides(_rules(paths))
    try:
        found = page.find_tables(use_layout=False, paths=paths, add_lines=sides or None)
    except TypeError:  # PyMuPDF < 1.27 has no layout analyser and no such argument
        found = page.find_tables()
    return list(found.tables)


_Segment = tuple[float, float, float, float]  # x0, y0, x1, y1
RULE = 1.5  # points: a drawn segment or bar this thin is a rule
MIN_SIDE_ROWS = 3  # horizontal rules that must start (or end) at one x for an open side to be closed there
MIN_OPEN_COLUMN = 10.0  # points between the rules' end and the outermost vertical rule: a column, not an overshoot


def _rules(paths: list[dict[str, Any]]) -> list[_Segment]:
    """Horizontal and vertical rules among the page's drawings: straight lines and thin bars."""
    out: list[_Segment] = []
    for path in paths:
        for item in path.get("items", ()):
            if item[0] == "l":
                a, b = item[1], item[2]
                seg = (float(min(a.x, b.x)), float(min(a.y, b.y)), float(max(a.x, b.x)), float(max(a.y, b.y)))
            elif item[0] == "re":
                r = item[1]
                seg = (float(r.x0), float(r.y0), float(r.x1), float(r.y1))
                if seg[2] - seg[0] > RULE and seg[3] - seg[1] > RULE:
                    continue  # a box, not a bar
            else:
                continue
            if seg[3] - seg[1] <= RULE or seg[2] - seg[0] <= RULE:
                out.append(seg)
    return out


def open_sides(rules: list[_Segment]) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Lines closing the open sides of ruled tables: where three or more horizontal rules start (or end)
    at one x well beyond the outermost vertical rule crossing them, the table has a column there
    without its outer rule (a table drawn without side borders), and the line finder would drop it."""
    flat = [r for r in rules if r[3] - r[1] <= RULE and r[2] - r[0] > RULE]
    tall = [r for r in rules if r[2] - r[0] <= RULE and r[3] - r[1] > RULE]
    out: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for end in (0, 2):
        groups: dict[int, list[_Segment]] = {}
        for r in flat:
            groups.setdefault(round(r[end] / 2), []).append(r)
        for members in groups.values():
            for run in _ruled_runs(sorted(members, key=lambda r: r[1]), tall):
                if len(run) < MIN_SIDE_ROWS:
                    continue
                x = sum(r[end] for r in run) / len(run)
                top, bottom = run[0][1], run[-1][3]
                left, right = min(r[0] for r in run), max(r[2] for r in run)
                crossing = [v[0] for v in tall if v[1] < bottom - 1 and v[3] > top + 1 and left + 1 < v[0] < right - 1]
                side = sum(max(0.0, min(v[3], bottom) - max(v[1], top)) for v in tall if abs(v[0] - x) <= SAME_EDGE / 2)
                if not crossing or side > (bottom - top) / 2:
                    continue
                outer = min(crossing) if end == 0 else max(crossing)
                if abs(outer - x) >= MIN_OPEN_COLUMN:
                    out.append(((x, top), (x, bottom)))
    return out


def _ruled_runs(flat: list[_Segment], tall: list[_Segment]) -> list[list[_Segment]]:
    """Horizontal rules (top to bottom) cut where no vertical rule joins one to the next: one run per table."""
    runs: list[list[_Segment]] = []
    for r in flat:
        if runs:
            prev = runs[-1][-1]
            lo, hi = max(prev[0], r[0]), min(prev[2], r[2])
            if any(lo - 1 <= v[0] <= hi + 1 and v[1] <= prev[1] + 2 and v[3] >= r[1] - 2 for v in tall):
                runs[-1].append(r)
                continue
        runs.append([r])
    return runs


def _tables_on_page(page: PdfPage, number: int, first_id: int,
                    running: frozenset[str] = frozenset()) -> tuple[list[Table], bool]:
    """Every table on one page as a :class:`Table` with clean cell text; True when rows were cut."""
    lines = _page_lines(page)
    if len(lines) > MAX_PAGE_LINES:
        raise _TooBig
    found = _find(page, lines)
    if not found:
        return [], False
    index = _LineIndex(lines)
    height = float(page.rect.height)
    body = [ln for ln in lines if ln.text.strip() and not _is_margin_line(ln, height, running, float(page.rect.width))]
    foot = _page_number_top(lines, height)
    if foot is not None:  # text below the page number is a cell's overflow off the page, never body text
        body = [ln for ln in body if ln.bbox[1] < foot]
    out: list[Table] = []
    cut = False
    for k, tb in enumerate(found):
        rects: list[list[Rect | None]] = [[None if c is None else _rect(c) for c in row.cells]
                                          for row in tb.rows[:MAX_ROWS_PER_TABLE]]
        grid = tidy(Grid(rects=rects, texts=[[None if c is None else index.cell_text(c) for c in row] for row in rects]))
        rows = grid.texts
        bx0, by0, bx1, by1 = grid.bbox or tuple(float(v) for v in tb.bbox)
        cut = cut or len(tb.rows) > MAX_ROWS_PER_TABLE
        above = [ln for ln in body if ln.bbox[3] <= by0 + 1]
        below = [ln for ln in body if ln.bbox[1] >= by1 - 1]
        near = [ln for ln in above if by0 - ln.bbox[3] <= CAPTION_GAP]
        caption = " ".join(ln.text.strip() for ln in near[-2:])
        out.append(
            Table(
                id=f"p{number}t{first_id + k + 1}",
                page=number,
                rows=rows,
                bbox=(bx0, by0, bx1, by1),
                col_x=grid.edges,
                spans=grid.spans(grid.edges),
                caption=caption,
                starts_page=not above,
                ends_page=not below and len(tb.rows) <= MAX_ROWS_PER_TABLE,
            )
        )
    return out, cut


def same_grid(prev: Table, table: Table) -> bool:
    """``table`` may continue ``prev``: the same outer edges, and the columns of one among the other's
    (a page without a sub-factor column lacks one edge); True when either has no edges. Either piece
    may also lack outer columns whose merged cells (a part spanning its rows, a frame around the table)
    carry on over the page break without a rule across them: its outer edges are two of the other's
    edges, three columns or more apart."""
    a, b = prev.col_x, table.col_x
    if len(a) < 2 or len(b) < 2:
        return True
    if abs(a[0] - b[0]) > SAME_EDGE or abs(a[-1] - b[-1]) > SAME_EDGE:
        wide, narrow = (a, b) if a[0] - SAME_EDGE <= b[0] and b[-1] <= a[-1] + SAME_EDGE else (b, a)
        left = [k for k, x in enumerate(wide) if abs(x - narrow[0]) <= SAME_EDGE]
        right = [k for k, x in enumerate(wide) if abs(x - narrow[-1]) <= SAME_EDGE]
        if not left or not right or right[-1] - left[0] < 3:
            return False  # the narrower piece must stand on the other's rules, over three columns or more
        a, b = wide[left[0] : right[-1] + 1], narrow
    fewer, more = (a, b) if len(a) <= len(b) else (b, a)
    return all(any(abs(x - y) <= SAME_EDGE for y in more) for x in fewer)


def _rect(cell: Any) -> Rect:
    x0, y0, x1, y1 = (float(v) for v in cell)
    return (x0, y0, x1, y1)


class _TooBig(Exception):
    """A page with too many text lines to search for tables."""


def _page_hits(pages: list[Page]) -> dict[int, float]:
    """How much each page looks like scoring: its scoring words, or, within a few pages after a
    mention of 评标/评分/评审/打分, enough "N分" to be a table whose header words are unknown."""
    out: dict[int, float] = {}
    last_mention = -10
    for p in pages:
        if not p.readable:
            continue
        text = p.text
        if _MENTION.search(text):
            last_mention = p.number
        words = len(SCORING_PAGE.findall(text))
        points = len(_POINTS.findall(text))
        if words or (points >= POINTS_PER_PAGE and p.number - last_mention <= 3):
            out[p.number] = words + points / 3
    strong = {n: h for n, h in out.items() if h >= MIN_PAGE_HITS}
    return strong or out  # a lone passing mention is searched only when nothing looks better


_SEARCH_CAP = "search cap"
_SCORE_WORDS = re.compile(r"得分|扣分|加分|分值|满分")


def _scoring_signal(text: str) -> bool:
    """A page that says something about points. A table followed onto pages without any (an equipment
    list running thirty pages) is still read, within the time budget, but those pages do not count
    against the page cap, so the scoring pages the search ranked lower are still searched."""
    return bool(_POINTS.search(text) or SCORING_PAGE.search(text) or _SCORE_WORDS.search(text))


def _neighbours(pages: list[Page], number: int) -> list[str]:
    """The texts of the pages before and after page ``number`` (1-based), where there are such pages."""
    return [pages[n - 1].text for n in (number - 1, number + 1) if 1 <= n <= len(pages)]


def _join_stop(number: int, follow: int, searched: int, total: int, pages: list[Page], deadline: float) -> str:
    """Why a table still running at the bottom of page ``number`` is not followed further ("" to go on)."""
    if number >= total:
        return ""  # the last page: the table ends with the file
    if follow >= MAX_FOLLOW_PAGES:
        return f"一张表最多连读 {MAX_FOLLOW_PAGES + 1} 页"
    if searched >= MAX_TABLE_PAGES or time.monotonic() > deadline:
        return _SEARCH_CAP
    if not pages[number].readable and not furniture_only(pages[number].text, _neighbours(pages, number + 1)):
        return f"第{number + 1}页没有可读的文字（可能是扫描件）"
    return ""


def _look_back(doc: PdfDocument, pages: list[Page], start: int, scan: TableScan, done: set[int],
               furniture: frozenset[str]) -> None:
    """The pages before a searched page, while the table opening it may have begun on them: its header
    row or first rows at the foot of a page with too few scoring words to be searched (bounded)."""
    number = start
    for _ in range(MAX_BACK_PAGES):
        here = [t for t in scan.tables if t.page == number]
        if not here:
            return
        first = min(here, key=lambda t: t.bbox[1] if t.bbox else 0.0)
        prev = number - 1
        if not first.starts_page or prev < 1 or prev in done or not pages[prev - 1].readable \
                or pages[prev - 1].text.count("\n") > MAX_PAGE_LINES:
            return
        try:
            found, cut = _tables_on_page(doc[prev - 1], prev, 0, furniture)
        except _TooBig:
            return
        if not found or not found[-1].ends_page or not same_grid(found[-1], first):
            return
        done.add(prev)
        scan.tables.extend(found)
        if cut:
            scan.truncated_pages.append(prev)
        number = prev


def extract_scoring_candidate_tables(doc: PdfDocument, pages: list[Page], *,
                                     time_budget_s: float = TIME_BUDGET_S) -> TableScan:
    """Tables of the pages that may hold scoring tables, plus the pages they run onto (bounded)."""
    hits = _page_hits(pages)
    todo = sorted(hits, key=lambda n: (-hits[n], n))
    scan = TableScan()
    done: set[int] = set()
    deadline = time.monotonic() + time_budget_s
    quiet = 0  # pages a table was followed onto that say nothing about points: they do not use up the page cap
    furniture = running_lines(pages, [(float(pg.rect.width), float(pg.rect.height)) for pg in doc])
    for start in todo:
        if start in done:
            continue
        if len(done) - quiet >= MAX_TABLE_PAGES or time.monotonic() > deadline:
            scan.skipped_pages.append(start)
            continue
        number, follow = start, 0
        running: Table | None = None  # the fragment at the bottom of the page before
        while number <= len(pages) and number not in done:
            if running is not None and furniture_only(pages[number - 1].text, _neighbours(pages, number)):
                # a page with nothing but its number between two pieces of a table (a section break
                # or a conversion left it empty): the table goes on after it
                done.add(number)
                quiet += 1
                if number >= len(pages) or _join_stop(number, follow, len(done) - quiet, len(pages), pages, deadline):
                    break
                number += 1
                follow += 1
                continue
            if not pages[number - 1].readable:
                break
            done.add(number)
            if number != start and not _scoring_signal(pages[number - 1].text):
                quiet += 1
            if pages[number - 1].text.count("\n") > MAX_PAGE_LINES:
                scan.skipped_pages.append(number)
                break
            try:
                found, cut = _tables_on_page(doc[number - 1], number, 0, furniture)
            except _TooBig:
                scan.skipped_pages.append(number)
                break
            scan.tables.extend(found)
            if cut:
                scan.truncated_pages.append(number)
            if not found or not found[-1].ends_page:
                break
            if running is not None and not same_grid(running, found[0]):
                break  # another table starts this page: the one followed has ended
            running = found[-1]
            why = _join_stop(number, follow, len(done) - quiet, len(pages), pages, deadline)
            if why == _SEARCH_CAP:  # the next page joins the pages the search left out (reported with them)
                if number + 1 not in scan.skipped_pages:
                    scan.skipped_pages.append(number + 1)
                break
            if why:
                scan.cut_joins.append((start, number, why))
                break
            number += 1
            follow += 1
        _look_back(doc, pages, start, scan, done, furniture)
    scan.tables.sort(key=lambda t: (t.page, t.bbox[1] if t.bbox else 0.0))
    for k, table in enumerate(scan.tables):
        before = scan.tables[k - 1] if k else None
        if table.starts_page and not table.caption and 2 <= table.page <= len(pages) \
                and not (before is not None and before.page == table.page - 1 and before.ends_page):
            table.caption = _title_at_foot(pages[table.page - 2], furniture)
    scan.skipped_pages = sorted(set(scan.skipped_pages))
    return scan

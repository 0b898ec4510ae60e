"""Find substantive clauses deterministically: ★/▲ marks and rejection phrases, with pages.

Tenders mark substantive (★) and important (▲) clauses; a negative deviation on one can
void the bid or cost points, so the app must never lose one. This module works on plain
page texts (``(page_number, text)`` pairs, as PyMuPDF or the DOCX reader give them) and
returns the full clause around each mark or phrase:

- a mark counts only where it marks a clause (line start, after an item number, in a table
  cell, or as a trailing "（▲）"); quoted mentions such as 标注“▲”号条款 are references;
- a clause runs from its item start to the next item start, blank line or heading, across
  line breaks and page breaks (printed page numbers are skipped);
- phrases (实质性要求, 不得偏离, 否则按无效投标处理 …) are searched in the joined text, so a
  phrase wrapped over two lines is still found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from app.documents.model import TenderDocument

ClauseKind = Literal["star", "triangle", "phrase"]

MARKS: dict[str, ClauseKind] = {"★": "star", "▲": "triangle"}

#: Phrases that make a clause a rejection risk even without a mark.
REJECTION_PHRASES = re.compile(
    r"实质性(?:要求|条款|响应)|不得(?:有)?(?:负)?偏离|不允许(?:负)?偏离|"
    r"(?:按|作|视为|视作|为|属)无效投标(?:处理)?|无效投标处理|投标无效|作废标处理|按废标处理"
)

_OPEN_QUOTES = "“\"'‘「『《(（【"
_CLOSE_QUOTES = "”\"'’」』》)）】"
#: Words right after a mark that make it a reference to marks ("▲号条款", "★的条款").
_REFERENCE_AFTER = re.compile(r"^[”\"'’」』]?\s*(?:号|的|标|条款|标识|标志|符号|项|、|和|或|与|及|/)")

_ITEM_START = re.compile(
    r"^\s*(?:[★▲]\s*)?(?:"
    r"\d{1,3}(?:\.\d{1,3}){0,3}\s*[\.．、）)](?!\d)|"  # 1.  1、 1.2.  3）
    r"\d{1,3}(?:\.\d{1,3}){1,3}(?!\d)|"  # 3.1整体项目需求
    r"[（(]\s*\d{1,3}\s*[）)]|"  # （1）
    r"[一二三四五六七八九十]{1,3}\s*[、.．]|"  # 一、
    r"[（(][一二三四五六七八九十]{1,3}[）)]|"  # （一）
    r"[①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳]|"
    r"第[一二三四五六七八九十百零\d]{1,4}[章节条部分]"
    r")"
)
#: Numbering styles from the highest level down, to tell a marked heading's extent.
_LEVELS: tuple[tuple[int, re.Pattern[str]], ...] = tuple(
    (rank, re.compile(r"^\s*(?:[★▲]\s*)?" + pat))
    for rank, pat in (
        (0, r"第[一二三四五六七八九十百零\d]{1,4}[章节部分]"),
        (1, r"[一二三四五六七八九十]{1,3}\s*[、.．]"),
        (2, r"[（(][一二三四五六七八九十]{1,3}[）)]"),
        (2, r"\d{1,3}(?:\.\d{1,3}){1,3}(?![\d、）)])"),
        (3, r"\d{1,3}\s*[\.．、](?!\d)"),
        (4, r"[（(]\s*\d{1,3}\s*[）)]"),
        (5, r"\d{1,3}\s*[）)]"),
    )
)
_BARE_NUMBER = re.compile(r"^\s*\d{1,4}\s*$")
_LEADING_MARK = re.compile(r"^\s*(?:\d{1,3}(?:\.\d{1,3}){0,3}\s*[\.．、）)]?|[（(]\s*\d{1,3}\s*[）)]|[①-⑳])?\s*$")

MAX_CLAUSE_LINES = 14
MAX_CLAUSE_CHARS = 600


@dataclass(frozen=True)
class PageText:
    """The text of one page; ``page`` is 1-based as printed in the app's page links."""

    page: int
    text: str


@dataclass
class Clause:
    """One substantive clause: its kind, mark, full text and where it starts and ends."""

    kind: ClauseKind
    text: str
    page: int
    end_page: int
    mark: str | None = None
    phrases: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """Chinese label for views: 实质性条款(★) / 重要条款(▲) / 废标风险."""
        return {"star": "实质性条款(★)", "triangle": "重要条款(▲)", "phrase": "废标风险"}[self.kind]


@dataclass(frozen=True)
class _Line:
    page: int
    text: str
    index_in_page: int
    last_in_page: bool


def as_pages(pages: Iterable[PageText | tuple[int, str]]) -> list[PageText]:
    """Accept ``PageText`` or ``(page, text)`` pairs."""
    out: list[PageText] = []
    for p in pages:
        out.append(p if isinstance(p, PageText) else PageText(int(p[0]), str(p[1])))
    return out


def _lines(pages: Sequence[PageText]) -> list[_Line]:
    """Non-empty stripped lines; printed page numbers at the top or bottom of a page dropped."""
    out: list[_Line] = []
    for p in pages:
        raw = [ln.strip() for ln in p.text.splitlines()]
        # keep blank lines as "" separators but drop the page-number lines at either end
        while raw and (not raw[0] or _is_page_number(raw[0])):
            raw.pop(0)
        while raw and (not raw[-1] or _is_page_number(raw[-1])):
            raw.pop()
        for i, ln in enumerate(raw):
            out.append(_Line(p.page, ln, i, i == len(raw) - 1))
    return out


def _is_page_number(line: str) -> bool:
    return bool(re.fullmatch(r"[-—\s]*(?:第\s*)?\d{1,4}\s*(?:页)?(?:\s*/\s*(?:共\s*)?\d{1,4}\s*页?)?[-—\s]*", line))


def _is_boundary(line: str) -> bool:
    """Does this line start a new item (so it ends the clause before it)?"""
    return not line or bool(_ITEM_START.match(line)) or bool(_BARE_NUMBER.match(line)) or line[0] in "★▲"


def is_clause_mark(text: str, pos: int) -> bool:
    """Is the mark at ``text[pos]`` marking a clause, rather than a quoted reference to marks?"""
    before = text[:pos].rstrip()
    after = text[pos + 1 :]
    if before and before[-1] in _OPEN_QUOTES and after[:1] in _CLOSE_QUOTES and before[-1] not in "(（【":
        return False
    if _REFERENCE_AFTER.match(after):
        # "（▲）" at the end of a clause is a mark, "▲号条款" / "“▲”的" are references
        return bool(before) and before[-1] in "(（【" and after[:1] in ")）】"
    if before.endswith(("带", "标注", "标有", "注有", "标记", "含", "按照", "按", "见", "详见", "参见", "依据", "根据", "满足")):
        return False
    return True


def _clause_span(lines: Sequence[_Line], at: int, mark_at_start: bool) -> tuple[int, int]:
    """Line range ``[start, end)`` of the clause containing line ``at``."""
    start = at
    if not mark_at_start:
        steps = 0
        while start > 0 and steps < MAX_CLAUSE_LINES and not _is_boundary(lines[start].text):
            start -= 1
            steps += 1
        if _BARE_NUMBER.match(lines[start].text) and start < at:
            start += 1  # a table row number is not part of the clause
    end = at + 1
    chars = sum(len(ln.text) for ln in lines[start:end])
    while end < len(lines) and end - start < MAX_CLAUSE_LINES and chars < MAX_CLAUSE_CHARS:
        if _is_boundary(lines[end].text):
            break
        chars += len(lines[end].text)
        end += 1
    heading_rank = _level(lines[start].text)
    if end == start + 1 and heading_rank is not None and _looks_like_heading(lines[start].text):
        # a marked heading ("（九）★退出机制") covers its sub-items up to the next sibling
        while end < len(lines) and end - start < MAX_CLAUSE_LINES and chars < MAX_CLAUSE_CHARS:
            text = lines[end].text
            rank = _level(text)
            if not text or (rank is not None and rank <= heading_rank):
                break
            chars += len(text)
            end += 1
    return start, end


def _level(line: str) -> int | None:
    """Rank of the line's numbering style (0 = chapter), None when it has none."""
    return next((rank for rank, pat in _LEVELS if pat.match(line)), None)


def _looks_like_heading(line: str) -> bool:
    """A short line that does not end a sentence."""
    return len(line) <= 40 and not re.search(r"[。；;：:，,]$", line)


def _join(lines: Sequence[_Line]) -> str:
    text = ""
    for ln in lines:
        if text and _is_boundary(ln.text):
            text += "\n"  # sub-items of a marked heading stay on their own lines
        elif text and re.match(r"[A-Za-z0-9]", ln.text[:1]) and re.search(r"[A-Za-z0-9]$", text):
            text += " "
        text += ln.text
    if len(text) > MAX_CLAUSE_CHARS:
        text = text[: MAX_CLAUSE_CHARS - 1] + "…"
    return text


def find_clauses(pages: Iterable[PageText | tuple[int, str]], phrases: bool = True) -> list[Clause]:
    """All ★/▲ clauses (and, with ``phrases``, rejection-phrase clauses) in document order.

    A clause holding both a mark and a phrase is reported once, as the marked kind, with
    the phrase listed in ``phrases``.
    """
    lines = _lines(as_pages(pages))
    found: dict[int, Clause] = {}
    order: list[tuple[int, int]] = []

    def add(span: tuple[int, int], kind: ClauseKind, mark: str | None, phrase: str | None) -> None:
        start, end = span
        existing = found.get(start)
        if existing is None:
            clause = Clause(kind, _join(lines[start:end]), lines[start].page, lines[end - 1].page, mark)
            found[start] = clause
            order.append((start, end))
        else:
            clause = existing
            if mark and existing.kind == "phrase":
                existing.kind, existing.mark = MARKS[mark], mark
        if phrase and phrase not in clause.phrases:
            clause.phrases.append(phrase)

    table_cells: dict[int, str] = {}  # a table row rendered "a | b | c": the clause is its marked cell

    for i, ln in enumerate(lines):
        for m in re.finditer("[★▲]", ln.text):
            if not is_clause_mark(ln.text, m.start()):
                continue
            if TABLE_CELL_SEPARATOR in ln.text:
                cell = _cell_at(ln.text, m.start())
                if not is_clause_mark(cell, cell.find(m.group())):
                    continue
                table_cells.setdefault(i, cell)
                add((i, i + 1), MARKS[m.group()], m.group(), None)
                continue
            at_start = bool(_LEADING_MARK.match(ln.text[: m.start()]))
            add(_clause_span(lines, i, at_start), MARKS[m.group()], m.group(), None)

    if phrases:
        joined, owner = _joined_with_owner(lines)
        for m in REJECTION_PHRASES.finditer(joined):
            i = owner[m.start()]
            if TABLE_CELL_SEPARATOR in lines[i].text:
                table_cells.setdefault(i, _cell_at(lines[i].text, m.start() - owner.index(i)))
                add((i, i + 1), "phrase", None, m.group())
                continue
            span = _clause_span(lines, i, _is_boundary(lines[i].text))
            # a phrase in a clause already found joins it, wherever the clause starts
            host = next((s for s, e in order if s <= i < e), None)
            if host is not None:
                add((host, next(e for s, e in order if s == host)), "phrase", None, m.group())
            else:
                add(span, "phrase", None, m.group())

    for i, cell in table_cells.items():
        found[i].text = cell
    return [found[s] for s, _ in sorted(order)]


TABLE_CELL_SEPARATOR = " | "


def _cell_at(row: str, pos: int) -> str:
    """The cell of a rendered table row ("a | b | c") holding character ``pos``."""
    start = row.rfind(TABLE_CELL_SEPARATOR, 0, pos)
    start = 0 if start < 0 else start + len(TABLE_CELL_SEPARATOR)
    end = row.find(TABLE_CELL_SEPARATOR, pos)
    return row[start : len(row) if end < 0 else end].strip()


def document_pages(doc: TenderDocument, first_page: int = 1, last_page: int | None = None) -> list[PageText]:
    """The readable pages ``first_page..last_page`` of a loaded tender, for :func:`find_clauses`."""
    last = doc.page_count if last_page is None else min(last_page, doc.page_count)
    return [PageText(p.number, p.text) for p in doc.pages[max(1, first_page) - 1 : last] if p.readable]


def _joined_with_owner(lines: Sequence[_Line]) -> tuple[str, list[int]]:
    """All lines joined without separators (Chinese wraps mid-word) and each char's line."""
    parts: list[str] = []
    owner: list[int] = []
    for i, ln in enumerate(lines):
        text = ln.text or "\n"  # a blank line must not glue two phrases together
        parts.append(text)
        owner += [i] * len(text)
    return "".join(parts), owner


def count_marks(clauses: Iterable[Clause]) -> dict[str, int]:
    """How many ★, ▲ and phrase-only clauses there are (for summaries and tests)."""
    counts = {"★": 0, "▲": 0, "phrase": 0}
    for c in clauses:
        counts[c.mark or "phrase"] += 1
    return counts

"""Code's check of a model's reading of the scoring pages: every row where the text prints it.

A row the model read counts only when code finds it in the pages the model was given: its
name stands in the text (whitespace, character width, numbering and the points in brackets
aside), a number equal to its points is printed beside it (in the same table row, or on the
name's line and the next two), and the rows together meet every total the document states —
100 or the sum of the stated parts, each part the prose states (``技术部分（40分）``), each
group whose label carries its points, and the category a group label names. Each failure is
said in Chinese; a reading is *verified* only when nothing failed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from app.documents.model import TenderDocument
from app.documents.scoring.cells import explicit_category, name_points, stated_points
from app.documents.scoring.model import ScoreCategory
from app.documents.scoring.prose import part_statements, stated_parts

CATEGORY_KEYS: dict[str, ScoreCategory] = {c.value: c for c in ScoreCategory}
_NUMBER_PREFIX = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*[.、]?|[一二三四五六七八九十]{1,3}[、.]|\(\d{1,2}\)|[①-⑳])")
_POINTS_SUFFIX = re.compile(r"\([^()]*\d[^()]*\)$|(?<![\d.])\d+(?:\.\d+)?分$")
_NUMBER = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(?![\d.])")
_NOT_POINTS_BEFORE = "得扣加减每第"
_NOT_POINTS_AFTER = re.compile(r"^\s*(?:[年月日页个名人项台次份条辆家]|[.、](?!\d))")
#: Characters of the name's own line before it, and of the text after it, searched for its points.
BEFORE_CHARS = 40
AFTER_CHARS = 120
AFTER_LINES = 2
MAX_OCCURRENCES = 8
_LEVELS = re.compile(r"\s*(?:>|＞|»|/|／|\||｜|→)\s*")
#: A label that names a part of the scheme (技术部分, 商务分, 价格标): its rows belong to that part.
#: A row named as a whole part (技术部分 42): a summary table's line, not an item the bid answers.
_PART_ROW = re.compile(r"^(?:技术|商务|资信)(?:部分|分|标)(?:得分|分值)?$")
_PART_LABEL = re.compile(r"(?:技术|商务|资信|价格|报价)(?:部分|分|标|评分|评审)")


def norm(text: str) -> str:
    """Text compared the same whatever its width and spacing: NFKC, no whitespace."""
    return "".join(unicodedata.normalize("NFKC", ch) for ch in text if not ch.isspace())


def name_core(name: str) -> str:
    """The part of a row name that must stand in the text: no numbering, no "（6分）" after it."""
    core = norm(name).strip(":：")
    core = _NUMBER_PREFIX.sub("", core)
    for _ in range(2):
        core = _POINTS_SUFFIX.sub("", core).strip(":：、")
    return core


@dataclass
class _Page:
    """One page as text with a whitespace-free copy (``flat``) and where each of its characters came from."""

    number: int
    text: str
    flat: str = ""
    where: list[int] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)  # table rows on the page, cells normalized

    def __post_init__(self) -> None:
        flat: list[str] = []
        for i, ch in enumerate(self.text):
            if ch.isspace():
                continue
            for piece in unicodedata.normalize("NFKC", ch):
                flat.append(piece)
                self.where.append(i)
        self.flat = "".join(flat)


@dataclass
class RowCheck:
    """What code found for one row: the page it stands on (0: not found) and why it fails ("" when fine)."""

    page: int = 0
    problem: str = ""

    @property
    def ok(self) -> bool:
        """Name found with its points beside it."""
        return not self.problem


@dataclass
class ReadingCheck:
    """The check of a whole reading: one :class:`RowCheck` per row, the sums' problems and what held."""

    rows: list[RowCheck]
    problems: list[str]
    passed: list[str]
    stated_by_category: dict[str, float]

    @property
    def verified(self) -> bool:
        """Every row found with its points, every stated total met, and something read at all."""
        return bool(self.rows) and all(r.ok for r in self.rows) and not self.problems


def _filled(rows: list[list[str | None]]) -> list[list[str]]:
    """A grid with each merged continuation cell (None) holding the text it continues (from above, else the left)."""
    out: list[list[str]] = []
    for r in rows:
        line: list[str] = []
        for k, cell in enumerate(r):
            if cell is None:
                above = out[-1][k] if out and k < len(out[-1]) else None
                cell = above if above is not None else (line[-1] if line else "")
            line.append(cell)
        out.append(line)
    return out


def page_texts(doc: TenderDocument, pages: list[int]) -> list[_Page]:
    """The pages as the check searches them: their text plus the rows of the tables code found on them."""
    out: list[_Page] = []
    for number in pages:
        if not 1 <= number <= doc.page_count or not doc.page(number).readable:
            continue
        tables = [t for t in doc.tables if t.page == number]
        rows = [r for t in tables for r in _filled(t.rows)]
        extra = "\n".join(" | ".join(c.replace("\n", " ") for c in r if c) for r in rows)
        page = _Page(number, doc.page(number).text + ("\n" + extra if extra else ""))
        page.rows = [[norm(c) for c in r] for r in rows]
        out.append(page)
    return out


def _numbers(text: str) -> list[float]:
    """Numbers in ``text`` that may be points (not 第3页, 2023年, 得2分, list numbering)."""
    out = []
    for m in _NUMBER.finditer(text):
        before = text[max(0, m.start() - 1):m.start()]
        if before and before in _NOT_POINTS_BEFORE:
            continue
        if _NOT_POINTS_AFTER.match(text[m.end():m.end() + 2]):
            continue
        out.append(float(m.group(1)))
    return out


def _beside(page: _Page, start: int, end: int, points: float) -> bool:
    """Whether ``points`` is printed on the name's line or just after it (flat span ``start:end``)."""
    a, b = page.where[start], page.where[end - 1] + 1
    line_start = page.text.rfind("\n", 0, a) + 1
    before = page.text[max(line_start, a - BEFORE_CHARS):a]
    after_end = b
    for _ in range(AFTER_LINES + 1):
        nxt = page.text.find("\n", after_end + 1)
        if nxt < 0:
            after_end = len(page.text)
            break
        after_end = nxt
        if " | " in page.text[line_start:after_end]:
            break  # a table row: its own line only, the next line is another row
    after = page.text[b:min(after_end, b + AFTER_CHARS)]
    return any(abs(n - points) < 0.01 for n in _numbers(before) + _numbers(after))


def _in_table_row(page: _Page, core: str, points: float) -> bool:
    """Whether a table row on the page holds the name in one cell and the points in that or another."""
    for row in page.rows:
        if any(core in cell for cell in row):
            for cell in row:
                if any(abs(n - points) < 0.01 for n in _numbers(cell)):
                    return True
    return False


PART_PROBLEM = "是一个部分的名称，不是评分项（可能读的是汇总表）"


def check_row(pages: list[_Page], name: str, points: float | None, *, whole_part: bool = False) -> RowCheck:
    """Where the row stands and whether its points are printed beside it. A row named as a whole part
    (技术部分 42) is refused unless ``whole_part``: a part scored as one by a formula and weighted into
    the total ("商务标（满分100分，权重30%）"), which code reads as one row as well."""
    core = name_core(name)
    if len(core) < 2:
        return RowCheck(0, "名称太短，无法在原文中核对")
    if _PART_ROW.match(core) and not whole_part:
        return RowCheck(0, PART_PROBLEM)
    found = 0
    for page in pages:
        starts: list[int] = []
        start = page.flat.find(core)
        while start >= 0 and len(starts) < MAX_OCCURRENCES:
            starts.append(start)
            start = page.flat.find(core, start + 1)
        if not starts:
            continue
        found = found or page.number
        if points is None:
            continue
        if any(_beside(page, s, s + len(core), points) for s in starts) or _in_table_row(page, core, points):
            return RowCheck(page.number)
    if not found:
        return RowCheck(0, "原文中没有找到这个名称")
    if points is None:
        return RowCheck(found, "没有读到分值")
    return RowCheck(found, f"原文中该名称旁边没有 {fmt(points)} 分")


def fmt(x: float) -> str:
    """Points as written: 6, 2.5."""
    return f"{x:g}"


def stated_totals(doc: TenderDocument) -> dict[str, float]:
    """Points per part the prose states (技术/商务/价格 -> points), when the parts add up to 100."""
    return {c.value: v for c, v in stated_parts(part_statements(doc)).items()}


def _group_points(label: str) -> float | None:
    """Points a group label carries ("技术部分（42分）", "商务评分标准（18 分）")."""
    points = name_points(label)
    if points is None and "分" in label:
        points = stated_points(label)
    return points


def _group_members(rows: list[tuple[str, float | None, str, str]]) -> dict[str, list[tuple[float | None, str]]]:
    """Rows by group, a nested label ("技术部分（60分）> 收运与储存方案（15分）") counting for each of its levels."""
    out: dict[str, list[tuple[float | None, str]]] = {}
    for _, p, c, g in rows:
        for segment in dict.fromkeys(s.strip() for s in _LEVELS.split(g) if s.strip()):
            out.setdefault(segment, []).append((p, c))
    return out


def check_sums(rows: list[tuple[str, float | None, str, str]], stated: dict[str, float],
               printed: list[float | None] | None = None) -> tuple[list[str], list[str]]:
    """(problems, passed) of rows given as (name, points, category, group) against every stated total.

    ``printed``: in a scheme whose parts are scored out of 100 and weighted into the total, the points
    each row's table prints (the rows' own points are then the weighted ones): a group label and a part
    the prose states may give either scale, the total is the weighted one."""
    problems: list[str] = []
    passed: list[str] = []
    raw = printed if printed is not None and len(printed) == len(rows) else [p for _, p, _, _ in rows]
    total = round(sum(p or 0.0 for _, p, _, _ in rows), 4)
    expected = [100.0] + ([round(sum(stated.values()), 4)] if stated else [])
    if any(abs(total - e) < 0.01 for e in expected):
        passed.append(f"各项合计 {fmt(total)} 分")
    else:
        problems.append(f"各项合计 {fmt(total)} 分，应为 {fmt(expected[-1])} 分")
    for cat, value in stated.items():
        got = round(sum(p or 0.0 for _, p, c, _ in rows if c == cat), 4)
        got_raw = round(sum(r or 0.0 for r, (_, _, c, _) in zip(raw, rows, strict=True) if c == cat), 4)
        if abs(got - value) < 0.01 or abs(got_raw - value) < 0.01:
            passed.append(f"{cat} {fmt(value)} 分与正文一致")
        else:
            problems.append(f"{cat}各项合计 {fmt(got)} 分，正文规定 {fmt(value)} 分")
    members = _group_members([(n, p, c, g) for (n, p, c, g) in rows])
    members_raw = _group_members([(n, r, c, g) for r, (n, _, c, g) in zip(raw, rows, strict=True)])
    for label, group in members.items():
        want = _group_points(label)
        got = round(sum(p or 0.0 for p, _ in group), 4)
        got_raw = round(sum(p or 0.0 for p, _ in members_raw[label]), 4)
        if want is not None and (abs(got - want) < 0.01 or abs(got_raw - want) < 0.01):
            passed.append(f"“{label}”下各项合计 {fmt(want)} 分")
        elif want is not None:
            problems.append(f"“{label}”下各项合计 {fmt(got)} 分，标明 {fmt(want)} 分")
        named = explicit_category(label) if _PART_LABEL.search(norm(label)) else None
        wrong = [c for _, c in group if named is not None and c not in (named.value, ScoreCategory.PRICE.value)]
        if named is not None and wrong:
            problems.append(f"“{label}”下有 {len(wrong)} 项类别不是{named.value}")
    if any(p is None for _, p, _, _ in rows):
        problems.append("有评分项没有分值")
    return problems, passed


def check_rows(doc: TenderDocument, pages: list[int], rows: list[tuple[str, float | None, str, str]],
               whole_parts: frozenset[int] | set[int] = frozenset()) -> list[RowCheck]:
    """Where each row (name, points, category, group) stands in ``pages`` and whether its points are printed
    beside it (rows in ``whole_parts`` may be named as a whole weighted part, see :func:`check_row`)."""
    texts = page_texts(doc, pages)
    return [check_row(texts, name, points, whole_part=k in whole_parts) for k, (name, points, _, _) in enumerate(rows)]


def check_reading(doc: TenderDocument, pages: list[int], rows: list[tuple[str, float | None, str, str]],
                  sums: list[tuple[str, float | None, str, str]] | None = None,
                  printed: list[float | None] | None = None, checks: list[RowCheck] | None = None) -> ReadingCheck:
    """Check every row of a reading (name, points as printed, category, group) and the reading's sums
    (``sums``: the same rows with their points weighted into the total, when the scheme weighs its parts;
    ``printed`` then holds the printed points of ``sums``' rows; ``checks``: the rows' checks, when made)."""
    checks = checks if checks is not None else check_rows(doc, pages, rows)
    stated = stated_totals(doc)
    summed = sums if sums is not None else rows
    problems, passed = check_sums(summed, stated, printed) if summed else (["没有读到任何评分项"], [])
    return ReadingCheck(checks, problems, passed, stated)

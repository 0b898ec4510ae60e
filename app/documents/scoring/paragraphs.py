"""Scoring schemes written as numbered paragraphs instead of a table.

Some tenders write the 评标办法 as text, in two levels of numbering::

    二、技术方案（35分）                       1、技术标部分评分（共80 分）
    1.深化设计能力（10分）：图纸深度……         （1）保证达到……养护要求的技术、组织措施等（3-10 分）评审内容：……
    2.材质工艺（10分）：……                    （2）相关设施巡视检查……的组织安排等（3-7 分）……

Lines are joined into paragraphs (a paragraph starts at a numbering); a paragraph whose first
points in brackets ("（35分）", "（共80 分）", "（3-10 分）", "（0~5 分）") follow its name is scored,
the name being everything before them, however long. The numbering style of the first scored
paragraph is the upper level (parts); scored paragraphs of another style under it are its items,
used when they add up to the part. A part without such items is one row; one whose text is only
the bid-price formula is the price part whatever it is called ("商务标部分评分"). The scheme counts
only when it adds up to the total the chapter states, or to 100.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.documents.model import TenderDocument
from app.documents.scoring.model import ScoreCategory, ScoringItem, ScoringRow, ScoringTable
from app.documents.text_patterns import compact, heading_level

_NUM = r"\d+(?:\.\d+)?"
_STYLES: list[tuple[str, re.Pattern[str]]] = [
    ("paren_cn", re.compile(r"^[（(]([一二三四五六七八九十]+)[)）]")),
    ("cn", re.compile(r"^([一二三四五六七八九十]+)[、．.]")),
    ("paren", re.compile(r"^[（(](\d{1,2})[)）]")),
    ("arabic", re.compile(r"^(\d{1,2})(?:[、．]|\.(?!\d))")),
]
_POINTS = re.compile(
    rf"[（(]\s*(共|满分|最高|总分)?\s*[为:：]?\s*(?:{_NUM}\s*分?\s*[-~～—–至]\s*)?({_NUM})\s*分\s*[)）]"
)
_TOTAL = re.compile(rf"(?:总分|满分|累计最高得分|最高得分|累计总分|累计得分)\s*(?:为|是)?\s*({_NUM})\s*分")
_PRICE_TEXT = re.compile(r"评标基准价|基准价|报价得分|价格分\s*[=＝]|报价分")
_CHAPTER = re.compile(r"^第[一二三四五六七八九十\d]+[章节部分]")
_FURNITURE = re.compile(r"^[—\-–_]*\d{1,4}[—\-–_]*$|^第\d{1,4}页(?:共\d{1,4}页)?$")
_NOT_NAME = re.compile(r"[；;。]|得\s*\d|扣\s*\d")
MAX_STARTS = 20  # scoring headings tried at most (a long document may repeat the words)
MAX_NAME = 160  # characters a scored paragraph's name may run to before its points
MAX_PARAGRAPHS = 80
_HEADING = re.compile(r"评标办法|评分办法|评审办法|评分标准|评审标准|综合评分|综合评估|评分细则|评审细则")


@dataclass
class _Paragraph:
    style: str
    number: str
    text: str
    page: int
    name: str = ""
    points: float | None = None
    whole: bool = False  # the points are the part's total ("共20分")
    body: list[str] = field(default_factory=list)
    items: list[_Paragraph] = field(default_factory=list)


def _lines(doc: TenderDocument, numbers: list[int]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for number in numbers:
        page = doc.page(number)
        if not page.readable:
            continue
        for block in page.blocks:
            if block.kind == "table":
                continue
            for line in block.text.split("\n"):
                if line.strip():
                    out.append((page.number, line.strip()))
    return out


def paragraph_scheme(doc: TenderDocument) -> ScoringTable | None:
    """The numbered-paragraph scoring scheme under a scoring heading, when its points add up."""
    best: ScoringTable | None = None
    tried = 0
    for page in doc.pages:
        if tried >= MAX_STARTS or not page.readable or not _HEADING.search(page.text):
            continue
        lines = _lines(doc, list(range(page.number, min(doc.page_count, page.number + 3) + 1)))
        for i, (number, text) in enumerate(lines):
            if number != page.number or tried >= MAX_STARTS:
                break
            t = compact(text)
            if not _HEADING.search(t) or len(t) > 40:
                continue
            if heading_level(text) is None and not _TOTAL.search(t) and len(t) > 12:
                continue
            tried += 1
            table = _read_from(lines, i)
            if table is not None and (best is None or len(table.rows) > len(best.rows)):
                best = table
    return best


def _style(text: str) -> tuple[str, str]:
    for name, pattern in _STYLES:
        if m := pattern.match(text):
            return name, m.group(1)
    return "", ""


def _paragraphs(lines: list[tuple[int, str]]) -> tuple[list[_Paragraph], float | None]:
    """Numbered paragraphs (wrapped lines joined) up to the next chapter, and a total they state."""
    out: list[_Paragraph] = []
    totals: list[float] = []
    for page, line in lines:
        t = compact(line)
        if _CHAPTER.match(t) and out:
            break
        if _FURNITURE.match(t):
            continue  # a page number ("— 51 —") between two halves of a paragraph
        totals.extend(float(m.group(1)) for m in _TOTAL.finditer(t))
        style, number = _style(t)
        if style:
            out.append(_Paragraph(style, number, t, page))
            if len(out) >= MAX_PARAGRAPHS:
                break
        elif out:
            out[-1].text += t
    total = 100.0 if 100.0 in totals else max(totals, default=None)  # "累计最高得分100分" over "满分20分"
    return out, total


def _score(p: _Paragraph) -> None:
    """Name and points of a paragraph whose first points in brackets follow its name."""
    head = _STYLES_BY_NAME[p.style].sub("", p.text, count=1)
    m = _POINTS.search(head)
    if m is None or m.start() < 2 or m.start() > MAX_NAME or _NOT_NAME.search(head[: m.start()]):
        p.body = [head]  # no points, or they close a criterion ("等于基准价得30分；……（最高35分）")
        return
    p.name = head[: m.start()].strip("：:，, ")
    p.points = float(m.group(2))
    p.whole = bool(m.group(1))
    rest = head[m.end() :].lstrip("：:，, ")
    p.body = [rest] if rest else []


_STYLES_BY_NAME = dict(_STYLES)


def _nest(paragraphs: list[_Paragraph]) -> list[_Paragraph]:
    """Parts (the first scored paragraph's numbering) with the scored paragraphs of another numbering
    under them as items; unscored paragraphs join the text of the one before."""
    scored = [p for p in paragraphs if p.points is not None]
    if not scored:
        return []
    top = scored[0].style
    parts: list[_Paragraph] = []
    for p in paragraphs:
        if p.points is not None and p.style == top:
            parts.append(p)
        elif not parts:
            continue
        elif p.points is not None:
            parts[-1].items.append(p)
        else:
            target = parts[-1].items[-1] if parts[-1].items else parts[-1]
            target.body.append(p.text)
    return parts


def _row(p: _Paragraph, group: str, price: bool = False) -> ScoringRow:
    text = "\n".join(p.body)[:600]
    category = ScoreCategory.PRICE if price else ScoreCategory.OTHER
    return ScoringRow(number=p.number, factor=p.name, factor_raw=p.text[:80], points=p.points, stated_points=p.points,
                      criteria=text, group=group, items=[ScoringItem(criteria=text, points=p.points, page=p.page)],
                      table_id="", pages=[p.page], category=category, category_source="section" if price else "none")


def _read_from(lines: list[tuple[int, str]], start: int) -> ScoringTable | None:
    heading = lines[start][1]
    paragraphs, total = _paragraphs(lines[start + 1 : start + 200])
    if (m := _TOTAL.search(compact(heading))) is not None:
        total = float(m.group(1))
    for p in paragraphs:
        _score(p)
    rows: list[ScoringRow] = []
    subtotals: dict[str, float] = {}
    for part in _nest(paragraphs):
        number = f"（{part.number}）" if part.style.startswith("paren") else f"{part.number}、"
        label = f"{number}{part.name}（{part.points:g}分）"
        subtotals[label] = part.points or 0.0
        items = [i for i in part.items if i.points is not None]
        if items and abs(sum(i.points or 0 for i in items) - (part.points or 0)) < 0.01:
            rows.extend(_row(i, label) for i in items)
        else:
            body = compact("".join(part.body))
            price = bool(_PRICE_TEXT.search(body)) and "技术" not in part.name and not items
            rows.append(_row(part, label, price))
    got = round(sum(r.points or 0 for r in rows), 4)
    if len(rows) < 2 or abs(got - (total if total is not None else 100.0)) > 0.01:
        return None
    if len(subtotals) == len(rows):
        subtotals = {}  # one row per part: the parts are the rows, not groups over them
        for r in rows:
            r.group = ""
    return ScoringTable(table_ids=[], pages=sorted({p for r in rows for p in r.pages}), caption=heading,
                        label=heading.strip()[:40], stated_total=total,
                        rows=rows, kind="paragraphs", subtotals=subtotals)

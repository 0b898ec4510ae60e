"""Scoring schemes written as numbered paragraphs instead of a table.

Some tenders write the 评标办法 as text::

    二、技术方案（35分）
    1.深化设计能力（10分）：图纸深度、效果图还原度……
    2.材质工艺（10分）：……

Section lines ("一、…（N分）") are groups with subtotals; numbered items with points in
their name are the factors; a section with no such items is one factor itself. The scheme
counts only when its sections (or items) add up to the stated total or to 100.
"""

from __future__ import annotations

import re

from app.documents.model import TenderDocument
from app.documents.scoring.cells import stated_points
from app.documents.scoring.model import ScoringItem, ScoringRow, ScoringTable
from app.documents.text_patterns import compact, heading_level

_NUM = r"\d+(?:\.\d+)?"
_SECTION = re.compile(rf"^((?:[一二三四五六七八九十]+)[、．.]|[（(][一二三四五六七八九十]+[)）])\s*([^（(：:，,。；]{{2,24}}?)\s*[（(]\s*(?:满分|共|最高)?\s*({_NUM})\s*分\s*[)）]\s*$")
_ITEM = re.compile(
    rf"^[（(]?(\d{{1,2}})[)）.、．]\s*([^（(：:，,。；]{{2,20}}?)\s*[（(]\s*(?:满分|共|最高)?\s*({_NUM})\s*分\s*[)）]\s*[：:，,]?\s*(.*)$"
)
_TOTAL = re.compile(rf"(?:总分|满分|共)\s*({_NUM})\s*分")
MAX_STARTS = 20  # scoring headings tried at most (a long document may repeat the words)
_HEADING = re.compile(r"评标办法|评分办法|评审办法|评分标准|评审标准|综合评分|综合评估|评分细则|评审细则")


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


def _read_from(lines: list[tuple[int, str]], start: int) -> ScoringTable | None:
    heading = lines[start][1]
    m = _TOTAL.search(compact(heading))
    stated = float(m.group(1)) if m else None
    sections: list[tuple[str, str, float, int, list[ScoringRow], list[str]]] = []
    loose: list[ScoringRow] = []
    misses = 0
    for page, text in lines[start + 1 : start + 200]:
        t = compact(text)
        if sm := _SECTION.match(t):
            sections.append((sm.group(0), sm.group(2), float(sm.group(3)), page, [], []))
            misses = 0
            continue
        if im := _ITEM.match(t):
            row = ScoringRow(number=im.group(1), factor=im.group(2), factor_raw=im.group(0)[:60],
                             points=float(im.group(3)), stated_points=float(im.group(3)), criteria=im.group(4),
                             group=sections[-1][0] if sections else "",
                             items=[ScoringItem(criteria=im.group(4), points=float(im.group(3)), page=page)],
                             table_id="", pages=[page])
            (sections[-1][4] if sections else loose).append(row)
            misses = 0
            continue
        if sections or loose:
            if sections and not sections[-1][4]:
                sections[-1][5].append(text.strip())
            misses += 1
            if re.match(r"^第[一二三四五六七八九十\d]+[章节部分]", t) or misses > 12:
                break
    rows: list[ScoringRow] = []
    subtotals: dict[str, float] = {}
    for label, name, pts, page, items, body in sections:
        subtotals[label] = pts
        if items and abs(sum(r.points or 0 for r in items) - pts) < 0.01:
            rows.extend(items)
        else:
            text = "\n".join(body)[:600]
            rows.append(ScoringRow(factor=name, factor_raw=label, points=pts, stated_points=pts, group=label,
                                   criteria=text, items=[ScoringItem(criteria=text, points=pts, page=page)],
                                   table_id="", pages=[page]))
    if not sections:
        rows = loose
    total = round(sum(r.points or 0 for r in rows), 4)
    target = stated if stated is not None else 100.0
    if len(rows) < 2 or abs(total - target) > 0.01:
        return None
    return ScoringTable(table_ids=[], pages=sorted({p for r in rows for p in r.pages}), caption=heading,
                        label=heading.strip()[:40], stated_total=stated_points(heading) if stated else None,
                        rows=rows, kind="paragraphs", subtotals=subtotals)

"""From the parsed scoring scheme to the analysis' scoring items and candidate tables.

Every row of the chosen tables becomes a :class:`ScoringGroup` with its category (technical
items are the one-to-one chapters; business and price items stay listed for the view and
the 评分索引表); sub-rows that carry their own points become ``sub_items``. Every candidate
table is kept as a :class:`ScoringTableInfo` with the items as read, so the user can pick
another table later without the document.
"""

from __future__ import annotations

import re

from app.core.analysis import (
    DecidedBy,
    ScoringCategory,
    ScoringGroup,
    ScoringSubItem,
    ScoringTableInfo,
    renumber_groups,
)
from app.core.tender_titles import display_title
from app.documents.scoring.cells import explicit_category
from app.documents.scoring.model import ScoreCategory, ScoringResult, ScoringRow, ScoringTable
from app.pipeline.headings.detail_points import split_points

CATEGORY_OF: dict[ScoreCategory, ScoringCategory] = {
    ScoreCategory.TECHNICAL: "technical",
    ScoreCategory.COMMERCIAL: "business",
    ScoreCategory.PRICE: "price",
    ScoreCategory.OTHER: "other",
}
MAX_KEPT_CANDIDATES = 8
MAX_KEPT_ROWS = 80
MIN_KEPT_SCORE = 3.0  # weaker blocks (a stray numbered row in a form) are not offered as candidates


def table_key(table: ScoringTable) -> str:
    """A stable key for a candidate: its table ids, or the first page of a paragraph scheme."""
    if table.table_ids:
        return "+".join(table.table_ids)
    return f"para:p{table.pages[0] if table.pages else 0}"


_LEAD = re.compile(
    r"^(?:根据|按照|依据|按)?(?:投标(?:[（(]?报价[)）]?)?(?:单位|人|方|供应商)|供应商)?(?:所)?"
    r"(?:提供的|为本次?项目配置的|为本项目配置的)?"
)
_LEAD_WORDS = re.compile(r"^(?:针对本项目的?|本项目的?|针对|对于|对|承诺|拟派|制定|提供|具有)+")
_TAIL = re.compile(
    r"(?:的)?(?:得(?:\d|标准分|满分|分|相应)\S*|进行\S*|综合评\S*|等方面\S*|方面\S*|情况|完整|合理|清晰|全面|可行|有效|齐全|完善|到位|准确|规范)$"
)
_CODES = re.compile(r"[A-Za-z][A-Za-z0-9/\-]*(?:[或和及、][A-Za-z][A-Za-z0-9/\-]*)*")
MAX_LABEL = 16


def sub_item_label(criteria: str) -> str:
    """A short heading seed for a nameless sub-item, from the start of its criteria ("" when none)."""
    text = re.sub(r"^\s*(?:\d{1,2}[.、．]|[（(]\d{1,2}[)）]|[①-⑳])\s*", "", criteria or "")
    text = re.split(r"[，,。；;：:\n]", text, maxsplit=1)[0].strip()
    text = _LEAD.sub("", text)
    text = _LEAD_WORDS.sub("", text)
    text = re.sub(r"^(?:所)?提供的", "", text)
    for _ in range(3):
        text = _TAIL.sub("", text).strip()
    if "等" in text:
        head, _, tail = text.rpartition("等")
        text = tail if len(tail) >= 2 and len(head) > MAX_LABEL else head
    text = _CODES.sub("", text).strip("、的 ")
    if len(text) > MAX_LABEL and "、" in text:
        parts = text.split("、")
        text = "、".join(parts[:2]) if len("、".join(parts[:2])) <= MAX_LABEL else parts[0]
    if len(text) > MAX_LABEL and "的" in text[4:]:
        text = text[text.rindex("的") + 1 :]
    return text[:MAX_LABEL] if len(text) >= 2 else ""


def seeds_of(row: ScoringRow) -> list[str]:
    """Level-2 seeds of a factor: its point-bearing sub-items (named or labelled from their criteria),
    then the detail points code reads from its criteria."""
    seeds: list[str] = []
    for item in row.scored_items:
        label = display_title(item.name) if item.name else sub_item_label(item.criteria)
        if label and label not in seeds:
            seeds.append(label)
    for point in split_points(row.criteria):
        if point not in seeds and len(seeds) < 8:
            seeds.append(point)
    return seeds


def row_group(row: ScoringRow, key: str, weighted: bool = False) -> ScoringGroup:
    """One parsed row as a scoring item (id assigned later by ``renumber_groups``)."""
    subs = [ScoringSubItem(name=i.name[:60], criteria=i.criteria[:1000], points=i.points) for i in row.scored_items]
    decided: DecidedBy = "model" if row.category_source == "model" else "user" if row.category_source == "user" else "code"
    return ScoringGroup(
        id="", title=display_title(row.factor) or row.factor[:60] or "评分项", description=row.criteria[:2000],
        detail_points=seeds_of(row), points=row.points, source_page=row.page or None,
        category=CATEGORY_OF[row.category], sub_items=subs, group_label=row.group[:80], table_key=key,
        chapter=row.chapter, decided_by=decided, doubt=row.doubt[:200], weighted=weighted, raw_points=row.raw_points,
    )


def stated_by_category(table: ScoringTable) -> dict[str, float]:
    """Category totals a table states: its caption's total, or its group subtotals that name a category."""
    out: dict[str, float] = {}
    for label, points in table.subtotals.items():
        cat = explicit_category(label)
        if cat is not None:
            key = CATEGORY_OF[cat]
            out[key] = round(out.get(key, 0.0) + points, 4)
    if table.category is not None and table.stated_total is not None and not out:
        out[CATEGORY_OF[table.category]] = table.stated_total
    return out


def table_info(table: ScoringTable, used: bool) -> ScoringTableInfo:
    """A candidate table with its items as read."""
    key = table_key(table)
    rows = table.rows[:MAX_KEPT_ROWS]
    return ScoringTableInfo(
        key=key, label=_once(table.label) or _caption_tail(table.caption), kind=table.kind, pages=table.pages,
        total=table.points_sum, stated_total=table.stated_total, stated_by_category=stated_by_category(table),
        score=table.score, evidence=table.evidence, rejected=table.rejected, used=used,
        groups=[row_group(r, key, table.weighted) for r in rows],
    )


def _caption_tail(caption: str) -> str:
    """The title right above a table, once (DOCX captions join the last two paragraphs)."""
    parts = [p.strip() for p in re.split(r"[。；;]", caption) if p.strip()]
    return _once(parts[-1])[:40] if parts else ""


def _once(text: str) -> str:
    """A title whose words repeat ("附表3 商务评审表 商务评审表") said once."""
    words: list[str] = []
    for w in text.split():
        if not any(w in earlier for earlier in words):
            words.append(w)
    return " ".join(words)


def scoring_tables(scoring: ScoringResult) -> list[ScoringTableInfo]:
    """The used tables and the best other candidates, in document order (bounded)."""
    used = {id(t) for t in scoring.tables}
    pool = list(scoring.candidates) or list(scoring.tables)
    for t in scoring.tables:
        if all(t is not c for c in pool):
            pool.append(t)
    others = sorted((c for c in pool if id(c) not in used and (c.rejected or c.score >= MIN_KEPT_SCORE)),
                    key=lambda c: -c.score)[:MAX_KEPT_CANDIDATES]
    keep = {id(c) for c in others} | used
    return _unique_keys([table_info(c, id(c) in used) for c in pool if id(c) in keep])


def _unique_keys(tables: list[ScoringTableInfo]) -> list[ScoringTableInfo]:
    """Two candidates read from one table (two schemes in one grid) get keys of their own ("t9", "t9#2"):
    the key says which candidate the user ticks, so it must name one."""
    seen: dict[str, int] = {}
    out: list[ScoringTableInfo] = []
    for t in tables:
        seen[t.key] = seen.get(t.key, 0) + 1
        if seen[t.key] == 1:
            out.append(t)
            continue
        key = f"{t.key}#{seen[t.key]}"
        out.append(t.model_copy(update={"key": key, "groups": [g.model_copy(update={"table_key": key})
                                                                 for g in t.groups]}))
    return out


def scoring_items(tables: list[ScoringTableInfo]) -> list[ScoringGroup]:
    """The items of the used tables, numbered R1, R2, … in order."""
    return renumber_groups([g for t in tables if t.used for g in t.groups])

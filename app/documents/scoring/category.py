"""Label each scoring row 技术/商务/价格/其他, following the document's own grouping.

In this order, the first that speaks decides:

1. the row's group: a merged group cell or a label/subtotal row ("技术部分（81 分）",
   "商务评分标准 20 分", "三、企业实力及业绩（25分）"); where the document groups its rows
   and names some groups 技术, a group that is neither 技术, 商务 nor 价格 is 其他;
2. the table's caption ("附表2：技术评分细则表（50分）") or the heading of its section
   ("（二）技术评分标准"); in a scheme of several tables
   where the others are 商务 and 价格, the remaining one (e.g. "服务评分细则表") is 技术;
3. weights that make the one table the technical part (see ``scoring_context``);
4. the factor's own words (报价 → 价格, 业绩/资质/认证 → 商务, else 技术).
"""

from __future__ import annotations

import re

from app.documents.scoring.cells import (
    default_category,
    explicit_category,
    is_commercial_label,
    stated_points,
)
from app.documents.scoring.model import CategorySource, ScoreCategory, ScoringRow, ScoringTable
from app.documents.text_patterns import compact

_PART_LABEL = re.compile(r"部分|评分$|评审$|标$|类$|得分$")
_SCORING_WORDS = re.compile(r"评分|评审|打分|评标|评价|细则|标准")
_GENERIC_GROUP = re.compile(r"^(?:评分|评审|评标)?(?:细则|标准|办法|因素|内容|项目)(?:[（(].*)?$|^评分细则|^评审细则")


def table_category(table: ScoringTable) -> ScoreCategory | None:
    """The category a table's caption or label names ("商务评分细则表（40分）" → 商务)."""
    for text in (table.label, table.caption[-40:], table.section):
        if text and _SCORING_WORDS.search(compact(text)):
            cat = explicit_category(_tail(text))
            if cat is not None:
                return cat
    return None


def _tail(caption: str) -> str:
    """The last sentence of a caption (the title right above the table)."""
    parts = [p for p in re.split(r"[。；;：:]", caption) if p.strip()]
    return parts[-1] if parts else caption


_PART_NUMBER = re.compile(r"^(?:[一二三四五六七八九十]+[、.．]|[（(][一二三四五六七八九十]+[)）]|\d{1,2}[、.．)）])")


def part_like(label: str) -> bool:
    """A group label that names a part of the scheme ("3.综合部分", "四、响应程度（5分）"), not a
    heading over some factors ("服务质量")."""
    t = compact(label)
    bare = _PART_NUMBER.sub("", re.sub(r"[（(][^（()）]*[)）]", "", t))
    return bool(_PART_LABEL.search(bare) or stated_points(t) is not None or _PART_NUMBER.match(t))


def group_category(label: str, grouped_explicitly: bool, remaining: str = "") -> ScoreCategory | None:
    """Category of a group label in a scheme that names some of its parts 技术/商务/价格.

    A part the document names otherwise is 商务 when it is the ``remaining`` one (the scheme has
    技术 and 价格 parts and no 商务 part: "3.综合部分"), else 其他 ("四、响应程度（5分）"); a heading
    over some factors that is no part ("服务质量") leaves each row to its own words (None).
    """
    if not label:
        return None
    cat = explicit_category(label)
    if cat is not None:
        return cat
    if is_commercial_label(label):
        return ScoreCategory.COMMERCIAL
    if grouped_explicitly and not _GENERIC_GROUP.search(compact(label)):
        if not part_like(label):
            return None
        return ScoreCategory.COMMERCIAL if label == remaining else ScoreCategory.OTHER
    return None


def _remaining_part(labels: list[str]) -> str:
    """The one part named neither 技术, 商务 nor 价格 in a scheme with 技术 and 价格 parts but no 商务 one."""
    cats = {explicit_category(g) for g in labels} | {ScoreCategory.COMMERCIAL for g in labels if is_commercial_label(g)}
    if ScoreCategory.COMMERCIAL in cats or not {ScoreCategory.TECHNICAL, ScoreCategory.PRICE} <= cats:
        return ""
    named = {g for g in labels if explicit_category(g) is None and not is_commercial_label(g)
             and part_like(g) and not _GENERIC_GROUP.search(compact(g))}
    return named.pop() if len(named) == 1 else ""


def assign_categories(tables: list[ScoringTable], *, technical_by_weight: bool = False) -> None:
    """Set ``category``/``category_source`` on every row of ``tables`` (one scheme, in place)."""
    labels = [g for t in tables for r in t.rows for g in (r.group, r.part) if g]
    grouped = any(explicit_category(g) == ScoreCategory.TECHNICAL for g in labels)
    remaining = _remaining_part(labels) if grouped else ""
    cats = [table_category(t) for t in tables]
    if len(tables) > 1 and None in cats:
        named = {c for c in cats if c is not None}
        if {ScoreCategory.COMMERCIAL, ScoreCategory.PRICE} <= named and ScoreCategory.TECHNICAL not in named:
            cats = [c if c is not None else ScoreCategory.TECHNICAL for c in cats]
    for table, cat in zip(tables, cats, strict=True):
        table.category = cat
        whole = technical_by_weight and len(tables) == 1 and cat is None
        for row in table.rows:
            if row.category_source in ("user", "model", "section"):  # decided by a person, a model or the text
                continue
            row.category, row.category_source = _row_category(row, cat, grouped, whole, remaining)


def _row_category(row: ScoringRow, table_cat: ScoreCategory | None, grouped: bool,
                  technical_table: bool, remaining: str = "") -> tuple[ScoreCategory, CategorySource]:
    default, source = default_category(row.factor, row.criteria)
    group_cat = group_category(row.group, grouped, remaining)
    if group_cat is None and row.part:  # a heading inside a part: the part speaks for its rows
        group_cat = group_category(row.part, grouped, remaining)
    if default == ScoreCategory.PRICE:
        return default, ("column" if row.category_label else "group") if group_cat == default else source
    if group_cat is not None and table_cat is not None and group_cat != ScoreCategory.PRICE \
            and not _PART_LABEL.search(re.sub(r"[（(][^（()）]*[)）]", "", compact(row.group))):
        return table_cat, "caption"  # the table's title names the part; a factor-like group only guesses
    if group_cat is not None:
        return group_cat, "column" if row.category_label else "group"
    if table_cat is not None:
        return table_cat, "caption"
    if technical_table:
        return ScoreCategory.TECHNICAL, "weights"
    own = explicit_category(row.factor) if len(compact(row.factor)) <= 10 else None
    if own is not None:  # the factor names a part ("商务部分（10分）" over its sub-items, "综合商务")
        return own, "group"
    return default, source

"""Row edits of the scoring items, as plain functions from one list of items to the next.

The analysis view turns each into one new ``Analysis`` (one undo step): insert a row where
the user is, remove the selected rows at once, split a row (into its scored sub-items, or at
the 、/及/和 of its name), merge rows into one (the merged rows become its sub-items, points
summed), move a block of rows up or down, and turn a category row (``技术部分 | 62``) into the
group of the rows under it (the row goes, the rows it heads take its label and category).
Every function returns renumbered items (R1, R2, …) and marks what the user decided.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.analysis import ScoringCategory, ScoringGroup, ScoringSubItem, renumber_groups

#: A row that names a part of the scheme (技术部分, 商务分, 价格标 …) and the category it names.
_PART = re.compile(r"^(?:[一二三四五六七八九十\d]{1,3}[、.．)）]|[（(][一二三四五六七八九十\d]{1,3}[)）])?\s*"
                   r"(技术|商务|资信|价格|报价|服务|其他)[^\d（(]{0,6}?(?:部分|分|标|评分|评审|因素)")
_PART_CATEGORY: dict[str, ScoringCategory] = {"技术": "technical", "服务": "technical", "商务": "business",
                                             "资信": "business", "价格": "price", "报价": "price", "其他": "other"}
_NAME_PARTS = re.compile(r"[、，,/；;]|及|和|与|以及")
MIN_PART = 2


def _fmt(x: float) -> str:
    return f"{x:g}"


def part_category(title: str) -> ScoringCategory | None:
    """The category a category row's title names ("技术部分" -> technical), None for an ordinary item."""
    m = _PART.match(title.strip())
    return _PART_CATEGORY[m.group(1)] if m else None


def insert_row(groups: Sequence[ScoringGroup], at: int, title: str = "新评分项") -> list[ScoringGroup]:
    """A new item typed by the user at position ``at`` (its neighbour's category, table and group)."""
    at = max(0, min(at, len(groups)))
    near = groups[at - 1] if at > 0 else groups[0] if groups else None
    new = ScoringGroup(id="", title=title, decided_by="user",
                       category=near.category if near else "technical",
                       table_key=near.table_key if near else "", group_label=near.group_label if near else "")
    return renumber_groups([*groups[:at], new, *groups[at:]])


def remove_rows(groups: Sequence[ScoringGroup], rows: Sequence[int]) -> list[ScoringGroup]:
    """The items without those at ``rows``."""
    gone = set(rows)
    return renumber_groups([g for i, g in enumerate(groups) if i not in gone])


def _sub_title(sub: ScoringSubItem) -> str:
    if sub.name:
        return sub.name[:60]
    text = re.split(r"[，,。；;：:\n]", sub.criteria.strip(), maxsplit=1)[0]
    return text[:30] or "小项"


def split_row(groups: Sequence[ScoringGroup], row: int) -> list[ScoringGroup]:
    """One item as several: its scored sub-items each a row; else its name cut at 、/及/和 (the first part
    keeps the points, the others wait for theirs); else a copy to fill in after it."""
    if not 0 <= row < len(groups):
        return list(groups)
    g = groups[row]
    base = {"decided_by": "user", "doubt": "", "sub_items": [], "detail_points": []}
    scored = [s for s in g.sub_items if s.points is not None]
    parts: list[ScoringGroup]
    if len(scored) >= MIN_PART:
        parts = [g.model_copy(update={**base, "title": _sub_title(s), "points": s.points, "description": s.criteria})
                 for s in scored]
    else:
        names = [n.strip() for n in _NAME_PARTS.split(g.title) if len(n.strip()) >= MIN_PART]
        if len(names) < MIN_PART:
            names = [g.title, f"{g.title}（拆分）"]
        parts = [g.model_copy(update={**base, "title": names[0][:60]})]
        parts += [g.model_copy(update={**base, "title": n[:60], "points": None, "description": "",
                                       "doubt": "拆分出的评分项，请填写分值"}) for n in names[1:]]
    return renumber_groups([*groups[:row], *parts, *groups[row + 1:]])


def merge_rows(groups: Sequence[ScoringGroup], rows: Sequence[int]) -> list[ScoringGroup]:
    """The items at ``rows`` as one, where the first was: points summed, the merged items its sub-items."""
    picked = sorted({r for r in rows if 0 <= r < len(groups)})
    if len(picked) < MIN_PART:
        return list(groups)
    items = [groups[r] for r in picked]
    first = items[0]
    points = [g.points for g in items if g.points is not None]
    subs = [ScoringSubItem(name=g.title[:60], criteria=g.description[:1000], points=g.points) for g in items]
    merged = first.model_copy(update={
        "points": round(sum(points), 4) if points else None, "sub_items": subs, "decided_by": "user", "doubt": "",
        "description": "\n".join(f"{g.title}：{g.description}" if g.description else g.title for g in items)[:2000],
        "detail_points": [p for g in items for p in (g.detail_points or [g.title])][:12],
        "chapter": any(g.chapter for g in items),
    })
    out = [g for i, g in enumerate(groups) if i not in picked[1:]]
    out[picked[0]] = merged
    return renumber_groups(out)


def move_rows(groups: Sequence[ScoringGroup], rows: Sequence[int], delta: int) -> tuple[list[ScoringGroup], list[int]]:
    """The selected rows moved together one place up (``delta`` -1) or down (+1); returns the items and
    where the moved rows now are. A block already at the edge stays."""
    picked = sorted({r for r in rows if 0 <= r < len(groups)})
    if not picked or delta not in (-1, 1):
        return list(groups), picked
    if (delta < 0 and picked[0] == 0) or (delta > 0 and picked[-1] == len(groups) - 1):
        return list(groups), picked
    block = [groups[r] for r in picked]
    rest = [g for i, g in enumerate(groups) if i not in set(picked)]
    at = picked[0] + delta
    out = [*rest[:at], *block, *rest[at:]]
    return renumber_groups(out), list(range(at, at + len(block)))


def make_group(groups: Sequence[ScoringGroup], row: int) -> tuple[list[ScoringGroup], int]:
    """A category row (``技术部分 | 62``) made the group of the rows under it; returns the items and how many
    rows it now heads.

    The rows it heads are those after it until their points reach its own (or, when they never
    do, until the next category row); they take its label ("技术部分（62分）") and, when its name
    says one, its category. The category row itself is removed: its points were the sum, not an item.
    """
    if not 0 <= row < len(groups):
        return list(groups), 0
    head = groups[row]
    label = head.title if head.points is None or re.search(r"\d\s*分", head.title) else \
        f"{head.title}（{_fmt(head.points)}分）"
    category = part_category(head.title)
    members: list[int] = []
    total = 0.0
    for i in range(row + 1, len(groups)):
        if part_category(groups[i].title) is not None and members:
            break
        members.append(i)
        total += groups[i].points or 0.0
        if head.points is not None and abs(total - head.points) < 0.01:
            break
    update: dict[str, object] = {"group_label": label[:80], "decided_by": "user"}
    if category is not None:
        update["category"] = category
    out = [groups[i].model_copy(update=update) if i in members else g for i, g in enumerate(groups) if i != row]
    return renumber_groups(out), len(members)


def rows_of_group(groups: Sequence[ScoringGroup], row: int) -> list[int]:
    """The rows in the same group as ``row`` (its group label; the row alone when it has none)."""
    if not 0 <= row < len(groups):
        return []
    label = groups[row].group_label
    if not label:
        return [row]
    return [i for i, g in enumerate(groups) if g.group_label == label]

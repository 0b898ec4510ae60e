"""The user's corrections to the scoring items, as plain functions from one Analysis to the next.

Each returns a new :class:`Analysis` (the UI wraps old and new in one undo command): use
another candidate table (besides, or instead of, those in use), take code's or the model's
reading when the two differ, confirm the items, move items to another category, mark items
as (not) chapters, score by another lot's scheme. :func:`scoring_checks` recomputes the sums the view shows — the total
against 100 (or the stated totals) and each category against what the tender states for it —
and :func:`explaining_rows` names the rows whose category explains a part's wrong sum.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from app.core.analysis import (
    CATEGORY_ZH,
    Analysis,
    ScoringCategory,
    ScoringGroup,
    ScoringLotInfo,
    ScoringTableInfo,
    renumber_groups,
)

#: Notes that code's own checks add and that a confirmation (the user's or two readings') makes moot.
SELF_CHECK_NOTES = ("评分表自检未完全通过",)
MODEL_TABLE_KEY = "model"
#: Rows tried together when looking for the ones whose category explains a part's wrong sum.
MAX_EXPLAINING = 3
_CATEGORY_OF_ZH: dict[str, ScoringCategory] = {v: k for k, v in CATEGORY_ZH.items()}  # type: ignore[misc]


@dataclass(frozen=True)
class ScoringCheck:
    """One sum and what it should be (``stated`` None: nothing to compare with)."""

    label: str
    got: float
    stated: float | None

    @property
    def ok(self) -> bool | None:
        """True/False when there is a stated value, None otherwise."""
        return None if self.stated is None else abs(self.got - self.stated) < 0.01

    def text(self) -> str:
        """"技术 45 分（标明 45 分）✓" style."""
        head = f"{self.label} {_fmt(self.got)} 分"
        if self.stated is None:
            return head
        return f"{head}（应为 {_fmt(self.stated)} 分）{'✓' if self.ok else '✗'}"


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def use_table(analysis: Analysis, key: str, used: bool) -> Analysis:
    """Use (or stop using) one candidate table; the items of tables still used keep the user's edits."""
    tables = [t.model_copy(update={"used": used}) if t.key == key else t for t in analysis.scoring_tables]
    return _with_tables(analysis, tables)


def use_only_table(analysis: Analysis, key: str) -> Analysis:
    """Use this candidate table instead of those in use (one click from the candidate list)."""
    tables = [t.model_copy(update={"used": t.key == key}) for t in analysis.scoring_tables]
    return _with_tables(analysis, tables)


def _with_tables(analysis: Analysis, tables: list[ScoringTableInfo]) -> Analysis:
    """The analysis using ``tables``: items of tables still used keep the user's edits, others come as read."""
    kept: dict[str, list[ScoringGroup]] = {}
    for g in analysis.groups:
        kept.setdefault(g.table_key, []).append(g)
    groups: list[ScoringGroup] = []
    for t in tables:
        if not t.used:
            continue
        groups += kept.get(t.key) or [g.model_copy(deep=True) for g in t.groups]
    groups += kept.get("", [])  # items the user added by hand
    update: dict[str, object] = {"scoring_tables": tables, "groups": renumber_groups(groups)}
    if analysis.scoring_confirmed or analysis.scoring_doubt:  # code's check was of the other choice of tables
        update |= {"scoring_confirmed": False, "scoring_user_confirmed": False,
                   "scoring_doubt": "已改选评分表，程序的核对不再适用；请核对评分项、分值和类别后确认"}
    return analysis.model_copy(update=update)


def with_lot_saved(analysis: Analysis) -> list[ScoringLotInfo]:
    """The lots with the chosen one's items and verdict as they are now (the user's edits kept with it)."""
    lots = list(analysis.scoring_lots)
    k = analysis.scoring_lot
    if 0 <= k < len(lots):
        lots[k] = lots[k].model_copy(update={
            "groups": list(analysis.groups), "confirmed": analysis.scoring_confirmed, "doubt": analysis.scoring_doubt,
            "user_confirmed": analysis.scoring_user_confirmed, "second_reading": analysis.second_reading,
            "tables": [t for t in analysis.scoring_tables if t.used] or lots[k].tables})
    return lots


def choose_lot(analysis: Analysis, index: int) -> Analysis:
    """Score the bid by another lot's scheme: its tables, its items (as the user last left them) and its verdict
    replace the chosen lot's, which keeps its own for when it is chosen again."""
    if not 0 <= index < len(analysis.scoring_lots) or index == analysis.scoring_lot:
        return analysis
    lots = with_lot_saved(analysis)
    lot = lots[index]
    keys = {t.key for t in lot.tables}
    tables = [t.model_copy(update={"used": True}) for t in lot.tables]
    tables += [t.model_copy(update={"used": False}) for t in analysis.scoring_tables if t.key not in keys]
    tables.sort(key=lambda t: (t.pages[0] if t.pages else 0, t.key))
    groups = lot.groups or [g.model_copy(deep=True) for t in lot.tables for g in t.groups]
    return analysis.model_copy(update={
        "scoring_lots": lots, "scoring_lot": index, "scoring_tables": tables, "groups": renumber_groups(groups),
        "scoring_confirmed": lot.confirmed, "scoring_doubt": lot.doubt, "scoring_user_confirmed": lot.user_confirmed,
        "second_reading": lot.second_reading,
    })


def user_edited(analysis: Analysis) -> bool:
    """Whether the items differ from those the used tables were read with (the user changed them)."""
    read = [g for t in analysis.scoring_tables if t.used for g in t.groups]
    strip = ("id", "doubt", "decided_by")
    return [g.model_dump(exclude=set(strip)) for g in analysis.groups] != [g.model_dump(exclude=set(strip))
                                                                           for g in read]


def confirm_scoring(analysis: Analysis) -> Analysis:
    """The user checked the items: confirmed by the user, the rows' doubts and code's self-check note gone."""
    return analysis.model_copy(update={
        "scoring_user_confirmed": True,
        "groups": [g.model_copy(update={"doubt": ""}) if g.doubt else g for g in analysis.groups],
        "notes": [n for n in analysis.notes if not any(w in n for w in SELF_CHECK_NOTES)],
    })


def take_reading(analysis: Analysis, which: str) -> Analysis:
    """Take code's reading (``"code"``) or the model's (``"model"``) where the two differ; the user chose, so
    the items are confirmed by the user. The model's reading becomes a table of its own in the candidates,
    so the user can go back to code's tables with one click."""
    reading = analysis.second_reading
    if which == "code" or reading is None:
        return confirm_scoring(analysis)
    pages = sorted({g.source_page for g in reading.rows if g.source_page}) or reading.pages
    groups = [g.model_copy(update={"table_key": MODEL_TABLE_KEY, "doubt": ""}) for g in reading.rows]
    info = ScoringTableInfo(key=MODEL_TABLE_KEY, label=f"模型读取{f'（{reading.model}）' if reading.model else ''}",
                            pages=pages, total=round(sum(g.points or 0.0 for g in groups), 4), used=True,
                            stated_by_category={_CATEGORY_OF_ZH[k]: v for k, v in reading.stated_by_category.items()
                                                if k in _CATEGORY_OF_ZH},
                            evidence=["模型独立读取评分表所在页，程序逐项核对了名称和分值"], groups=groups)
    tables = [t.model_copy(update={"used": False}) for t in analysis.scoring_tables if t.key != MODEL_TABLE_KEY]
    taken = analysis.model_copy(update={"scoring_tables": [*tables, info], "groups": renumber_groups(groups),
                                        "second_reading": reading.model_copy(update={"agrees": True})})
    return confirm_scoring(taken)


def move_to_category(analysis: Analysis, ids: Iterable[str], category: ScoringCategory) -> Analysis:
    """Put the items ``ids`` in ``category`` (the user decided)."""
    wanted = set(ids)
    groups = [g.model_copy(update={"category": category, "decided_by": "user"}) if g.id in wanted else g
              for g in analysis.groups]
    return analysis.model_copy(update={"groups": groups})


def set_chapter(analysis: Analysis, ids: Iterable[str], chapter: bool) -> Analysis:
    """Mark the items ``ids`` as chapters (or not) of a one-to-one outline."""
    wanted = set(ids)
    groups = [g.model_copy(update={"chapter": chapter}) if g.id in wanted else g for g in analysis.groups]
    return analysis.model_copy(update={"groups": groups})


def scoring_checks(analysis: Analysis) -> list[ScoringCheck]:
    """The total and each category's sum, against what the used tables state."""
    used = [t for t in analysis.scoring_tables if t.used]
    stated_by: dict[str, float] = {}
    for t in used:
        for cat, value in t.stated_by_category.items():
            stated_by[cat] = round(stated_by.get(cat, 0.0) + value, 4)
    if not any(g.weighted for g in analysis.groups):  # what the prose states, where the tables state nothing
        for zh, value in analysis.scoring_stated_parts.items():
            part = _CATEGORY_OF_ZH.get(zh)
            if part is not None and part not in stated_by:
                stated_by[part] = value
    total = round(sum(g.points or 0.0 for g in analysis.groups), 4)
    if used and all(t.stated_total is not None for t in used) and len(used) > 1:
        expected: float | None = round(sum(t.stated_total or 0.0 for t in used), 4)
    elif len(used) == 1 and used[0].stated_total is not None:
        expected = used[0].stated_total
    else:
        expected = 100.0 if analysis.groups else None
    checks = [ScoringCheck("合计", total, expected)]
    for cat in ("technical", "business", "price", "other"):
        got = round(sum(g.points or 0.0 for g in analysis.groups if g.category == cat), 4)
        if got or cat in stated_by:
            checks.append(ScoringCheck(CATEGORY_ZH[cat], got, stated_by.get(cat)))
    return checks


@dataclass(frozen=True)
class Explanation:
    """Rows whose category explains the parts' wrong sums, where they belong, and what moving them does."""

    ids: list[str]
    category: ScoringCategory
    why: str


def explaining_rows(analysis: Analysis) -> Explanation | None:
    """The rows whose category explains the parts' wrong sums, or None.

    When one part has too few points and another exactly as many too many (or, when nothing else
    is stated, parts nothing states hold them), the rows making up the difference are those to look
    at — a row of the 商务 table counted as 技术 first (its table states only the other part), then
    the fewest rows whose points add up to it; rows the user placed are left out.
    """
    checks = scoring_checks(analysis)[1:]
    off = {c.label: round(c.got - c.stated, 4) for c in checks if c.stated is not None and not c.ok}
    over = [zh for zh, d in off.items() if d > 0]
    under = [zh for zh, d in off.items() if d < 0]
    if len(under) != 1 or len(over) > 1 or (over and abs(off[over[0]] + off[under[0]]) >= 0.01):
        return None
    dst = _CATEGORY_OF_ZH[under[0]]
    diff = -off[under[0]]
    if over:
        sources = {_CATEGORY_OF_ZH[over[0]]}
    else:  # the points went to parts nothing states (never the price)
        stated = {_CATEGORY_OF_ZH[c.label] for c in checks if c.stated is not None}
        sources = {c for c in ("business", "other", "technical") if c not in stated and c != dst}
    pool = [g for g in analysis.groups if g.category in sources and g.points and g.decided_by != "user"]
    states = {t.key: set(t.stated_by_category) for t in analysis.scoring_tables}
    filed = [g for g in pool if states.get(g.table_key) == {dst}]  # sits in a table of the other part
    found: list[ScoringGroup] = []
    for candidates in (filed, pool):
        for size in range(1, min(MAX_EXPLAINING, len(candidates)) + 1):
            found = next((list(c) for c in combinations(candidates, size)
                          if abs(sum(g.points or 0.0 for g in c) - diff) < 0.01), [])
            if found:
                break
        if found:
            break
    if not found:
        return None
    names = "、".join(f"“{g.title}”" for g in found)
    parts = f"{under[0]}、{over[0]}两项小计都" if over else f"{under[0]}小计即"
    return Explanation([g.id for g in found], dst, f"{names}移到{under[0]}类后，{parts}与标明的一致")

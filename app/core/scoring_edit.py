"""The user's corrections to the scoring items, as plain functions from one Analysis to the next.

Each returns a new :class:`Analysis` (the UI wraps old and new in one undo command): use
another candidate table, move items to another category, mark items as (not) chapters.
:func:`scoring_checks` recomputes the sums the view shows — the total against 100 (or
the stated totals) and each category against what the tender states for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.core.analysis import CATEGORY_ZH, Analysis, ScoringCategory, ScoringGroup, renumber_groups


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

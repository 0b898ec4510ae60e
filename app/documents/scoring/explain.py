"""The numbers the 评标办法 prose states, explained (or not) by a reading of the scoring tables.

The chapter's sentences state what the parts are worth ("其中价格分30分、商务部分30分、技术部分
40分", "价格分为 30 分") and its headings what a part holds ("二、技术部分（40分）"). A reading of
the tables explains such a number when one of its own parts carries it: the category's points, a
table's or a group's total, the price the prose adds to a scheme without a price row, or a part's
100 points weighted into the total. Two uses:

- choosing (``select.choose``): among schemes that rank alike by structure, the one that explains
  the stated numbers wins, and one that leaves a firm statement unexplained loses ground;
- confirming (``calibrate``): a reading that leaves a firm statement unexplained is not confirmed,
  unless another lot's reading explains it (the statement is that lot's).

Firm statements are sentences that give a breakdown (two or more parts, or 其中/满分/总分…); a part
named alone at the start of a line is a heading and only counts in a reading's favour, since items
are named that way too ("技术方案（8分）").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from app.documents.scoring.category import assign_categories
from app.documents.scoring.cells import fmt_points
from app.documents.scoring.model import ScoreCategory, ScoringTable
from app.documents.scoring.prose import PartStatement

FIRM_WEIGHT = 1.5  # rank points per firm statement a scheme explains (and lost per one it leaves)
HEADING_WEIGHT = 0.5  # rank points per heading statement a scheme explains


def _close(a: float, b: float) -> bool:
    return abs(a - b) < 0.01


@dataclass(frozen=True)
class Numbers:
    """The stated numbers a reading must explain: firm statements and headings, one per (part, points)."""

    firm: tuple[PartStatement, ...] = ()
    headings: tuple[PartStatement, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.firm or self.headings)


def stated_numbers(statements: Sequence[PartStatement]) -> Numbers:
    """The part totals of ``prose.part_statements`` worth explaining (weights excluded: ``prose_check``
    and ``weights`` read them); a heading that repeats a firm statement is not counted twice."""
    firm: dict[tuple[ScoreCategory, float], PartStatement] = {}
    heads: dict[tuple[ScoreCategory, float], PartStatement] = {}
    for st in statements:
        if st.weight:
            continue
        (heads if st.lead else firm).setdefault((st.category, st.points), st)
    return Numbers(tuple(firm.values()), tuple(v for k, v in heads.items() if k not in firm))


@dataclass
class Explanation:
    """Which stated numbers one reading explains."""

    explained: list[PartStatement] = field(default_factory=list)
    unexplained: list[PartStatement] = field(default_factory=list)  # firm statements only
    headings: int = 0  # heading statements explained

    @property
    def rank(self) -> float:
        """What the fit adds to a scheme's rank."""
        return FIRM_WEIGHT * (len(self.explained) - len(self.unexplained)) + HEADING_WEIGHT * self.headings


Total = tuple[float, frozenset[ScoreCategory]]


def _parts(tables: list[ScoringTable]) -> tuple[dict[ScoreCategory, float], list[Total]]:
    """Points per category, and every total a reader could point at (a table's, a group's, a weighted
    part's printed 100) with the categories of its rows."""
    parts: dict[ScoreCategory, float] = {}
    totals: list[Total] = []
    for t in tables:
        cats = frozenset(r.category for r in t.rows)
        totals.append((t.points_sum, cats))
        if t.stated_total is not None:
            totals.append((t.stated_total, cats))
        if t.weight is not None:  # a part scored out of 100 and weighted: its printed total is a number too
            raw = sum(r.raw_points if r.raw_points is not None else (r.points or 0.0) for r in t.rows)
            totals.append((round(raw, 4), cats))
        groups: dict[str, list[float | ScoreCategory]] = {}
        for r in t.rows:
            parts[r.category] = round(parts.get(r.category, 0.0) + (r.points or 0.0), 4)
            if r.group:
                groups.setdefault(r.group, []).extend([r.points or 0.0, r.category])
        for items in groups.values():
            points = [x for x in items if isinstance(x, float)]
            totals.append((round(sum(points), 4), frozenset(x for x in items if isinstance(x, ScoreCategory))))
    return parts, totals


def _same_part(stated: ScoreCategory, cats: frozenset[ScoreCategory]) -> bool:
    """A total of rows of the stated part; a 商务标 may hold only the bid price ("商务标（60分）" scored
    by the price formula)."""
    return stated in cats or (stated == ScoreCategory.COMMERCIAL and cats == {ScoreCategory.PRICE})


def _explains(st: PartStatement, parts: dict[ScoreCategory, float], totals: list[Total], total: float,
              *, heading: bool) -> bool:
    got = parts.get(st.category)
    if got is not None and _close(got, st.points):
        return True
    if st.category == ScoreCategory.PRICE and ScoreCategory.PRICE not in parts and _close(total + st.points, 100):
        return True  # the price the prose adds to a scheme without a price row (``table.prose_price``)
    if st.category == ScoreCategory.COMMERCIAL and ScoreCategory.COMMERCIAL not in parts \
            and _close(parts.get(ScoreCategory.PRICE, -1.0), st.points):
        return True  # the whole 商务 part is the bid price
    if heading:
        return False  # a heading's number is its part's, not any group's
    return any(_close(value, st.points) and _same_part(st.category, cats) for value, cats in totals)


def explain(tables: list[ScoringTable], numbers: Numbers, *, categorised: bool = True) -> Explanation:
    """Which of ``numbers`` the reading ``tables`` explains. Without ``categorised`` the categories are
    read on copies first (a scheme weighed before it is chosen; its own rows keep theirs)."""
    if not categorised:
        tables = [t.model_copy(deep=True) for t in tables]
        assign_categories(tables)
    parts, totals = _parts(tables)
    total = round(sum(t.points_sum for t in tables), 4)
    out = Explanation()
    for st in numbers.firm:
        (out.explained if _explains(st, parts, totals, total, heading=False) else out.unexplained).append(st)
    out.headings = sum(1 for st in numbers.headings if _explains(st, parts, totals, total, heading=True))
    return out


def scheme_fit(numbers: Numbers) -> Callable[[list[ScoringTable]], float] | None:
    """A function giving what the stated numbers add to a scheme's rank (for ``select.choose``), or None
    when the prose states none."""
    if not numbers:
        return None
    return lambda tables: explain(tables, numbers, categorised=False).rank


def another_lots(parts: dict[ScoreCategory, float], others: Sequence[list[ScoringTable]]) -> bool:
    """The stated parts are another lot's: one of the ``others`` schemes carries every one of them."""
    numbers = Numbers(firm=tuple(PartStatement(c, v, c.value, 0) for c, v in parts.items()))
    return bool(parts) and any(not explain(w, numbers, categorised=False).unexplained for w in others)


def unexplained_issues(tables: list[ScoringTable], numbers: Numbers, others: Sequence[list[ScoringTable]] = (),
                       said: Sequence[str] = ()) -> list[str]:
    """One Chinese issue per firm statement the reading leaves unexplained and no other lot's reading
    explains; statements of a part whose number an issue in ``said`` already gives are left out."""
    out: list[str] = []
    for st in explain(tables, numbers).unexplained:
        if another_lots({st.category: st.points}, others):
            continue  # the number is another lot's
        if any(f"{st.category.value}部分 {fmt_points(st.points)} 分" in s for s in said):
            continue
        out.append(f"正文规定{st.category.value}部分 {fmt_points(st.points)} 分（第{st.page}页“{st.label}”），"
                   "所选评分表中没有合计为此数的部分")
    return out

"""Which column of a table grid is what: number, group label, factor, sub-item, points, criteria, note.

Decided by what the cells hold, not by the header's words: the points column is the one
whose cells are bare numbers or ranges ("30", "9 分", "0~ 10"); a 序号 column counts
1, 2, 3 or 2.1, 2.2; factor names are short, criteria long; a column left of the factor
whose cells are merged labels ("技术部分（70分）", "评分细则") holds groups. When there
is no points column the points come from the names ("服务方案（42%）"). Header words
("评分因素", "分值", …) only break ties and add confidence.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from app.documents.scoring.cells import (
    is_empty,
    is_group_label,
    is_numbering,
    is_score_type,
    lead_name,
    name_points,
    points_only,
    points_value,
    stated_points,
)
from app.documents.text_patterns import compact

Cells = list[str | None]

_HEADER_ROLES: list[tuple[str, re.Pattern[str]]] = [
    ("number", re.compile(r"^(序号|条款号|编号|序|项次|条款|项号|No\.?|NO\.?)$")),
    ("group", re.compile(r"^(类别|评分类别|评审类别|大类|评分大类|分类|类型|评分项类别|评审项类别)$")),
    ("note", re.compile(r"^(说明|备注|评分类型|客观/主观|证明材料|评分方式|证明文件)$")),
    ("band", re.compile(r"^(优|优秀|良|良好|中|中等|一般|较好|较差|差|缺项|合格|不合格)$")),  # grade bands
    ("page", re.compile(r"页码|页次|所在页|^对应.{0,8}(?:位置|页)")),  # where the bid answers it (an index form)
    ("factor", re.compile(r"因素|评分项|评审项|要素|评分内容$|评审内容$|考核项目|考评项目|评价项目|指标")),
    ("points", re.compile(r"分值|分数|满分|标准分|最高分|^得分|^权重|^权值|^分$")),
    ("criteria", re.compile(r"标准|细则|规则|办法|要求|依据|评分方法|内容|说明")),
]
_GROUP_LABEL = re.compile(r"部分|类|评分|评审|标准|细则|分值|总分|技术|商务|价格|报价|资信|[（(]\s*\d")
_MAX_HEADER_CELL = 16
_ASCII_INT = re.compile(r"[0-9]{1,6}")  # str.isdigit() also accepts ① and ² (int() does not)
SHORT_NAME = 40  # mean length above which a column is criteria rather than names


@dataclass
class Columns:
    """Roles of the columns of one scoring block (column indices, None when absent)."""

    factor: int
    number: int | None = None
    group: int | None = None
    sub: int | None = None
    points: int | None = None
    criteria: int | None = None
    note: int | None = None
    subtotal: int | None = None  # a column of part subtotals beside the group labels
    names_carry_points: bool = False
    names_in_criteria: bool = False  # the factor column holds group labels; names lead the criteria
    header_rows: int = 0
    header: list[str] = field(default_factory=list)
    header_hits: int = 0
    stated_total: float | None = None


@dataclass
class _Stats:
    filled: list[str]
    merged: int
    points: int
    name_points: int
    numbering: int
    mean_len: float
    consecutive: bool


def _role_of(name: str) -> str | None:
    bare = re.sub(r"[（(][^（()）]*[)）]", "", name) or name
    for role, pat in _HEADER_ROLES:
        if pat.search(bare):
            return role
    return None


def _header_names(rows: list[Cells], n: int) -> list[str]:
    width = max(len(r) for r in rows[:n])
    names: list[str] = []
    for j in range(width):
        parts = [compact(r[j] or "") for r in rows[:n] if j < len(r)]
        names.append("".join(dict.fromkeys(p for p in parts if p)))
    return names


def _is_header_row(row: Cells, need: int) -> bool:
    filled = [compact(c) for c in row if c is not None and compact(c)]
    if not filled or any(points_value(c) is not None for c in filled):
        return False
    if any(len(re.sub(r"[（(][^（()）]*[)）]", "", c)) > _MAX_HEADER_CELL for c in filled):
        return False
    if any(is_numbering(c) for c in filled):
        return False
    distinct = list(dict.fromkeys(filled))
    roles = sum(1 for c in distinct if _role_of(c))
    return roles >= need and roles >= 0.6 * len(distinct)


def _second_header_row(first: Cells, second: Cells) -> bool:
    """A second header row: short role words under the first row's merged or empty cells, no numbering."""
    if not any(c is None or not c for c in first) or not _is_header_row(second, 1):
        return False
    for j, c in enumerate(second):
        if c is None or not compact(c):
            continue
        if is_numbering(c) or is_empty(c):
            return False
        above = first[j] if j < len(first) else None
        if above and compact(above) and not _role_of(compact(c)):
            return False
    return True


def detect_header(rows: list[Cells]) -> tuple[int, list[str], dict[str, int], float | None]:
    """Leading header rows: (count, names per column, role hints, stated total such as "（100分）")."""
    if not rows or not _is_header_row(rows[0], 2):
        return 0, [], {}, None
    n = 2 if len(rows) > 1 and _second_header_row(rows[0], rows[1]) else 1
    names = _header_names(rows, n)
    hints: dict[str, int] = {}
    total: float | None = None
    for j, name in enumerate(names):
        if not name:
            continue
        if "分" in name and (v := stated_points(name)) is not None and v >= 10:
            total = v
        role = _role_of(name)
        if role and role not in hints:
            hints[role] = j
    return n, names, hints, total


def _stats(rows: list[Cells], j: int) -> _Stats:
    filled: list[str] = []
    merged = 0
    for r in rows:
        c = r[j] if j < len(r) else ""
        if c is None:
            merged += 1
        elif not is_empty(c):
            filled.append(c)
    pts = sum(1 for c in filled if points_value(c) is not None)
    npts = sum(1 for c in filled if name_points(c) is not None and points_value(c) is None)
    numbering = sum(1 for c in filled if is_numbering(c))
    ints = [int(compact(c)) for c in filled if _ASCII_INT.fullmatch(compact(c))]
    consecutive = len(ints) >= 2 and all(b - a == 1 for a, b in itertools.pairwise(ints)) and ints[0] <= 2
    dotted = any("." in compact(c) or "（" in c or "(" in c for c in filled if is_numbering(c))
    mean = sum(len(compact(c)) for c in filled) / len(filled) if filled else 0.0
    return _Stats(filled, merged, pts, npts, numbering, mean, consecutive or dotted)


def infer_columns(rows: list[Cells], header: list[str] | None = None, hints: dict[str, int] | None = None,
                  header_rows: int = 0, stated_total: float | None = None, *,
                  label_points: bool = False) -> Columns | None:
    """Column roles of the body ``rows`` of a block; None when no factor and no points can be told apart.

    ``label_points``: the block's points are stated by its label rows only (a price part over one
    formula row), so a block without any points column or points in names still has a factor column.
    """
    hints = hints or {}
    width = max((len(r) for r in rows), default=0)
    if width == 0:
        return None
    stats = [_stats(rows, j) for j in range(width)]
    number = hints.get("number")
    if number is not None and number < width and stats[number].numbering < 0.5 * len(stats[number].filled) \
            and sum(1 for v in stats[number].filled if is_group_label(v)) >= 2:
        number = None  # headed 条款 but holding part labels ("商务评分标准（18 分）"), not numbers
    hinted = hints.get("factor")
    if number is None and hinted is not None and hinted < width and stats[hinted].filled \
            and stats[hinted].numbering >= 0.6 * len(stats[hinted].filled) and stats[hinted].consecutive:
        number = hinted  # 评标因素 merged over a number cell and the text cell: the header's cell is the number's
        hints = {k: v for k, v in hints.items() if k != "factor"}
    if number is None:
        for j in range(min(2, width)):
            s = stats[j]
            if s.filled and s.numbering >= 0.6 * len(s.filled) and s.consecutive:
                number = j
                break
    taken: set[int] = {number} if number is not None else set()
    points = _points_column(stats, taken, hints.get("points"))
    if points is not None:
        taken.add(points)
    kinds = [j for j in range(width) if j not in taken and stats[j].filled
             and sum(1 for c in stats[j].filled if is_score_type(c)) >= 0.8 * len(stats[j].filled)]
    texts = [j for j in range(width) if j not in taken and j not in kinds and stats[j].filled
             and stats[j].points < 0.5 * len(stats[j].filled)]
    if not texts:
        return None
    names_carry = False
    if points is None:
        carriers = [j for j in texts if stats[j].name_points >= 1 and stats[j].mean_len <= SHORT_NAME]
        if carriers:
            factor = max(carriers, key=lambda j: (stats[j].name_points, j))
            names_carry = True
        elif label_points:
            factor = _factor_column(stats, texts, hints)
        else:
            return None
    else:
        factor = _factor_column(stats, texts, hints)
    criteria = hints.get("criteria") if hints.get("criteria") in texts and hints.get("criteria") != factor else None
    if criteria is not None and stats[criteria].mean_len <= SHORT_NAME and any(
            stats[j].mean_len >= max(12.0, 3 * stats[criteria].mean_len) for j in texts if j > criteria):
        criteria = None  # a short column headed 评标内容 holds the item names; the long one on its right is the criteria
    if criteria is None:
        right = [j for j in texts if j > factor]
        pool = right or [j for j in texts if j != factor]
        criteria = max(pool, key=lambda j: stats[j].mean_len) if pool else None
    group: int | None = None
    sub: int | None = None
    left = [j for j in texts if j < factor and j != criteria]
    if left:
        hinted = hints.get("group")
        g = hinted if hinted in left and hinted is not None else left[0]
        values = stats[g].filled
        if values and not any(_GROUP_LABEL.search(compact(v)) for v in values) and stats[g].merged > 0:
            sub, factor = factor, g  # a merged factor over named sub-items
        else:
            group = g
    if sub is None and group is not None and criteria is not None and names_carry:
        carried = [j for j in texts if factor < j < criteria and stats[j].mean_len <= SHORT_NAME
                   and stats[j].name_points >= 2 and stats[j].name_points == len(stats[j].filled)]
        sub = carried[0] if carried else None  # a third level: "单独隔离管控：5分" under "收运与储存方案（15 分）"
    if sub is None and group is None and criteria is not None:
        between = [j for j in texts if factor < j < criteria and stats[j].mean_len <= SHORT_NAME and (
            (len(stats[j].filled) > stats[j].merged and stats[factor].merged > 0)
            or (names_carry and stats[j].name_points >= 2 and stats[j].name_points == len(stats[j].filled)))]
        if between:
            sub = between[0]  # names of the sub-items under a merged factor ("评分子项")
            labels = [v for v in stats[factor].filled if not points_only(v)]
            if labels and all(is_group_label(v) for v in labels) and len(stats[sub].filled) > len(stats[factor].filled):
                # the merged cells are parts ("技术分(50分)"; a part's points alone: its end cut by a page break)
                group, factor, sub = factor, sub, None
    in_criteria = False
    if points is not None and criteria is not None and group is None and sub is None:
        labels = stats[factor].filled
        leads = sum(1 for c in stats[criteria].filled if lead_name(c))
        if labels and stats[factor].merged > 0 and all(is_group_label(v) for v in labels) \
                and (leads >= 0.8 * stats[points].points or 2 * len(labels) <= stats[points].points):
            group, factor, in_criteria = factor, criteria, True  # parts over point rows named in their text
    subtotal = _subtotal_column(stats, points, factor, number)
    note = hints.get("note") if hints.get("note") in texts and hints.get("note") not in (factor, criteria) else None
    if note is None and kinds:
        note = kinds[0]  # 客观分/主观分: how each item is scored
    if note is None:
        rest = [j for j in texts if j not in (factor, criteria, group, sub) and (criteria is None or j > criteria)]
        note = rest[0] if rest else None
    return Columns(factor=factor, number=number, group=group, sub=sub, points=points, criteria=criteria, note=note,
                   subtotal=subtotal,
                   names_carry_points=names_carry, names_in_criteria=in_criteria, header_rows=header_rows, header=list(header or []),
                   header_hits=len(hints), stated_total=stated_total)


def _points_column(stats: list[_Stats], taken: set[int], hint: int | None) -> int | None:
    """The column of bare points: most points cells, at least half of its filled cells."""
    ok = [j for j, s in enumerate(stats) if j not in taken and s.points >= 1 and s.points >= 0.5 * len(s.filled)]
    if not ok:
        return None
    def hundred(j: int) -> bool:
        values = [points_value(c) for c in stats[j].filled]
        return abs(sum(v for v in values if v is not None) - 100) < 0.01

    if len(ok) > 1 and (adding := [j for j in ok if hundred(j)]) and len(adding) < len(ok):
        ok = adding  # "满分 100" on every row beside the 权重 column: the column that makes 100 holds the points
    densest = max(ok, key=lambda j: (stats[j].points, j))
    if hint in ok and stats[hint].points >= stats[densest].points:
        return hint
    return densest  # the column headed 分值 may hold only part subtotals; the row points are denser


def _subtotal_column(stats: list[_Stats], points: int | None, factor: int, number: int | None) -> int | None:
    """A sparse column of numbers left of the factor besides the points column: part subtotals (10 / 90)."""
    if points is None:
        return None
    for j in range(factor):
        s = stats[j]
        if j not in (points, number) and s.filled and s.points == len(s.filled) and s.points < stats[points].points:
            return j
    return None


def _factor_column(stats: list[_Stats], texts: list[int], hints: dict[str, int]) -> int:
    """The names column: the header's factor column if it holds text, else the short column left of the longest."""
    hint = hints.get("factor")
    if hint in texts and stats[hint].mean_len <= 2 * SHORT_NAME:
        return hint
    longest = max(texts, key=lambda j: stats[j].mean_len)
    short = [j for j in texts if j < longest and stats[j].mean_len <= SHORT_NAME]
    if short:
        return short[-1]
    short = [j for j in texts if stats[j].mean_len <= SHORT_NAME]
    return short[0] if short else texts[0]


def header_like(row: Cells) -> bool:
    """A row that is a (repeated or new) header: two or more short role words and no points."""
    return _is_header_row(row, 2)

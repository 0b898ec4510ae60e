"""Fold the grid rows of one scoring block into factors with their sub-items.

Row kinds, told apart by which cells are filled: a header repeated after a page break
(skipped); a label row spanning the table ("技术部分（81 分）" starts a group, "合计 100"
is the total, "注：…" a note); a row whose factor cell is merged from above or empty
but has its own points (a sub-item of the previous factor); a row with only criteria
text (the previous cell split by a page or table break); and a factor row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.documents.scoring.category import part_like
from app.documents.scoring.cells import (
    NOTE_START,
    TOTAL_ROW,
    explicit_category,
    is_commercial_label,
    is_empty,
    is_group_label,
    is_part_number,
    is_placeholder,
    lead_name,
    name_points,
    points_only,
    points_value,
    stated_points,
    strip_points,
)
from app.documents.scoring.columns import Cells, Columns
from app.documents.scoring.model import ScoringItem, ScoringRow
from app.documents.scoring.rows import (
    NAME_TAIL,
    bracket_balance,
    continue_criteria,
    cut_mid_sentence,
    item_name,
    lend_group_points,
    name_tail,
    open_parent,
    settle_points,
    split_name,
    total_value,
    untagged,
)
from app.documents.text_patterns import clean_cell_text, compact

_LONG_LABEL = 60
SHORT_LABEL = 20  # characters of a factor's name standing alone at a page's top
_TOTAL_NAME = re.compile(r"分值构成|总分|满分值|分值分配|权重构成|^综合(?:评分|评审|评价)?(?:总)?得分$|^总得分$")


@dataclass
class GridRow:
    """One grid row with where it came from."""

    cells: Cells
    page: int
    table_id: str


@dataclass
class Folded:
    """What one block folds into."""

    rows: list[ScoringRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    total: float | None = None
    subtotals: dict[str, float] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)  # label rows above the first factor (block captions)


def _cell(cells: Cells, j: int | None) -> str | None:
    """The cell at ``j``: None when merged, "" when absent or the role has no column."""
    if j is None or j >= len(cells):
        return ""
    return cells[j]


def label_text(cells: Cells) -> str | None:
    """The text of a row whose filled cells all say the same thing (a label spanning the table)."""
    filled = {clean_cell_text(c, keep_breaks=False) for c in cells if c is not None and not is_empty(c)}
    return filled.pop() if len(filled) == 1 else None


def _is_header_repeat(cells: Cells, cols: Columns) -> bool:
    return bool(cols.header) and [compact(c or "") for c in cells][: len(cols.header)] == cols.header[: len(cells)]


def _group_ends(grid: list[GridRow], index: int, cols: Columns) -> bool:
    """The row after ``index`` starts another group (or there is none): the group has one row."""
    for g in grid[index + 1 :]:
        if all(is_empty(c) for c in g.cells):
            continue
        value = _cell(g.cells, cols.group)
        return (value is not None and not is_empty(value)) or label_text(g.cells) is not None
    return True


def _under(number: str | None, parent: ScoringRow) -> bool:
    """A row belongs under an open heading row: no number of its own (merged) or the heading's number
    extended ("3.1" under "3")."""
    if number is None or is_empty(number):
        return True
    head = compact(parent.number).rstrip("、.．")
    return bool(head) and compact(number).startswith((head + ".", head + "．"))


def _row_points(cells: Cells, cols: Columns) -> float | None:
    if cols.points is not None:
        return points_value(_cell(cells, cols.points))
    return None


def _new_name(label: str, column: int, cols: Columns, last: ScoringRow) -> bool:
    """A page-top row holding a short name alone in the names column, after a row whose text ended: the
    next factor, its points in the rows below it ("拟派人员能力" over "| 0~30 | 备选的…")."""
    text = compact(label)
    return column == cols.factor and cols.factor != cols.criteria and len(text) <= SHORT_LABEL \
        and text[-1] not in "。；;，," and bracket_balance(text) == 0 and not cut_mid_sentence(last, label)


def _bracketed(number: str | None) -> bool:
    """A part number in brackets ("（一）") rather than bare ("一、")."""
    return compact(number or "").startswith(("（", "("))


def fold_rows(grid: list[GridRow], cols: Columns) -> Folded:
    """Factors with items, notes, the total row and the group subtotals of one block."""
    out = Folded()
    group = part = ""  # part: the last part label; the group differs from it under a heading inside it
    part_style: bool | None = None  # whether the open numbered part's number is bracketed ("（一）")
    group_cell: str | None = None
    prev_table: str | None = None
    parent: ScoringRow | None = None  # a numbered heading row ("2、售后服务响应情况：") over point rows
    fragment_top = False
    for index, g in enumerate(grid):
        cells = g.cells
        new_fragment = prev_table is not None and g.table_id != prev_table
        prev_table = g.table_id
        if all(is_empty(c) for c in cells) or _is_header_repeat(cells, cols):
            fragment_top = fragment_top or new_fragment  # the header repeated on the next page: the row
            continue  # under it is still the first of the fragment
        new_fragment, fragment_top = new_fragment or fragment_top, False
        label = label_text(cells)
        number = _cell(cells, cols.number)
        filled = [j for j, c in enumerate(cells) if c is not None and not is_empty(c)]
        if label is not None and len(filled) == 1 and filled[0] == cols.criteria and out.rows \
                and any(c is not None for j, c in enumerate(cells) if j != filled[0]):
            continue_criteria(out.rows[-1], clean_cell_text(cells[filled[0]] or ""), g.page)
            continue  # only the criteria cell has text: it continues the previous one
        lone_name = new_fragment and label is not None and len(filled) == 1 and bool(out.rows) \
            and not is_group_label(label) and _new_name(label, filled[0], cols, out.rows[-1])
        if new_fragment and label is not None and len(filled) == 1 and out.rows and not is_group_label(label) \
                and (stated_points(label) is None or cut_mid_sentence(out.rows[-1], label)) and not lone_name \
                and not TOTAL_ROW.match(compact(label)) \
                and not NOTE_START.match(compact(label)) \
                and any(c is not None for j, c in enumerate(cells) if j != filled[0]):
            # the top of a new page with one cell of text in a row of its own cells (not a label across the
            # table): the end of the previous row's text, cut by the page break
            continue_criteria(out.rows[-1], clean_cell_text(label), g.page)
            continue
        if label is not None and not lone_name and (len(filled) == 1 or compact(label) == compact(number or "")):
            if TOTAL_ROW.match(compact(label)):
                out.total = total_value(label) if out.total is None else out.total
                continue
            if NOTE_START.match(compact(label)) or len(compact(label)) > _LONG_LABEL:
                if out.rows and not NOTE_START.match(compact(label)) and cols.criteria is not None:
                    continue_criteria(out.rows[-1], label, g.page)
                else:
                    out.notes.append(clean_cell_text(label))
                continue
            # a heading over some rows inside a part ("售后服务响应情况：" under "商务部分") keeps the part
            if not (part and explicit_category(label) is None and not is_commercial_label(label)
                    and not part_like(label)):
                part = label
            group, part_style = label, None
            group_cell = None
            short = len(compact(label)) <= 30 and not re.search(r"[；;。]", label)
            pts = stated_points(label) if short else None
            if pts is not None:
                out.subtotals[group] = pts
            if not out.rows:
                out.labels.append(label)
            continue
        group_value = _cell(cells, cols.group)
        factor = _cell(cells, cols.factor)
        criteria_cell = _cell(cells, cols.criteria)
        if criteria_cell is None and cols.criteria and group_value and not is_empty(group_value):
            criteria_cell = _cell(cells, cols.criteria - 1)  # a part's text spanning the number column too
            number = "" if criteria_cell == number else number
            if cols.names_in_criteria:
                factor = criteria_cell
        if cols.names_in_criteria and factor is not None:
            # the name leads the criteria ("技术指标和配置：①…"); a part's only row without one is the
            # part ("投标价格"); else the row is named by its first clause ("投标人统一得基本分85 分")
            alone = bool(group_value) and not is_empty(group_value) and _group_ends(grid, index, cols)
            factor = lead_name(factor) or (clean_cell_text(group_value or "", keep_breaks=False) if alone
                                           else item_name(factor))
        if factor is None and cols.factor > 0 and cols.number != cols.factor - 1:
            left = _cell(cells, cols.factor - 1)  # the factor cell merged with the cell on its left
            factor = left if left and not is_empty(left) else factor
        points = _row_points(cells, cols)
        head = clean_cell_text((factor or "").strip().split("\n")[0]) if number and is_part_number(number) else ""
        if head and is_group_label(head):  # "（一） | 商务部分 |": a numbered part spanning the rows below it
            group, group_cell, parent = f"{clean_cell_text(number or '')} {head}", None, None
            part, part_style = group, _bracketed(number)
            if points is None and len(filled) == 2:
                continue
        elif head and part_style is not None and _bracketed(number) == part_style:
            group = part = ""  # "二 | 服务方案 | 42" after "一 | 报价 | 30": a sibling, so no part was open
            part_style = None
        if any(TOTAL_ROW.match(compact(c or "")) or _TOTAL_NAME.search(compact(c or ""))
               for c in (number, group_value)) or any(TOTAL_ROW.match(compact(c or "")) for c in (factor,)) or (
                factor and _TOTAL_NAME.search(compact(factor))):
            if factor and _TOTAL_NAME.search(compact(factor)):
                out.total = name_points(factor) if out.total is None else out.total
            else:
                value = points if points is not None else _last_number(cells)
                if any(compact(c or "").startswith("小计") for c in (number, group_value, factor)):
                    if group and value is not None:
                        out.subtotals.setdefault(group, value)  # a group's own 小计 row
                else:
                    out.total = value
            continue
        if new_fragment and group_value and group_cell and points is None and out.rows \
                and (len(compact(strip_points(group_value))) <= NAME_TAIL or points_only(group_value)) \
                and not (number and compact(number) != compact(
                    out.rows[-1].number)):
            # the end of the group cell carried over the page break ("商务" + "部分", "…履约能力" + "（9 分）"):
            # the whole row is the previous one's end, so its name and criteria continue too, and the rows
            # under the group (and below it) sit in the whole group
            joined = group_cell + clean_cell_text(group_value, keep_breaks=False)
            for r in out.rows:
                r.group = joined if r.group == group else r.group
            pts = out.subtotals.pop(group, None)
            if (stated := name_points(joined) or stated_points(joined)) is not None:
                pts = stated
            if pts is not None:
                out.subtotals[joined] = pts
            group = group_cell = joined
            last_row = out.rows[-1]
            if factor and not is_empty(factor) and compact(factor) != compact(last_row.factor_raw):
                last_row.factor_raw += clean_cell_text(factor, keep_breaks=False)
                last_row.factor = strip_points(last_row.factor_raw)
            if criteria_cell and not is_empty(criteria_cell):
                continue_criteria(last_row, clean_cell_text(criteria_cell), g.page)
            continue
        if group_value:
            group_cell = clean_cell_text(group_value, keep_breaks=False)
            group = group_cell
            part, part_style = "", None
            pts = name_points(group_cell) or stated_points(group_cell)
            if pts is None and cols.subtotal is not None:
                pts = points_value(_cell(cells, cols.subtotal))
            if pts is not None:
                out.subtotals[group] = pts
        criteria = clean_cell_text(criteria_cell or "")
        sub = clean_cell_text(_cell(cells, cols.sub) or "", keep_breaks=False)
        if points is None and sub and cols.names_carry_points and (in_sub := name_points(sub)) is not None:
            sub, points = strip_points(sub).rstrip("：:"), in_sub  # "单独隔离管控：5分" under "收运与储存方案（15 分）"
        if points is None and not sub and cols.points is not None:
            named = _cell(cells, cols.points) or ""
            if (in_name := name_points(named)) is not None:  # "企业综合实力（4分）" where the points belong
                sub, points = strip_points(named), in_name
        note = clean_cell_text(_cell(cells, cols.note) or "")
        last = out.rows[-1] if out.rows else None
        fresh_number = bool(number) and last is not None and compact(number or "") != compact(last.number)
        if parent is not None and points is not None and _under(number, parent) and factor is not None:
            text = untagged(factor)
            if parent.items and parent.items[0].points is None and not parent.items[0].criteria:
                parent.items.clear()
            body = text if criteria in ("", text) or cols.names_in_criteria else f"{text}\n{criteria}"
            parent.items.append(ScoringItem(criteria=body, points=points, page=g.page, name=sub or item_name(text)))
            if g.page not in parent.pages:
                parent.pages.append(g.page)
            continue
        if parent is not None and fresh_number:
            parent = None
        if new_fragment and last is not None and name_tail(factor, points, sub, fresh_number, last, criteria):
            last.factor_raw += clean_cell_text(factor or "", keep_breaks=False)  # "智能球型摄像" + "机"
            last.factor = strip_points(last.factor_raw)
            last.stated_points = name_points(last.factor_raw)
            factor = None
            if sub and last.items:  # the sub-item's name cut too ("产品技术参数" + "满足度")
                last.items[-1].name += sub
                sub = ""
        same = last is not None and (
            factor is None
            or (is_empty(factor) and not fresh_number)
            or (compact(factor) == compact(last.factor_raw) and not fresh_number)
        )
        if last is not None and same:
            if is_empty(factor) and points is None and not sub and last.items:
                continue_criteria(last, criteria, g.page)  # a cell split by a page or table break
            else:
                last.items.append(ScoringItem(criteria=criteria, points=points, page=g.page, name=sub))
            if g.page not in last.pages:
                last.pages.append(g.page)
            if note and note not in last.note:
                last.note = (last.note + " " + note).strip()
            continue
        if is_empty(factor) or is_placeholder(factor):
            continue
        raw = factor or ""
        stated = name_points(raw)
        out.rows.append(ScoringRow(
            number=clean_cell_text(number or "", keep_breaks=False) or (last.number if last and number is None else ""),
            category_label=group_cell or "",
            group=group,
            part=part if part != group else "",  # set only under a heading inside the part
            factor=strip_points(raw),
            factor_raw=raw,
            stated_points=stated,
            note=note,
            items=[ScoringItem(criteria=criteria, points=points, page=g.page, name=sub)],
            table_id=g.table_id,
            pages=[g.page],
        ))
        if open_parent(out.rows[-1]):
            parent = out.rows[-1]
            parent.factor = parent.factor.rstrip("：:")
    for row in out.rows:
        split_name(row)
        settle_points(row)
    lend_group_points(out.subtotals, out.rows)
    return out


def _last_number(cells: Cells) -> float | None:
    for c in reversed(cells):
        v = stated_points(c or "") if c else None
        if v is not None:
            return v
        v = points_value(c)
        if v is not None:
            return v
    return None

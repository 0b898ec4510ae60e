"""Draw an organisation chart: the root on top, units below their parent, elbow connectors.

Layout (in inches, so the drawing's size is its natural print size): a unit whose children
are all leaves stacks them in a column under itself (the usual 岗位 list of a Chinese
org chart, and it keeps a 40-box chart narrow); any other unit spreads its children in a
row and sits centred above them. A label is wrapped inside its box and never cut: a longer one
makes its box taller, and a row as tall as its tallest box.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from matplotlib.axes import Axes
from matplotlib.figure import Figure as MplFigure

from app.core.figures import Figure, OrgChart, check_figure
from app.export.figures.canvas import FILL, FILL_ROOT, box, box_height, new_drawing, polyline, wrap

COL: Final = 1.25  # width of one column
BOX_W: Final = 1.05
BOX_H: Final = 0.42  # the least height of a box; a longer label makes its box (and row) taller
ROW_GAP: Final = 0.43  # between the bottom of a row's tallest box and the next row's top
STACK_FIRST_GAP: Final = 0.25  # between a unit and the first of the posts stacked under it
STACK_GAP: Final = 0.19  # between two stacked posts
STACK_INDENT: Final = 0.12
STACKED_W: Final = BOX_W - 2 * STACK_INDENT
STACKED_H: Final = BOX_H * 0.85
MARGIN: Final = 0.15
_WRAP_CELLS: Final = 12  # 6 Chinese characters at 9 pt in a 1.05 in box
_STACKED_WRAP_CELLS: Final = 10  # 5 in a stacked post's narrower box


@dataclass
class _Node:
    name: str
    label: str
    children: list[_Node] = field(default_factory=list)
    stacked: bool = False
    width: float = 1.0
    x: float = 0.0
    y: float = 0.0
    text: str = ""  # the label wrapped for its box (whole: nothing is cut)
    h: float = BOX_H


def _tree(chart: OrgChart) -> _Node:
    nodes = {u.name.strip(): _Node(u.name.strip(), u.name.strip() + (f"\n{u.note.strip()}" if u.note.strip() else ""))
             for u in chart.units}
    root: _Node | None = None
    for unit in chart.units:
        parent = unit.parent.strip()
        if parent:
            nodes[parent].children.append(nodes[unit.name.strip()])
        else:
            root = nodes[unit.name.strip()]
    assert root is not None  # check_figure guarantees exactly one root
    return root


def _measure(node: _Node, is_root: bool) -> float:
    kids = node.children
    node.stacked = bool(kids) and all(not k.children for k in kids) and (not is_root or len(kids) > 6)
    node.text = wrap(node.label, _WRAP_CELLS)
    node.h = box_height(node.text, BOX_H)
    if not kids or node.stacked:
        node.width = 1.0
    else:
        node.width = sum(_measure(k, False) for k in kids)
    if node.stacked:
        for k in kids:
            k.width = 1.0
            k.text = wrap(k.label, _STACKED_WRAP_CELLS)
            k.h = box_height(k.text, STACKED_H)
    return node.width


def _row_heights(node: _Node, depth: int, out: dict[int, float]) -> dict[int, float]:
    """The tallest box of each row (stacked posts are not a row: they hang under their unit)."""
    out[depth] = max(out.get(depth, 0.0), node.h)
    if not node.stacked:
        for kid in node.children:
            _row_heights(kid, depth + 1, out)
    return out


def _place(node: _Node, left: float, top: float, depth: int, rows: dict[int, float]) -> float:
    """Give ``node`` and its subtree positions (``top``: its row's centre); returns the lowest y used."""
    node.y = top
    if node.stacked:
        node.x = left + COL / 2
        edge = top - node.h / 2 - STACK_FIRST_GAP
        for kid in node.children:
            kid.x, kid.y = node.x + STACK_INDENT, edge - kid.h / 2
            edge = kid.y - kid.h / 2 - STACK_GAP
        return node.children[-1].y - node.children[-1].h / 2
    if not node.children:
        node.x = left + COL / 2
        return top - node.h / 2
    below = top - rows[depth] / 2 - ROW_GAP - rows[depth + 1] / 2
    bottom, cursor = top - node.h / 2, left
    for kid in node.children:
        bottom = min(bottom, _place(kid, cursor, below, depth + 1, rows))
        cursor += kid.width * COL
    node.x = (node.children[0].x + node.children[-1].x) / 2
    return bottom


def _draw(ax: Axes, node: _Node, is_root: bool, depth: int, rows: dict[int, float]) -> None:
    box(ax, node.x, node.y, BOX_W, node.h, node.text, fill=FILL_ROOT if is_root else FILL, bold=is_root)
    if not node.children:
        return
    if node.stacked:
        rail = node.x - BOX_W / 2 + STACK_INDENT / 2
        last = node.children[-1]
        polyline(ax, [(rail, node.y - node.h / 2), (rail, last.y)])
        for kid in node.children:
            polyline(ax, [(rail, kid.y), (kid.x - STACKED_W / 2, kid.y)])
            box(ax, kid.x, kid.y, STACKED_W, kid.h, kid.text)
        return
    mid = node.y - rows[depth] / 2 - ROW_GAP / 2
    polyline(ax, [(node.x, node.y - node.h / 2), (node.x, mid)])
    if len(node.children) > 1:
        polyline(ax, [(node.children[0].x, mid), (node.children[-1].x, mid)])
    for kid in node.children:
        polyline(ax, [(kid.x, mid), (kid.x, kid.y + kid.h / 2)])
        _draw(ax, kid, False, depth + 1, rows)


def draw_org_chart(chart: OrgChart) -> MplFigure:
    """The chart as a matplotlib figure at its natural size (inches); every label whole, in its box."""
    check_figure(Figure(title="组织机构图", data=chart))
    root = _tree(chart)
    width = _measure(root, True) * COL
    rows = _row_heights(root, 0, {})
    bottom = _place(root, 0.0, 0.0, 0, rows)
    top = root.h / 2
    fig, ax = new_drawing(width + 2 * MARGIN, top - bottom + 2 * MARGIN)
    ax.set_xlim(-MARGIN, width + MARGIN)
    ax.set_ylim(bottom - MARGIN, top + MARGIN)
    _draw(ax, root, True, 0, rows)
    return fig

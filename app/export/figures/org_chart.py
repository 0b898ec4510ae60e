"""Draw an organisation chart: the root on top, units below their parent, elbow connectors.

Layout (in inches, so the drawing's size is its natural print size): a unit whose children
are all leaves stacks them in a column under itself (the usual 岗位 list of a Chinese
org chart, and it keeps a 40-box chart narrow); any other unit spreads its children in a
row and sits centred above them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from matplotlib.axes import Axes
from matplotlib.figure import Figure as MplFigure

from app.core.figures import Figure, OrgChart, check_figure
from app.export.figures.canvas import FILL, FILL_ROOT, box, new_drawing, polyline, wrap

COL: Final = 1.25  # width of one column
BOX_W: Final = 1.05
BOX_H: Final = 0.42
LEVEL: Final = 0.85  # vertical distance between rows
STACK: Final = 0.55  # vertical distance between stacked leaves
STACK_INDENT: Final = 0.12
MARGIN: Final = 0.15
_WRAP_CELLS: Final = 12


@dataclass
class _Node:
    name: str
    label: str
    children: list[_Node] = field(default_factory=list)
    stacked: bool = False
    width: float = 1.0
    x: float = 0.0
    y: float = 0.0


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
    if not kids or node.stacked:
        node.width = 1.0
    else:
        node.width = sum(_measure(k, False) for k in kids)
    if node.stacked:
        for k in kids:
            k.width = 1.0
    return node.width


def _place(node: _Node, left: float, top: float) -> float:
    """Give ``node`` and its subtree positions; returns the lowest y used."""
    node.y = top
    if node.stacked:
        node.x = left + COL / 2
        bottom = top
        for i, kid in enumerate(node.children, start=1):
            kid.x, kid.y = node.x + STACK_INDENT, top - LEVEL * 0.75 - (i - 1) * STACK
            bottom = kid.y
        return bottom
    if not node.children:
        node.x = left + COL / 2
        return top
    bottom, cursor = top, left
    for kid in node.children:
        bottom = min(bottom, _place(kid, cursor, top - LEVEL))
        cursor += kid.width * COL
    node.x = (node.children[0].x + node.children[-1].x) / 2
    return bottom


def _draw(ax: Axes, node: _Node, is_root: bool) -> None:
    box(ax, node.x, node.y, BOX_W, BOX_H, wrap(node.label, _WRAP_CELLS, 2), fill=FILL_ROOT if is_root else FILL,
        bold=is_root)
    if not node.children:
        return
    if node.stacked:
        rail = node.x - BOX_W / 2 + STACK_INDENT / 2
        last = node.children[-1]
        polyline(ax, [(rail, node.y - BOX_H / 2), (rail, last.y)])
        for kid in node.children:
            polyline(ax, [(rail, kid.y), (kid.x - (BOX_W - 2 * STACK_INDENT) / 2, kid.y)])
            box(ax, kid.x, kid.y, BOX_W - 2 * STACK_INDENT, BOX_H * 0.85, wrap(kid.label, _WRAP_CELLS, 2))
        return
    mid = node.y - LEVEL / 2
    polyline(ax, [(node.x, node.y - BOX_H / 2), (node.x, mid)])
    if len(node.children) > 1:
        polyline(ax, [(node.children[0].x, mid), (node.children[-1].x, mid)])
    for kid in node.children:
        polyline(ax, [(kid.x, mid), (kid.x, kid.y + BOX_H / 2)])
        _draw(ax, kid, False)


def draw_org_chart(chart: OrgChart) -> MplFigure:
    """The chart as a matplotlib figure at its natural size (inches)."""
    check_figure(Figure(title="组织机构图", data=chart))
    root = _tree(chart)
    width = _measure(root, True) * COL
    bottom = _place(root, 0.0, 0.0)
    height = -bottom + BOX_H
    fig, ax = new_drawing(width + 2 * MARGIN, height + 2 * MARGIN)
    ax.set_xlim(-MARGIN, width + MARGIN)
    ax.set_ylim(bottom - BOX_H / 2 - MARGIN, BOX_H / 2 + MARGIN)
    _draw(ax, root, True)
    return fig

"""Draw a flowchart: steps top to bottom in reading order, arrows routed around the column.

An arrow to the step just below is a straight line down. Any other arrow (a loop back to an
earlier step after a 判断, or a jump forward) leaves the box's side, runs in its own lane
beside the column and enters the target's side: back arrows on the right, forward jumps on
the left, so lines never cross boxes. Decisions are diamonds; arrow labels (是/否) sit at
the start of the arrow. A step's text is wrapped inside its shape and never cut: a long one
makes the shape taller.
"""

from __future__ import annotations

from typing import Final

from matplotlib.axes import Axes
from matplotlib.figure import Figure as MplFigure

from app.core.figures import Figure, Flowchart, FlowLink, FlowStep, check_figure
from app.export.figures.canvas import (
    LINE_IN,
    PAD_IN,
    box,
    box_height,
    diamond,
    font_props,
    new_drawing,
    polyline,
    wrap,
)

BOX_W: Final = 2.3
BOX_H: Final = 0.5
DIAMOND_W: Final = 2.6
DIAMOND_H: Final = 0.8
GAP: Final = 0.42
LANE: Final = 0.22
MARGIN: Final = 0.2
_WRAP_CELLS: Final = 30


def _links(chart: Flowchart) -> list[tuple[int, int, str]]:
    """``(from index, to index, label)`` for every arrow, the implicit ones included."""
    index = {s.id: i for i, s in enumerate(chart.steps)}
    out: list[tuple[int, int, str]] = []
    for i, step in enumerate(chart.steps):
        links: list[FlowLink] = step.next
        if not links and step.shape != "end" and i + 1 < len(chart.steps):
            links = [FlowLink(to=chart.steps[i + 1].id)]
        out.extend((i, index[link.to], link.label) for link in links)
    return out


#: Above this many steps the chart is drawn tighter, so it still reads when shrunk to a page.
COMPACT_AFTER: Final = 10
_COMPACT: Final = 0.72


_DIAMOND_WRAP_CELLS: Final = 18
#: The share of a diamond's height free for text as wide as its wrapped label (1 - label width / diamond width).
_DIAMOND_TEXT_SHARE: Final = 0.55


def _label(step: FlowStep) -> str:
    """The step's text wrapped for its shape (whole: a long text makes the shape taller)."""
    return wrap(step.text, _DIAMOND_WRAP_CELLS if step.shape == "decision" else _WRAP_CELLS)


def _height(step: FlowStep, scale: float = 1.0) -> float:
    lines = _label(step).count("\n") + 1
    if step.shape == "decision":
        return max(DIAMOND_H * scale, lines * LINE_IN / _DIAMOND_TEXT_SHARE + 2 * PAD_IN)
    return box_height(_label(step), BOX_H * scale)


def _half_width(step: FlowStep) -> float:
    return (DIAMOND_W if step.shape == "decision" else BOX_W) / 2


def draw_flowchart(chart: Flowchart) -> MplFigure:
    """The chart as a matplotlib figure at its natural size (inches)."""
    check_figure(Figure(title="流程图", data=chart))
    steps = chart.steps
    links = _links(chart)
    scale = _COMPACT if len(steps) > COMPACT_AFTER else 1.0
    ys: list[float] = []
    y = 0.0
    for step in steps:
        y -= _height(step, scale) / 2
        ys.append(y)
        y -= _height(step, scale) / 2 + GAP * scale
    side = [(a, b, label) for a, b, label in links if b != a + 1]
    right = [lk for lk in side if lk[1] <= lk[0]]
    left = [lk for lk in side if lk[1] > lk[0]]
    half = max(DIAMOND_W, BOX_W) / 2
    span_r = half + LANE * (len(right) + 1)
    span_l = half + LANE * (len(left) + 1)
    bottom = y + GAP * scale
    width = span_l + span_r + 2 * MARGIN
    height = -bottom + 2 * MARGIN
    fig, ax = new_drawing(width, height)
    ax.set_xlim(-span_l - MARGIN, span_r + MARGIN)
    ax.set_ylim(bottom - MARGIN, MARGIN)
    for i, step in enumerate(steps):
        label = _label(step)
        if step.shape == "decision":
            diamond(ax, 0.0, ys[i], DIAMOND_W, _height(step, scale), label)
        else:
            box(ax, 0.0, ys[i], BOX_W, _height(step, scale), label, rounded=step.shape in ("start", "end"))
    for a, b, label in links:
        if b == a + 1:
            start = (0.0, ys[a] - _height(steps[a], scale) / 2)
            polyline(ax, [start, (0.0, ys[b] + _height(steps[b], scale) / 2)], arrow=True)
            _arrow_label(ax, label, start[0] + 0.06, start[1] - 0.12, "left")
    _route(ax, steps, ys, right, 1.0)
    _route(ax, steps, ys, left, -1.0)
    return fig


def _route(ax: Axes, steps: list[FlowStep], ys: list[float], links: list[tuple[int, int, str]],
           sign: float) -> None:
    """Side arrows, each in its own lane (``sign`` 1: right of the column, -1: left)."""
    half = max(DIAMOND_W, BOX_W) / 2
    for lane, (a, b, label) in enumerate(links, start=1):
        x_lane = sign * (half + LANE * lane)
        out_x = sign * _half_width(steps[a])
        in_x = sign * _half_width(steps[b])
        polyline(ax, [(out_x, ys[a]), (x_lane, ys[a]), (x_lane, ys[b]), (in_x, ys[b])], arrow=True)
        _arrow_label(ax, label, out_x + sign * 0.05, ys[a] + 0.07, "left" if sign > 0 else "right")


def _arrow_label(ax: Axes, text: str, x: float, y: float, ha: str) -> None:
    if text:
        props = {**font_props(), "fontsize": 8}
        ax.text(x, y, text, ha=ha, va="center", **props)  # type: ignore[arg-type]

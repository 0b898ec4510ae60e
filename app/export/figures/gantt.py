"""Draw a Gantt chart (进度计划横道图): one bar per task on a day axis, milestones as diamonds.

Tasks read top to bottom in their given order; the day axis is labelled 第 N 天 with about
eight ticks, a dashed line marks the stated total duration (工期), and each bar carries its
length in days at its right end. A task's name is wrapped beside its bar, never cut: rows
grow to the longest name's lines.
"""

from __future__ import annotations

import math
from typing import Final

from matplotlib.figure import Figure as MplFigure
from matplotlib.ticker import FixedLocator

from app.core.figures import Figure, GanttChart, check_figure
from app.export.figures.canvas import FILL_ROOT, LINE, LINE_IN, font_props, wrap

ROW_IN: Final = 0.32
WIDTH_IN: Final = 6.3
LABEL_IN: Final = 1.9
_WRAP_CELLS: Final = 22


def _ticks(last: int) -> list[int]:
    step = max(1, math.ceil(last / 8))
    for nice in (1, 2, 5, 7, 10, 15, 20, 30, 50, 60, 90, 100, 120, 180, 200, 365):
        if nice >= step:
            step = nice
            break
    return [1, *range(step, last + 1, step)] if step > 1 else list(range(1, last + 1))


def draw_gantt(chart: GanttChart) -> MplFigure:
    """The chart as a matplotlib figure at its natural size (inches)."""
    check_figure(Figure(title="进度计划", data=chart))
    tasks = chart.tasks
    last = max([t.start + max(t.days, 1) - 1 for t in tasks] + [chart.total_days or 0])
    names = [wrap(t.name, _WRAP_CELLS) for t in tasks]  # whole names: a long one takes two lines or more
    row_in = max(ROW_IN, max(n.count("\n") + 1 for n in names) * LINE_IN + 0.08)
    height = row_in * len(tasks) + 0.75
    fig = MplFigure(figsize=(WIDTH_IN, height))
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    ax = fig.add_axes((LABEL_IN / WIDTH_IN, 0.45 / height, 1 - LABEL_IN / WIDTH_IN - 0.25 / WIDTH_IN,
                       1 - 0.6 / height))
    props = font_props()
    for row, task in enumerate(tasks):
        if task.days == 0:
            ax.scatter([task.start], [row], marker="D", s=42, color="#c00000", zorder=3)
        else:
            ax.barh(row, task.days, left=task.start - 0.5, height=0.55, color=FILL_ROOT, edgecolor=LINE,
                    linewidth=0.8, zorder=2)
            ax.text(task.start - 0.5 + task.days + last * 0.01, row, f"{task.days}天", va="center", ha="left",
                    **{**props, "fontsize": 7})  # type: ignore[arg-type]
    if chart.total_days:
        ax.axvline(chart.total_days + 0.5, color="#c00000", linestyle="--", linewidth=0.8)
    ax.set_ylim(len(tasks) - 0.5, -0.5)
    ax.set_xlim(0.5, last * 1.08 + 1)
    ax.yaxis.set_major_locator(FixedLocator(list(range(len(tasks)))))
    ax.set_yticklabels(names, **{**props, "linespacing": 1.25})  # type: ignore[arg-type]
    ticks = _ticks(last)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.set_xticklabels([f"第{d}天" for d in ticks], **{**props, "fontsize": 7})  # type: ignore[arg-type]
    ax.grid(axis="x", color="#d0d0d0", linewidth=0.5, zorder=0)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_color("#808080")
    return fig

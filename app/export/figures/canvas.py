"""The drawing surface shared by the three figure kinds: a matplotlib Figure on an Agg canvas.

No pyplot and no backend switch: each drawing builds its own ``matplotlib.figure.Figure``
and prints it through ``FigureCanvasAgg`` (PNG) or the SVG backend, so nothing touches
global state or a GUI toolkit and two drawings never share anything.
"""

from __future__ import annotations

import io
import unicodedata
import warnings
from typing import Final

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure as MplFigure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Polygon

from app.export.figures.fonts import cjk_font

LINE: Final = "#1f3864"
FILL: Final = "#dde7f3"
FILL_ROOT: Final = "#bdd1ea"
TEXT: Final = "#000000"
FONT_PT: Final = 9.0


def new_drawing(width_in: float, height_in: float) -> tuple[MplFigure, Axes]:
    """A blank figure of the given size with one borderless axes spanning it (data units = inches)."""
    fig = MplFigure(figsize=(width_in, height_in))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, width_in)
    ax.set_ylim(0, height_in)
    ax.set_axis_off()
    return fig, ax


def font_props() -> dict[str, object]:
    """Keyword arguments for ``ax.text`` that pick the CJK family."""
    return {"fontfamily": cjk_font().family, "fontsize": FONT_PT, "color": TEXT}


def text_width(text: str) -> int:
    """Width in half-width cells (a Chinese character counts two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


#: Height of one line of label text (9 pt at line spacing 1.25), and the box's padding above and below.
LINE_IN: Final = FONT_PT * 1.25 / 72
PAD_IN: Final = 0.07


def wrap_lines(text: str, cells: int) -> list[str]:
    """``text`` wrapped to lines of at most ``cells`` half-width cells; nothing is ever cut.

    Each line of ``text`` is wrapped on its own, balanced (n lines of about equal width, never a
    lone character on the last one).
    """
    lines: list[str] = []
    for part in text.split("\n"):
        width = text_width(part)
        if width <= cells:
            lines.append(part)
            continue
        n = -(-width // cells)
        cells_here = min(cells, -(-width // n) + 1)
        line = ""
        for ch in part:
            if line and text_width(line + ch) > cells_here:
                lines.append(line)
                line = ""
            line += ch
        if line:
            lines.append(line)
    return lines


def wrap(text: str, cells: int) -> str:
    """``text`` wrapped (see :func:`wrap_lines`) and joined with line breaks; the whole text, never cut."""
    return "\n".join(wrap_lines(text, cells))


def box_height(label: str, least: float) -> float:
    """The height a box needs for ``label`` (already wrapped): ``least``, or more for more lines."""
    return max(least, (label.count("\n") + 1) * LINE_IN + 2 * PAD_IN)


def box(ax: Axes, cx: float, cy: float, w: float, h: float, label: str, *, fill: str = FILL,
        rounded: bool = False, bold: bool = False) -> None:
    """A labelled rectangle centred at ``(cx, cy)``."""
    style = f"round,pad=0,rounding_size={min(w, h) / 2:.3f}" if rounded else "square,pad=0"
    ax.add_patch(FancyBboxPatch((cx - w / 2, cy - h / 2), w, h, boxstyle=style, linewidth=1.0,
                                edgecolor=LINE, facecolor=fill))
    ax.text(cx, cy, label, ha="center", va="center", fontweight="bold" if bold else "normal",
            linespacing=1.25, **font_props())  # type: ignore[arg-type]


def diamond(ax: Axes, cx: float, cy: float, w: float, h: float, label: str) -> None:
    """A labelled decision diamond centred at ``(cx, cy)``."""
    points = [(cx, cy + h / 2), (cx + w / 2, cy), (cx, cy - h / 2), (cx - w / 2, cy)]
    ax.add_patch(Polygon(points, closed=True, linewidth=1.0, edgecolor=LINE, facecolor="#fff2cc"))
    ax.text(cx, cy, label, ha="center", va="center", linespacing=1.2, **font_props())  # type: ignore[arg-type]


def polyline(ax: Axes, points: list[tuple[float, float]], *, arrow: bool = False) -> None:
    """Straight segments through ``points``; ``arrow`` puts a head on the last one."""
    if len(points) < 2:
        return
    if len(points) > 2:
        xs, ys = zip(*points[:-1], strict=True)
        ax.plot(xs, ys, color=LINE, linewidth=1.0, solid_capstyle="butt")
    start, end = points[-2], points[-1]
    if arrow:
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=9, linewidth=1.0,
                                     color=LINE, shrinkA=0, shrinkB=0))
    else:
        ax.plot([start[0], end[0]], [start[1], end[1]], color=LINE, linewidth=1.0)


def to_png(fig: MplFigure, dpi: int) -> bytes:
    """The figure as PNG bytes (glyphs rasterised, so the font travels with the picture)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*[Gg]lyph.*missing.*")
        FigureCanvasAgg(fig)
        fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def to_svg(fig: MplFigure) -> bytes:
    """The figure as SVG with text drawn as paths (no font needed where it is opened)."""
    import matplotlib

    buffer = io.BytesIO()
    with warnings.catch_warnings(), matplotlib.rc_context({"svg.fonttype": "path"}):
        warnings.filterwarnings("ignore", message=r".*[Gg]lyph.*missing.*")
        FigureCanvasSVG(fig)
        fig.savefig(buffer, format="svg")
    return buffer.getvalue()

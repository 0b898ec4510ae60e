"""Render a figure to PNG (print resolution) or SVG bytes, with a small cache by content.

The export inserts the PNG (Word and WPS show it everywhere); the SVG is for a caller that
wants vectors. The cache keys on the figure's data, the font and the resolution, so
re-exporting or reopening the editor on an unchanged figure costs nothing. Bad data raises
:class:`~app.core.figures.FigureError` with a Chinese message.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from matplotlib.figure import Figure as MplFigure

from app.core.figures import Figure, Flowchart, OrgChart, check_figure
from app.export.figures.canvas import to_png, to_svg
from app.export.figures.flowchart import draw_flowchart
from app.export.figures.fonts import cjk_font
from app.export.figures.gantt import draw_gantt
from app.export.figures.org_chart import draw_org_chart

PRINT_DPI: Final = 300
_CACHE_SIZE: Final = 32


@dataclass(frozen=True)
class RenderedFigure:
    """PNG bytes and the drawing's natural size in inches (the export scales it to the page)."""

    png: bytes
    width_in: float
    height_in: float
    cjk_font: bool


_cache: OrderedDict[tuple[str, str, int], RenderedFigure] = OrderedDict()


def draw(figure: Figure) -> MplFigure:
    """The matplotlib figure for ``figure``'s data (checked first)."""
    check_figure(figure)
    data = figure.data
    if isinstance(data, OrgChart):
        return draw_org_chart(data)
    if isinstance(data, Flowchart):
        return draw_flowchart(data)
    return draw_gantt(data)


def render_png(figure: Figure, dpi: int = PRINT_DPI) -> RenderedFigure:
    """The figure as PNG at ``dpi`` (300: print resolution), cached by its data."""
    font = cjk_font()
    key = (figure.data.model_dump_json(), font.family, dpi)
    hit = _cache.get(key)
    if hit is not None:
        _cache.move_to_end(key)
        return hit
    fig = draw(figure)
    width, height = fig.get_size_inches()
    rendered = RenderedFigure(to_png(fig, dpi), float(width), float(height), font.cjk)
    _cache[key] = rendered
    while len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return rendered


def render_svg(figure: Figure) -> bytes:
    """The figure as SVG, text drawn as outlines."""
    return to_svg(draw(figure))


def clear_cache() -> None:
    """Forget cached renders (benchmarks measure cold renders)."""
    _cache.clear()

"""Which installed font can draw Chinese labels in a figure.

matplotlib draws text with one font family; a Latin-only family turns every Chinese
character into a box. :func:`cjk_font` looks through matplotlib's font list for a known
CJK family (Noto/Source Han, WenQuanYi, the Windows and macOS system fonts), then for any
family whose name says CJK. None found: figures are still drawn with the default family
and :data:`NO_CJK_FONT_NOTE` tells the user why their labels may show as boxes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

#: Families preferred in this order (sans first: figures read better in a 黑体-like face).
PREFERRED: Final = (
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", "Noto Sans CJK JP",
    "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Microsoft YaHei", "SimHei", "PingFang SC",
    "Hiragino Sans GB", "Heiti SC", "Noto Serif CJK SC", "Source Han Serif SC", "SimSun", "AR PL UMing CN",
    "Droid Sans Fallback",
)
_HINTS: Final = ("CJK", "Han Sans", "Han Serif", "WenQuanYi", "Hei", "Song", "Ming", "Kai", "Fang", "Droid Sans Fallback")
FALLBACK_FAMILY: Final = "DejaVu Sans"
NO_CJK_FONT_NOTE: Final = "本机未找到中文字体（如 Noto Sans CJK），图中的汉字可能显示为方框；安装中文字体后重新导出即可"


@dataclass(frozen=True)
class FigureFont:
    """The family figures are drawn with; ``cjk`` False means the fallback without Chinese glyphs."""

    family: str
    cjk: bool
    path: str = ""


def _installed() -> dict[str, str]:
    from matplotlib import font_manager  # imported on first drawing, not at program start

    return {f.name: f.fname for f in font_manager.fontManager.ttflist}


@lru_cache(maxsize=1)
def cjk_font() -> FigureFont:
    """The best installed CJK family (cached: the font list does not change while running)."""
    return find_cjk_font(_installed())


def find_cjk_font(installed: dict[str, str], preferred: tuple[str, ...] = PREFERRED) -> FigureFont:
    """Pick from ``installed`` (family -> file): a preferred family, any CJK-looking one, else the fallback."""
    for family in preferred:
        if family in installed:
            return FigureFont(family, True, installed[family])
    for family in sorted(installed):
        if any(hint.lower() in family.lower() for hint in _HINTS):
            return FigureFont(family, True, installed[family])
    return FigureFont(FALLBACK_FAMILY, False)

"""Style presets for the Word export: fonts, 字号, spacing and margins per bid-office convention.

Chinese offices name sizes by 字号 (小四, 三号 ...); :data:`FONT_SIZES` maps them to points.
A preset is plain data; :mod:`app.export.styles` turns it into Word styles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from app.export.options import ExportError

#: 字号 name -> size in points (GB/T conventions used by Word and WPS).
FONT_SIZES: Final[dict[str, float]] = {
    "初号": 42.0,
    "小初": 36.0,
    "一号": 26.0,
    "小一": 24.0,
    "二号": 22.0,
    "小二": 18.0,
    "三号": 16.0,
    "小三": 15.0,
    "四号": 14.0,
    "小四": 12.0,
    "五号": 10.5,
    "小五": 9.0,
    "六号": 7.5,
}

Alignment = Literal["left", "center", "right", "justify"]

#: The default Latin face paired with every Chinese face.
LATIN_FONT: Final = "Times New Roman"


def font_size_pt(name: str) -> float:
    """Points for a 字号 name such as ``"小四"`` (12.0)."""
    try:
        return FONT_SIZES[name]
    except KeyError:
        raise ExportError(f"未知的字号“{name}”，可用字号：{'、'.join(FONT_SIZES)}") from None


@dataclass(frozen=True)
class TextStyle:
    """Font and paragraph look of one kind of text (body, a heading level, the cover title ...)."""

    east_asia: str
    size: str
    bold: bool = False
    latin: str = LATIN_FONT
    align: Alignment = "justify"
    line_spacing: float = 1.5
    space_before_pt: float = 0.0
    space_after_pt: float = 0.0
    first_line_chars: float = 0.0

    @property
    def size_pt(self) -> float:
        """The 字号 in points."""
        return font_size_pt(self.size)


@dataclass(frozen=True)
class PageSetup:
    """A4 page geometry in centimetres; ``gutter_cm`` is the binding margin on the left."""

    width_cm: float = 21.0
    height_cm: float = 29.7
    top_cm: float = 2.54
    bottom_cm: float = 2.54
    left_cm: float = 3.17
    right_cm: float = 3.17
    gutter_cm: float = 0.0
    header_cm: float = 1.5
    footer_cm: float = 1.75

    @property
    def text_width_cm(self) -> float:
        """Width available to text (and so to tables)."""
        return self.width_cm - self.left_cm - self.right_cm - self.gutter_cm


@dataclass(frozen=True)
class ExportPreset:
    """Everything that differs between 标准投标版, 正式装订版 and 暗标.

    ``anonymous`` (暗标) means: no names or dates on the cover, no header, everything black,
    document properties empty.
    """

    name: str
    page: PageSetup
    body: TextStyle
    headings: tuple[TextStyle, ...]
    cover_title: TextStyle
    cover_subtitle: TextStyle
    cover_line: TextStyle
    toc_title: TextStyle
    table_text: TextStyle
    guidance: TextStyle
    header_footer: TextStyle
    anonymous: bool = False
    show_header: bool = True
    guidance_color: str = "7F7F7F"
    table_header_fill: str | None = "E7E6E6"
    header_rule: bool = True
    notes: tuple[str, ...] = field(default_factory=tuple)


def _standard() -> ExportPreset:
    return ExportPreset(
        name="标准投标版",
        page=PageSetup(),
        body=TextStyle("宋体", "小四", first_line_chars=2.0),
        headings=(
            TextStyle("黑体", "三号", bold=True, align="center", space_before_pt=12, space_after_pt=12),
            TextStyle("黑体", "四号", bold=True, align="left", space_before_pt=6, space_after_pt=6),
            TextStyle("黑体", "小四", bold=True, align="left", space_before_pt=6, space_after_pt=3),
            TextStyle("宋体", "小四", bold=True, align="left", space_before_pt=3, space_after_pt=3),
        ),
        cover_title=TextStyle("黑体", "二号", bold=True, align="center", line_spacing=1.25),
        cover_subtitle=TextStyle("黑体", "小一", bold=True, align="center", line_spacing=1.25),
        cover_line=TextStyle("宋体", "三号", align="left", line_spacing=1.5),
        toc_title=TextStyle("黑体", "三号", bold=True, align="center", space_after_pt=12),
        table_text=TextStyle("宋体", "五号", align="left", line_spacing=1.15),
        guidance=TextStyle("楷体", "五号", align="justify", line_spacing=1.25, first_line_chars=2.0),
        header_footer=TextStyle("宋体", "小五", align="center", line_spacing=1.0),
    )


def _binding() -> ExportPreset:
    return ExportPreset(
        name="正式装订版",
        page=PageSetup(top_cm=2.8, bottom_cm=2.5, left_cm=2.6, right_cm=2.6, gutter_cm=1.0),
        body=TextStyle("宋体", "小四", first_line_chars=2.0),
        headings=(
            TextStyle("黑体", "小二", bold=True, align="center", space_before_pt=18, space_after_pt=18),
            TextStyle("黑体", "三号", bold=True, align="left", space_before_pt=12, space_after_pt=6),
            TextStyle("黑体", "四号", bold=True, align="left", space_before_pt=6, space_after_pt=6),
            TextStyle("黑体", "小四", bold=True, align="left", space_before_pt=3, space_after_pt=3),
        ),
        cover_title=TextStyle("黑体", "小一", bold=True, align="center", line_spacing=1.25),
        cover_subtitle=TextStyle("黑体", "一号", bold=True, align="center", line_spacing=1.25),
        cover_line=TextStyle("宋体", "三号", align="left", line_spacing=1.5),
        toc_title=TextStyle("黑体", "小二", bold=True, align="center", space_after_pt=12),
        table_text=TextStyle("宋体", "五号", align="left", line_spacing=1.15),
        guidance=TextStyle("楷体", "五号", align="justify", line_spacing=1.25, first_line_chars=2.0),
        header_footer=TextStyle("宋体", "小五", align="center", line_spacing=1.0),
        notes=("左侧预留 1 cm 装订线",),
    )


def _anonymous() -> ExportPreset:
    black_heading = (
        TextStyle("宋体", "三号", bold=True, align="center", space_before_pt=12, space_after_pt=12),
        TextStyle("宋体", "四号", bold=True, align="left", space_before_pt=6, space_after_pt=6),
        TextStyle("宋体", "小四", bold=True, align="left", space_before_pt=6, space_after_pt=3),
        TextStyle("宋体", "小四", bold=True, align="left", space_before_pt=3, space_after_pt=3),
    )
    return ExportPreset(
        name="暗标",
        page=PageSetup(),
        body=TextStyle("宋体", "小四", first_line_chars=2.0),
        headings=black_heading,
        cover_title=TextStyle("宋体", "二号", bold=True, align="center", line_spacing=1.25),
        cover_subtitle=TextStyle("宋体", "小一", bold=True, align="center", line_spacing=1.25),
        cover_line=TextStyle("宋体", "三号", align="left", line_spacing=1.5),
        toc_title=TextStyle("宋体", "三号", bold=True, align="center", space_after_pt=12),
        table_text=TextStyle("宋体", "五号", align="left", line_spacing=1.15),
        guidance=TextStyle("宋体", "五号", align="justify", line_spacing=1.25, first_line_chars=2.0),
        header_footer=TextStyle("宋体", "小五", align="center", line_spacing=1.0),
        anonymous=True,
        show_header=False,
        guidance_color="000000",
        table_header_fill=None,
        header_rule=False,
        notes=("无页眉、无投标人名称、全部黑色、文档属性为空",),
    )


#: The presets by their Chinese names, in the order a UI should list them.
PRESETS: Final[dict[str, ExportPreset]] = {p.name: p for p in (_standard(), _binding(), _anonymous())}


def get_preset(name: str) -> ExportPreset:
    """The preset called ``name``; a Chinese error lists the valid names."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ExportError(f"未知的导出样式“{name}”，可选：{'、'.join(PRESETS)}") from None

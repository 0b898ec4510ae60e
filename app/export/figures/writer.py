"""Put a section's figures into the Word body: the picture, then its numbered caption.

Captions are numbered by chapter (图 3-1, 图 3-2, … restarting in each chapter), centred
under the picture in the 题注 style; the picture keeps with its caption. A picture is as
large as drawn, shrunk to the text width and to the page's usable height. A figure that
cannot be drawn (data broken in the file) becomes a visible placeholder paragraph and a
warning: the rest of the export goes on.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from docx.enum.style import WD_STYLE_TYPE
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Emu, Pt
from docx.styles.style import ParagraphStyle

from app.core.figures import KIND_ZH, Figure, FigureError
from app.export.block_writer import BodyAppender
from app.export.figures.fonts import NO_CJK_FONT_NOTE
from app.export.markdown_blocks import xml_safe

if TYPE_CHECKING:
    from docx.document import Document

FIGURE_STYLE: Final = "图片"
CAPTION_STYLE: Final = "题注"
_EMU_PER_IN: Final = 914400
#: Room kept on the page for a heading above the picture and the caption below it, so the
#: caption never lands alone on the next page.
_CAPTION_ROOM_EMU: Final = int(4.5 * _EMU_PER_IN / 2.54)


def caption_text(chapter: int, number: int, title: str) -> str:
    """``图 3-1 项目组织机构图``: chapter number, running number within it, title."""
    return f"图 {chapter}-{number} {title.strip()}"


def _style(doc: Document, name: str) -> ParagraphStyle:
    try:
        style = doc.styles[name]
    except KeyError:
        style = doc.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
        style.base_style = doc.styles["Normal"]
    if not isinstance(style, ParagraphStyle):
        raise TypeError(f"style {name!r} is not a paragraph style")
    return style


def ensure_figure_styles(doc: Document) -> tuple[str, str]:
    """Create (or reuse a template's) picture and caption styles; returns their style ids."""
    picture = _style(doc, FIGURE_STYLE)
    pf = picture.paragraph_format
    pf.alignment = WD_ALIGN_PARAGRAPH.CENTER
    pf.first_line_indent = Pt(0)
    pf.keep_with_next = True
    pf.space_before = Pt(6)
    pf.line_spacing = 1.0
    caption = _style(doc, CAPTION_STYLE)
    cf = caption.paragraph_format
    cf.alignment = WD_ALIGN_PARAGRAPH.CENTER
    cf.first_line_indent = Pt(0)
    cf.space_after = Pt(6)
    caption.font.size = Pt(10.5)
    caption.font.bold = True
    return picture.style_id, caption.style_id


@dataclass
class FigureWriter:
    """Writes figures after their section's text and numbers captions per chapter."""

    doc: Document
    body: BodyAppender
    max_width_emu: int
    max_height_emu: int
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    count: int = 0
    _numbers: dict[int, int] = field(default_factory=dict)
    _styles: tuple[str, str] | None = None

    def write(self, figures: list[Figure], chapter: int) -> list[str]:
        """Write ``figures`` for a section of chapter ``chapter`` (1-based); returns their captions."""
        captions: list[str] = []
        for figure in figures:
            if self._styles is None:
                self._styles = ensure_figure_styles(self.doc)
            picture_style, caption_style = self._styles
            number = self._numbers.get(chapter, 0) + 1
            self._numbers[chapter] = number
            caption = xml_safe(caption_text(chapter, number, figure.title))
            from app.export.figures.render import render_png  # matplotlib loads on the first figure

            try:
                rendered = render_png(figure)
            except FigureError as exc:
                self.body.paragraph(picture_style, f"【{KIND_ZH[figure.kind]}无法绘制：{exc.message_zh}】")
                self.warnings.append(f"{caption}未能绘制：{exc.message_zh}")
            else:
                if not rendered.cjk_font and NO_CJK_FONT_NOTE not in self.notes:
                    self.notes.append(NO_CJK_FONT_NOTE)
                width = int(rendered.width_in * _EMU_PER_IN)
                height = int(rendered.height_in * _EMU_PER_IN)
                scale = min(1.0, self.max_width_emu / width, (self.max_height_emu - _CAPTION_ROOM_EMU) / height)
                paragraph = self.body.paragraph(picture_style)
                paragraph.add_run().add_picture(io.BytesIO(rendered.png), width=Emu(int(width * scale)),
                                                height=Emu(int(height * scale)))
                self.count += 1
            self.body.paragraph(caption_style, caption)
            captions.append(caption)
        return captions

"""Turn an :class:`ExportPreset` into Word styles that Word, WPS and LibreOffice all honour.

python-docx's template uses theme fonts (which override explicit names), blue headings,
US Letter and an East Asian language of ja-JP. Here every style gets explicit Latin *and*
East Asian fonts (``w:eastAsia``) with the theme attributes removed, black text, heading
outline levels, zh-CN as the document language, and the extra styles the writer uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from docx.enum.style import WD_STYLE_TYPE
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_TAB_ALIGNMENT, WD_TAB_LEADER
from docx.opc.part import Part
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Cm, Pt, RGBColor
from docx.styles.style import ParagraphStyle

if TYPE_CHECKING:
    from docx.document import Document
    from docx.oxml.xmlchemy import BaseOxmlElement

    from app.export.presets import ExportPreset, TextStyle

#: Names of the custom paragraph styles the writer uses (visible in Word's style pane).
COVER_TITLE: Final = "封面标题"
COVER_SUBTITLE: Final = "封面副标题"
COVER_LINE: Final = "封面信息"
TOC_TITLE: Final = "目录标题"
GUIDANCE: Final = "编写提示"
TABLE_TEXT: Final = "表格文字"
LIST_TEXT: Final = "列表段落"
SUBHEADING: Final = "正文小标题"

_ALIGN = {
    "left": WD_ALIGN_PARAGRAPH.LEFT,
    "center": WD_ALIGN_PARAGRAPH.CENTER,
    "right": WD_ALIGN_PARAGRAPH.RIGHT,
    "justify": WD_ALIGN_PARAGRAPH.JUSTIFY,
}
_THEME_FONT_ATTRS = ("w:asciiTheme", "w:hAnsiTheme", "w:eastAsiaTheme", "w:cstheme")
_THEME_COLOR_ATTRS = ("w:themeColor", "w:themeShade", "w:themeTint")
#: Chinese faces with the names Word/WPS know them by in English and their GB2312 charset.
_FONT_TABLE: Final[dict[str, str]] = {
    "宋体": "SimSun",
    "黑体": "SimHei",
    "楷体": "KaiTi",
    "仿宋": "FangSong",
}
_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
#: w:pPr children that must follow w:pBdr.
_PPR_AFTER_PBDR: Final = (
    "w:shd",
    "w:tabs",
    "w:suppressAutoHyphens",
    "w:kinsoku",
    "w:wordWrap",
    "w:overflowPunct",
    "w:topLinePunct",
    "w:autoSpaceDE",
    "w:autoSpaceDN",
    "w:bidi",
    "w:adjustRightInd",
    "w:snapToGrid",
    "w:spacing",
    "w:ind",
    "w:contextualSpacing",
    "w:mirrorIndents",
    "w:suppressOverlap",
    "w:jc",
    "w:textDirection",
    "w:textAlignment",
    "w:textboxTightWrap",
    "w:outlineLvl",
    "w:divId",
    "w:cnfStyle",
    "w:rPr",
    "w:sectPr",
    "w:pPrChange",
)


def insert_before_any(parent: BaseOxmlElement, child: BaseOxmlElement, successors: tuple[str, ...]) -> None:
    """Insert ``child`` before the first existing element named in ``successors`` (schema order), else append.

    Word rejects files whose elements are out of schema order, so hand-made XML goes here.
    """
    names = {qn(tag) for tag in successors}
    for existing in parent:
        if existing.tag in names:
            existing.addprevious(child)
            return
    parent.append(child)


def set_fonts(rpr: BaseOxmlElement, latin: str, east_asia: str) -> None:
    """Give a ``w:rPr`` explicit Latin and East Asian fonts and drop theme font attributes."""
    rfonts = rpr.find(qn("w:rFonts"))
    if rfonts is None:
        rfonts = OxmlElement("w:rFonts")
        rpr.insert(0, rfonts)
    for attr in _THEME_FONT_ATTRS:
        rfonts.attrib.pop(qn(attr), None)
    rfonts.set(qn("w:ascii"), latin)
    rfonts.set(qn("w:hAnsi"), latin)
    rfonts.set(qn("w:cs"), latin)
    rfonts.set(qn("w:eastAsia"), east_asia)
    rfonts.set(qn("w:hint"), "eastAsia")


def apply_text_style(style: ParagraphStyle, ts: TextStyle, color: str = "000000") -> None:
    """Write one :class:`TextStyle` into a Word paragraph style (font, size, spacing, indent)."""
    font = style.font
    font.size = Pt(ts.size_pt)
    font.bold = ts.bold
    font.italic = False
    font.color.rgb = RGBColor.from_string(color)
    rpr = style.element.get_or_add_rPr()
    set_fonts(rpr, ts.latin, ts.east_asia)
    cs_size = rpr.find(qn("w:szCs"))
    if cs_size is None:
        cs_size = OxmlElement("w:szCs")
        size = rpr.find(qn("w:sz"))
        if size is not None:
            size.addnext(cs_size)
        else:
            rpr.append(cs_size)
    cs_size.set(qn("w:val"), str(round(ts.size_pt * 2)))
    fmt = style.paragraph_format
    fmt.alignment = _ALIGN[ts.align]
    fmt.line_spacing = ts.line_spacing
    fmt.space_before = Pt(ts.space_before_pt)
    fmt.space_after = Pt(ts.space_after_pt)
    fmt.left_indent = Pt(0)
    fmt.first_line_indent = Pt(ts.first_line_chars * ts.size_pt)
    ind = style.element.get_or_add_pPr().find(qn("w:ind"))
    if ind is not None:
        # Word prefers the character-based indent, which follows the font size.
        ind.set(qn("w:firstLineChars"), str(round(ts.first_line_chars * 100)))
        ind.set(qn("w:leftChars"), "0")


def _scrub_theme_styling(doc: Document) -> None:
    """Remove theme fonts and theme colours from every style so explicit values apply.

    Text colours and border colours become black; theme shading references are dropped.
    """
    root = doc.styles.element
    color_tag = qn("w:color")
    val, color_attr = qn("w:val"), qn("w:color")
    theme_font_attrs = [qn(a) for a in _THEME_FONT_ATTRS]
    theme_attrs = [qn(a) for a in (*_THEME_COLOR_ATTRS, "w:themeFill", "w:themeFillShade", "w:themeFillTint")]
    for el in root.iter():
        for attr in theme_font_attrs:
            el.attrib.pop(attr, None)
        for attr in theme_attrs:
            el.attrib.pop(attr, None)
        if el.tag == color_tag:
            el.set(val, "000000")
        elif color_attr in el.attrib and el.get(color_attr) != "auto":
            el.set(color_attr, "000000")


def _set_doc_defaults(doc: Document, preset: ExportPreset) -> None:
    """docDefaults: body fonts, zh-CN language, no spacing after paragraphs."""
    root = doc.styles.element
    defaults = root.find(qn("w:docDefaults"))
    if defaults is None:
        defaults = OxmlElement("w:docDefaults")
        root.insert(0, defaults)
    rpr_default = defaults.find(qn("w:rPrDefault"))
    if rpr_default is None:
        rpr_default = OxmlElement("w:rPrDefault")
        defaults.insert(0, rpr_default)
    rpr = rpr_default.find(qn("w:rPr"))
    if rpr is None:
        rpr = OxmlElement("w:rPr")
        rpr_default.append(rpr)
    set_fonts(rpr, preset.body.latin, preset.body.east_asia)
    lang = rpr.find(qn("w:lang"))
    if lang is None:
        lang = OxmlElement("w:lang")
        insert_before_any(rpr, lang, ("w:eastAsianLayout", "w:specVanish", "w:oMath"))
    lang.set(qn("w:val"), "en-US")
    lang.set(qn("w:eastAsia"), "zh-CN")
    lang.set(qn("w:bidi"), "ar-SA")
    for tag in ("w:sz", "w:szCs"):
        el = rpr.find(qn(tag))
        if el is not None:
            el.set(qn("w:val"), str(round(preset.body.size_pt * 2)))
    ppr_default = defaults.find(qn("w:pPrDefault"))
    spacing = ppr_default.find(f"{qn('w:pPr')}/{qn('w:spacing')}") if ppr_default is not None else None
    if spacing is not None:
        spacing.set(qn("w:after"), "0")
        spacing.set(qn("w:line"), "240")
        spacing.set(qn("w:lineRule"), "auto")


def _set_language_settings(doc: Document) -> None:
    """settings.xml: theme font language zh-CN (the template says ja-JP)."""
    settings = doc.settings.element
    theme_lang = settings.find(qn("w:themeFontLang"))
    if theme_lang is None:
        theme_lang = OxmlElement("w:themeFontLang")
        insert_before_any(
            settings,
            theme_lang,
            ("w:clrSchemeMapping", "w:doNotIncludeSubdocsInStats", "w:decimalSymbol", "w:listSeparator"),
        )
    theme_lang.set(qn("w:val"), "en-US")
    theme_lang.set(qn("w:eastAsia"), "zh-CN")


def _font_table_xml(preset: ExportPreset) -> bytes:
    faces = {preset.body.latin}
    for ts in (preset.body, *preset.headings, preset.cover_title, preset.guidance, preset.table_text):
        faces.add(ts.east_asia)
        faces.add(ts.latin)
    entries = []
    for face in sorted(faces):
        alt = _FONT_TABLE.get(face)
        if alt:
            entries.append(
                f'<w:font w:name="{face}"><w:altName w:val="{alt}"/><w:panose1 w:val="02010600030101010101"/>'
                '<w:charset w:val="86"/><w:family w:val="auto"/><w:pitch w:val="variable"/></w:font>'
            )
        else:
            entries.append(
                f'<w:font w:name="{face}"><w:panose1 w:val="02020603050405020304"/><w:charset w:val="00"/>'
                '<w:family w:val="roman"/><w:pitch w:val="variable"/></w:font>'
            )
    xml = (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n"
        f'<w:fonts xmlns:w="{_W_NS}">{"".join(entries)}</w:fonts>'
    )
    return xml.encode("utf-8")


def _replace_font_table(doc: Document, preset: ExportPreset) -> None:
    """The template's font table lists Japanese faces (ＭＳ 明朝); list ours instead."""
    for part in doc.part.package.iter_parts():
        if str(part.partname) == "/word/fontTable.xml" and type(part) is Part:
            part._blob = _font_table_xml(preset)


def _paragraph_style(doc: Document, name: str, base: str = "Normal") -> ParagraphStyle:
    styles = doc.styles
    try:
        style = styles[name]
    except KeyError:
        style = styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
        style.base_style = styles[base]
    if not isinstance(style, ParagraphStyle):
        raise TypeError(f"style {name!r} is not a paragraph style")
    return style


def _set_outline_level(style: ParagraphStyle, level: int) -> None:
    ppr = style.element.get_or_add_pPr()
    lvl = ppr.find(qn("w:outlineLvl"))
    if lvl is None:
        lvl = OxmlElement("w:outlineLvl")
        insert_before_any(ppr, lvl, ("w:divId", "w:cnfStyle", "w:rPr", "w:sectPr", "w:pPrChange"))
    lvl.set(qn("w:val"), str(level))


def _set_page_break_before(style: ParagraphStyle, on: bool) -> None:
    style.paragraph_format.page_break_before = on


def _add_bottom_rule(style: ParagraphStyle) -> None:
    ppr = style.element.get_or_add_pPr()
    border = OxmlElement("w:pBdr")
    bottom = OxmlElement("w:bottom")
    for key, value in (("w:val", "single"), ("w:sz", "6"), ("w:space", "1"), ("w:color", "000000")):
        bottom.set(qn(key), value)
    border.append(bottom)
    insert_before_any(ppr, border, _PPR_AFTER_PBDR)


def apply_preset_styles(doc: Document, preset: ExportPreset, page_break_before_chapters: bool) -> None:
    """Create and configure every style the export uses for ``preset``."""
    _scrub_theme_styling(doc)
    _set_doc_defaults(doc, preset)
    _set_language_settings(doc)
    _replace_font_table(doc, preset)

    apply_text_style(_paragraph_style(doc, "Normal"), preset.body)
    for level, ts in enumerate(preset.headings, start=1):
        style = _paragraph_style(doc, f"Heading {level}")
        apply_text_style(style, ts)
        style.paragraph_format.keep_with_next = True
        style.paragraph_format.keep_together = True
        _set_outline_level(style, level - 1)
        if level == 1:
            _set_page_break_before(style, page_break_before_chapters)

    apply_text_style(_paragraph_style(doc, COVER_TITLE), preset.cover_title)
    apply_text_style(_paragraph_style(doc, COVER_SUBTITLE), preset.cover_subtitle)
    apply_text_style(_paragraph_style(doc, COVER_LINE), preset.cover_line)
    apply_text_style(_paragraph_style(doc, TOC_TITLE), preset.toc_title)
    apply_text_style(_paragraph_style(doc, GUIDANCE), preset.guidance, preset.guidance_color)
    apply_text_style(_paragraph_style(doc, TABLE_TEXT), preset.table_text)
    list_style = _paragraph_style(doc, LIST_TEXT)
    apply_text_style(list_style, preset.body)
    list_style.paragraph_format.first_line_indent = Pt(0)
    sub = _paragraph_style(doc, SUBHEADING)
    apply_text_style(sub, preset.body)
    sub.font.bold = True
    sub.paragraph_format.keep_with_next = True

    text_width = Cm(preset.page.text_width_cm)
    for level in (1, 2, 3):
        toc = _paragraph_style(doc, f"toc {level}")
        apply_text_style(toc, preset.body)
        toc.font.bold = level == 1
        toc.paragraph_format.first_line_indent = Pt(0)
        toc.paragraph_format.left_indent = Pt(preset.body.size_pt * 2 * (level - 1))
        toc.paragraph_format.line_spacing = 1.5
        toc.paragraph_format.tab_stops.add_tab_stop(text_width, WD_TAB_ALIGNMENT.RIGHT, WD_TAB_LEADER.DOTS)

    for name in ("Header", "Footer"):
        hf = _paragraph_style(doc, name)
        apply_text_style(hf, preset.header_footer)
        if name == "Header" and preset.header_rule:
            _add_bottom_rule(hf)

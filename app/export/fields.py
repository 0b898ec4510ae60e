"""Word fields: the table of contents, "第 X 页 共 Y 页" page numbers and section numbering.

Fields are written as complex fields (begin / instrText / separate / result / end) with a
cached result, so a reader that never updates fields still shows something sensible, and
``w:updateFields`` asks Word to refresh them (TOC page numbers included) on open.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from app.export.styles import TOC_HINT, TOC_TITLE, insert_before_any

if TYPE_CHECKING:
    from docx.document import Document
    from docx.oxml.xmlchemy import BaseOxmlElement
    from docx.section import Section
    from docx.text.paragraph import Paragraph

#: The TOC instruction: heading levels 1–3, hyperlinked entries, no page numbers in web view,
#: keep outline levels set on paragraphs.
TOC_INSTRUCTION: Final = 'TOC \\o "1-3" \\h \\z \\u'
#: settings.xml children that follow w:updateFields in the schema.
_SETTINGS_AFTER_UPDATE_FIELDS: Final = (
    "w:hdrShapeDefaults",
    "w:footnotePr",
    "w:endnotePr",
    "w:compat",
    "w:docVars",
    "w:rsids",
    "m:mathPr",
    "w:attachedSchema",
    "w:themeFontLang",
    "w:clrSchemeMapping",
    "w:doNotIncludeSubdocsInStats",
    "w:doNotAutoCompressPictures",
    "w:forceUpgrade",
    "w:captions",
    "w:readModeInkLockDown",
    "w:smartTagType",
    "sl:schemaLibrary",
    "w:shapeDefaults",
    "w:doNotEmbedSmartTags",
    "w:decimalSymbol",
    "w:listSeparator",
)
#: w:sectPr children that follow w:pgNumType.
_SECTPR_AFTER_PGNUMTYPE: Final = (
    "w:cols",
    "w:formProt",
    "w:vAlign",
    "w:noEndnote",
    "w:titlePg",
    "w:textDirection",
    "w:bidi",
    "w:rtlGutter",
    "w:docGrid",
    "w:printerSettings",
    "w:sectPrChange",
)
TOC_HINT_TEXT: Final = (
    "提示：目录页码需更新后才准确。Word 中右键目录选择“更新域”→“更新整个目录”（或全选后按 F9）；"
    "WPS 中选择“引用”→“更新目录”。"
)


@dataclass(frozen=True)
class TocEntry:
    """One cached TOC line: heading level (1–3), its text and the bookmark it links to."""

    level: int
    text: str
    bookmark: str


def _run(*children: BaseOxmlElement) -> BaseOxmlElement:
    run = OxmlElement("w:r")
    for child in children:
        run.append(child)
    return run


def _fld_char(kind: str, dirty: bool = False) -> BaseOxmlElement:
    el = OxmlElement("w:fldChar")
    el.set(qn("w:fldCharType"), kind)
    if dirty:
        el.set(qn("w:dirty"), "true")
    return el


def _instr(text: str) -> BaseOxmlElement:
    el = OxmlElement("w:instrText")
    el.set(qn("xml:space"), "preserve")
    el.text = f" {text} "
    return el


def _text(text: str) -> BaseOxmlElement:
    el = OxmlElement("w:t")
    el.set(qn("xml:space"), "preserve")
    el.text = text
    return el


def field_runs(instruction: str, cached: str, dirty: bool = False) -> list[BaseOxmlElement]:
    """The runs of one complex field with ``cached`` as its displayed result."""
    return [
        _run(_fld_char("begin", dirty)),
        _run(_instr(instruction)),
        _run(_fld_char("separate")),
        _run(_text(cached)),
        _run(_fld_char("end")),
    ]


def add_field(paragraph: Paragraph, instruction: str, cached: str) -> None:
    """Append a complex field (e.g. ``PAGE``) to ``paragraph``."""
    for run in field_runs(instruction, cached):
        paragraph._p.append(run)


def enable_update_fields_on_open(doc: Document) -> None:
    """Set ``w:updateFields`` so Word offers to refresh the TOC and page fields on open."""
    settings = doc.settings.element
    update = settings.find(qn("w:updateFields"))
    if update is None:
        update = OxmlElement("w:updateFields")
        insert_before_any(settings, update, _SETTINGS_AFTER_UPDATE_FIELDS)
    update.set(qn("w:val"), "true")


def bookmark_paragraph(paragraph: Paragraph, name: str, bookmark_id: int) -> None:
    """Wrap the paragraph's content in a bookmark so TOC entries and PAGEREF can point at it."""
    start = OxmlElement("w:bookmarkStart")
    start.set(qn("w:id"), str(bookmark_id))
    start.set(qn("w:name"), name)
    end = OxmlElement("w:bookmarkEnd")
    end.set(qn("w:id"), str(bookmark_id))
    p = paragraph._p
    ppr = p.pPr
    if ppr is not None:
        ppr.addnext(start)
    else:
        p.insert(0, start)
    p.append(end)


def _toc_entry_paragraph(entry: TocEntry, style_id: str) -> BaseOxmlElement:
    p = OxmlElement("w:p")
    ppr = OxmlElement("w:pPr")
    style = OxmlElement("w:pStyle")
    style.set(qn("w:val"), style_id)
    ppr.append(style)
    p.append(ppr)
    link = OxmlElement("w:hyperlink")
    link.set(qn("w:anchor"), entry.bookmark)
    link.set(qn("w:history"), "1")
    link.append(_run(_text(entry.text)))
    link.append(_run(OxmlElement("w:tab")))
    for run in field_runs(f"PAGEREF {entry.bookmark} \\h", ""):
        link.append(run)
    p.append(link)
    return p


def add_table_of_contents(doc: Document, entries: Sequence[TocEntry], title: str = "目  录") -> None:
    """A TOC title and a TOC field whose cached result is a hint line plus one line per heading.

    The cached lines carry PAGEREF fields to the headings' bookmarks, so readers that compute
    references (LibreOffice, WPS) show page numbers even before the TOC is updated.
    """
    doc.add_paragraph(title, style=TOC_TITLE)
    begin = doc.add_paragraph(style=TOC_HINT)
    p = begin._p
    p.append(_run(_fld_char("begin", dirty=True)))
    p.append(_run(_instr(TOC_INSTRUCTION)))
    p.append(_run(_fld_char("separate")))
    p.append(_run(_text(TOC_HINT_TEXT)))
    style_ids = {level: doc.styles[f"toc {level}"].style_id for level in (1, 2, 3)}
    last = p
    for entry in entries:
        entry_p = _toc_entry_paragraph(entry, style_ids[min(max(entry.level, 1), 3)])
        last.addnext(entry_p)
        last = entry_p
    end_p = OxmlElement("w:p")
    end_p.append(_run(_fld_char("end")))
    last.addnext(end_p)


def restart_page_numbering(section: Section, start: int = 1) -> None:
    """Make ``section`` number its pages from ``start`` in Arabic numerals."""
    sect_pr = section._sectPr
    pg = sect_pr.find(qn("w:pgNumType"))
    if pg is None:
        pg = OxmlElement("w:pgNumType")
        insert_before_any(sect_pr, pg, _SECTPR_AFTER_PGNUMTYPE)
    pg.set(qn("w:fmt"), "decimal")
    pg.set(qn("w:start"), str(start))


def add_page_number_footer(section: Section, total_pages_offset: int = 0) -> None:
    """Footer "第 X 页 共 Y 页" from PAGE and NUMPAGES fields, centred.

    ``total_pages_offset`` is subtracted from NUMPAGES (a nested ``=`` formula) so the total
    matches the numbering when unnumbered cover pages precede it.
    """
    footer = section.footer
    footer.is_linked_to_previous = False
    paragraph = footer.paragraphs[0] if footer.paragraphs else footer.add_paragraph()
    paragraph.style = "Footer"
    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
    paragraph.add_run("第 ")
    add_field(paragraph, "PAGE", "1")
    paragraph.add_run(" 页 共 ")
    if total_pages_offset:
        _add_numpages_minus(paragraph, total_pages_offset)
    else:
        add_field(paragraph, "NUMPAGES", "1")
    paragraph.add_run(" 页")


def _add_numpages_minus(paragraph: Paragraph, offset: int) -> None:
    """``{ = { NUMPAGES } - offset }``: Word evaluates the nested field, then the formula."""
    p = paragraph._p
    p.append(_run(_fld_char("begin")))
    p.append(_run(_instr("=")))
    for run in field_runs("NUMPAGES", "1"):
        p.append(run)
    p.append(_run(_instr(f"- {offset}")))
    p.append(_run(_fld_char("separate")))
    p.append(_run(_fld_char("end")))


def add_header_text(section: Section, text: str) -> None:
    """A one-line centred header (project name); unlinked from the previous section."""
    header = section.header
    header.is_linked_to_previous = False
    paragraph = header.paragraphs[0] if header.paragraphs else header.add_paragraph()
    paragraph.style = "Header"
    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
    paragraph.add_run(text)

"""Word fields: the table of contents, PAGEREF page numbers, "第 X 页 共 Y 页" and section numbering.

Fields are written as complex fields (begin / instrText / separate / result / end) with a
cached result. Every result that is a page number (TOC entries, ``PAGEREF`` cells of the
index and deviation tables, the footer total) is registered in :class:`PageFields`, so the
layout pass can write the real numbers into the cached results before the file is saved;
``w:updateFields`` still asks Word to refresh them after later edits. Nothing in the
document tells the reader to update fields: the delivered file carries no instructions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from app.export.styles import TOC_TITLE, insert_before_any

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
#: Bookmark on the first paragraph after the cover: its page is where numbering starts.
BODY_START_BOOKMARK: Final = "_BidBodyStart"


@dataclass(frozen=True)
class TocEntry:
    """One cached TOC line: heading level (1–3), its text and the bookmark it links to."""

    level: int
    text: str
    bookmark: str


@dataclass
class PageFields:
    """The cached results of every page-number field in one document, to fill after layout.

    ``refs`` holds ``(bookmark, w:t)`` of each ``PAGEREF`` result (TOC entries included);
    ``totals`` the ``w:t`` of each "共 Y 页" result.
    """

    refs: list[tuple[str, BaseOxmlElement]] = field(default_factory=list)
    totals: list[BaseOxmlElement] = field(default_factory=list)

    @property
    def bookmarks(self) -> set[str]:
        """Every bookmark some field refers to."""
        return {name for name, _ in self.refs}

    def fill(self, pages: Mapping[str, int], total: int | None) -> list[str]:
        """Write ``pages[bookmark]`` into each reference and ``total`` into each total.

        Returns the bookmarks that had no page (their results are left empty).
        """
        missing: list[str] = []
        for name, text in self.refs:
            page = pages.get(name)
            text.text = str(page) if page is not None else ""
            if page is None and name not in missing:
                missing.append(name)
        if total is not None:
            for text in self.totals:
                text.text = str(total)
        return missing

    def fill_placeholder(self, digits: int) -> None:
        """Put ``digits`` zeros in every result, so a layout sees numbers as wide as the real ones."""
        for _, text in self.refs:
            text.text = "0" * digits
        for text in self.totals:
            text.text = "0" * digits

    def clear(self) -> None:
        """Empty every page reference (no layout was possible: only an update can fill them)."""
        for _, text in self.refs:
            text.text = ""


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


def _result_text(runs: list[BaseOxmlElement]) -> BaseOxmlElement:
    """The ``w:t`` holding the cached result of runs made by :func:`field_runs`."""
    text: BaseOxmlElement | None = runs[3].find(qn("w:t"))
    assert text is not None
    return text


def add_field(paragraph: Paragraph, instruction: str, cached: str) -> BaseOxmlElement:
    """Append a complex field (e.g. ``PAGE``) to ``paragraph``; returns its result ``w:t``."""
    runs = field_runs(instruction, cached)
    for run in runs:
        paragraph._p.append(run)
    return _result_text(runs)


def add_page_ref(paragraph: Paragraph, bookmark: str, fields: PageFields) -> None:
    """Append ``PAGEREF bookmark \\h`` (the page the bookmark is on) and register its result."""
    fields.refs.append((bookmark, add_field(paragraph, f"PAGEREF {bookmark} \\h", "")))


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


def _toc_entry_paragraph(entry: TocEntry, style_id: str, fields: PageFields) -> BaseOxmlElement:
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
    runs = field_runs(f"PAGEREF {entry.bookmark} \\h", "")
    for run in runs:
        link.append(run)
    fields.refs.append((entry.bookmark, _result_text(runs)))
    p.append(link)
    return p


def add_table_of_contents(
    doc: Document, entries: Sequence[TocEntry], fields: PageFields, title: str = "目  录"
) -> Paragraph:
    """A TOC title and a TOC field whose cached result is one line per heading; returns the title.

    The field begins in the first entry line and ends in the last one, as Word writes it, so
    no extra line (and no instruction text) appears. Each line's page number is a PAGEREF to
    the heading's bookmark, registered in ``fields`` for the layout pass.
    """
    title_paragraph = doc.add_paragraph(title, style=TOC_TITLE)
    style_ids = {level: doc.styles[f"toc {level}"].style_id for level in (1, 2, 3)}
    lines = [_toc_entry_paragraph(e, style_ids[min(max(e.level, 1), 3)], fields) for e in entries]
    if not lines:
        empty = OxmlElement("w:p")
        ppr = OxmlElement("w:pPr")
        style = OxmlElement("w:pStyle")
        style.set(qn("w:val"), style_ids[1])
        ppr.append(style)
        empty.append(ppr)
        lines = [empty]
    first, last = lines[0], lines[-1]
    opening = [_run(_fld_char("begin", dirty=True)), _run(_instr(TOC_INSTRUCTION)), _run(_fld_char("separate"))]
    anchor = first.find(qn("w:pPr"))
    for run in opening:
        anchor.addnext(run)
        anchor = run
    last.append(_run(_fld_char("end")))
    previous = title_paragraph._p
    for line in lines:
        previous.addnext(line)
        previous = line
    return title_paragraph


def restart_page_numbering(section: Section, start: int = 1) -> None:
    """Make ``section`` number its pages from ``start`` in Arabic numerals."""
    sect_pr = section._sectPr
    pg = sect_pr.find(qn("w:pgNumType"))
    if pg is None:
        pg = OxmlElement("w:pgNumType")
        insert_before_any(sect_pr, pg, _SECTPR_AFTER_PGNUMTYPE)
    pg.set(qn("w:fmt"), "decimal")
    pg.set(qn("w:start"), str(start))


def add_page_number_footer(section: Section, fields: PageFields, after_cover: bool = False) -> None:
    """Footer "第 X 页 共 Y 页", centred; Y is registered in ``fields`` for the layout pass.

    After an unnumbered cover section the total is ``SECTIONPAGES`` (the pages of this
    section, which Word and WPS compute): a ``= NUMPAGES - 1`` formula is not evaluated by
    LibreOffice, which showed the whole page count plus its inserted blank page instead.
    LibreOffice shows the cached result of ``SECTIONPAGES``, which the layout pass writes.
    Without a cover the total is plain ``NUMPAGES``, which every reader computes.
    """
    footer = section.footer
    footer.is_linked_to_previous = False
    paragraph = footer.paragraphs[0] if footer.paragraphs else footer.add_paragraph()
    paragraph.style = "Footer"
    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
    paragraph.add_run("第 ")
    add_field(paragraph, "PAGE", "1")
    paragraph.add_run(" 页 共 ")
    fields.totals.append(add_field(paragraph, "SECTIONPAGES" if after_cover else "NUMPAGES", "1"))
    paragraph.add_run(" 页")


def add_header_text(section: Section, text: str) -> None:
    """A one-line centred header (project name); unlinked from the previous section."""
    header = section.header
    header.is_linked_to_previous = False
    paragraph = header.paragraphs[0] if header.paragraphs else header.add_paragraph()
    paragraph.style = "Header"
    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
    paragraph.add_run(text)

"""The 商务 volume: the tender's own forms, in its order, filled, with a cover and a table of contents.

Each form starts a page under its title as the tender prints it (a level-1 heading, so the TOC
lists it). A DOCX tender's form is copied from the tender itself — paragraphs, runs, tables,
numbering, pictures — through docxcompose, which carries the styles and numbering along; its
blanks are written into the copied runs underlined (:mod:`.runs`). A PDF tender's form is
rebuilt: paragraphs with their alignment, ruled tables with merged cells (:mod:`.rebuild`).
A blank nobody filled keeps the tender's own placeholder, visibly empty. Certificates with a
file are inserted where a form asks for their copy (:mod:`.copies`). With LibreOffice the
volume is laid out once and the TOC's page numbers are written, as for the technical part;
the office's Word template gives the styles, page setup and cover, as it does there.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import docx
from docx.enum.section import WD_SECTION

from app.core.bid_forms import FilledBlank, FormParagraph, FormsReading, FormTable, TenderForm, blank_key
from app.export.fields import (
    PageFields,
    TocEntry,
    add_page_number_footer,
    add_table_of_contents,
    bookmark_paragraph,
    enable_update_fields_on_open,
    restart_page_numbering,
)
from app.export.forms.copies import CertificateCopy, copies_for, insert_copies
from app.export.forms.rebuild import write_paragraph, write_table
from app.export.forms.runs import fill_paragraph, strip_breaks
from app.export.options import ExportError, ExportMeta

if TYPE_CHECKING:
    pass

PRESET = "标准投标版"
#: Where the 商务 volume's page numbering starts (its TOC); not the technical part's bookmark, so both can
#: stand in one file.
FORMS_BODY_START = "_BidFormsBodyStart"


@dataclass(frozen=True)
class FormsVolumeOptions:
    """Choices for one 商务 volume: which forms, the office template, the cover's words, layout."""

    include_conditional: bool = True
    left_out: frozenset[str] = frozenset()  # form keys the user marked 不适用
    template: str | None = None
    template_headings: tuple[str, ...] | None = None
    title: str = "投标文件（商务部分）"
    project_name: str = ""
    bidder_name: str = ""
    date_text: str = ""
    layout_pass: bool = True


@dataclass(frozen=True)
class FormsExportReport:
    """What was written: the file, forms, blanks filled and left empty, copies inserted, notes."""

    path: Path
    forms: int
    filled: int
    empty: int
    copies: int
    laid_out: bool
    notes: tuple[str, ...] = ()


@dataclass
class _Volume:
    doc: Any
    fields: PageFields
    marks: list[tuple[str, str]] = field(default_factory=list)  # (bookmark, title)
    first_text: str = ""
    filled: int = 0
    empty: int = 0
    copies: int = 0
    forms: int = 0
    notes: list[str] = field(default_factory=list)


def _start(options: FormsVolumeOptions, notes: list[str]) -> tuple[Any, str, bool]:
    """The document to write into, the style name of a form's title, and whether a template cover was kept."""
    from app.export.presets import get_preset
    from app.export.styles import apply_preset_styles

    preset = get_preset(PRESET)
    if options.template:
        from app.export.template import (
            clear_body,
            fill_cover,
            has_cover,
            heading_style_ids,
            load_template,
            resolve_headings,
            restore_styles,
            snapshot_styles,
        )

        doc = load_template(options.template)
        names = resolve_headings(doc, options.template_headings)
        kept = has_cover(doc)
        if kept:
            fill_cover(doc, _meta(options), False)
        else:
            clear_body(doc)
        snapshot = snapshot_styles(doc)
        apply_preset_styles(doc, preset, True)
        restore_styles(doc, snapshot)
        heading_style_ids(doc, names)  # the heading gets an outline level when the template set none
        return doc, names[0], kept
    doc = docx.Document()
    apply_preset_styles(doc, preset, True)
    section = doc.sections[0]
    page = preset.page
    from docx.shared import Cm

    section.page_width, section.page_height = Cm(21.0), Cm(29.7)
    section.top_margin, section.bottom_margin = Cm(page.top_cm), Cm(page.bottom_cm)
    section.left_margin, section.right_margin = Cm(page.left_cm), Cm(page.right_cm)
    return doc, "Heading 1", False


def _meta(options: FormsVolumeOptions) -> ExportMeta:
    return ExportMeta(project_name=options.project_name, bidder_name=options.bidder_name or "【投标人名称】",
                      date=options.date_text or None, document_title=options.title)


def _cover(doc: Any, options: FormsVolumeOptions) -> None:
    from app.export.cover import write_cover
    from app.export.presets import get_preset

    write_cover(doc, _meta(options), get_preset(PRESET), "【项目名称】")


def _docx_form(source: bytes, form: TenderForm, values: Mapping[str, FilledBlank]) -> tuple[Any | None, int, int]:
    """The form's own body copied out of the tender, its blanks filled: (document, filled, empty)."""
    sources = [it.source for it in form.items if it.source >= 0]
    if not sources:
        return None, 0, 0
    part = docx.Document(io.BytesIO(source))
    body = part.element.body
    children = list(body)
    lo, hi = min(sources), max(sources)
    elements = {k: children[k] for k in range(lo, hi + 1) if k < len(children)}
    filled = empty = 0
    by_item: dict[int, list[tuple[int, int, str]]] = {}
    for b in form.blanks:
        value = values.get(blank_key(form, b), FilledBlank()).value
        if b.field == "signature":
            continue
        if not value:
            empty += 1
            continue
        item = form.items[b.item]
        element = elements.get(item.source)
        if element is None:
            continue
        if isinstance(item, FormTable):
            _fill_cell(element, part, b.row, b.col, value)
        else:
            by_item.setdefault(item.source, []).append((b.start, b.end, value))
        filled += 1
    for src, spans in by_item.items():
        fill_paragraph(elements[src], spans)
    for k, child in enumerate(children):
        if k not in elements and not child.tag.endswith("sectPr"):
            body.remove(child)
    for element in elements.values():
        strip_breaks(element)
    return part, filled, empty


def _fill_cell(tbl: Any, part: Any, row: int, col: int, value: str) -> None:
    from docx.table import Table

    table = Table(tbl, part._body)
    try:
        cell = table.rows[row].cells[col]
    except IndexError:
        return
    paragraph = cell.paragraphs[-1]
    run = paragraph.add_run(value)
    run.underline = True


def _write_form(vol: _Volume, form: TenderForm, values: Mapping[str, FilledBlank], reading: FormsReading,
                composer: Any, source: bytes | None, certificates: Sequence[CertificateCopy]) -> None:
    if reading.source_kind == "docx" and source is not None:
        part, filled, empty = _docx_form(source, form, values)
        if part is not None:
            composer.append(part)
    else:
        filled = empty = 0
        for k, item in enumerate(form.items):
            blanks = [b for b in form.blanks if b.item == k]
            got = [(b, values.get(blank_key(form, b), FilledBlank())) for b in blanks]
            filled += sum(1 for b, v in got if v.value and b.field != "signature")
            empty += sum(1 for b, v in got if not v.value and b.field != "signature")
            if isinstance(item, FormParagraph):
                write_paragraph(vol.doc, item, got)
            else:
                write_table(vol.doc, item, got)
    vol.filled += filled
    vol.empty += empty
    chosen, notes = copies_for(form, certificates)
    vol.notes += notes
    if chosen:
        vol.notes += insert_copies(vol.doc, chosen)
        vol.copies += len(chosen)
    if form.self_drafted and not form.items:
        vol.doc.add_paragraph("（格式自拟：请在此编写）")


def build_forms_volume(reading: FormsReading, values: Mapping[str, FilledBlank], *,
                       certificates: Sequence[CertificateCopy] = (), options: FormsVolumeOptions | None = None) -> _Volume:
    """The 商务 volume as a Word document in memory (``values`` by :func:`~app.core.bid_forms.blank_key`)."""
    from docxcompose.composer import Composer

    options = options or FormsVolumeOptions()
    forms = [f for f in reading.forms if f.key not in options.left_out
             and (options.include_conditional or f.requirement == "required")]
    if not forms:
        raise ExportError("没有可导出的投标文件格式：招标文件没有规定格式，或全部标记为不适用")
    source: bytes | None = None
    if reading.source_kind == "docx":
        try:
            source = Path(reading.source_path).read_bytes()
        except OSError as exc:
            raise ExportError(f"找不到招标文件“{Path(reading.source_path).name}”，无法复制其中的格式：{exc}") from None
    notes: list[str] = []
    doc, heading_style, cover_kept = _start(options, notes)
    enable_update_fields_on_open(doc)
    fields = PageFields()
    vol = _Volume(doc, fields, notes=notes)
    if not cover_kept:
        _cover(doc, options)
    doc.add_section(WD_SECTION.NEW_PAGE)
    body_section = doc.sections[-1]
    restart_page_numbering(body_section, 1)
    add_page_number_footer(body_section, fields, after_cover=True)
    marks = [(f"_BidForm{k}", f.title) for k, f in enumerate(forms, 1)]
    toc = add_table_of_contents(doc, [TocEntry(1, title, mark) for mark, title in marks], fields)
    bookmark_paragraph(toc, FORMS_BODY_START, len(forms) + 1)
    vol.first_text = toc.text
    composer = Composer(doc)
    for k, (form, (mark, title)) in enumerate(zip(forms, marks, strict=True), 1):
        heading = doc.add_paragraph(title, style=heading_style)
        heading.paragraph_format.page_break_before = True
        bookmark_paragraph(heading, mark, k)
        _write_form(vol, form, values, reading, composer, source, certificates)
        vol.forms += 1
    vol.marks = marks
    return vol


def _save(doc: Any, target: Path) -> None:
    from app.export.docx_writer import save_atomically

    save_atomically(doc, target)


def export_forms_volume(reading: FormsReading, values: Mapping[str, FilledBlank], path: str | Path, *,
                        certificates: Sequence[CertificateCopy] = (), options: FormsVolumeOptions | None = None,
                        soffice: str | None = None) -> FormsExportReport:
    """Write the 商务 volume to ``path`` (.docx added when missing); Chinese :class:`ExportError` on failure.

    With ``options.layout_pass`` and LibreOffice the TOC's page numbers are written; without, the
    fields stay for Word/WPS to update and the report says so.
    """
    from app.export.layout_pass import HeadingMark, LayoutError, find_soffice, lay_out

    options = options or FormsVolumeOptions()
    target = Path(path)
    if target.suffix.lower() != ".docx":
        target = target.with_name(target.name + ".docx")
    vol = build_forms_volume(reading, values, certificates=certificates, options=options)
    laid_out = False
    if options.layout_pass:
        exe = soffice or find_soffice()
        if exe is None:
            vol.notes.append("本机未安装 LibreOffice，目录页码以域保存：在 Word/WPS 中打开时选择更新域即可显示")
        else:
            marks = [HeadingMark(mark, 1, title) for mark, title in vol.marks]
            vol.fields.fill_placeholder(2)
            try:
                layout = lay_out(lambda p: vol.doc.save(str(p)), marks, FORMS_BODY_START, vol.first_text, soffice=exe)
            except LayoutError as exc:
                vol.fields.clear()
                vol.notes.append(f"页码排版未完成（{exc.message_zh}），目录页码以域保存，打开时请更新域")
            else:
                vol.fields.fill(layout.pages, layout.body_pages)
                laid_out = True
    _save(vol.doc, target)
    if vol.empty:
        vol.notes.append(f"有 {vol.empty} 处空白无人填写，已原样保留（下划线空白），请在 Word 中补填")
    return FormsExportReport(target, vol.forms, vol.filled, vol.empty, vol.copies, laid_out, tuple(vol.notes))

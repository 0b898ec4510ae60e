"""The Word writer: an outline (with any drafted text) becomes a .docx a bid office can hand in.

Layout: a cover in its own unnumbered section, then a section holding the TOC, the optional
评分索引表 and 技术偏离表, and the chapters, numbered from 1 with "第 X 页 共 Y 页" in the
footer. Headings carry literal numbers, outline levels and hidden ``_Toc`` bookmarks;
section text is rendered from light markdown. With ``layout_pass`` and LibreOffice
installed, the document is laid out once and the real page numbers are written into every
page field's cached result (:mod:`app.export.layout_pass`). A 暗标 document is searched for
the bidder's name and short forms after it is built (:mod:`app.export.anonymity`). The
file is written atomically (temp file, fsync, rename).
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import docx
from docx.enum.section import WD_SECTION
from docx.enum.text import WD_BREAK
from docx.parts.image import ImagePart
from docx.shared import Cm, Twips

from app.core.atomic_file import AtomicWriteError, atomic_write_bytes
from app.core.length_budget import PageLine, chapter_budgets, chapter_page_counts, chapter_points, page_report
from app.core.outline import Outline, OutlineNode
from app.core.response_map import deviation_entries, index_entries
from app.export.anonymity import (
    find_mentions,
    mentions_message,
    name_forms,
    strip_identifying_metadata,
    weak_message,
)
from app.export.block_writer import BlockWriter, BodyAppender
from app.export.cover import write_cover
from app.export.fields import (
    BODY_START_BOOKMARK,
    PageFields,
    TocEntry,
    add_header_text,
    add_page_number_footer,
    add_table_of_contents,
    bookmark_paragraph,
    enable_update_fields_on_open,
    restart_page_numbering,
)
from app.export.figures.writer import FigureWriter
from app.export.layout_pass import HeadingMark, LayoutError, find_soffice, lay_out
from app.export.markdown_blocks import parse_blocks, xml_safe
from app.export.numbering import numbered_title
from app.export.options import ExportError, ExportMeta, ExportOptions
from app.export.presets import ExportPreset, get_preset
from app.export.properties import write_properties
from app.export.response_tables import SectionRef, write_deviation_table, write_index_table
from app.export.review_sheet import ReviewRows, write_review_table
from app.export.styles import GUIDANCE, apply_preset_styles
from app.export.template import (
    clear_body,
    fill_cover,
    has_cover,
    heading_style_ids,
    load_template,
    numbered_by_style,
    resolve_headings,
    restore_styles,
    section_has_content,
    snapshot_styles,
)
from app.export.template_safety import drop_external_links, drop_unused_custom_styles, make_anonymous

if TYPE_CHECKING:
    from docx.document import Document
    from docx.section import Section
    from docx.text.paragraph import Paragraph

    from app.core.analysis import Analysis
    from app.core.breakdown import Breakdown

PROJECT_PLACEHOLDER: Final = "【项目名称】"
GUIDANCE_PREFIX: Final = "【编写提示】"
_TOC_LEVELS: Final = 3
_MAX_STYLE_LEVEL: Final = 4


@dataclass(frozen=True)
class _Heading:
    """One node to write: its display path (numbering), outline path, text and bookmark."""

    path: tuple[int, ...]
    node: OutlineNode
    text: str
    bookmark: str
    original: tuple[int, ...]


@dataclass(frozen=True)
class ExportReport:
    """What an export did: the file, whether page numbers were laid out, and notes for the user.

    ``laid_out`` is True when LibreOffice laid the document out and the TOC, tables and footer
    carry real page numbers; otherwise ``notes`` says why and Word computes them on update.
    ``warnings`` lists what the user should check (a possible short name in a 暗标 file …).
    """

    path: Path
    laid_out: bool
    body_pages: int | None = None
    layout_seconds: float | None = None
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    #: After layout: (chapter title, pages, budgeted pages or None) for each exported chapter.
    chapter_pages: tuple[tuple[str, int, float | None], ...] = ()

    def summary_zh(self) -> str:
        """One or two sentences for the status bar or a message box."""
        parts = [f"已导出 Word：{self.path.name}"]
        if self.laid_out and self.body_pages is not None:
            parts.append(f"正文共 {self.body_pages} 页，目录和索引表页码已按排版结果写入")
        parts += list(self.notes)
        return "；".join(parts) + "。"


@dataclass
class _Built:
    """A built document and what the layout pass needs to fill its page numbers."""

    doc: Document
    fields: PageFields
    headings: list[_Heading]
    first_text: str
    warnings: list[str]
    notes: list[str]


def select_chapters(
    chapters: Sequence[OutlineNode], indexes: tuple[int, ...] | None
) -> list[tuple[int, OutlineNode]]:
    """``(original index, chapter)`` pairs to export, in outline order; Chinese error on bad input."""
    if not chapters:
        raise ExportError("目录为空，没有可导出的章节")
    if indexes is None:
        return list(enumerate(chapters))
    if not indexes:
        raise ExportError("没有选择任何章节，请至少选择一章再导出")
    bad = sorted({i for i in indexes if not 0 <= i < len(chapters)})
    if bad:
        shown = "、".join(str(i + 1) for i in bad)
        raise ExportError(f"所选章节不存在：第 {shown} 章（目录共 {len(chapters)} 章）")
    return [(i, chapters[i]) for i in sorted(set(indexes))]


def _walk(node: OutlineNode, path: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], OutlineNode]]:
    yield path, node
    for i, child in enumerate(node.children):
        yield from _walk(child, (*path, i))


def _headings(selected: list[tuple[int, OutlineNode]], options: ExportOptions) -> list[_Heading]:
    out: list[_Heading] = []
    for position, (original, chapter) in enumerate(selected):
        first = original if options.keep_original_numbers else position
        for path, node in _walk(chapter, (first,)):
            bookmark = f"_Toc{100000001 + len(out)}"
            text = xml_safe(numbered_title(path, node.title, options.numbering))
            out.append(_Heading(path, node, text, bookmark, (original, *path[1:])))
    return out


def _check_anonymous(doc: Document, meta: ExportMeta) -> list[str]:
    """暗标: refuse a document that names the bidder anywhere; warnings for a possible short name."""
    if not meta.has_real_bidder() and not meta.bidder_aliases:
        return []
    bidder = meta.bidder_name.strip() if meta.has_real_bidder() else ""
    forms = name_forms(bidder, meta.bidder_aliases) if bidder else name_forms(meta.bidder_aliases[0],
                                                                               meta.bidder_aliases[1:])
    strong, weak = find_mentions(doc, forms)
    if strong:
        raise ExportError(mentions_message(bidder or meta.bidder_aliases[0], strong))
    return [weak_message(weak)] if weak else []


def _apply_page_setup(section: Section, preset: ExportPreset) -> None:
    page = preset.page
    # Whole twips, as Word stores A4 (11906 x 16838).
    section.page_width = Twips(round(page.width_cm * 1440 / 2.54))
    section.page_height = Twips(round(page.height_cm * 1440 / 2.54))
    section.top_margin = Cm(page.top_cm)
    section.bottom_margin = Cm(page.bottom_cm)
    section.left_margin = Cm(page.left_cm)
    section.right_margin = Cm(page.right_cm)
    section.gutter = Cm(page.gutter_cm)
    section.header_distance = Cm(page.header_cm)
    section.footer_distance = Cm(page.footer_cm)


def build_document(
    source: Outline | Sequence[OutlineNode], meta: ExportMeta, options: ExportOptions | None = None, *,
    analysis: Analysis | None = None, breakdown: Breakdown | None = None, review: ReviewRows | None = None,
) -> Document:
    """Build the python-docx document in memory (what :func:`export_docx` saves, without layout)."""
    return _build(source, meta, options or ExportOptions(), analysis, breakdown, review).doc


def _clean_meta(meta: ExportMeta) -> ExportMeta:
    return ExportMeta(
        project_name=xml_safe(meta.project_name),
        bidder_name=xml_safe(meta.bidder_name),
        date=xml_safe(meta.date) if isinstance(meta.date, str) else meta.date,
        document_title=xml_safe(meta.document_title),
        bidder_aliases=tuple(xml_safe(a) for a in meta.bidder_aliases if a.strip()),
    )


def _build(source: Outline | Sequence[OutlineNode], meta: ExportMeta, options: ExportOptions,
           analysis: Analysis | None, breakdown: Breakdown | None, review: ReviewRows | None = None) -> _Built:
    meta = _clean_meta(meta)
    preset = get_preset(options.preset)
    chapters = source.chapters if isinstance(source, Outline) else list(source)
    notes: list[str] = []
    fields = PageFields()
    if options.template:
        doc, heading_ids, cover_kept, options = _from_template(options, meta, preset, notes)
    else:
        doc = docx.Document()
        apply_preset_styles(doc, preset, options.page_break_before_chapters)
        _apply_page_setup(doc.sections[0], preset)
        heading_ids = [doc.styles[f"Heading {level}"].style_id for level in range(1, _MAX_STYLE_LEVEL + 1)]
        cover_kept = False
    headings = _headings(select_chapters(chapters, options.chapters), options)
    enable_update_fields_on_open(doc)

    if cover_kept:
        doc.add_section(WD_SECTION.NEW_PAGE)
    elif options.include_cover:
        write_cover(doc, meta, preset, PROJECT_PLACEHOLDER)
        doc.add_section(WD_SECTION.NEW_PAGE)
    body_section = doc.sections[-1]
    restart_page_numbering(body_section, 1)
    keep_footer = bool(options.template) and section_has_content(list(body_section.footer.paragraphs))
    keep_header = bool(options.template) and section_has_content(list(body_section.header.paragraphs))
    if not keep_footer:
        add_page_number_footer(body_section, fields, after_cover=options.include_cover)
    if preset.show_header and not keep_header:
        project = meta.project_name.strip() or PROJECT_PLACEHOLDER
        add_header_text(body_section, f"{project}　{meta.document_title}")

    front: list[Paragraph] = []
    if options.include_toc:
        entries = [TocEntry(len(h.path), h.text, h.bookmark) for h in headings if len(h.path) <= _TOC_LEVELS]
        front.append(add_table_of_contents(doc, entries, fields))
    by_path = {h.original: SectionRef(h.text, h.bookmark) for h in headings}
    if options.index_table and analysis is not None:
        rows = index_entries(analysis, chapters)
        if rows:
            front.append(write_index_table(doc, preset, rows, by_path.get, fields, page_break=bool(front)))
    if options.deviation_table and breakdown is not None:
        clauses = deviation_entries(breakdown, chapters)
        if clauses:
            front.append(write_deviation_table(doc, preset, clauses, by_path.get, fields, page_break=bool(front)))
    if front and not options.page_break_before_chapters:
        doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)

    figures = _figure_writer(doc, body_section)
    first_heading = _write_body(doc, headings, preset, options, figures, heading_ids)
    if options.review_table and review is not None and review[1]:
        write_review_table(doc, preset, review[0], review[1])
    start = front[0] if front else first_heading
    first_text = start.text if start is not None else ""
    if start is not None:
        bookmark_paragraph(start, BODY_START_BOOKMARK, len(headings) + 1)
    write_properties(doc, meta, preset.anonymous)
    warnings: list[str] = list(figures.warnings)
    if preset.anonymous:
        if options.template:
            drop_unused_custom_styles(doc)  # a template style named after the office must not show
        warnings += _check_anonymous(doc, meta)
        strip_identifying_metadata(doc)
    return _Built(doc, fields, headings, first_text, warnings, notes + list(figures.notes))


def _from_template(options: ExportOptions, meta: ExportMeta, preset: ExportPreset,
                   notes: list[str]) -> tuple[Document, list[str], bool, ExportOptions]:
    """The office's template as the document: its styles kept, the preset's added where missing.

    Returns the document, the heading style ids per level, whether its cover was kept, and the
    options (numbering off when the template's heading styles number themselves).
    """
    assert options.template is not None
    doc = load_template(options.template)
    notes.extend(drop_external_links(doc))  # nothing in the bid reaches out when it is opened
    names = resolve_headings(doc, options.template_headings)
    if numbered_by_style(doc, names) and options.numbering != "none":
        options = replace(options, numbering="none")
        notes.append("模板的标题样式自带编号，导出时不再另写标题编号")
    # 暗标: the template's cover names the office; the preset's anonymous cover is written instead.
    cover_kept = options.include_cover and has_cover(doc) and not preset.anonymous
    if cover_kept:
        fill_cover(doc, meta, preset.anonymous)
    else:
        clear_body(doc)
    snapshot = snapshot_styles(doc)
    apply_preset_styles(doc, preset, options.page_break_before_chapters)
    restore_styles(doc, snapshot)
    if preset.anonymous:  # no header, footer, colour or custom property of the template's
        make_anonymous(doc)
        notes.append("暗标：未使用模板的封面、页眉页脚和颜色（全部黑色、无页眉），只保留其版面和字体")
    return doc, heading_style_ids(doc, names), cover_kept, options


def _figure_writer(doc: Document, section: Section) -> FigureWriter:
    """A figure writer sized to the body section's text area."""
    width = int(section.page_width or 0) - int(section.left_margin or 0) - int(section.right_margin or 0) \
        - int(section.gutter or 0)
    height = int(section.page_height or 0) - int(section.top_margin or 0) - int(section.bottom_margin or 0)
    return FigureWriter(doc, BodyAppender(doc), max(width, 1), max(height, 1))


def _write_body(
    doc: Document, headings: list[_Heading], preset: ExportPreset, options: ExportOptions,
    figures: FigureWriter, heading_styles: list[str],
) -> Paragraph | None:
    """Headings (bookmarked), guidance, section text and figures; returns the first heading's paragraph."""
    guidance_style = doc.styles[GUIDANCE].style_id
    break_chapters = bool(options.template) and options.page_break_before_chapters
    writer = BlockWriter(doc, preset)
    first: Paragraph | None = None
    for bookmark_id, h in enumerate(headings, start=1):
        style = heading_styles[min(len(h.path), _MAX_STYLE_LEVEL) - 1]
        paragraph = writer.body.paragraph(style, h.text)
        if break_chapters and len(h.path) == 1:
            paragraph.paragraph_format.page_break_before = True
        first = first or paragraph
        bookmark_paragraph(paragraph, h.bookmark, bookmark_id)
        description = h.node.description.strip()
        if options.include_descriptions and description:
            writer.body.paragraph(guidance_style, xml_safe(f"{GUIDANCE_PREFIX}{description}"))
        if h.node.content.strip():
            writer.write(parse_blocks(h.node.content))
        if h.node.figures:
            figures.write(h.node.figures, h.path[0] + 1)
    return first


def _target_path(path: str | os.PathLike[str]) -> Path:
    target = Path(path)
    if target.suffix.lower() != ".docx":
        target = target.with_name(target.name + ".docx")
    if not target.parent.is_dir():
        raise ExportError(f"保存位置不存在：{target.parent}")
    return target


def save_atomically(doc: Document, target: Path) -> None:
    """Write the document through ``core.atomic_file`` (temp file, fsync, rename); Chinese errors."""
    buffer = io.BytesIO()
    doc.save(buffer)
    try:
        atomic_write_bytes(target, buffer.getvalue())
    except AtomicWriteError as exc:
        if isinstance(exc.cause, PermissionError):
            raise ExportError(
                f"无法写入“{target.name}”：文件可能正在被 Word 或 WPS 打开，或没有写入权限。请关闭该文件后重试。"
            ) from None
        raise ExportError(f"保存“{target.name}”失败：{exc.cause.strerror or exc.cause}") from None


def export_docx(
    source: Outline | Sequence[OutlineNode],
    path: str | os.PathLike[str],
    meta: ExportMeta,
    options: ExportOptions | None = None,
    *,
    analysis: Analysis | None = None,
    breakdown: Breakdown | None = None,
) -> Path:
    """Export the outline (or a list of chapters) to a Word file and return its path.

    ``.docx`` is appended when missing. Raises :class:`ExportError` with a Chinese
    ``message_zh`` for bad selections, 暗标 violations and write failures.
    """
    return export_bid(source, path, meta, options, analysis=analysis, breakdown=breakdown).path


def export_bid(
    source: Outline | Sequence[OutlineNode],
    path: str | os.PathLike[str],
    meta: ExportMeta,
    options: ExportOptions | None = None,
    *,
    analysis: Analysis | None = None,
    breakdown: Breakdown | None = None,
    soffice: str | None = None,
    layout_profile: Path | None = None,
    review: ReviewRows | None = None,
) -> ExportReport:
    """Export and report: with ``options.layout_pass`` the document is laid out by LibreOffice
    (``soffice``, else the one found on this machine) and the real page numbers are written
    into the TOC, the index and deviation tables and the footer total before saving.
    ``layout_profile`` keeps LibreOffice's profile between exports (the app passes one in
    its data folder); None uses a fresh one each time. ``review`` is the 自评表 (header and
    rows) written after the body when ``options.review_table`` is set.

    Without LibreOffice, or when the layout fails, the file is still written (fields kept for
    Word to compute on update) and the report says why. Raises :class:`ExportError` like
    :func:`export_docx`.
    """
    options = options or ExportOptions()
    target = _target_path(path)
    built = _build(source, meta, options, analysis, breakdown, review)
    notes: list[str] = list(built.notes)
    chapter_pages: list[tuple[str, int, float | None]] = []
    laid_out = False
    body_pages: int | None = None
    seconds: float | None = None
    if options.layout_pass:
        exe = soffice or find_soffice()
        if exe is None:
            notes.append("本机未安装 LibreOffice，页码以域保存：在 Word/WPS 中打开时选择更新域即可显示页码")
        else:
            try:
                layout = _lay_out(built, exe, layout_profile)
            except LayoutError as exc:
                built.fields.clear()
                notes.append(f"页码排版未完成（{exc.message_zh}），页码以域保存，打开时请更新域")
            else:
                laid_out, body_pages, seconds = True, layout.body_pages, layout.seconds
                missing = built.fields.fill(layout.pages, layout.body_pages)
                if missing:
                    notes.append(f"有 {len(set(missing))} 处页码未能定位，打开时请更新域")
                chapter_pages = _chapter_pages(built, layout.pages, layout.body_pages, options, analysis)
                _budget_notes(chapter_pages, layout.body_pages, options, notes, built.warnings)
    budget = options.length_budget
    if budget is not None and budget.page_limit and not laid_out:
        notes.append(f"未经排版，无法核对招标文件规定的 {budget.page_limit} 页上限，请在 Word 中查看总页数")
    save_atomically(built.doc, target)
    return ExportReport(target, laid_out, body_pages, seconds, tuple(notes), tuple(built.warnings),
                        tuple(chapter_pages))


def _chapter_pages(built: _Built, pages: dict[str, int], body_pages: int, options: ExportOptions,
                   analysis: Analysis | None) -> list[tuple[str, int, float | None]]:
    """Pages per exported chapter from where each starts, with its budgeted pages when a budget is set."""
    tops = [h for h in built.headings if len(h.path) == 1 and h.bookmark in pages]
    counts = chapter_page_counts([pages[h.bookmark] for h in tops], body_pages)
    budget = options.length_budget
    planned: list[float | None] = [None] * len(tops)
    if budget is not None:
        nodes = [h.node for h in tops]
        shares = chapter_budgets(budget, nodes, chapter_points(nodes, analysis))
        planned = [budget.pages(s.amount) for s in shares]
    return [(h.node.title, n, p) for h, n, p in zip(tops, counts, planned, strict=True)]


def _budget_notes(chapter_pages: list[tuple[str, int, float | None]], body_pages: int, options: ExportOptions,
                  notes: list[str], warnings: list[str]) -> None:
    """The page report against the budget: an exceeded page limit is a warning, the rest notes."""
    budget = options.length_budget
    if budget is None:
        return
    lines = [PageLine(title, n, planned) for title, n, planned in chapter_pages]
    report = page_report(lines, body_pages, budget.page_limit)
    if budget.page_limit and body_pages > budget.page_limit:
        warnings.append(report.pop(0))
    notes.extend(report)


#: A 1x1 white PNG: what pictures hold in the copy LibreOffice lays out (see :func:`_save_for_layout`).
_BLANK_PNG: Final = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGP4DwABAQEAsTj2FAAAAABJRU5ErkJggg==")


def _save_for_layout(doc: Document, path: Path) -> None:
    """Save the copy to lay out with every picture's pixels replaced by a blank 1x1 PNG.

    A picture's place on the page comes from its drawn size in the XML, not its pixels, so the
    pages are the same; LibreOffice then need not decode and re-embed print-resolution figures
    (which tripled the layout time of a bid with ten figures).
    """
    parts = [p for p in doc.part.package.iter_parts() if isinstance(p, ImagePart)]
    kept = [(p, p._blob) for p in parts]
    try:
        for part in parts:
            part._blob = _BLANK_PNG
        doc.save(str(path))
    finally:
        for part, blob in kept:
            part._blob = blob


def _lay_out(built: _Built, soffice: str, profile: Path | None) -> Any:
    """Lay the built document out once (placeholders as wide as page numbers) and read the pages."""
    marks = [HeadingMark(h.bookmark, len(h.path), h.text) for h in built.headings]
    built.fields.fill_placeholder(len(str(max(len(built.headings), 9))))
    return lay_out(lambda p: _save_for_layout(built.doc, p), marks, BODY_START_BOOKMARK, built.first_text,
                   soffice=soffice, profile=profile)

"""The Word writer: an outline (with any drafted text) becomes a .docx a bid office can hand in.

Layout: a cover in its own unnumbered section, then a section holding the TOC and the
chapters, numbered from 1 with "第 X 页 共 Y 页" in the footer. Headings carry literal
numbers, outline levels and hidden ``_Toc`` bookmarks; section text is rendered from light
markdown. The file is written atomically (temp file, fsync, rename).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import docx
from docx.enum.section import WD_SECTION
from docx.enum.text import WD_BREAK
from docx.shared import Cm, Pt, Twips

from app.core.outline import Outline, OutlineNode
from app.export.block_writer import BlockWriter
from app.export.fields import (
    TocEntry,
    add_header_text,
    add_page_number_footer,
    add_table_of_contents,
    bookmark_paragraph,
    enable_update_fields_on_open,
    restart_page_numbering,
)
from app.export.markdown_blocks import parse_blocks, xml_safe
from app.export.numbering import numbered_title
from app.export.options import ExportError, ExportMeta, ExportOptions
from app.export.presets import ExportPreset, get_preset
from app.export.properties import write_properties
from app.export.styles import COVER_LINE, COVER_SUBTITLE, COVER_TITLE, GUIDANCE, apply_preset_styles

if TYPE_CHECKING:
    from docx.document import Document
    from docx.section import Section

PROJECT_PLACEHOLDER: Final = "【项目名称】"
GUIDANCE_PREFIX: Final = "【编写提示】"
_TOC_LEVELS: Final = 3
_MAX_STYLE_LEVEL: Final = 4


@dataclass(frozen=True)
class _Heading:
    """One node to write, with its display path (numbering) and heading level."""

    path: tuple[int, ...]
    node: OutlineNode
    text: str
    bookmark: str | None


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
            bookmark = f"_Toc{100000001 + len(out)}" if len(path) <= _TOC_LEVELS else None
            text = xml_safe(numbered_title(path, node.title, options.numbering))
            out.append(_Heading(path, node, text, bookmark))
    return out


def _check_anonymous(headings: list[_Heading], meta: ExportMeta, options: ExportOptions) -> None:
    """暗标: refuse to write a document that names the bidder anywhere."""
    if not meta.has_real_bidder():
        return
    name = meta.bidder_name.strip()
    places = []
    for h in headings:
        texts = [h.node.title, h.node.content]
        if options.include_descriptions:
            texts.append(h.node.description)
        if any(name in t for t in texts):
            places.append(f"“{h.text}”")
    if places:
        more = f"等 {len(places)} 处" if len(places) > 3 else ""
        raise ExportError(
            f"暗标文件中不得出现投标人名称“{name}”，但在 {'、'.join(places[:3])}{more}中出现了。请删除后再导出。"
        )


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


def _write_cover(doc: Document, meta: ExportMeta, preset: ExportPreset) -> None:
    project = meta.project_name.strip() or PROJECT_PLACEHOLDER
    title = doc.add_paragraph(project, style=COVER_TITLE)
    title.paragraph_format.space_before = Pt(150)
    subtitle = doc.add_paragraph(meta.document_title, style=COVER_SUBTITLE)
    subtitle.paragraph_format.space_before = Pt(36)
    if preset.anonymous:
        return
    lines = (f"投标人：{meta.bidder_name.strip() or '【投标人名称】'}（盖章）", f"日　期：{meta.date_text()}")
    for i, text in enumerate(lines):
        paragraph = doc.add_paragraph(text, style=COVER_LINE)
        paragraph.paragraph_format.left_indent = Cm(3.5)
        if i == 0:
            paragraph.paragraph_format.space_before = Pt(200)


def build_document(
    source: Outline | Sequence[OutlineNode], meta: ExportMeta, options: ExportOptions | None = None
) -> Document:
    """Build the python-docx document in memory (what :func:`export_docx` saves)."""
    options = options or ExportOptions()
    meta = ExportMeta(
        project_name=xml_safe(meta.project_name),
        bidder_name=xml_safe(meta.bidder_name),
        date=xml_safe(meta.date) if isinstance(meta.date, str) else meta.date,
        document_title=xml_safe(meta.document_title),
    )
    preset = get_preset(options.preset)
    chapters = source.chapters if isinstance(source, Outline) else list(source)
    headings = _headings(select_chapters(chapters, options.chapters), options)
    if preset.anonymous:
        _check_anonymous(headings, meta, options)

    doc = docx.Document()
    apply_preset_styles(doc, preset, options.page_break_before_chapters)
    enable_update_fields_on_open(doc)
    _apply_page_setup(doc.sections[0], preset)

    if options.include_cover:
        _write_cover(doc, meta, preset)
        doc.add_section(WD_SECTION.NEW_PAGE)
    body_section = doc.sections[-1]
    restart_page_numbering(body_section, 1)
    # The total excludes the unnumbered cover: "共 Y 页" = NUMPAGES - 1.
    add_page_number_footer(body_section, total_pages_offset=1 if options.include_cover else 0)
    if preset.show_header:
        project = meta.project_name.strip() or PROJECT_PLACEHOLDER
        add_header_text(body_section, f"{project}　{meta.document_title}")

    if options.include_toc:
        entries = [TocEntry(len(h.path), h.text, h.bookmark) for h in headings if h.bookmark]
        add_table_of_contents(doc, entries)
        if not options.page_break_before_chapters:
            doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)

    _write_body(doc, headings, preset, options)
    write_properties(doc, meta, preset.anonymous)
    return doc


def _write_body(
    doc: Document, headings: list[_Heading], preset: ExportPreset, options: ExportOptions
) -> None:
    styles = doc.styles
    heading_styles = [styles[f"Heading {level}"].style_id for level in range(1, _MAX_STYLE_LEVEL + 1)]
    guidance_style = styles[GUIDANCE].style_id
    writer = BlockWriter(doc, preset)
    for bookmark_id, h in enumerate(headings, start=1):
        style = heading_styles[min(len(h.path), _MAX_STYLE_LEVEL) - 1]
        paragraph = writer.body.paragraph(style, h.text)
        if h.bookmark:
            bookmark_paragraph(paragraph, h.bookmark, bookmark_id)
        description = h.node.description.strip()
        if options.include_descriptions and description:
            writer.body.paragraph(guidance_style, xml_safe(f"{GUIDANCE_PREFIX}{description}"))
        if h.node.content.strip():
            writer.write(parse_blocks(h.node.content))


def _target_path(path: str | os.PathLike[str]) -> Path:
    target = Path(path)
    if target.suffix.lower() != ".docx":
        target = target.with_name(target.name + ".docx")
    if not target.parent.is_dir():
        raise ExportError(f"保存位置不存在：{target.parent}")
    return target


def save_atomically(doc: Document, target: Path) -> None:
    """Write to a temp file next to ``target``, flush and fsync, then rename over it."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            doc.save(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except PermissionError:
        tmp.unlink(missing_ok=True)
        raise ExportError(
            f"无法写入“{target.name}”：文件可能正在被 Word 或 WPS 打开，或没有写入权限。请关闭该文件后重试。"
        ) from None
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ExportError(f"保存“{target.name}”失败：{exc.strerror or exc}") from None
    if hasattr(os, "O_DIRECTORY"):
        try:
            dir_fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            os.fsync(dir_fd)
        except OSError:
            pass
        finally:
            os.close(dir_fd)


def export_docx(
    source: Outline | Sequence[OutlineNode],
    path: str | os.PathLike[str],
    meta: ExportMeta,
    options: ExportOptions | None = None,
) -> Path:
    """Export the outline (or a list of chapters) to a Word file and return its path.

    ``.docx`` is appended when missing. Raises :class:`ExportError` with a Chinese
    ``message_zh`` for bad selections, 暗标 violations and write failures.
    """
    target = _target_path(path)
    doc = build_document(source, meta, options)
    save_atomically(doc, target)
    return target

"""The 评分索引表 and the 技术偏离表: where each scoring item and each ★/▲ clause is answered, with pages.

Both tables are written after the table of contents. Each section reference is its number
and title as exported plus a ``PAGEREF`` to the heading's bookmark; the page results are
registered in :class:`~app.export.fields.PageFields`, so the layout pass writes the real
numbers into them (and Word recomputes them on update). A scoring item no exported section
answers keeps its row, with the section cell left as "—": the app has warned before export.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from docx.enum.table import WD_CELL_VERTICAL_ALIGNMENT, WD_TABLE_ALIGNMENT
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.shared import Twips

from app.core.analysis import points_label
from app.core.response_map import (
    DeviationEntry,
    IndexEntry,
    criteria_summary,
    default_response,
)
from app.export.block_writer import fix_table_geometry, repeat_header_row, set_style_id, shade_cell
from app.export.fields import PageFields, add_page_ref
from app.export.markdown_blocks import xml_safe
from app.export.styles import TABLE_TEXT, TOC_TITLE

if TYPE_CHECKING:
    from docx.document import Document
    from docx.oxml.xmlchemy import BaseOxmlElement
    from docx.table import _Cell
    from docx.text.paragraph import Paragraph

    from app.core.outline import Path
    from app.export.presets import ExportPreset

INDEX_TITLE: Final = "评分索引表"
DEVIATION_TITLE: Final = "技术偏离表"
INDEX_HEADER: Final = ("序号", "评分项", "分值", "评分标准（摘要）", "响应章节", "页码")
#: Per column: the characters it must hold on one line, and its share of the width left over.
INDEX_COLUMNS: Final = ((2, 0), (4, 20), (2, 0), (6, 44), (6, 36), (2, 0))
DEVIATION_HEADER: Final = ("序号", "条款", "招标要求", "投标响应", "偏离\n情况", "说明", "页码")
DEVIATION_COLUMNS: Final = ((2, 0), (4, 0), (6, 60), (6, 28), (3, 0), (2, 12), (2, 0))
#: Cell margins (left + right) and a little slack, in twips, around a column's characters.
_CELL_PADDING: Final = 260
NO_SECTION: Final = "—"
_TWIPS_PER_CM: Final = 1440 / 2.54


@dataclass(frozen=True)
class SectionRef:
    """An exported heading: its text (number and title) and its bookmark."""

    text: str
    bookmark: str


#: Finds the exported heading for an outline path (None when that chapter was not exported).
Resolver = Callable[["Path"], SectionRef | None]


def _widths(preset: ExportPreset, columns: Sequence[tuple[int, int]]) -> list[int]:
    """Column widths in twips: each holds its minimum characters, the rest is shared by weight."""
    total = round(preset.page.text_width_cm * _TWIPS_PER_CM)
    char = round(preset.table_text.size_pt * 20)
    base = [chars * char + _CELL_PADDING for chars, _ in columns]
    extra = max(total - sum(base), 0)
    share = sum(w for _, w in columns) or 1
    widths = [b + extra * w // share for b, (_, w) in zip(base, columns, strict=True)]
    widths[max(range(len(widths)), key=lambda i: columns[i][1])] += total - sum(widths)
    return widths


class TableBuilder:
    """Writes one response table with the preset's table look (grid, shaded header, fixed widths)."""

    def __init__(self, doc: Document, preset: ExportPreset) -> None:
        self._doc = doc
        self._preset = preset
        self._table_text = doc.styles[TABLE_TEXT].style_id
        self._grid = doc.styles["Table Grid"].style_id
        self._title_style = doc.styles[TOC_TITLE].style_id

    def title(self, text: str, page_break: bool) -> Paragraph:
        """The table's title line, on a new page when something precedes it in the section."""
        paragraph = self._doc.add_paragraph(text)
        set_style_id(paragraph._p, self._title_style)
        if page_break:
            paragraph.paragraph_format.page_break_before = True
        return paragraph

    def table(self, header: Sequence[str], columns: Sequence[tuple[int, int]], rows: int,
              centred: frozenset[int]) -> list[list[_Cell]]:
        """An empty table with ``rows`` body rows; returns the body cells row by row."""
        widths = _widths(self._preset, columns)
        table = self._doc.add_table(rows=rows + 1, cols=len(header))
        table._tbl.tblPr.get_or_add_tblStyle().val = self._grid
        table.alignment = WD_TABLE_ALIGNMENT.CENTER
        table.autofit = False
        fix_table_geometry(table, widths)
        out: list[list[_Cell]] = []
        for r, row in enumerate(table.rows):
            cells = row.cells
            for c, cell in enumerate(cells):
                cell.width = Twips(widths[c])
                cell.vertical_alignment = WD_CELL_VERTICAL_ALIGNMENT.CENTER
                paragraph = cell.paragraphs[0]
                set_style_id(paragraph._p, self._table_text)
                if r == 0 or c in centred:
                    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
                if r == 0:
                    for i, line in enumerate(header[c].split("\n")):
                        run = paragraph.add_run(line)
                        run.bold = True
                        if i:
                            run._r.addprevious(_line_break())
                    if self._preset.table_header_fill:
                        shade_cell(cell._tc, self._preset.table_header_fill)
            if r == 0:
                repeat_header_row(row._tr)
            else:
                out.append(list(cells))
        self._doc.add_paragraph()  # keep the next title or heading off the table's border
        return out


def _line_break() -> BaseOxmlElement:
    run = OxmlElement("w:r")
    run.append(OxmlElement("w:br"))
    return run


def _set(cell: _Cell, text: str) -> None:
    cell.paragraphs[0].add_run(xml_safe(text))


def _sections_and_pages(section_cell: _Cell, page_cell: _Cell, refs: Sequence[SectionRef],
                        fields: PageFields) -> None:
    """One line per section in ``section_cell``; the pages, joined by "、", in ``page_cell``."""
    if not refs:
        _set(section_cell, NO_SECTION)
        _set(page_cell, NO_SECTION)
        return
    first = section_cell.paragraphs[0]
    first.add_run(xml_safe(refs[0].text))
    for ref in refs[1:]:
        extra = section_cell.add_paragraph(xml_safe(ref.text))
        extra.style = first.style
    pages = page_cell.paragraphs[0]
    for i, ref in enumerate(refs):
        if i:
            pages.add_run("、")
        add_page_ref(pages, ref.bookmark, fields)


def write_index_table(doc: Document, preset: ExportPreset, entries: Sequence[IndexEntry], resolve: Resolver,
                      fields: PageFields, page_break: bool) -> Paragraph:
    """The 评分索引表: item, points, criteria summary, answering sections and their pages."""
    builder = TableBuilder(doc, preset)
    title = builder.title(INDEX_TITLE, page_break)
    rows = builder.table(INDEX_HEADER, INDEX_COLUMNS, len(entries), frozenset({0, 2, 5}))
    for n, (entry, cells) in enumerate(zip(entries, rows, strict=True), start=1):
        _set(cells[0], str(n))
        _set(cells[1], entry.group.title)
        _set(cells[2], points_label(entry.group))
        _set(cells[3], criteria_summary(entry.group))
        refs = [r for r in (resolve(p) for p in entry.paths) if r is not None]
        _sections_and_pages(cells[4], cells[5], refs, fields)
    return title


def write_deviation_table(doc: Document, preset: ExportPreset, entries: Sequence[DeviationEntry],
                          resolve: Resolver, fields: PageFields, page_break: bool) -> Paragraph:
    """The 技术偏离表: clause (mark and tender page), requirement, response, deviation, note, page."""
    builder = TableBuilder(doc, preset)
    title = builder.title(DEVIATION_TITLE, page_break)
    rows = builder.table(DEVIATION_HEADER, DEVIATION_COLUMNS, len(entries), frozenset({0, 1, 4, 6}))
    for n, (entry, cells) in enumerate(zip(entries, rows, strict=True), start=1):
        risk = entry.risk
        ref = resolve(entry.path) if entry.path is not None else None
        _set(cells[0], str(n))
        clause: str = risk.mark or ""
        if risk.page:
            clause += f"\n第{risk.page}页" if clause else f"第{risk.page}页"
        _write_lines(cells[1], clause)
        _set(cells[2], risk.text)
        _set(cells[3], risk.response.strip() or default_response(ref.text if ref else None))
        _set(cells[4], risk.deviation)
        _set(cells[5], risk.deviation_note.strip())
        if ref is not None:
            add_page_ref(cells[6].paragraphs[0], ref.bookmark, fields)
        else:
            _set(cells[6], NO_SECTION)
    return title


def _write_lines(cell: _Cell, text: str) -> None:
    lines = text.split("\n")
    first = cell.paragraphs[0]
    first.add_run(xml_safe(lines[0]))
    for line in lines[1:]:
        extra = cell.add_paragraph(xml_safe(line))
        extra.style = first.style
        extra.alignment = first.alignment

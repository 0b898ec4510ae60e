"""The 自评表 as a spreadsheet (.xlsx, openpyxl) and as a table at the end of the Word file.

The rows come ready as text (``app.pipeline.evaluation.table``); this module only lays
them out. The spreadsheet: a bold header row, frozen, wrapped text, a width per column,
and status cells coloured (已响应 green, 单薄 amber, 缺失 red), written atomically. The
Word table (an export option): the response tables' look, on a new page after the body.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill

from app.core.sheet_text import append_row
from app.export.markdown_blocks import xml_safe
from app.export.options import ExportError
from app.export.response_tables import TableBuilder

if TYPE_CHECKING:
    from docx.document import Document

    from app.export.presets import ExportPreset

WIDTHS = (22, 6, 28, 10, 24, 48, 8, 40)
#: The 自评表 as the writer takes it: the header and the rows, all text.
ReviewRows = tuple[Sequence[str], Sequence[Sequence[str]]]
FILLS = {"已响应": "C8E6C9", "单薄": "FFE0B2", "缺失": "FFCDD2"}


def write_review_sheet(path: Path, header: Sequence[str], rows: Sequence[Sequence[str]], title: str = "自评表") -> Path:
    """Write the table to ``path`` (.xlsx); raises :class:`ExportError` with a Chinese message on failure."""
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = title[:31]
    append_row(sheet, list(header))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in rows:
        append_row(sheet, [_value(v) for v in row])  # tender text stays text, never a formula
    for i, width in enumerate(WIDTHS[: len(header)], start=1):
        sheet.column_dimensions[chr(64 + i)].width = width
    wrap = Alignment(wrap_text=True, vertical="top")
    for line in sheet.iter_rows(min_row=2):
        for cell in line:
            cell.alignment = wrap
            text = str(cell.value or "")
            colour = next((c for k, c in FILLS.items() if text.startswith(k)), None)
            if colour is not None and cell.column == 4:
                cell.fill = PatternFill("solid", fgColor=colour)
    sheet.freeze_panes = "A2"
    target = Path(path)
    tmp = ""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".review-", suffix=".xlsx", dir=str(target.parent))
        os.close(fd)
        book.save(tmp)
        os.replace(tmp, target)
    except OSError as exc:
        raise ExportError(f"无法写入自评表“{target.name}”：{exc.strerror or exc}") from exc
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)
    return target


def _value(text: str) -> str | float:
    """Numbers as numbers (points add up in the spreadsheet), everything else as text."""
    try:
        return float(text) if text and text.replace(".", "", 1).isdigit() else text
    except ValueError:
        return text


#: Column widths of the Word table: (minimum characters, share of the rest).
WORD_COLUMNS = ((6, 18), (2, 0), (5, 22), (3, 0), (4, 16), (6, 30), (2, 0), (4, 14))
REVIEW_TITLE = "附：技术评分自评表"


def write_review_table(doc: Document, preset: ExportPreset, header: Sequence[str],
                       rows: Sequence[Sequence[str]]) -> None:
    """The 自评表 at the end of the Word document, on a new page (the export option)."""
    builder = TableBuilder(doc, preset)
    builder.title(REVIEW_TITLE, page_break=True)
    columns = WORD_COLUMNS[: len(header)]
    cells = builder.table(header, columns, len(rows), frozenset({1, 3, 6}))
    for row, line in zip(rows, cells, strict=True):
        for text, cell in zip(row, line, strict=False):
            cell.paragraphs[0].add_run(xml_safe(str(text)))

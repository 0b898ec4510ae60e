"""The 自评表 as a spreadsheet (.xlsx, openpyxl): a header, the rows, widths, written atomically.

The rows come ready as text (``app.pipeline.evaluation.table``); this module only lays
them out: a bold header row, frozen, wrapped text, a width per column, and status cells
coloured (已响应 green, 单薄 amber, 缺失 red).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill

from app.export.options import ExportError

WIDTHS = (22, 6, 28, 10, 24, 48, 8, 40)
FILLS = {"已响应": "C8E6C9", "单薄": "FFE0B2", "缺失": "FFCDD2"}


def write_review_sheet(path: Path, header: Sequence[str], rows: Sequence[Sequence[str]], title: str = "自评表") -> Path:
    """Write the table to ``path`` (.xlsx); raises :class:`ExportError` with a Chinese message on failure."""
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = title[:31]
    sheet.append(list(header))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in rows:
        sheet.append([_value(v) for v in row])
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

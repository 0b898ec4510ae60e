"""The 查重 results as a spreadsheet (.xlsx, openpyxl), written atomically."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from app.core.sheet_text import append_row
from app.library.checks import Finding

HEADERS = ("序号", "类别", "内容", "位置", "来源", "说明")


def write_findings_xlsx(findings: Sequence[Finding], path: Path, title: str = "查重结果") -> Path:
    """Write ``findings`` to ``path`` as one sheet; the file appears whole or not at all."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = title[:31]
    append_row(ws, list(HEADERS))
    for cell in ws[1]:
        cell.font = Font(bold=True)
    for i, f in enumerate(findings, 1):
        append_row(ws, [i, f.label, f.text, f.where, f.source, f.detail])  # text from bids stays text
    for col, width in zip("ABCDEF", (6, 18, 60, 30, 40, 30), strict=True):
        ws.column_dimensions[col].width = width
    for row in ws.iter_rows(min_row=2):
        for cell in row:
            cell.alignment = Alignment(wrap_text=True, vertical="top")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".查重-", suffix=".xlsx", dir=str(path.parent))
    os.close(fd)
    try:
        wb.save(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path

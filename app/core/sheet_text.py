"""Text written to a spreadsheet stays text: no formula, no control character (no Qt, no openpyxl).

The 查重 report and the 自评表 carry text that came from a tender, a past bid or a model.
openpyxl stores a string that begins with ``=`` as a live formula (``=HYPERLINK(…)``,
``=cmd|' /C calc'!A0``, ``=WEBSERVICE(…)``), and a spreadsheet program re-reads a cell that
begins with ``+ - @``, a tab or a carriage return as one once it is edited. :func:`set_text`
writes a value as a string cell (type ``s``) and marks such cells ``quotePrefix`` (Excel's
leading apostrophe, not shown and not part of the value). Characters XML cannot hold are
shown as U+FFFD instead of failing the whole file.
"""

from __future__ import annotations

import re
from typing import Any, Final

#: What a spreadsheet program reads as the start of a formula (or of a DDE call).
FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r", "\n", "＝", "＋", "－", "＠")
#: Characters an .xlsx (XML 1.0) cannot hold.
_ILLEGAL: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def needs_quote_prefix(text: str) -> bool:
    """Whether ``text`` would be taken for a formula when typed or re-entered into a cell."""
    return text.lstrip(" ").startswith(FORMULA_STARTS)


def set_text(cell: Any, value: object) -> None:
    """Put ``value`` into an openpyxl ``cell``: strings as text (never a formula), others as they are."""
    if not isinstance(value, str):
        cell.value = value
        return
    text = str(clean_text(value))
    cell.value = text
    cell.data_type = "s"  # openpyxl took a leading "=" for a formula; a string cell it stays
    if needs_quote_prefix(text):
        cell.quotePrefix = True


def clean_text(value: object) -> object:
    """``value`` with characters an .xlsx cannot hold shown as U+FFFD (non-strings unchanged)."""
    return _ILLEGAL.sub("\ufffd", value) if isinstance(value, str) else value


def append_row(sheet: Any, values: list[object]) -> None:
    """Append one row to an openpyxl worksheet with every string written by :func:`set_text`."""
    sheet.append([clean_text(v) for v in values])
    row = sheet.max_row
    for column, value in enumerate(values, start=1):
        if isinstance(value, str):
            set_text(sheet.cell(row=row, column=column), value)

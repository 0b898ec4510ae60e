"""The rows of an .xlsx read as a stream, a bounded number per sheet (no Qt).

Company facts come from spreadsheets a bid office keeps; one may hold a million rows, or be built
to. :func:`read_sheets` passes the file through the zip guard tenders and bids pass through
(:func:`app.core.zip_check.zip_problem`), opens it with openpyxl in read-only (streaming) mode and
takes at most :data:`MAX_SHEET_ROWS` rows of each sheet, saying which sheets were cut and how long
they were. openpyxl's read-only sheet looks for the sheet's ``<dimension>`` by parsing the whole
sheet when the file has none (145 s for a million rows); here the search stops where the rows
begin.
"""

from __future__ import annotations

import itertools
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from app.core.zip_check import zip_problem
from app.documents.errors import vanished_message

#: Rows read from one sheet (the header among them); the rest are not read, and the user is told.
MAX_SHEET_ROWS: Final = 5_000
#: Sheets read from one workbook.
MAX_SHEETS: Final = 50


@dataclass
class SheetRows:
    """One sheet: its title, the rows read (values only), and whether rows were left unread.

    ``declared_rows`` is the row count the sheet states (its ``<dimension>``), None when it states none.
    """

    title: str
    rows: list[tuple[Any, ...]]
    cut: bool = False
    declared_rows: int | None = None

    def cut_note_zh(self) -> str:
        """What was left out, in Chinese ("" when nothing was)."""
        if not self.cut:
            return ""
        total = f"共 {self.declared_rows:,} 行，" if self.declared_rows else f"超过 {MAX_SHEET_ROWS:,} 行，"
        return (f"工作表“{self.title}”{total}只读取了前 {MAX_SHEET_ROWS:,} 行（每个工作表的上限），"
                "其余未导入；请把表格拆分后分批导入")


def read_sheets(path: Path, max_rows: int = MAX_SHEET_ROWS) -> tuple[list[SheetRows], list[str]]:
    """Each sheet's first ``max_rows`` rows, and notes about sheets not read.

    Raises ValueError with a Chinese message for a file that cannot be used (not an .xlsx, damaged,
    gone, or inflating past the zip limits).
    """
    problem = zip_problem(path)
    if problem is not None and problem.kind == "too_large":
        raise ValueError(f"Excel 文件“{path.name}”解压后过大：{problem.what}。这不是正常的企业资料表格"
                         "（可能已损坏或是恶意构造的压缩包），已拒绝导入")
    try:
        reader = _StreamingReader(str(path), read_only=True, data_only=True)
        reader.read()
    except Exception as exc:
        if not path.exists():
            raise ValueError(vanished_message(path)) from exc
        raise ValueError(f"无法打开 Excel 文件“{path.name}”：文件已损坏或不是 .xlsx") from exc
    out: list[SheetRows] = []
    notes: list[str] = []
    try:
        sheets = reader.wb.worksheets
        if len(sheets) > MAX_SHEETS:
            notes.append(f"表格有 {len(sheets)} 个工作表，只读取了前 {MAX_SHEETS} 个")
        for ws in sheets[:MAX_SHEETS]:
            rows = list(itertools.islice(ws.iter_rows(values_only=True), max_rows + 1))
            cut = len(rows) > max_rows
            declared = getattr(ws, "_max_row", None)
            out.append(SheetRows(ws.title, rows[:max_rows], cut, declared if isinstance(declared, int) else None))
    except (zipfile.BadZipFile, OSError, ValueError, KeyError) as exc:
        if not path.exists():
            raise ValueError(vanished_message(path)) from exc
        raise ValueError(f"Excel 文件“{path.name}”的内容已损坏，无法读取") from exc
    finally:
        reader.archive.close()
    return out, notes


def _reader_classes() -> tuple[type, type]:
    """openpyxl's reader and read-only sheet, imported when a workbook is read (openpyxl is slow to import)."""
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet

    return ExcelReader, ReadOnlyWorksheet


def _make_reader_types() -> tuple[type, type]:
    excel_reader, read_only_sheet = _reader_classes()

    class StreamingSheet(read_only_sheet):  # type: ignore[misc,valid-type]
        """A read-only sheet that finds its ``<dimension>`` without reading past the start of its rows."""

        def _get_size(self) -> None:
            from xml.etree.ElementTree import iterparse

            main = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
            src = self._get_source()
            try:
                for _event, element in iterparse(src, events=("start",)):
                    if element.tag == f"{main}dimension":
                        self._dimension(element.get("ref", ""))
                        break
                    if element.tag == f"{main}sheetData":
                        break
            finally:
                src.close()

        def _dimension(self, ref: str) -> None:
            from openpyxl.utils.cell import range_boundaries

            try:
                self._min_column, self._min_row, self._max_column, self._max_row = range_boundaries(ref)
            except (ValueError, TypeError):
                pass

    class StreamingReader(excel_reader):  # type: ignore[misc,valid-type]
        """openpyxl's reader with :class:`StreamingSheet` for every worksheet (read-only mode only)."""

        def read_worksheets(self) -> None:
            for sheet, rel in self.parser.find_sheets():
                if rel.target not in self.valid_files or "chartsheet" in rel.Type:
                    continue
                ws = StreamingSheet(self.wb, sheet.name, rel.target, self.shared_strings)
                ws.sheet_state = sheet.state
                self.wb._sheets.append(ws)

    return StreamingReader, StreamingSheet


class _LazyReader:
    """Builds the reader class on first use (keeps openpyxl out of the import of this module)."""

    _cls: type | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _LazyReader._cls is None:
            _LazyReader._cls = _make_reader_types()[0]
        return _LazyReader._cls(*args, **kwargs)


_StreamingReader = _LazyReader()

"""编辑表格: a grid for the pipe table under the cursor of the section editor's source view.

The writer edits cells, adds or removes rows and columns, and OK writes the table back as
Markdown (``app.core.markdown_table``) in place of the old one — or inserts a new table where
the cursor is. The text edit's own undo takes it back; the section's edit is committed as
usual when the editor loses focus.
"""

from __future__ import annotations

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.markdown_table import read_table, table_span, write_table

NEW_TABLE = [["环节", "责任人", "时限"], ["", "", ""], ["", "", ""]]


class TableDialog(QDialog):
    """The cells of one table (the first row is the header)."""

    def __init__(self, rows: list[list[str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tableDialog")
        self.setWindowTitle("编辑表格")
        width = max((len(r) for r in rows), default=1)
        self.grid = QTableWidget(len(rows), width)
        self.grid.horizontalHeader().setVisible(False)
        for r, row in enumerate(rows):
            for c in range(width):
                self.grid.setItem(r, c, QTableWidgetItem(row[c] if c < len(row) else ""))
        buttons = QHBoxLayout()
        for text, slot in (("加一行", self._add_row), ("删所选行", self._remove_row),
                           ("加一列", self._add_column), ("删所选列", self._remove_column)):
            b = QPushButton(text)
            b.clicked.connect(slot)
            buttons.addWidget(b)
        buttons.addStretch(1)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        box.button(QDialogButtonBox.StandardButton.Ok).setText("确定")
        box.button(QDialogButtonBox.StandardButton.Cancel).setText("取消")
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("第一行是表头。双击单元格修改内容。"))
        layout.addWidget(self.grid, 1)
        layout.addLayout(buttons)
        layout.addWidget(box)
        self.resize(560, 320)

    def rows(self) -> list[list[str]]:
        """The cells as entered (an edit still open in a cell included)."""
        self.grid.setCurrentCell(-1, -1)  # moving off a cell commits an open cell editor
        return [[(it.text() if (it := self.grid.item(r, c)) is not None else "") for c in range(self.grid.columnCount())]
                for r in range(self.grid.rowCount())]

    def _add_row(self) -> None:
        row = self.grid.currentRow() + 1 if self.grid.currentRow() >= 0 else self.grid.rowCount()
        self.grid.insertRow(row)

    def _remove_row(self) -> None:
        if self.grid.rowCount() > 1 and self.grid.currentRow() >= 0:
            self.grid.removeRow(self.grid.currentRow())

    def _add_column(self) -> None:
        col = self.grid.currentColumn() + 1 if self.grid.currentColumn() >= 0 else self.grid.columnCount()
        self.grid.insertColumn(col)

    def _remove_column(self) -> None:
        if self.grid.columnCount() > 1 and self.grid.currentColumn() >= 0:
            self.grid.removeColumn(self.grid.currentColumn())


def edit_table_at_cursor(editor: QPlainTextEdit, parent: QWidget | None = None) -> TableDialog:
    """Open the dialog for the table under ``editor``'s cursor (a new table when there is none).

    OK replaces the table's lines (or inserts the new table on its own lines) in one text edit.
    """
    lines = editor.toPlainText().split("\n")
    at = editor.textCursor().blockNumber()
    span = table_span(lines, at)
    dialog = TableDialog(read_table(lines[span[0]:span[1]]) if span else NEW_TABLE, parent)

    def write_back() -> None:
        table = write_table(dialog.rows())
        doc = editor.document()
        cursor = QTextCursor(doc)
        cursor.beginEditBlock()
        if span is not None:
            cursor.setPosition(doc.findBlockByNumber(span[0]).position())
            last = doc.findBlockByNumber(span[1] - 1)
            cursor.setPosition(last.position() + last.length() - 1, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText("\n".join(table))
        else:
            cursor.setPosition(editor.textCursor().block().position() + editor.textCursor().block().length() - 1)
            cursor.insertText("\n\n" + "\n".join(table) + "\n")
        cursor.endEditBlock()

    dialog.accepted.connect(write_back)
    dialog.open()
    return dialog

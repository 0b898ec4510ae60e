"""The 投标文件组成 checklist as a table model: one row per form of the tender's format chapter.

Columns: 完成 (a check box the user ticks), 格式 (the title as printed), 要求 (必须 / the condition
/ 格式自拟), 页 (where the tender prints it), 状态 (blanks left, done, 不适用). A required form not
done is shown bold; a conditional one grey. The model reads a :class:`~app.ui.forms.board.FormsBoard`
and writes ticks back through ``done_toggled``.

Signals:
    done_toggled(int, bool): the user ticked or cleared 完成 on a row.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from typing_extensions import override

from app.ui.forms.board import FormsBoard

HEADERS = ("完成", "格式", "要求", "页", "状态")
_Index = QModelIndex | QPersistentModelIndex
_GREY = QBrush(QColor("#7f8c8d"))
_RED = QBrush(QColor("#c0392b"))
_GREEN = QBrush(QColor("#1e8449"))


class FormsChecklistModel(QAbstractTableModel):
    """Rows are the forms of a :class:`FormsBoard`; :meth:`reset` after the board changes."""

    done_toggled = Signal(int, bool)

    def __init__(self, board: FormsBoard, parent: Any = None) -> None:
        super().__init__(parent)
        self.board = board

    def reset(self, board: FormsBoard | None = None) -> None:
        """Show the board again (a new reading, a refill)."""
        self.beginResetModel()
        if board is not None:
            self.board = board
        self.endResetModel()

    def refresh(self) -> None:
        """The same forms with new values: repaint every row."""
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, len(HEADERS) - 1))

    @override
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.board.forms)

    @override
    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    @override
    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(HEADERS):
            return HEADERS[section]
        return None

    @override
    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return base | Qt.ItemFlag.ItemIsUserCheckable if index.column() == 0 else base

    @override
    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.board.forms):
            return None
        form = self.board.forms[index.row()]
        status = self.board.status(form)
        col = index.column()
        if role == Qt.ItemDataRole.CheckStateRole and col == 0:
            return Qt.CheckState.Checked if status.done else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 1:
                return form.title
            if col == 2:
                if form.requirement == "conditional":
                    return f"视情况（{form.condition}）"
                return "必须（格式自拟）" if form.self_drafted else "必须"
            if col == 3:
                return str(form.page) if form.page == form.last_page else f"{form.page}–{form.last_page}"
            if col == 4:
                return status.label
        if role == Qt.ItemDataRole.ToolTipRole and col in (1, 4):
            copies = f"\n需附：{'、'.join(form.copies)}" if form.copies else ""
            return f"{form.title}（招标文件第 {form.page} 页）\n{status.label}{copies}"
        if role == Qt.ItemDataRole.ForegroundRole:
            if status.not_applicable or form.requirement == "conditional":
                return _GREY
            if col == 4:
                return _GREEN if status.done else (_RED if status.empty else None)
        if role == Qt.ItemDataRole.FontRole and col == 1 and form.requirement == "required" and not status.done \
                and not status.not_applicable:
            font = QFont()
            font.setBold(True)
            return font
        return None

    @override
    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or index.column() != 0 or role != Qt.ItemDataRole.CheckStateRole:
            return False
        checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2, True)
        self.done_toggled.emit(index.row(), checked)
        self.dataChanged.emit(self.index(index.row(), 0), self.index(index.row(), len(HEADERS) - 1))
        return True

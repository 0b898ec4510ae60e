"""The 技术偏离表 editor: one row per ★/▲ clause found by code, the bidder's answer editable.

Columns: 序号, 条款 (mark and tender page), 招标要求 (the clause), 响应章节 (the section
number, e.g. 3.2), 投标响应 (empty means the default written from the answering section,
shown in grey), 偏离情况 (待确认/无偏离/正偏离/负偏离, a combo box) and 说明. The view never changes
the breakdown it was given: every edit emits a new ``Breakdown`` through
:attr:`DeviationView.breakdown_edited`, which the window pushes as one undo step. Unanswered
clauses, section numbers that do not exist and negative deviations on ★ clauses are warned
about in red.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from typing_extensions import override

from app.core.breakdown import DEVIATIONS, Breakdown
from app.core.outline import OutlineNode
from app.core.response_map import DeviationEntry, default_response, deviation_entries, section_heading
from app.ui.widgets.flat_table import FlatTableModel

ModelIndex = QModelIndex | QPersistentModelIndex
HEADERS = ("序号", "条款", "招标要求", "响应章节", "投标响应", "偏离情况", "说明")
COL_NO, COL_CLAUSE, COL_TEXT, COL_SECTION, COL_RESPONSE, COL_DEVIATION, COL_NOTE = range(7)
#: Editable columns and the RiskItem field each one writes.
FIELDS = {COL_SECTION: "answered_in", COL_RESPONSE: "response", COL_DEVIATION: "deviation", COL_NOTE: "deviation_note"}
FIELD_LABELS = {"answered_in": "响应章节", "response": "投标响应", "deviation": "偏离情况", "deviation_note": "偏离说明"}
#: Starting column widths in pixels (the user can drag them; the table scrolls sideways when narrow).
COLUMN_WIDTHS = {COL_NO: 36, COL_CLAUSE: 72, COL_TEXT: 260, COL_SECTION: 130, COL_RESPONSE: 200,
                 COL_DEVIATION: 72, COL_NOTE: 120}
#: The risk's page, for jumping to the tender.
PageRole = Qt.ItemDataRole.UserRole + 2
_RED = QColor(176, 0, 32)
_GREY = QColor(128, 128, 128)
_MARK_FILL = {"★": QColor(255, 224, 224), "▲": QColor(255, 243, 205)}


class DeviationTableModel(FlatTableModel):
    """Rows over the ★/▲ clauses of a breakdown; four columns editable.

    Signals:
        field_edited(int, str, str): index in ``breakdown.risks``, field name, new value.
    """

    headers = HEADERS

    field_edited = Signal(int, str, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.entries: list[DeviationEntry] = []
        self.chapters: list[OutlineNode] = []

    def set_rows(self, breakdown: Breakdown | None, chapters: Sequence[OutlineNode]) -> None:
        """Show the ★/▲ clauses of ``breakdown`` against ``chapters``.

        When only field values changed (same clauses), cells are updated in place, so an
        editor the user has open elsewhere in the table stays open.
        """
        chapters = list(chapters)
        entries = deviation_entries(breakdown, chapters)
        same_rows = [(e.risk_index, e.risk.text) for e in entries] == [(e.risk_index, e.risk.text) for e in self.entries]
        if same_rows and self.entries:
            self.chapters, self.entries = chapters, entries
            self.dataChanged.emit(self.index(0, 0), self.index(len(entries) - 1, len(HEADERS) - 1))
            return
        self.beginResetModel()
        self.chapters, self.entries = chapters, entries
        self.endResetModel()

    @override
    def items(self) -> Sequence[Any]:
        """The rows shown."""
        return self.entries

    def _heading(self, entry: DeviationEntry) -> str | None:
        return section_heading(self.chapters, entry.path)

    def problem(self, row: int) -> str:
        """What is wrong with a row, in Chinese ("" when nothing)."""
        entry = self.entries[row]
        risk = entry.risk
        if not risk.answered_in:
            return "尚未填写响应章节"
        if entry.path is None:
            return f"目录中没有第 {risk.answered_in} 节"
        if risk.deviation == "负偏离" and risk.mark == "★":
            return "★ 条款负偏离可能导致投标无效"
        return ""

    @override
    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override: texts, the default response in grey, problems in red, mark colours."""
        if not index.isValid() or not 0 <= index.row() < len(self.entries):
            return None
        entry = self.entries[index.row()]
        risk = entry.risk
        col = index.column()
        if role == Qt.ItemDataRole.EditRole and col in FIELDS:
            value = getattr(risk, FIELDS[col])
            return value or ""
        if role == Qt.ItemDataRole.DisplayRole:
            if col == COL_NO:
                return str(index.row() + 1)
            if col == COL_CLAUSE:
                return f"{risk.mark or ''} 第{risk.page}页" if risk.page else (risk.mark or "")
            if col == COL_TEXT:
                return risk.text
            if col == COL_SECTION:
                heading = self._heading(entry)
                return heading or risk.answered_in or "未响应"
            if col == COL_RESPONSE:
                return risk.response or default_response(self._heading(entry))
            if col == COL_DEVIATION:
                return risk.deviation
            if col == COL_NOTE:
                return risk.deviation_note
        if role == Qt.ItemDataRole.ToolTipRole:
            problem = self.problem(index.row())
            if col == COL_RESPONSE and not risk.response:
                return "留空时导出默认响应（由响应章节生成）；双击可改写"
            return problem or (risk.text if col == COL_TEXT else None)
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == COL_RESPONSE and not risk.response:
                return QBrush(_GREY)
            if col in (COL_SECTION, COL_DEVIATION) and self.problem(index.row()):
                return QBrush(_RED)
        if role == Qt.ItemDataRole.BackgroundRole and col == COL_CLAUSE and risk.mark in _MARK_FILL:
            return QBrush(_MARK_FILL[risk.mark])
        if role == PageRole:
            return risk.page
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_NO, COL_CLAUSE, COL_DEVIATION):
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    @override
    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        """Qt override: 响应章节, 投标响应, 偏离情况 and 说明 are editable."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return base | Qt.ItemFlag.ItemIsEditable if index.column() in FIELDS else base

    @override
    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Qt override: report the edit (the view stores it through an undo command)."""
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or index.column() not in FIELDS:
            return False
        field = FIELDS[index.column()]
        text = str(value if value is not None else "").strip()
        if field == "deviation" and text not in DEVIATIONS:
            return False
        entry = self.entries[index.row()]
        if text == (getattr(entry.risk, field) or ""):
            return False
        self.field_edited.emit(entry.risk_index, field, text)
        return True


class DeviationDelegate(QStyledItemDelegate):
    """A combo box for 偏离情况; plain line edits elsewhere."""

    @override
    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: ModelIndex) -> QWidget:
        """Qt override."""
        if index.column() == COL_DEVIATION:
            box = QComboBox(parent)
            box.setObjectName("deviationBox")
            box.addItems(list(DEVIATIONS))
            return box
        return super().createEditor(parent, option, index)

    @override
    def setEditorData(self, editor: QWidget, index: ModelIndex) -> None:
        """Qt override."""
        if isinstance(editor, QComboBox):
            editor.setCurrentText(str(index.data(Qt.ItemDataRole.EditRole) or DEVIATIONS[0]))
            return
        super().setEditorData(editor, index)

    @override
    def setModelData(self, editor: QWidget, model: Any, index: ModelIndex) -> None:
        """Qt override."""
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)
            return
        super().setModelData(editor, model, index)


class DeviationView(QWidget):
    """Warning line and the editable deviation table.

    Signals:
        breakdown_edited(object, str): the new ``Breakdown`` and an undo text after one edit.
        page_requested(int): the user activated a clause with a tender page.
    """

    breakdown_edited = Signal(object, str)
    page_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._breakdown: Breakdown | None = None
        self.model = DeviationTableModel(self)
        self.warning_label = QLabel()
        self.warning_label.setObjectName("deviationWarning")
        self.warning_label.setWordWrap(True)
        self.warning_label.setStyleSheet("color:#b00020;")
        self.empty_label = QLabel("没有找到 ★/▲ 条款。运行“需求拆解”后，招标文件中的 ★/▲ 条款会列在这里。")
        self.empty_label.setWordWrap(True)
        self.empty_label.setStyleSheet("color:#666;")
        self.table = QTableView()
        self.table.setObjectName("deviationTable")
        self.table.setModel(self.model)
        self.table.setItemDelegate(DeviationDelegate(self.table))
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.SelectedClicked)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for col, width in COLUMN_WIDTHS.items():
            self.table.setColumnWidth(col, width)
        header.setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.warning_label)
        layout.addWidget(self.empty_label)
        layout.addWidget(self.table, 1)
        self.model.field_edited.connect(self._on_field_edited)
        self.table.activated.connect(self._on_activated)
        self.set_data(None, [])

    @property
    def breakdown(self) -> Breakdown | None:
        """The breakdown currently shown (a private copy)."""
        return self._breakdown

    def set_data(self, breakdown: Breakdown | None, chapters: Sequence[OutlineNode]) -> None:
        """Show the ★/▲ clauses of ``breakdown`` (copied) against the outline ``chapters``."""
        self._breakdown = breakdown.model_copy(deep=True) if breakdown is not None else None
        self._show(chapters)

    def _show(self, chapters: Sequence[OutlineNode]) -> None:
        self.model.set_rows(self._breakdown, chapters)
        self.table.resizeRowsToContents()
        self.empty_label.setVisible(not self.model.entries)
        self._update_warning()

    def problems(self) -> list[str]:
        """One line per row with a problem, e.g. "3. 尚未填写响应章节"."""
        return [f"{row + 1}. {p}" for row in range(len(self.model.entries)) if (p := self.model.problem(row))]

    def _update_warning(self) -> None:
        problems = self.problems()
        shown = "；".join(problems[:4]) + ("……" if len(problems) > 4 else "")
        self.warning_label.setText(f"技术偏离表有 {len(problems)} 行需要检查：{shown}" if problems else "")
        self.warning_label.setVisible(bool(problems))

    def _on_field_edited(self, risk_index: int, field: str, value: str) -> None:
        if self._breakdown is None or not 0 <= risk_index < len(self._breakdown.risks):
            return
        updated = self._breakdown.model_copy(deep=True)
        risk = updated.risks[risk_index]
        setattr(risk, field, (value or None) if field == "answered_in" else value)
        number = next((i + 1 for i, e in enumerate(self.model.entries) if e.risk_index == risk_index), 0)
        # Show it at once (in place): a second edit must start from this one, not from a stale copy.
        self._breakdown = updated
        self._show(self.model.chapters)
        self.breakdown_edited.emit(updated.model_copy(deep=True), f"编辑偏离表第 {number} 行{FIELD_LABELS[field]}")

    def _on_activated(self, index: ModelIndex) -> None:
        page = index.data(PageRole)
        if index.column() in (COL_CLAUSE, COL_TEXT) and isinstance(page, int) and page > 0:
            self.page_requested.emit(page)

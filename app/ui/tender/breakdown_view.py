"""The requirement breakdown (需求拆解) panel: status, background, goals, tasks and risks.

Self-contained widget for the analysis page. It shows a :class:`~app.core.breakdown.Breakdown`
as a tree (目标 / 任务 / 风险), highlights ★/▲ clauses, lets the user type which outline
section answers each risk (column 已响应章节), and warns about marked clauses nobody
answers. It never mutates the value it was given: each edit emits a new ``Breakdown``
through ``breakdown_edited`` for the controller to store (as an undoable change).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTreeView, QVBoxLayout, QWidget

from app.core.breakdown import RISK_CATEGORY_LABELS, STATUS_LABELS, Breakdown, BreakdownItem, RiskItem

ModelIndex = QModelIndex | QPersistentModelIndex
HEADERS = ("内容", "页码", "类别", "已响应章节")
COL_TEXT, COL_PAGE, COL_KIND, COL_ANSWERED = range(4)
GROUPS = (("goals", "目标"), ("tasks", "任务"), ("risks", "风险"))
#: Item data role holding ``(field, index)`` of the breakdown item a row shows.
ItemRefRole = Qt.ItemDataRole.UserRole + 1
PageRole = Qt.ItemDataRole.UserRole + 2
_MARK_COLORS = {"★": QColor(255, 224, 224), "▲": QColor(255, 243, 205)}


class BreakdownModel(QStandardItemModel):
    """Three group rows (目标/任务/风险) with one child row per item; only 已响应章节 is editable.

    Signals:
        answered_edited(int, str): risk index and the section id the user typed.
    """

    answered_edited = Signal(int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setHorizontalHeaderLabels(list(HEADERS))
        self._loading = False
        self.itemChanged.connect(self._on_item_changed)

    def set_breakdown(self, breakdown: Breakdown) -> None:
        """Rebuild the rows from ``breakdown``."""
        self._loading = True
        try:
            self.removeRows(0, self.rowCount())
            for field, label in GROUPS:
                items: list[BreakdownItem] = list(getattr(breakdown, field))
                group = [_cell(f"{label}（{len(items)}）"), _cell(""), _cell(""), _cell("")]
                for cell in group:
                    cell.setEditable(False)
                for i, item in enumerate(items):
                    group[0].appendRow(self._row(field, i, item))
                self.appendRow(group)
        finally:
            self._loading = False

    def _row(self, field: str, index: int, item: BreakdownItem) -> list[QStandardItem]:
        risk = item if isinstance(item, RiskItem) else None
        text = _cell(item.text)
        page = _cell(f"第{item.page}页" if item.page else "")
        kind = _cell("")
        answered = _cell(risk.answered_in or "" if risk else "")
        if risk is not None:
            kind.setText((f"{risk.mark} " if risk.mark else "") + RISK_CATEGORY_LABELS.get(risk.category, ""))
            if risk.origin == "system":
                kind.setText("说明")
        for cell in (text, page, kind, answered):
            cell.setData((field, index), ItemRefRole)
            cell.setData(item.page, PageRole)
            cell.setEditable(False)
            cell.setToolTip(item.text)
        answered.setEditable(risk is not None and risk.origin != "system")
        if risk is not None and risk.mark:
            font = QFont()
            font.setBold(True)
            for cell in (text, page, kind, answered):
                cell.setBackground(QBrush(_MARK_COLORS[risk.mark]))
            text.setFont(font)
        return [text, page, kind, answered]

    def _on_item_changed(self, item: QStandardItem) -> None:
        if self._loading or item.column() != COL_ANSWERED:
            return
        ref = item.data(ItemRefRole)
        if isinstance(ref, tuple) and ref[0] == "risks":
            self.answered_edited.emit(int(ref[1]), item.text().strip())


def _cell(text: str) -> QStandardItem:
    item = QStandardItem(text)
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsDropEnabled & ~Qt.ItemFlag.ItemIsDragEnabled)
    return item


class BreakdownView(QWidget):
    """Status line, background, the item tree and a warning about unanswered ★/▲ clauses.

    Signals:
        breakdown_edited(object): a new ``Breakdown`` after the user edited 已响应章节.
        page_requested(int): the user activated an item with a source page.
    """

    breakdown_edited = Signal(object)
    page_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._breakdown = Breakdown()
        self.status_label = QLabel()
        self.background_label = QLabel()
        self.background_label.setWordWrap(True)
        self.warning_label = QLabel()
        self.warning_label.setWordWrap(True)
        self.warning_label.setStyleSheet("color: #b00020;")
        self.model = BreakdownModel(self)
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setAlternatingRowColors(True)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.tree.header().setSectionResizeMode(COL_TEXT, QHeaderView.ResizeMode.Stretch)
        self.tree.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for w in (self.status_label, self.background_label, self.warning_label, self.tree):
            layout.addWidget(w)
        self.model.answered_edited.connect(self._on_answered_edited)
        self.tree.activated.connect(self._on_activated)
        self.tree.clicked.connect(self._on_activated)
        self.set_breakdown(self._breakdown)

    @property
    def breakdown(self) -> Breakdown:
        """The breakdown currently shown (a private copy)."""
        return self._breakdown

    def set_breakdown(self, breakdown: Breakdown) -> None:
        """Show ``breakdown`` (copied: the caller's value is never mutated)."""
        self._breakdown = breakdown.model_copy(deep=True)
        b = self._breakdown
        empty = not (b.background or b.goals or b.tasks or b.risks)
        self.status_label.setText("状态：尚未拆解（生成 → 需求拆解，Ctrl+B）" if empty
                                  else f"状态：{STATUS_LABELS.get(b.status, b.status)}")
        page = f"（第{b.background_page}页）" if b.background_page else ""
        self.background_label.setText(f"背景：{b.background}{page}" if b.background else "背景：（无）")
        self.model.set_breakdown(b)
        self.tree.expandAll()
        self._update_warning()

    def unanswered_count(self) -> int:
        """How many ★/▲ clauses no section is marked as answering."""
        return len(self._breakdown.unanswered_marked())

    def _update_warning(self) -> None:
        n = self.unanswered_count()
        self.warning_label.setText(f"有 {n} 条 ★/▲ 条款尚未标注由哪一节响应，导出前请逐条确认。" if n else "")
        self.warning_label.setVisible(bool(n))

    def _on_answered_edited(self, index: int, section_id: str) -> None:
        updated = self._breakdown.model_copy(deep=True)
        if not 0 <= index < len(updated.risks):
            return
        updated.risks[index].answered_in = section_id or None
        self._breakdown = updated
        self._update_warning()
        self.breakdown_edited.emit(updated.model_copy(deep=True))

    def _on_activated(self, index: ModelIndex) -> None:
        page: Any = index.data(PageRole)
        if isinstance(page, int) and page > 0:
            self.page_requested.emit(page)

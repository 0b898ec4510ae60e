"""The analysis page: project overview fields and the editable technical scoring table.

The user may correct what analysis found (or fill it in by hand without any model):
every edit produces a new ``Analysis`` value handed to the controller through the
``analysis_edited`` signal. Clicking a scoring item asks the document pane to show its page.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup, renumber_groups

ModelIndex = QModelIndex | QPersistentModelIndex
HEADERS = ("编号", "评分项", "分值", "评分标准 / 细则", "页码")
_CATEGORY_ZH = {"technical": "技术", "business": "商务", "price": "价格", "other": "其他"}


def _summary(group: ScoringGroup, limit: int = 90) -> str:
    """The criteria on two short lines for the table (the full text is in the tooltip)."""
    text = "；".join(group.detail_points) if group.detail_points else group.description
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


class ScoringTableModel(QAbstractTableModel):
    """Editable rows over the analysis' technical scoring groups.

    Signals:
        groups_edited(): a cell, a new row or a removed row changed the groups.
    """

    groups_edited = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.groups: list[ScoringGroup] = []

    def set_groups(self, groups: list[ScoringGroup]) -> None:
        """Show ``groups`` (copies; edits come back through :attr:`groups_edited`)."""
        self.beginResetModel()
        self.groups = [g.model_copy(deep=True) for g in groups]
        self.endResetModel()

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Qt override."""
        return 0 if parent.isValid() else len(self.groups)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Qt override."""
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override."""
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(HEADERS):
            return HEADERS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override: id, title, points, criteria (with detail points), page."""
        if not index.isValid():
            return None
        g = self.groups[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if col == 0:
                return g.id
            if col == 1:
                return g.title
            if col == 2:
                return "" if g.points is None else f"{g.points:g}"
            if col == 3:
                if role == Qt.ItemDataRole.EditRole:
                    return g.description
                return _summary(g)
            return "" if g.source_page is None else str(g.source_page)
        if role == Qt.ItemDataRole.ToolTipRole and col in (1, 3):
            text = g.description
            if g.detail_points:
                text = (text + "\n" if text else "") + "\n".join(f"• {p}" for p in g.detail_points)
            return text
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 2, 4):
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        """Qt override: everything but the code-owned id is editable."""
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.isValid() and index.column() != 0:
            base |= Qt.ItemFlag.ItemIsEditable
        return base

    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Qt override: validate and store one cell."""
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        g = self.groups[index.row()]
        text = str(value).strip()
        col = index.column()
        try:
            if col == 1:
                if not text:
                    return False
                update: dict[str, Any] = {"title": text[:60]}
            elif col == 2:
                update = {"points": float(text) if text else None}
            elif col == 3:
                update = {"description": text[:2000], "detail_points": []}
            elif col == 4:
                update = {"source_page": int(text) if text else None}
            else:
                return False
        except ValueError:
            return False
        self.groups[index.row()] = g.model_copy(update=update)
        self.dataChanged.emit(index, index)
        self.groups_edited.emit()
        return True

    def add_group(self, title: str = "新评分项") -> int:
        """Append a technical group; returns its row."""
        row = len(self.groups)
        self.beginInsertRows(QModelIndex(), row, row)
        self.groups.append(ScoringGroup(id=f"R{row + 1}", title=title))
        self.endInsertRows()
        self.groups_edited.emit()
        return row

    def remove_group(self, row: int) -> None:
        """Delete the group at ``row`` (ids are renumbered by code)."""
        if not 0 <= row < len(self.groups):
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self.groups[row]
        self.endRemoveRows()
        self.groups = renumber_groups(self.groups)
        if self.groups:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.groups) - 1, 0))
        self.groups_edited.emit()


class AnalysisView(QWidget):
    """Overview form above the scoring table.

    Signals:
        analysis_edited(object): the user changed the analysis (a new ``Analysis``).
        page_requested(int): show this 1-based page of the tender.
    """

    analysis_edited = Signal(object)
    page_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._analysis = Analysis()
        self._loading = False
        self.project_name = QLineEdit()
        self.buyer = QLineEdit()
        self.budget = QLineEdit()
        self.period = QLineEdit()
        self.summary = QPlainTextEdit()
        self.summary.setMaximumHeight(90)
        self.summary.setPlaceholderText("项目概况与采购内容")
        form = QFormLayout()
        form.addRow("项目名称", self.project_name)
        form.addRow("采购人", self.buyer)
        row = QHBoxLayout()
        row.addWidget(self.budget)
        row.addWidget(QLabel("服务期/工期"))
        row.addWidget(self.period)
        form.addRow("预算金额", row)
        form.addRow("项目概况", self.summary)
        for w in (self.project_name, self.buyer, self.budget, self.period):
            w.editingFinished.connect(self._on_overview_edited)
        self.summary.textChanged.connect(self._on_overview_edited)
        top = QWidget()
        top.setLayout(form)

        self.table_model = ScoringTableModel(self)
        self.table_model.groups_edited.connect(self._on_groups_edited)
        self.table = QTableView()
        self.table.setModel(self.table_model)
        self.table.setWordWrap(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(46)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        for col, width in ((0, 44), (1, 170), (2, 50), (4, 44)):
            self.table.setColumnWidth(col, width)
        self.table.clicked.connect(self._on_clicked)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #555;")
        add = QPushButton("添加评分项")
        add.clicked.connect(lambda: self.table_model.add_group())
        remove = QPushButton("删除所选")
        remove.clicked.connect(self._remove_selected)
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("技术评分项（一一对应模式下每项对应一个一级章节）"))
        buttons.addStretch(1)
        buttons.addWidget(add)
        buttons.addWidget(remove)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(buttons)
        bl.addWidget(self.table)
        bl.addWidget(self.notes)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

    def set_analysis(self, analysis: Analysis) -> None:
        """Show ``analysis`` (does not emit :attr:`analysis_edited`)."""
        self._loading = True
        try:
            self._analysis = analysis
            ov = analysis.overview
            self.project_name.setText(ov.project_name)
            self.buyer.setText(ov.buyer)
            self.budget.setText(ov.budget)
            self.period.setText(ov.service_period)
            self.summary.setPlainText(ov.summary or ov.scope)
            self.table_model.set_groups(analysis.technical_groups)
            notes = list(analysis.notes) + [d.message for d in analysis.differences]
            self.notes.setText("\n".join(notes))
            self.notes.setVisible(bool(notes))
        finally:
            self._loading = False

    def current_analysis(self) -> Analysis:
        """The analysis as the user sees it now."""
        ov = self._analysis.overview.model_copy(update={
            "project_name": self.project_name.text().strip(), "buyer": self.buyer.text().strip(),
            "budget": self.budget.text().strip(), "service_period": self.period.text().strip(),
            "summary": self.summary.toPlainText().strip(),
        })
        others = [g for g in self._analysis.groups if g.category != "technical"]
        return self._analysis.model_copy(update={"overview": ProjectOverview.model_validate(ov.model_dump()),
                                                 "groups": [*self.table_model.groups, *others]})

    def _on_overview_edited(self) -> None:
        if not self._loading and self.current_analysis().overview != self._analysis.overview:
            self._analysis = self.current_analysis()
            self.analysis_edited.emit(self._analysis)

    def _on_groups_edited(self) -> None:
        if not self._loading:
            self._analysis = self.current_analysis()
            self.analysis_edited.emit(self._analysis)

    def _remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()}, reverse=True)
        for r in rows:
            self.table_model.remove_group(r)

    def _on_clicked(self, index: QModelIndex) -> None:
        page = self.table_model.groups[index.row()].source_page
        if page:
            self.page_requested.emit(page)

    def show_group(self, group_id: str) -> None:
        """Select the group with ``group_id`` and ask for its page."""
        for row, g in enumerate(self.table_model.groups):
            if g.id == group_id:
                self.table.selectRow(row)
                if g.source_page:
                    self.page_requested.emit(g.source_page)
                return

"""The 评分索引 editor: each scoring item, the sections answering it, and 未响应 in red.

Rows are the items a section may answer (technical and commercial, never price). A
technical item no section answers shows 未响应 in red and is counted in the warning above
the table; a commercial item is listed in the exported index only once a section answers
it. "选择响应章节…" opens a checkable outline; a row can also be dragged onto a section of
the outline tree. Both emit :attr:`IndexTableView.sections_chosen` and the window turns it
into one undoable outline command; the view never edits data itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from typing_extensions import override

from app.core.analysis import Analysis, ScoringGroup, points_label
from app.core.outline import OutlineNode, Path
from app.core.response_map import index_entries, mappable_groups, node_at, section_number
from app.ui.widgets.flat_table import FlatTableModel
from app.ui.widgets.section_picker import SectionPickerDialog

ModelIndex = QModelIndex | QPersistentModelIndex
HEADERS = ("评分项", "分值", "类别", "响应章节", "状态")
COL_TITLE, COL_POINTS, COL_KIND, COL_SECTIONS, COL_STATUS = range(5)
UNANSWERED = "未响应"
#: MIME type of a dragged scoring item (its id as UTF-8).
SCORING_ITEM_MIME = "application/x-bidstudio-scoring-item"
_KIND = {"technical": "技术", "business": "商务", "other": "其他"}
_RED = QColor(176, 0, 32)


class IndexRow:
    """One item as the table shows it: the group, its sections and which are automatic."""

    def __init__(self, group: ScoringGroup, paths: Sequence[Path], automatic: frozenset[Path],
                 labels: Sequence[str]) -> None:
        self.group = group
        self.paths = list(paths)
        self.automatic = automatic
        self.labels = list(labels)

    @property
    def unanswered(self) -> bool:
        """A technical item without any section (commercial items are optional)."""
        return not self.paths and self.group.category == "technical"


def index_rows(analysis: Analysis, chapters: Sequence[OutlineNode]) -> list[IndexRow]:
    """Every mappable item with the sections answering it, in the analysis order."""
    entries = {e.group.id: e for e in index_entries(analysis, chapters)}
    rows = []
    for group in mappable_groups(analysis):
        entry = entries.get(group.id)
        paths = list(entry.paths) if entry else []  # no entry: a commercial item nobody maps yet
        labels = []
        for p in paths:
            node = node_at(chapters, p)
            labels.append(f"{section_number(p)} {node.title}" if node else section_number(p))
        rows.append(IndexRow(group, paths, entry.automatic if entry else frozenset(), labels))
    return rows


class IndexTableModel(FlatTableModel):
    """Read-only rows over :func:`index_rows`; rows can be dragged (the item id as MIME data)."""

    headers = HEADERS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[IndexRow] = []

    def set_rows(self, rows: list[IndexRow]) -> None:
        """Show ``rows``."""
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    @override
    def items(self) -> Sequence[Any]:
        """The rows shown."""
        return self.rows

    @override
    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override: title, points, category, sections (one per line), status in red when unanswered."""
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row = self.rows[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if col == COL_TITLE:
                return f"{row.group.id} {row.group.title}"
            if col == COL_POINTS:
                return points_label(row.group)
            if col == COL_KIND:
                return _KIND.get(row.group.category, "")
            if col == COL_SECTIONS:
                return "\n".join(row.labels)
            if col == COL_STATUS:
                if row.unanswered:
                    return UNANSWERED
                return "已对应" if row.paths else "不列入索引表"
        if role == Qt.ItemDataRole.ForegroundRole and col == COL_STATUS:
            return QBrush(_RED) if row.unanswered else None
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_POINTS, COL_KIND, COL_STATUS):
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    @override
    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        """Qt override: selectable and draggable, never editable in place."""
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled

    @override
    def mimeTypes(self) -> list[str]:
        """Qt override."""
        return [SCORING_ITEM_MIME]

    @override
    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        """Qt override: the dragged row's item id."""
        data = QMimeData()
        rows = sorted({i.row() for i in indexes if i.isValid()})
        if rows:
            data.setData(SCORING_ITEM_MIME, self.rows[rows[0]].group.id.encode("utf-8"))
        return data

    @override
    def supportedDragActions(self) -> Qt.DropAction:
        """Qt override: a drag links the item to a section (never moves anything)."""
        return Qt.DropAction.LinkAction | Qt.DropAction.CopyAction


class IndexTableView(QWidget):
    """Warning, the item table and the buttons to map or unmap sections.

    Signals:
        sections_chosen(str, object): an item id and the list of section paths the user chose.
    """

    sections_chosen = Signal(str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._chapters: list[OutlineNode] = []
        self.model = IndexTableModel(self)
        self.warning_label = QLabel()
        self.warning_label.setObjectName("indexWarning")
        self.warning_label.setWordWrap(True)
        self.warning_label.setStyleSheet("color:#b00020;")
        self.table = QTableView()
        self.table.setObjectName("indexTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setDragEnabled(True)
        self.table.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for col, width in ((COL_TITLE, 170), (COL_POINTS, 48), (COL_KIND, 48), (COL_SECTIONS, 200), (COL_STATUS, 90)):
            self.table.setColumnWidth(col, width)
        self.pick_button = QPushButton("选择响应章节…")
        self.pick_button.setObjectName("pickSections")
        self.clear_button = QPushButton("清除对应")
        self.pick_button.clicked.connect(self.pick_for_current)
        self.clear_button.clicked.connect(self.clear_current)
        hint = QLabel("也可以把一行拖到右侧目录中的章节上。")
        hint.setStyleSheet("color:#666;")
        buttons = QHBoxLayout()
        buttons.addWidget(self.pick_button)
        buttons.addWidget(self.clear_button)
        buttons.addWidget(hint, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.warning_label)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self.table.selectionModel().selectionChanged.connect(lambda *_a: self._update_buttons())
        self.table.doubleClicked.connect(lambda _i: self.pick_for_current())
        self._update_warning()
        self._update_buttons()

    def set_data(self, analysis: Analysis, chapters: Sequence[OutlineNode]) -> None:
        """Show the items of ``analysis`` against the outline ``chapters`` (keeps the selection)."""
        current = self.current_row()
        selected = current.group.id if current else None
        self._chapters = list(chapters)
        self.model.set_rows(index_rows(analysis, chapters))
        if selected is not None:
            for i, row in enumerate(self.model.rows):
                if row.group.id == selected:
                    self.table.selectRow(i)
        self.table.resizeRowsToContents()
        self._update_warning()
        self._update_buttons()

    def unanswered(self) -> list[ScoringGroup]:
        """Technical items no section answers."""
        return [r.group for r in self.model.rows if r.unanswered]

    def current_row(self) -> IndexRow | None:
        """The selected row."""
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or not 0 <= rows[0].row() < len(self.model.rows):
            return None
        return self.model.rows[rows[0].row()]

    def select_item(self, group_id: str) -> bool:
        """Select the row of item ``group_id``."""
        for i, row in enumerate(self.model.rows):
            if row.group.id == group_id:
                self.table.selectRow(i)
                return True
        return False

    def pick_for_current(self) -> SectionPickerDialog | None:
        """Open the section picker for the selected item (non-modal, ``open()``); returns it."""
        row = self.current_row()
        if row is None or not self._chapters:
            return None
        user_paths = [p for p in row.paths if p not in row.automatic]
        dialog = SectionPickerDialog(self._chapters, f"{row.group.id} {row.group.title}", user_paths,
                                     row.automatic, self)
        group_id = row.group.id

        def done(result: int) -> None:
            if result == SectionPickerDialog.DialogCode.Accepted.value:
                self.sections_chosen.emit(group_id, dialog.chosen_paths())
            dialog.deleteLater()

        dialog.finished.connect(done)
        dialog.open()
        return dialog

    def clear_current(self) -> None:
        """Remove the user's mapping of the selected item (one-to-one chapters stay)."""
        row = self.current_row()
        if row is not None and any(p not in row.automatic for p in row.paths):
            self.sections_chosen.emit(row.group.id, [])

    def _update_buttons(self) -> None:
        row = self.current_row()
        self.pick_button.setEnabled(row is not None and bool(self._chapters))
        self.clear_button.setEnabled(row is not None and any(p not in row.automatic for p in row.paths))

    def _update_warning(self) -> None:
        missing = self.unanswered()
        if missing:
            names = "、".join(f"{g.id} {g.title}" for g in missing[:5]) + ("等" if len(missing) > 5 else "")
            self.warning_label.setText(f"有 {len(missing)} 个技术评分项尚未对应章节（未响应）：{names}。"
                                       "导出前请选择响应章节。")
        self.warning_label.setVisible(bool(missing))

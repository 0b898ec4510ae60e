"""The row tools of the analysis page: insert, delete, split, merge, move a block, make a group.

Each is a ``QAction`` (a tool button above the rows, the rows' right-click menu, a key where
one is natural: Insert, Delete, Alt+↑/↓) that turns the selected rows into a new list of items
with a function of :mod:`app.core.scoring_rows` and hands it to the view, which makes it one
undo step; the rows the edit produced stay selected, so the next edit goes on from there.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QItemSelectionModel, QObject, QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QMenu, QTableView, QToolButton

from app.core.analysis import ScoringGroup
from app.core.scoring_rows import (
    insert_row,
    make_group,
    merge_rows,
    move_rows,
    remove_rows,
    rows_of_group,
    split_row,
)
from app.ui.tender.scoring_items_model import COL_TITLE, ScoringTableModel

#: Apply new items: (items, rows to select afterwards, the row whose title to edit or -1).
Apply = Callable[[list[ScoringGroup], list[int], int], None]


class ScoringRowActions(QObject):
    """The row actions over one table of scoring items."""

    def __init__(self, table: QTableView, model: ScoringTableModel, apply: Apply, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.model = model
        self._apply = apply
        self.insert = self._action("插入", "在所选评分项之后插入一行（Insert）", self._insert, Qt.Key.Key_Insert)
        self.remove = self._action("删除", "删除所选评分项（Delete）", self._remove, Qt.Key.Key_Delete)
        self.split = self._action("拆分", "把所选评分项拆成几项：按它的带分值小项，或按名称中的“、/及/和”", self._split)
        self.merge = self._action("合并", "把所选的几项合成一项（分值相加，原来各项成为小项）", self._merge)
        self.up = self._action("上移", "所选各项一起上移一行（Alt+↑）", lambda: self._move(-1), "Alt+Up")
        self.down = self._action("下移", "所选各项一起下移一行（Alt+↓）", lambda: self._move(1), "Alt+Down")
        self.group = self._action("设为分组", "所选的一行是“技术部分 62”这样的类别行：删去它，它下面合计为其分值的各项"
                                  "归入这一组（并按名称归入技术/商务/价格类）", self._make_group)
        self.select_group = self._action("选中同组", "选中与所选评分项同一分组的全部评分项，可一起移动或改类别",
                                         self._select_group)
        for action in self.actions():
            table.addAction(action)
        table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        table.customContextMenuRequested.connect(self._menu)
        table.selectionModel().selectionChanged.connect(self.update_enabled)
        model.modelReset.connect(self.update_enabled)
        self.update_enabled()

    def _action(self, text: str, tip: str, slot: Callable[[], None], key: Qt.Key | str | None = None) -> QAction:
        action = QAction(text, self)
        action.setToolTip(tip)
        action.setStatusTip(tip)
        if key is not None:
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        action.triggered.connect(slot)
        return action

    def actions(self) -> list[QAction]:
        """All row actions, in the order the bar and the menu show them."""
        return [self.insert, self.remove, self.split, self.merge, self.up, self.down, self.group, self.select_group]

    def bar(self) -> QHBoxLayout:
        """Tool buttons for the actions, in one row."""
        row = QHBoxLayout()
        row.setSpacing(2)
        for action in self.actions():
            if action is self.select_group:
                continue
            b = QToolButton()
            b.setDefaultAction(action)
            b.setObjectName(f"rowAction_{self.actions().index(action)}")
            row.addWidget(b)
        return row

    def selected(self) -> list[int]:
        """The selected rows, in order."""
        return sorted({i.row() for i in self.table.selectionModel().selectedRows()
                       if 0 <= i.row() < len(self.model.groups)})

    def update_enabled(self) -> None:
        """Enable what applies to the selection."""
        rows = self.selected()
        n = len(self.model.groups)
        self.remove.setEnabled(bool(rows))
        self.split.setEnabled(len(rows) == 1)
        self.merge.setEnabled(len(rows) >= 2)
        self.up.setEnabled(bool(rows) and rows[0] > 0)
        self.down.setEnabled(bool(rows) and rows[-1] < n - 1)
        self.group.setEnabled(len(rows) == 1 and rows[0] < n - 1)
        self.select_group.setEnabled(len(rows) == 1 and bool(self.model.groups[rows[0]].group_label))

    def _menu(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        if index.isValid() and index.row() not in self.selected():
            self.table.selectRow(index.row())
        menu = QMenu(self.table)
        for action in self.actions():
            menu.addAction(action)
        menu.popup(self.table.viewport().mapToGlobal(pos))

    def _groups(self) -> list[ScoringGroup]:
        return list(self.model.groups)

    def _insert(self) -> None:
        rows = self.selected()
        at = rows[-1] + 1 if rows else len(self.model.groups)
        self._apply(insert_row(self._groups(), at), [at], at)

    def _remove(self) -> None:
        rows = self.selected()
        if rows:
            self._apply(remove_rows(self._groups(), rows), [min(rows[0], len(self.model.groups) - len(rows) - 1)], -1)

    def _split(self) -> None:
        rows = self.selected()
        if len(rows) != 1:
            return
        before = len(self.model.groups)
        groups = split_row(self._groups(), rows[0])
        made = len(groups) - before + 1
        self._apply(groups, list(range(rows[0], rows[0] + made)), -1)

    def _merge(self) -> None:
        rows = self.selected()
        if len(rows) >= 2:
            self._apply(merge_rows(self._groups(), rows), [rows[0]], -1)

    def _move(self, delta: int) -> None:
        groups, at = move_rows(self._groups(), self.selected(), delta)
        if at != self.selected():
            self._apply(groups, at, -1)

    def _make_group(self) -> None:
        rows = self.selected()
        if len(rows) == 1:
            groups, count = make_group(self._groups(), rows[0])
            self._apply(groups, list(range(rows[0], rows[0] + count)), -1)

    def _select_group(self) -> None:
        rows = self.selected()
        if len(rows) != 1:
            return
        selection = self.table.selectionModel()
        selection.clearSelection()
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for r in rows_of_group(self.model.groups, rows[0]):
            selection.select(self.model.index(r, COL_TITLE), flags)

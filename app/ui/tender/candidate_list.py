"""The candidate scoring tables on the analysis page: tick to use several, one click to use one instead.

Each candidate is a row: a check box (use this table too, or stop using it — the 商务, 技术 and
价格 tables of one scheme are ticked together) with where it is, what it holds and why a
look-alike was set aside; and, at the right, “只用此表”: one click uses that table instead of
those in use. Every candidate has a key of its own, so a tick changes exactly one table.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

from app.core.analysis import ScoringTableInfo

COL_TABLE, COL_ONLY = 0, 1
ONLY_TEXT = "只用此表"
_LINK = QColor("#1a5fb4")
KEY_ROLE = Qt.ItemDataRole.UserRole


def _pages(pages: list[int]) -> str:
    if not pages:
        return ""
    return f"第{pages[0]}页" if len(pages) == 1 else f"第{pages[0]}–{pages[-1]}页"


def candidate_text(t: ScoringTableInfo) -> str:
    """One line per candidate table: where, what, how many items, the sum, why set aside."""
    kind = "评分条文" if t.kind == "paragraphs" else (t.label or "表格")
    line = f"{_pages(t.pages)} {kind} · {len(t.groups)} 项 · 合计 {t.total:g} 分"
    if t.stated_total is not None and abs(t.total - t.stated_total) >= 0.01:
        line += f"（标明 {t.stated_total:g} 分）"
    if t.rejected:
        line += f" — 不像评分表：{t.rejected}"
    return line


class CandidateList(QTreeWidget):
    """The candidate tables, ticked when used.

    Signals:
        toggled(str, bool): the user ticked (True) or unticked a candidate (its key).
        use_only(str): the user clicked “只用此表” on a candidate (its key).
    """

    toggled = Signal(str, bool)
    use_only = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scoringCandidates")
        self.setColumnCount(2)
        self.setHeaderHidden(True)
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COL_TABLE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(COL_ONLY, QHeaderView.ResizeMode.ResizeToContents)
        self.setToolTip("勾选评标使用的评分表（可勾选多张：商务、技术、价格分表）；点“只用此表”改用这一张")
        self._loading = False
        self.itemChanged.connect(self._on_item_changed)
        self.clicked.connect(self._on_clicked)

    def set_tables(self, tables: list[ScoringTableInfo]) -> None:
        """Show ``tables`` (does not emit)."""
        self._loading = True
        try:
            self.clear()
            used = sum(1 for t in tables if t.used)
            for t in tables:
                item = QTreeWidgetItem([candidate_text(t), ""])
                item.setData(COL_TABLE, KEY_ROLE, t.key)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(COL_TABLE, Qt.CheckState.Checked if t.used else Qt.CheckState.Unchecked)
                item.setToolTip(COL_TABLE, "\n".join(t.evidence) or candidate_text(t))
                if not t.used or used > 1:
                    item.setText(COL_ONLY, ONLY_TEXT)
                    item.setForeground(COL_ONLY, QBrush(_LINK))
                    item.setToolTip(COL_ONLY, "改用这一张表（不再使用其他表）")
                self.addTopLevelItem(item)
        finally:
            self._loading = False

    def candidate_items(self) -> list[QTreeWidgetItem]:
        """The candidates' rows, in order."""
        return [item for i in range(self.topLevelItemCount()) if (item := self.topLevelItem(i)) is not None]

    def keys(self) -> list[str]:
        """The candidates' keys, in order."""
        return [str(item.data(COL_TABLE, KEY_ROLE)) for item in self.candidate_items()]

    def checked(self) -> list[bool]:
        """Whether each candidate is ticked, in order."""
        return [item.checkState(COL_TABLE) == Qt.CheckState.Checked for item in self.candidate_items()]

    # The list is rebuilt from the new analysis the signals lead to: that happens after the click's own
    # event handling has finished with the item (a rebuild inside it deletes the item being clicked).
    def _on_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._loading or column != COL_TABLE:
            return
        key, on = str(item.data(COL_TABLE, KEY_ROLE)), item.checkState(COL_TABLE) == Qt.CheckState.Checked
        QTimer.singleShot(0, self, lambda: self.toggled.emit(key, on))

    def _on_clicked(self, index: QModelIndex) -> None:
        if index.column() != COL_ONLY:
            return
        item = self.topLevelItem(index.row())
        if item is not None and item.text(COL_ONLY) == ONLY_TEXT:
            key = str(item.data(COL_TABLE, KEY_ROLE))
            QTimer.singleShot(0, self, lambda: self.use_only.emit(key))

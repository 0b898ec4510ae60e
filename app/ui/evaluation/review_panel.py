"""The 自评表 widget: one row per scoring item, one child row per criteria point.

Columns: the item or point, its status (已响应 / 单薄 / 缺失, coloured), the section that
answers it, a short quote as evidence, and the points (expected / maximum for an item,
the tier the text supports). Clicking a row with a section asks the window to show that
section; the buttons ask for 补写 of the selected gap, of all gaps, for the model's check
and for the table export. The panel holds no data of its own beyond the last review shown.

Signals:
    section_requested(object): a path (tuple) of the outline to show.
    fill_requested(object): a list of ``(group_id, point_index)`` to 补写.
    check_requested(): ask the configured model the closed questions.
    export_requested(): export the table as a spreadsheet.
    cancel_requested(): stop the running 补写 or check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QTreeView, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from app.pipeline.evaluation.review import BidReview, ItemReview, PointReview

COLUMNS = ("评分项 / 要点", "状态", "所在章节", "引文", "分值")
KEY_ROLE = Qt.ItemDataRole.UserRole + 1
PATH_ROLE = Qt.ItemDataRole.UserRole + 2
STATUS_COLOURS = {"answered": "#2e7d32", "thin": "#b26a00", "missing": "#c62828"}


def _points_text(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


class ReviewPanel(QWidget):
    """The 自评表: summary line, tree of items and points, buttons."""

    section_requested = Signal(object)
    fill_requested = Signal(object)
    check_requested = Signal()
    export_requested = Signal()
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reviewPanel")
        self.review: BidReview | None = None
        self.summary = QLabel("尚无评分项：请先分析招标文件。")
        self.summary.setObjectName("reviewSummary")
        self.summary.setWordWrap(True)
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(list(COLUMNS))
        self.tree = QTreeView()
        self.tree.setObjectName("reviewTree")
        self.tree.setModel(self.model)
        self.tree.setEditTriggers(QTreeView.EditTrigger.NoEditTriggers)
        self.tree.setUniformRowHeights(True)
        self.tree.setColumnWidth(0, 220)
        self.tree.clicked.connect(self._on_clicked)
        self.tree.selectionModel().currentChanged.connect(lambda *_a: self._update_buttons())
        self.fill_button = QPushButton("补写本要点")
        self.fill_button.setObjectName("fillPointButton")
        self.fill_button.setToolTip("只为选中的单薄或缺失要点撰写正文（可一步撤销）")
        self.fill_all_button = QPushButton("补写全部缺项")
        self.fill_all_button.setObjectName("fillAllButton")
        self.check_button = QPushButton("模型复核")
        self.check_button.setObjectName("checkModelButton")
        self.check_button.setToolTip("请模型逐条判断单薄或缺失的要点是否已回应；只采信能在正文中找到的原句")
        self.export_button = QPushButton("导出自评表…")
        self.export_button.setObjectName("exportReviewButton")
        self.progress = QProgressBar()
        self.progress.setObjectName("reviewProgress")
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("取消")
        self.cancel_button.setObjectName("cancelReviewButton")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.running = False
        self.fill_button.clicked.connect(self._on_fill)
        self.fill_all_button.clicked.connect(lambda: self.fill_requested.emit(self.gaps()))
        self.check_button.clicked.connect(self.check_requested.emit)
        self.export_button.clicked.connect(self.export_requested.emit)
        buttons = QHBoxLayout()
        for b in (self.fill_button, self.fill_all_button, self.check_button, self.export_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)
        running = QHBoxLayout()
        running.addWidget(self.progress, 1)
        running.addWidget(self.cancel_button)
        layout.addLayout(running)
        layout.addLayout(buttons)
        self._update_buttons()

    # ------------------------------------------------------------------ showing a review
    def set_review(self, review: BidReview) -> None:
        """Show ``review``; the expanded items and the current row are kept."""
        current = self.tree.currentIndex().data(KEY_ROLE) if self.tree.currentIndex().isValid() else None
        collapsed = {self.model.item(r).data(KEY_ROLE) for r in range(self.model.rowCount())
                     if not self.tree.isExpanded(self.model.index(r, 0))}
        self.review = review
        self.model.removeRows(0, self.model.rowCount())
        for item in review.items:
            row = self._item_row(item)
            for k, point in enumerate(item.points):
                row[0].appendRow(self._point_row(item, k, point))
            self.model.appendRow(row)
        counts = review.counts()
        if review.items:
            self.summary.setText(
                f"预计技术得分 {review.expected:g} / {review.maximum:g} 分 · 已响应 {counts['answered']}，"
                f"单薄 {counts['thin']}，缺失 {counts['missing']}（程序比对，仅供参考）")
        else:
            self.summary.setText("尚无技术评分项：请先分析招标文件。")
        for r in range(self.model.rowCount()):
            index = self.model.index(r, 0)
            self.tree.setExpanded(index, self.model.item(r).data(KEY_ROLE) not in collapsed)
            if current is not None:
                self._restore_current(index, current)
        self._update_buttons()

    def _restore_current(self, parent: QModelIndex, key: object) -> None:
        if parent.data(KEY_ROLE) == key:
            self.tree.setCurrentIndex(parent)
            return
        for r in range(self.model.rowCount(parent)):
            child = self.model.index(r, 0, parent)
            if child.data(KEY_ROLE) == key:
                self.tree.setCurrentIndex(child)

    def _item_row(self, item: ItemReview) -> list[QStandardItem]:
        est = item.estimate
        name = QStandardItem(f"{item.group.id} {item.group.title}")
        name.setData(("item", item.group.id), KEY_ROLE)
        gaps = len(item.gaps)
        status = QStandardItem("全部已响应" if not gaps else f"{gaps} 项待补")
        status.setForeground(QBrush(QColor(STATUS_COLOURS["answered" if not gaps else "thin"])))
        first = item.sections[0] if item.sections else None
        where = QStandardItem("" if first is None else ".".join(str(i + 1) for i in first))
        tier = QStandardItem(f"{item.rule}：{est.tier}" if est.tier else item.rule)
        tier.setToolTip(est.explanation)
        score = QStandardItem(f"{est.expected:g} / {_points_text(est.maximum) or '?'}")
        score.setToolTip(est.explanation)
        row = [name, status, where, tier, score]
        for cell in row:
            cell.setData(first, PATH_ROLE)
            cell.setData(("item", item.group.id), KEY_ROLE)
        return row

    def _point_row(self, item: ItemReview, index: int, point: PointReview) -> list[QStandardItem]:
        from app.pipeline.evaluation.matching import STATUS_ZH  # loaded with the first review, not at start

        label = QStandardItem(point.label)
        status = QStandardItem(STATUS_ZH[point.status] + ("（模型）" if point.decided_by == "model" else ""))
        status.setForeground(QBrush(QColor(STATUS_COLOURS[point.status])))
        if point.note:
            status.setToolTip(point.note)
            label.setToolTip(point.note)
        first = point.evidence[0] if point.evidence else None
        where = QStandardItem("；".join(e.heading for e in point.evidence))
        quote = QStandardItem(first.quote if first else point.note)
        quote.setToolTip("\n".join(f"{e.heading}：{e.quote}" for e in point.evidence) or point.note)
        score = QStandardItem(_points_text(point.points))
        path = first.path if first else (item.sections[0] if item.sections else None)
        row = [label, status, where, quote, score]
        for cell in row:
            cell.setData(path, PATH_ROLE)
            cell.setData(("point", item.group.id, index), KEY_ROLE)
        return row

    # ------------------------------------------------------------------ choosing
    def gaps(self) -> list[tuple[str, int]]:
        """Every thin or missing point as ``(group_id, point_index)``."""
        if self.review is None:
            return []
        return [(item.group.id, k) for item in self.review.items for k, p in enumerate(item.points)
                if p.status != "answered"]

    def selected_gap(self) -> tuple[str, int] | None:
        """The current row's point when it is thin or missing."""
        key = self.tree.currentIndex().data(KEY_ROLE)
        if not isinstance(key, tuple) or key[0] != "point" or self.review is None:
            return None
        item = next((i for i in self.review.items if i.group.id == key[1]), None)
        if item is None or key[2] >= len(item.points) or item.points[key[2]].status == "answered":
            return None
        return key[1], key[2]

    def _update_buttons(self) -> None:
        idle = not self.running
        self.fill_button.setEnabled(idle and self.selected_gap() is not None)
        self.fill_all_button.setEnabled(idle and bool(self.gaps()))
        self.check_button.setEnabled(idle and bool(self.gaps()))
        self.export_button.setEnabled(bool(self.review and self.review.items))

    # ------------------------------------------------------------------ progress of a running job
    def start_progress(self, total: int) -> None:
        """A 补写 or check starts: show the bar (busy when ``total`` is 0) and the cancel button."""
        self.running = True
        self.progress.setRange(0, max(0, total))
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)
        self._update_buttons()

    def set_progress(self, done: int, text: str) -> None:
        """``done`` items finished; ``text`` shown on the bar."""
        self.progress.setValue(done)
        self.progress.setFormat(f"{text} %p%" if text else "%p%")

    def end_progress(self) -> None:
        """The job ended (finished, failed or cancelled)."""
        self.running = False
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        self._update_buttons()

    def _on_fill(self) -> None:
        gap = self.selected_gap()
        if gap is not None:
            self.fill_requested.emit([gap])

    def _on_clicked(self, index: QModelIndex) -> None:
        path = index.data(PATH_ROLE)
        if path is not None:
            self.section_requested.emit(tuple(path))

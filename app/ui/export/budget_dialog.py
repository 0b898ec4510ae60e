"""The 篇幅预算 dialog: a total for the technical bid, the tender's page limit, each chapter's share.

Shares follow the points each chapter answers (:mod:`app.core.length_budget`); typing a number
into a chapter's cell fixes it, clearing the cell lets it follow the points again. The
tender's stated page limit is filled in when the tender says one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.analysis import Analysis
from app.core.length_budget import LengthBudget, budget_summary, chapter_budgets, chapter_points
from app.core.outline import OutlineNode

if TYPE_CHECKING:
    from app.ui.shell.window_host import WindowHost

_COL_TITLE, _COL_POINTS, _COL_AMOUNT = range(3)


class LengthBudgetDialog(QDialog):
    """Set or clear the project's length budget; :meth:`budget` after 确定 (None: cleared)."""

    def __init__(self, chapters: Sequence[OutlineNode], analysis: Analysis | None, budget: LengthBudget | None,
                 stated_limit: int | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lengthBudgetDialog")
        self.setWindowTitle("篇幅预算")
        self.resize(560, 480)
        self._chapters = list(chapters)
        self._points = chapter_points(self._chapters, analysis)
        self._fixed: dict[str, int] = dict(budget.fixed) if budget else {}
        self._cleared = False
        self.unit_box = QComboBox()
        self.unit_box.addItem("页", "pages")
        self.unit_box.addItem("字", "chars")
        self.total_spin = QSpinBox()
        self.total_spin.setRange(1, 1_000_000)
        self.limit_spin = QSpinBox()
        self.limit_spin.setRange(0, 10_000)
        self.limit_spin.setSpecialValueText("无")
        self.limit_spin.setSuffix(" 页")
        self.table = QTableWidget(len(self._chapters), 3)
        self.table.setHorizontalHeaderLabels(["章", "分值", "篇幅"])
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(_COL_TITLE, QHeaderView.ResizeMode.Stretch)
        for col in (_COL_POINTS, _COL_AMOUNT):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        hint = QLabel("各章篇幅按分值分配；在“篇幅”列输入数字即固定该章，清空后恢复按分值分配。")
        hint.setWordWrap(True)
        hint.setStyleSheet("color:#666;")
        self.hint = hint
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setObjectName("budgetSummary")
        note = QLabel(f"招标文件规定：技术标不超过 {stated_limit} 页" if stated_limit else "")
        note.setVisible(bool(stated_limit))
        note.setStyleSheet("color:#b00020;")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
                                        | QDialogButtonBox.StandardButton.Reset)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("确定")
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("取消")
        self.clear_button = self.buttons.button(QDialogButtonBox.StandardButton.Reset)
        self.clear_button.setText("不设预算")
        form = QFormLayout()
        form.addRow("单位：", self.unit_box)
        form.addRow("全书目标：", self.total_spin)
        form.addRow("页数上限：", self.limit_spin)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(hint)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.buttons)

        start = budget or LengthBudget(total=min(stated_limit or 80, 80), page_limit=stated_limit)
        self.unit_box.setCurrentIndex(self.unit_box.findData(start.unit))
        self.total_spin.setValue(start.total)
        self.limit_spin.setValue(start.page_limit or stated_limit or 0)
        self.refresh()
        self.unit_box.currentIndexChanged.connect(lambda _i: self._on_unit_changed())
        self.total_spin.valueChanged.connect(lambda _v: self.refresh())
        self.limit_spin.valueChanged.connect(lambda _v: self.refresh())
        self.table.itemChanged.connect(self._on_item_changed)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.clear_button.clicked.connect(self._on_clear)

    def current(self) -> LengthBudget:
        """The budget as set in the dialog right now."""
        return LengthBudget(unit=self.unit_box.currentData(), total=self.total_spin.value(),
                            page_limit=self.limit_spin.value() or None,
                            fixed={k: v for k, v in self._fixed.items() if any(c.title == k for c in self._chapters)})

    def budget(self) -> LengthBudget | None:
        """What to store: the budget, or None when the user chose 不设预算."""
        return None if self._cleared else self.current()

    def refresh(self) -> None:
        """Recompute every chapter's share and the summary line."""
        budget = self.current()
        shares = chapter_budgets(budget, self._chapters, self._points)
        self.table.blockSignals(True)
        for row, share in enumerate(shares):
            title = QTableWidgetItem(share.title)
            title.setFlags(title.flags() & ~Qt.ItemFlag.ItemIsEditable)
            points = QTableWidgetItem("" if share.points is None else f"{share.points:g}")
            points.setFlags(points.flags() & ~Qt.ItemFlag.ItemIsEditable)
            amount = QTableWidgetItem(str(share.amount))
            if share.fixed:
                font = amount.font()
                font.setBold(True)
                amount.setFont(font)
                amount.setToolTip("已固定；清空后按分值分配")
            self.table.setItem(row, _COL_TITLE, title)
            self.table.setItem(row, _COL_POINTS, points)
            self.table.setItem(row, _COL_AMOUNT, amount)
        self.table.blockSignals(False)
        self.summary.setText(budget_summary(budget, shares))

    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if item.column() != _COL_AMOUNT:
            return
        title = self._chapters[item.row()].title
        text = item.text().strip()
        if not text:
            self._fixed.pop(title, None)
        elif text.isdigit() and int(text) > 0:
            self._fixed[title] = int(text)
        self.refresh()

    def _on_unit_changed(self) -> None:
        self._fixed.clear()  # numbers in the other unit would mislead
        self.refresh()

    def _on_clear(self) -> None:
        self._cleared = True
        self.accept()


def open_budget_dialog(window: WindowHost) -> LengthBudgetDialog:
    """Open the dialog for the window's project (non-modal); 确定 stores the budget in the session."""
    from app.core.length_budget import find_page_limit

    c = window.controller
    document = c.session.document
    stated = find_page_limit(document.text()) if document is not None and hasattr(document, "text") else None
    dialog = LengthBudgetDialog(c.outline.chapters, c.analysis, c.length_budget, stated, window)

    def done(result: int) -> None:
        if result == QDialog.DialogCode.Accepted:
            c.session.set_length_budget(dialog.budget())
            summary = dialog.summary.text() if dialog.budget() is not None else "已取消篇幅预算"
            window.statusBar().showMessage(summary, 8000)

    dialog.finished.connect(done)
    dialog.open()
    return dialog

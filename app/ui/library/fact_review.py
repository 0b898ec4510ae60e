"""The review of company facts that differ between a personal library and the office's (after a copy).

One row per differing field; the first row of each fact has a checkbox 采用本机资料库的内容.
Nothing is taken unless ticked: by default the office keeps what it has.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.library.facts import COLUMNS
from app.library.merge import FactClash

_LABELS = {field: aliases[0] for fields in COLUMNS.values() for field, aliases in fields.items()}


class FactReviewDialog(QDialog):
    """Lists the clashes; :meth:`chosen` are those whose personal version the user ticked."""

    def __init__(self, clashes: list[FactClash], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("核对企业资料的差异")
        self.setObjectName("factReviewDialog")
        self.setMinimumWidth(720)
        self.clashes = clashes
        note = QLabel(f"本机资料库中有 {len(clashes)} 条企业资料与办公室资料库的同一证书/人员/业绩/设备内容不同。"
                      "默认保留办公室资料库的内容；勾选的条目将改为本机资料库的内容（若期间有人修改过该条，会提示而不覆盖）。")
        note.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("factReviewTable")
        self.table.setHorizontalHeaderLabels(["企业资料（勾选：采用本机）", "字段", "办公室资料库", "本机资料库"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self._check_rows: list[int] = []
        for clash in clashes:
            diffs = clash.differences() or [("", "", "")]
            for i, (field, office, personal) in enumerate(diffs):
                r = self.table.rowCount()
                self.table.insertRow(r)
                head = QTableWidgetItem(clash.describe() if i == 0 else "")
                if i == 0:
                    head.setFlags(head.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    head.setCheckState(Qt.CheckState.Unchecked)
                    self._check_rows.append(r)
                self.table.setItem(r, 0, head)
                for c, v in enumerate((_LABELS.get(field, field), office, personal), start=1):
                    self.table.setItem(r, c, QTableWidgetItem(v))
        buttons = QDialogButtonBox()
        self.apply_button = buttons.addButton("应用勾选的条目", QDialogButtonBox.ButtonRole.AcceptRole)
        self.keep_button = buttons.addButton("全部保留办公室的内容", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def set_taken(self, index: int, taken: bool) -> None:
        """Tick (or untick) the ``index``-th clash."""
        item = self.table.item(self._check_rows[index], 0)
        if item is not None:
            item.setCheckState(Qt.CheckState.Checked if taken else Qt.CheckState.Unchecked)

    def chosen(self) -> list[FactClash]:
        """The clashes whose personal version is ticked."""
        out = []
        for clash, row in zip(self.clashes, self._check_rows, strict=True):
            item = self.table.item(row, 0)
            if item is not None and item.checkState() == Qt.CheckState.Checked:
                out.append(clash)
        return out

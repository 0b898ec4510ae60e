"""The figure editor: kind, caption, a small table of the figure's data and a live preview.

The table is the same form :func:`app.core.figures.from_rows` reads, so what the user types is
validated by the same rules as a model's proposal; a problem is shown in red under the table
(and 确定 refuses to close) while the last good preview stays. The preview is the export's own
drawing at screen resolution.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from typing_extensions import override

from app.core.figures import (
    COLUMNS,
    KIND_ZH,
    Figure,
    FigureError,
    GanttChart,
    from_rows,
    sample_figure,
    to_rows,
)

if TYPE_CHECKING:
    from app.pipeline.drafting.figure_proposal import FigureProposal

#: Asks the model for a figure of a kind (``org``/``flow``/``gantt``) for the section being edited.
Proposer = Callable[[str], Awaitable["FigureProposal"]]
_KINDS = ("org", "flow", "gantt")
_PREVIEW_DPI = 72


class FigureEditorDialog(QDialog):
    """Edit one figure; :meth:`figure` holds the checked result after 确定.

    Signals:
        figure_changed(): the table parsed into a new valid figure (the preview was redrawn).
    """

    figure_changed = Signal()

    def __init__(self, figure: Figure | None = None, kind: str = "org", parent: QWidget | None = None,
                 proposer: Proposer | None = None) -> None:
        super().__init__(parent)
        self._proposer = proposer
        self._proposal_task: asyncio.Task[FigureProposal] | None = None
        self.setWindowTitle("编辑图" if figure else "插入图")
        self.resize(900, 600)
        start = figure or sample_figure(kind)
        self._figure_id = start.id
        self._result: Figure | None = figure
        self.kind_box = QComboBox()
        for k in _KINDS:
            self.kind_box.addItem(KIND_ZH[k], k)
        self.kind_box.setCurrentIndex(_KINDS.index(start.kind))
        self.title_edit = QLineEdit(start.title)
        self.total_days = QSpinBox()
        self.total_days.setRange(0, 3660)
        self.total_days.setSpecialValueText("不限")
        self.total_days.setSuffix(" 天")
        if isinstance(start.data, GanttChart) and start.data.total_days:
            self.total_days.setValue(start.data.total_days)
        self.table = QTableWidget()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.add_row_button = QPushButton("添加行")
        self.remove_row_button = QPushButton("删除所选行")
        self.propose_button = QPushButton("请模型提出数据")
        self.propose_button.setToolTip("根据本节标题、要点和正文，请模型提出图的数据，核对后再确定")
        self.propose_button.setEnabled(proposer is not None)
        self.error_label = QLabel("")
        self.error_label.setObjectName("figureError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color:#c00000;")
        self.preview = QLabel()
        self.preview.setAlignment(Qt.AlignmentFlag.AlignCenter)
        scroll = QScrollArea()
        scroll.setWidget(self.preview)
        scroll.setWidgetResizable(True)
        self._scroll = scroll
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("确定")
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("取消")

        form = QFormLayout()
        form.addRow("图的类型", self.kind_box)
        form.addRow("图题", self.title_edit)
        form.addRow("总工期（横道图）", self.total_days)
        row_buttons = QHBoxLayout()
        row_buttons.addWidget(self.add_row_button)
        row_buttons.addWidget(self.remove_row_button)
        row_buttons.addWidget(self.propose_button)
        row_buttons.addStretch(1)
        left = QVBoxLayout()
        left.addLayout(form)
        left.addWidget(self.table, 1)
        left.addLayout(row_buttons)
        left.addWidget(self.error_label)
        body = QHBoxLayout()
        body.addLayout(left, 1)
        body.addWidget(scroll, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(self.buttons)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(300)
        self._timer.timeout.connect(self.refresh)
        self._fill(start.kind, to_rows(start))
        self.kind_box.currentIndexChanged.connect(self._on_kind_changed)
        self.table.itemChanged.connect(lambda _item: self._timer.start())
        self.title_edit.textChanged.connect(lambda _t: self._timer.start())
        self.total_days.valueChanged.connect(lambda _v: self._timer.start())
        self.add_row_button.clicked.connect(self._on_add_row)
        self.remove_row_button.clicked.connect(self._on_remove_rows)
        self.propose_button.clicked.connect(self._on_propose)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.refresh()

    # ------------------------------------------------------------------ state
    @property
    def kind(self) -> str:
        """The selected kind (``org``, ``flow`` or ``gantt``)."""
        return str(self.kind_box.currentData())

    def figure(self) -> Figure | None:
        """The last valid figure (after 确定: what the user accepted)."""
        return self._result

    def rows(self) -> list[list[str]]:
        """The table's cells as text."""
        out = []
        for r in range(self.table.rowCount()):
            cells = [self.table.item(r, c) for c in range(self.table.columnCount())]
            out.append([item.text() if item is not None else "" for item in cells])
        return out

    def set_rows(self, rows: list[list[str]]) -> None:
        """Replace the table's content (tests and a model's proposal fill it this way)."""
        self._fill(self.kind, rows)
        self.refresh()

    def _fill(self, kind: str, rows: list[list[str]]) -> None:
        self.table.blockSignals(True)
        headers = COLUMNS[kind]
        self.table.clear()
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(list(headers))
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row[: len(headers)]):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.blockSignals(False)
        self.total_days.setEnabled(kind == "gantt")

    # ------------------------------------------------------------------ slots
    def refresh(self) -> bool:
        """Parse the table; on success redraw the preview, else show the problem. Returns success."""
        self._timer.stop()
        from app.export.figures.render import render_png  # matplotlib loads when a figure is first drawn

        total = self.total_days.value() or None
        try:
            figure = from_rows(self.kind, self.rows(), self.title_edit.text(), self._figure_id, total_days=total)
            rendered = render_png(figure, dpi=_PREVIEW_DPI)
        except FigureError as exc:
            self.error_label.setText(exc.message_zh)
            return False
        pixmap = QPixmap()
        pixmap.loadFromData(rendered.png, "PNG")
        room = max(200, self._scroll.viewport().width() - 12)
        if pixmap.width() > room:  # fit the width; a tall chart scrolls
            pixmap = pixmap.scaledToWidth(room, Qt.TransformationMode.SmoothTransformation)
        self.preview.setPixmap(pixmap)
        self.error_label.setText("" if rendered.cjk_font else "本机未找到中文字体，预览中的汉字可能显示为方框")
        self._result = figure
        self.figure_changed.emit()
        return True

    def _on_kind_changed(self, _index: int) -> None:
        sample = sample_figure(self.kind)
        self.title_edit.setText(sample.title)
        self._fill(self.kind, to_rows(sample))
        self.refresh()

    def _on_add_row(self) -> None:
        self.table.insertRow(self.table.rowCount())

    def _on_remove_rows(self) -> None:
        for r in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(r)
        self.refresh()

    def _on_propose(self) -> None:
        if self._proposer is None or (self._proposal_task is not None and not self._proposal_task.done()):
            return
        self.propose_button.setEnabled(False)
        self.error_label.setStyleSheet("color:#666;")
        self.error_label.setText("正在请模型提出数据……")
        self._proposal_task = asyncio.ensure_future(self._proposer(self.kind))
        self._proposal_task.add_done_callback(self._on_proposed)

    def _on_proposed(self, task: asyncio.Task[FigureProposal]) -> None:
        self.propose_button.setEnabled(True)
        self.error_label.setStyleSheet("color:#c00000;")
        if task.cancelled():
            self.error_label.setText("已取消")
            return
        error = task.exception()
        proposal = task.result() if error is None else None
        if proposal is None or proposal.figure is None:
            self.error_label.setText(proposal.message_zh if proposal is not None else f"模型调用出错：{error}")
            return
        figure = proposal.figure
        self.title_edit.setText(figure.title)
        if isinstance(figure.data, GanttChart) and figure.data.total_days:
            self.total_days.setValue(figure.data.total_days)
        self.set_rows(to_rows(figure))
        if not self.error_label.text():
            self.error_label.setStyleSheet("color:#666;")
            self.error_label.setText(proposal.message_zh)

    @override
    def done(self, result: int) -> None:
        """Qt override: a proposal still running is cancelled when the dialog closes."""
        if self._proposal_task is not None and not self._proposal_task.done():
            self._proposal_task.cancel()
        super().done(result)

    @override
    def accept(self) -> None:
        """Qt override: close only when the table parses into a drawable figure."""
        if self.refresh():
            super().accept()

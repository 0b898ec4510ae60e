"""Two readings of the scoring scheme side by side, and one click to take either.

Shown on the analysis page when the model's own reading of the scoring pages passed code's
check (or most of it) but differs from code's: code's rows on the left, the model's on the
right, each row that the other reading does not have in the same way marked, a model row that
failed the check marked with why. A click on a row shows its page beside them; “采用程序的读法”
and “采用模型的读法” take one reading (one undo step, confirmed by the user).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.analysis import CATEGORY_ZH, Analysis, ScoringGroup

_DIFF = QColor("#ffcdd2")  # not in the other reading as it is here
_FAILED = QColor("#ffe0b2")  # a model row code could not find in the text with its points
HEADERS = ("评分项", "分值", "类别")


def differing(code: list[ScoringGroup], model: list[ScoringGroup]) -> tuple[set[int], set[int]]:
    """Rows of each reading the other does not have with the same name, points and category."""
    from app.pipeline.analysis.reading_compare import compare  # loaded with the first second reading

    result = compare(code, model)
    paired_code = {i for i, _ in result.pairs}
    paired_model = {j for _, js in result.pairs for j in js}
    bad_code = set(range(len(code))) - paired_code
    bad_model = set(range(len(model))) - paired_model
    by_model: dict[int, list[int]] = {}
    for i, js in result.pairs:
        for j in js:
            by_model.setdefault(j, []).append(i)
    for i, js in result.pairs:
        if len(js) == 1 and len(by_model[js[0]]) > 1:  # the model's factor over code's finer rows
            mine = sum(code[k].points or 0 for k in by_model[js[0]])
            same = abs(mine - (model[js[0]].points or 0.0)) < 0.01
        else:
            want = code[i].points
            same = want is not None and abs(sum(model[j].points or 0.0 for j in js) - want) < 0.01
        if not same or {model[j].category for j in js} != {code[i].category}:
            bad_code.add(i)
            bad_model.update(js)
    return bad_code, bad_model


class ReadingCompareView(QWidget):
    """Code's reading and the model's, side by side.

    Signals:
        take(str): the user takes ``"code"`` or ``"model"``.
        row_chosen(int, str): a row was clicked: its page and its name (to show beside).
    """

    take = Signal(str)
    row_chosen = Signal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("readingCompare")
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("color: #a05a00;")
        self.code_table = self._table("程序读取")
        self.model_table = self._table("模型读取")
        self.code_title = QLabel("程序读取")
        self.model_title = QLabel("模型读取")
        self.take_code = QPushButton("采用程序的")
        self.take_code.setObjectName("takeCodeReading")
        self.take_code.clicked.connect(lambda: self.take.emit("code"))
        self.take_model = QPushButton("采用模型的")
        self.take_model.setObjectName("takeModelReading")
        self.take_model.clicked.connect(lambda: self.take.emit("model"))
        self.take_code.setToolTip("采用程序读取的评分项（视为你已核对确认）")
        self.take_model.setToolTip("采用模型读取的评分项（视为你已核对确认）；可在候选评分表中改回程序的读法")
        left = QVBoxLayout()
        left.setSpacing(2)
        left.addLayout(self._head(self.code_title, self.take_code))
        left.addWidget(self.code_table, 1)
        right = QVBoxLayout()
        right.setSpacing(2)
        right.addLayout(self._head(self.model_title, self.take_model))
        right.addWidget(self.model_table, 1)
        sides = QHBoxLayout()
        sides.addLayout(left, 2)
        sides.addLayout(right, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.summary)
        layout.addLayout(sides, 1)
        self._code: list[ScoringGroup] = []
        self._model: list[ScoringGroup] = []

    @staticmethod
    def _head(title: QLabel, take: QPushButton) -> QHBoxLayout:
        """A reading's title and its take button on one line."""
        title.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(title, 1)
        row.addWidget(take)
        return row

    def _table(self, name: str) -> QTableWidget:
        table = QTableWidget(0, len(HEADERS))
        table.setObjectName("codeReading" if name == "程序读取" else "modelReading")
        table.setHorizontalHeaderLabels(list(HEADERS))
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setWordWrap(False)
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
        table.setMinimumHeight(3 * (table.fontMetrics().height() + 8))
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        table.cellClicked.connect(lambda row, _col, t=table: self._on_clicked(t, row))
        return table

    def set_analysis(self, analysis: Analysis) -> None:
        """Show code's items and the model's reading of ``analysis``."""
        reading = analysis.second_reading
        self._code = list(analysis.groups)
        self._model = list(reading.rows) if reading is not None else []
        bad_code, bad_model = differing(self._code, self._model) if self._code else (set(), set(range(len(self._model))))
        self._fill(self.code_table, self._code, bad_code)
        self._fill(self.model_table, self._model, bad_model)
        code_total = sum(g.points or 0 for g in self._code)
        model_total = sum(g.points or 0 for g in self._model)
        self.code_title.setText(f"程序：{len(self._code)} 项 {code_total:g} 分")
        who = f"（{reading.model}）" if reading is not None and reading.model else ""
        checked = "已核对原文" if reading is not None and reading.verified else "橙色未通过核对"
        self.model_title.setText(f"模型{who}：{len(self._model)} 项 {model_total:g} 分，{checked}")
        self.model_title.setToolTip("\n".join(reading.differences) if reading is not None else "")
        self.summary.setText("红色为两种读法不同之处，点一行看它所在的原文页，再选用一种读法" if self._code
                             else "程序没有读到评分项，以下是模型读到的各项，对照原文后可采用")
        self.take_code.setVisible(bool(self._code))

    def _fill(self, table: QTableWidget, groups: list[ScoringGroup], bad: set[int]) -> None:
        table.setRowCount(len(groups))
        for r, g in enumerate(groups):
            cells = [g.title, "" if g.points is None else f"{g.points:g}", CATEGORY_ZH[g.category]]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                tip = g.doubt or (f"所在分组：{g.group_label}" if g.group_label else g.title)
                item.setToolTip(tip)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if g.doubt and table is self.model_table:
                    item.setBackground(QBrush(_FAILED))
                elif r in bad:
                    item.setBackground(QBrush(_DIFF))
                table.setItem(r, c, item)

    def _on_clicked(self, table: QTableWidget, row: int) -> None:
        groups = self._code if table is self.code_table else self._model
        if 0 <= row < len(groups) and groups[row].source_page:
            self.row_chosen.emit(groups[row].source_page or 0, groups[row].title)

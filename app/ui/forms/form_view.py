"""One form as the tender prints it, its blanks filled (marked by source) or highlighted empty.

The upper part shows the form's text and tables with each blank's value underlined and
coloured by where it came from (招标文件 blue, 企业资料 green, 用户 orange, 程序 purple) and each
empty one as 【待填：…】 on yellow; the lower part lists the blanks — what each asks, its value,
its source — and a value typed there is kept for that blank only.

Signals:
    blank_edited(int, str): the user typed a value for the form's blank number ``n`` (0-based).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.core.bid_forms import FilledBlank, FormBlank, FormParagraph, FormTable, TenderForm
from app.ui.forms.board import FormsBoard

SOURCE_COLOURS = {"tender": "#1f5fa8", "company": "#1e8449", "user": "#b9770e", "code": "#7d3c98"}
SOURCE_NAMES = {"tender": "招标文件", "company": "企业资料", "user": "用户填写", "code": "程序换算", "none": ""}
_EMPTY = QBrush(QColor("#fff3b0"))


def _blank_html(blank: FormBlank, value: FilledBlank) -> str:
    if value.value:
        colour = SOURCE_COLOURS.get(value.source, "#333")
        tip = html.escape(value.source_label or SOURCE_NAMES.get(value.source, ""))
        mark = "" if value.confirmed else "<sup>待确认</sup>"
        return f'<u style="color:{colour}" title="{tip}">{html.escape(value.value)}</u>{mark}'
    if blank.field == "signature":
        return f'<span style="color:#888">{html.escape(blank.placeholder or "（签字）")}</span>'
    return f'<span style="background:#fff3b0">【待填：{html.escape(blank.label or "？")}】</span>'


def form_html(board: FormsBoard, form: TenderForm) -> str:
    """The form's text and tables as HTML with its blanks shown (see the module)."""
    parts = [f"<h3>{html.escape(form.title)}</h3>"]
    if form.copies:
        parts.append(f"<p style='color:#555'>需附：{html.escape('、'.join(form.copies))}</p>")
    for k, item in enumerate(form.items):
        blanks = sorted((b for b in form.blanks if b.item == k), key=lambda b: b.start)
        if isinstance(item, FormParagraph):
            text, pos, out = item.text, 0, []
            for b in blanks:
                if b.start < pos:
                    continue
                out.append(html.escape(text[pos:b.start]))
                out.append(_blank_html(b, board.value(form, b)))
                pos = b.end
            out.append(html.escape(text[pos:]))
            align = f" align='{item.align}'" if item.align in ("center", "right") else ""
            parts.append(f"<p{align}>{''.join(out)}</p>")
        elif isinstance(item, FormTable):
            cells = {(b.row, b.col): b for b in blanks}
            rows = []
            for r, row in enumerate(item.rows):
                tds = []
                for c, cell in enumerate(row):
                    if cell is None:
                        continue
                    cb = cells.get((r, c))
                    inner = html.escape(cell) + (_blank_html(cb, board.value(form, cb)) if cb is not None else "")
                    tds.append(f"<td>{inner}</td>")
                rows.append(f"<tr>{''.join(tds)}</tr>")
            parts.append(f"<table border='1' cellspacing='0' cellpadding='3'>{''.join(rows)}</table>")
    if form.self_drafted:
        parts.append("<p style='color:#555'>（格式自拟：招标文件只规定了标题，内容由投标人编写）</p>")
    return "".join(parts)


class FormView(QWidget):
    """The selected form (text with blanks) over the list of its blanks, values editable."""

    blank_edited = Signal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("formView")
        self.board: FormsBoard | None = None
        self.form: TenderForm | None = None
        self.browser = QTextBrowser()
        self.browser.setObjectName("formText")
        self.table = QTableWidget(0, 3)
        self.table.setObjectName("formBlanks")
        self.table.setHorizontalHeaderLabels(["所问", "填写内容", "来源"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(0, 110)
        self.table.setColumnWidth(1, 220)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.itemChanged.connect(self._on_item_changed)
        self.hint = QLabel("上方选一份格式，这里显示它的内容和空白（蓝：招标文件，绿：企业资料，橙：用户填写，紫：程序换算，"
                           "黄底：待填）；在“填写内容”一栏可直接改写某一处。")
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color:#555;")
        split = QSplitter(Qt.Orientation.Horizontal)  # the form beside its blanks
        split.addWidget(self.browser)
        split.addWidget(self.table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.hint)
        layout.addWidget(split, 1)
        self._filling = False

    def show_form(self, board: FormsBoard, form: TenderForm | None) -> None:
        """Show ``form`` (None: nothing selected)."""
        self.board, self.form = board, form
        self._filling = True
        try:
            if form is None:
                self.browser.clear()
                self.table.setRowCount(0)
                return
            self.browser.setHtml(form_html(board, form))
            blanks = [b for b in form.blanks if b.field != "signature"]
            self.table.setRowCount(len(blanks))
            for r, b in enumerate(blanks):
                v = board.value(form, b)
                asked = QTableWidgetItem(b.label or "？")
                asked.setFlags(asked.flags() & ~Qt.ItemFlag.ItemIsEditable)
                asked.setData(Qt.ItemDataRole.UserRole, form.blanks.index(b))
                value = QTableWidgetItem(v.value)
                if not v.value:
                    value.setBackground(_EMPTY)
                    value.setToolTip(v.note or "无人可填：请在此填写")
                source = QTableWidgetItem(v.source_label or SOURCE_NAMES.get(v.source, "") or v.note)
                source.setFlags(source.flags() & ~Qt.ItemFlag.ItemIsEditable)
                if v.value and v.source in SOURCE_COLOURS:
                    source.setForeground(QBrush(QColor(SOURCE_COLOURS[v.source])))
                if v.value and not v.confirmed:
                    source.setText(source.text() + "（待确认：" + (v.note or "请核对") + "）")
                self.table.setItem(r, 0, asked)
                self.table.setItem(r, 1, value)
                self.table.setItem(r, 2, source)
        finally:
            self._filling = False

    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != 1:
            return
        head = self.table.item(item.row(), 0)
        if head is None:
            return
        self.blank_edited.emit(int(head.data(Qt.ItemDataRole.UserRole)), item.text())

"""报价与日期: the bid price typed once (as in the 报价一览表), its capitals, the bid date and period.

The price is the one figure the user types; every price blank of the bid letter and the price
forms copies it, and code writes it in capitals (shown live under the field). The bid date and
the service period fill every 日期 / 服务期 blank the same way, so they agree everywhere.

Signals:
    value_changed(str, str): a field (``price``, ``date``, ``period``) got a new value.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QWidget

from app.core.amount_words import AmountError, amount_in_words, parse_amount

FIELDS = (("price", "投标报价（元，小写）", "如 1,286,500.00"), ("date", "投标日期", "如 2026-06-30"),
          ("period", "服务期/工期", "如 三年"))


class PricePanel(QWidget):
    """Three fields and the price in capitals."""

    value_changed = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pricePanel")
        self.edits: dict[str, QLineEdit] = {}
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.words = QLabel("")
        self.words.setObjectName("priceWords")
        self.words.setWordWrap(True)
        self.words.setToolTip("大写由程序按小写金额换算，填入投标函和报价表的大写处")
        for n, (key, label, hint) in enumerate(FIELDS):
            edit = QLineEdit()
            edit.setObjectName(f"formsValue_{key}")
            edit.setPlaceholderText(hint)
            edit.editingFinished.connect(lambda k=key: self._on_finished(k))
            self.edits[key] = edit
            row, col = (0, 0) if n == 0 else (1, 2 * (n - 1))
            layout.addWidget(QLabel(label.replace("（元，小写）", "（元）")), row, col)
            layout.addWidget(edit, row, col + 1)
        layout.addWidget(self.words, 0, 2, 1, 2)
        self.edits["price"].textChanged.connect(self._show_words)

    def set_values(self, values: dict[str, str]) -> None:
        """Show the stored values (without announcing them as edits)."""
        for key, edit in self.edits.items():
            edit.blockSignals(True)
            edit.setText(values.get(key, ""))
            edit.blockSignals(False)
        self._show_words(self.edits["price"].text())

    def _show_words(self, text: str) -> None:
        value = parse_amount(text)
        if not text.strip():
            self.words.setText("")
        elif value is None:
            self.words.setText("<span style='color:#c0392b'>不是金额：请只填数字，如 1286500 或 128.65万</span>")
        else:
            try:
                self.words.setText(f"人民币{amount_in_words(value)}")
            except AmountError as exc:
                self.words.setText(f"<span style='color:#c0392b'>{exc}</span>")

    def _on_finished(self, key: str) -> None:
        self.value_changed.emit(key, self.edits[key].text().strip())

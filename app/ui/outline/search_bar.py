"""Ctrl+F over the outline: a find bar that selects the next heading whose title holds the text.

The bar sits above the tree, hidden until asked for. Enter (or 下一个) goes to the next match
after the current heading, Shift+Enter (or 上一个) to the one before, wrapping round; the count
says how many headings match; Esc closes the bar and gives the tree back its focus. It reads
the tree through the view's adapter model and changes nothing.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget
from typing_extensions import override

from app.core.outline import Path
from app.ui.outline.view import OutlineView


class _FindEdit(QLineEdit):
    """The search field: Enter / Shift+Enter step through matches, Esc closes the bar."""

    def __init__(self, bar: OutlineSearchBar) -> None:
        super().__init__(bar)
        self._bar = bar

    @override
    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Qt override."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._bar.find_match(backward=bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
            return
        if event.key() == Qt.Key.Key_Escape:
            self._bar.close_bar()
            return
        super().keyPressEvent(event)


class OutlineSearchBar(QWidget):
    """查找标题: a field, 上一个/下一个, the number of matches and a close button."""

    def __init__(self, view: OutlineView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outlineSearchBar")
        self.view = view
        self.field = _FindEdit(self)
        self.field.setPlaceholderText("在目录中查找标题（Enter 下一个，Shift+Enter 上一个，Esc 关闭）")
        self.field.textChanged.connect(self._on_text_changed)
        self.count_label = QLabel()
        self.previous_button = QToolButton()
        self.previous_button.setText("上一个")
        self.previous_button.clicked.connect(lambda: self.find_match(backward=True))
        self.next_button = QToolButton()
        self.next_button.setText("下一个")
        self.next_button.clicked.connect(lambda: self.find_match())
        close = QToolButton()
        close.setText("×")
        close.setToolTip("关闭查找（Esc）")
        close.clicked.connect(self.close_bar)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("查找："))
        row.addWidget(self.field, 1)
        row.addWidget(self.count_label)
        row.addWidget(self.previous_button)
        row.addWidget(self.next_button)
        row.addWidget(close)
        self.hide()

    def open_bar(self) -> None:
        """Show the bar with its text selected, ready for typing."""
        self.show()
        self.field.setFocus()
        self.field.selectAll()

    def close_bar(self) -> None:
        """Hide the bar; the tree gets the focus back (on the heading found)."""
        self.hide()
        self.view.setFocus()

    def matches(self) -> list[Path]:
        """Paths of the headings whose title holds the text (case ignored), in tree order."""
        text = self.field.text().strip().casefold()
        if not text:
            return []
        return [path for path, node in self.view.outline_model.outline.walk() if text in node.title.casefold()]

    def find_match(self, backward: bool = False) -> Path | None:
        """Select the next (or previous) match after the current heading, wrapping round."""
        found = self.matches()
        self._show_count(found)
        if not found:
            return None
        current = self.view.current_path()
        if current is None:
            target = found[-1] if backward else found[0]
        elif backward:
            target = next((p for p in reversed(found) if p < current), found[-1])
        else:
            target = next((p for p in found if p > current), found[0])
        self.view.select_path(target)
        self._show_count(found, target)
        return target

    def _on_text_changed(self, _text: str) -> None:
        """Typing jumps to the first match from the top (as a browser's find does)."""
        found = self.matches()
        if found:
            self.view.select_path(found[0])
        self._show_count(found, found[0] if found else None)

    def _show_count(self, found: list[Path], at: Path | None = None) -> None:
        if not self.field.text().strip():
            self.count_label.setText("")
        elif not found:
            self.count_label.setText("没有找到")
        elif at is not None and at in found:
            self.count_label.setText(f"{found.index(at) + 1}/{len(found)}")
        else:
            self.count_label.setText(f"{len(found)} 处")

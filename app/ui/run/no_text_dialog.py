"""Generation with nothing to read: the tender has no usable text (or none is open).

A model asked for an outline from nothing invents one, so generation stops here and says
why (需要先做文字识别). The user may still go on deliberately: write the outline by hand,
or describe the project in a few sentences and generate in free mode from that description.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.widgets.async_dialog import run_dialog

NoTextChoice = tuple[Literal["describe", "hand"], str]


class NoTextDialog(QDialog):
    """The reason, a description box, and the two ways on (或取消)."""

    def __init__(self, reason: str, description: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noTextDialog")
        self.setWindowTitle("无法从招标文件生成目录")
        self.choice: Literal["describe", "hand"] | None = None
        label = QLabel(reason)
        label.setObjectName("noTextReason")
        label.setWordWrap(True)
        hint = QLabel("也可以不用招标文件：手工编写目录，或在下面用几句话描述项目（采购内容、服务范围、技术要求），"
                      "按描述以自由模式生成。")
        hint.setWordWrap(True)
        self.description = QPlainTextEdit(description)
        self.description.setPlaceholderText("例如：为某区税务局食堂提供食材配送服务，包括蔬菜、肉类、粮油的采购、加工、配送和验收……")
        self.description.setMaximumHeight(110)
        buttons = QDialogButtonBox()
        self.describe_button = QPushButton("按描述自由生成")
        self.hand_button = QPushButton("手工编写目录")
        buttons.addButton(self.describe_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.hand_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton("取消", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.rejected.connect(self.reject)
        self.describe_button.clicked.connect(lambda: self._choose("describe"))
        self.hand_button.clicked.connect(lambda: self._choose("hand"))
        self.description.textChanged.connect(self._update)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(hint)
        layout.addWidget(self.description)
        layout.addWidget(buttons)
        self.resize(520, self.sizeHint().height())
        self._update()

    def _update(self) -> None:
        self.describe_button.setEnabled(len(self.description.toPlainText().strip()) >= 10)

    def _choose(self, choice: Literal["describe", "hand"]) -> None:
        self.choice = choice
        self.accept()


async def ask_without_text(parent: QWidget, reason: str, description: str = "") -> NoTextChoice | None:
    """("describe", text) or ("hand", "") — or None when the user cancels."""
    dialog = NoTextDialog(reason, description, parent)
    accepted = await run_dialog(dialog) == QDialog.DialogCode.Accepted.value
    answer: NoTextChoice | None = None
    if accepted and dialog.choice is not None:
        answer = (dialog.choice, dialog.description.toPlainText().strip() if dialog.choice == "describe" else "")
    dialog.deleteLater()
    return answer

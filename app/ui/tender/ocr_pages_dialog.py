"""Choose which text-less pages to read by OCR (the document pane's per-page offer).

When only some pages of a PDF lack usable text, the banner link opens this dialog instead
of reading them all: one checkable row per page (all checked), 全选 / 全不选, 只选当前页
(the page being read in the pane, when it is one of them), and 识别所选页 which names how
many pages that is. The dialog is opened with ``open()`` (never ``exec()``); the pane acts
on ``accepted`` and reads :meth:`OcrPagesDialog.chosen_pages`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class OcrPagesDialog(QDialog):
    """A checklist of page numbers; :meth:`chosen_pages` is what the user left checked."""

    def __init__(self, pages: list[int], current_page: int = 0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ocrPagesDialog")
        self.setWindowTitle("选择要做文字识别的页")
        self.pages = list(pages)
        self.current_page = current_page
        intro = QLabel(f"以下 {len(self.pages)} 页没有可用文字。勾选要在本机做文字识别（OCR）的页，"
                       "每页约需几秒；已识别的页会保存，不必重复识别。")
        intro.setWordWrap(True)
        self.page_list = QListWidget()
        self.page_list.setObjectName("ocrPageList")
        for number in self.pages:
            label = f"第 {number} 页" + ("（当前页）" if number == current_page else "")
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, number)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.page_list.addItem(item)
        self.page_list.itemChanged.connect(self._update)
        self.all_button = QPushButton("全选")
        self.none_button = QPushButton("全不选")
        self.current_button = QPushButton(f"只选当前页（第 {current_page} 页）" if current_page in self.pages
                                          else "只选当前页")
        self.current_button.setEnabled(current_page in self.pages)
        self.current_button.setToolTip("当前显示的页有文字时不可用")
        self.all_button.clicked.connect(lambda: self._check(set(self.pages)))
        self.none_button.clicked.connect(lambda: self._check(set()))
        self.current_button.clicked.connect(lambda: self._check({current_page}))
        choices = QHBoxLayout()
        for button in (self.all_button, self.none_button, self.current_button):
            choices.addWidget(button)
        choices.addStretch(1)
        self.buttons = QDialogButtonBox()
        self.ok_button = QPushButton()
        self.ok_button.setDefault(True)
        self.buttons.addButton(self.ok_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = self.buttons.addButton("取消", QDialogButtonBox.ButtonRole.RejectRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.page_list, 1)
        layout.addLayout(choices)
        layout.addWidget(self.buttons)
        self.resize(380, 420)
        self._update()

    def _items(self) -> list[QListWidgetItem]:
        return [self.page_list.item(i) for i in range(self.page_list.count())]

    def _check(self, numbers: set[int]) -> None:
        for item in self._items():
            on = item.data(Qt.ItemDataRole.UserRole) in numbers
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def chosen_pages(self) -> list[int]:
        """The checked page numbers, in page order."""
        return [int(item.data(Qt.ItemDataRole.UserRole)) for item in self._items()
                if item.checkState() == Qt.CheckState.Checked]

    def _update(self, *_args: object) -> None:
        count = len(self.chosen_pages())
        self.ok_button.setText(f"识别所选的 {count} 页" if count else "识别所选页")
        self.ok_button.setEnabled(count > 0)

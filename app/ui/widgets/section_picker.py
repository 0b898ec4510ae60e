"""Pick the outline sections that answer one scoring item (评分索引表 mapping).

A checkable tree of the outline. The sections already mapped start checked; a chapter the
one-to-one mode built for the item is checked and locked (it answers the item by
construction, and unchecking it would not change anything the user can see).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.outline import OutlineNode, Path
from app.core.response_map import section_number

PathRole = Qt.ItemDataRole.UserRole + 1


class SectionPickerDialog(QDialog):
    """Checkable outline tree; ``chosen_paths()`` after it was accepted.

    Signals: none besides QDialog's ``finished``/``accepted``.
    """

    def __init__(self, chapters: Sequence[OutlineNode], item_title: str, checked: Iterable[Path],
                 locked: Iterable[Path] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sectionPicker")
        self.setWindowTitle("选择响应章节")
        checked_set, locked_set = set(checked), set(locked)
        self.tree = QTreeWidget()
        self.tree.setObjectName("sectionPickerTree")
        self.tree.setHeaderLabels(["章节"])
        self._items: list[QTreeWidgetItem] = []

        def add(parent_item: QTreeWidgetItem | None, nodes: Sequence[OutlineNode], prefix: Path) -> None:
            for i, node in enumerate(nodes):
                path = (*prefix, i)
                item = QTreeWidgetItem([f"{section_number(path)} {node.title}"])
                item.setData(0, PathRole, path)
                flags = item.flags() | Qt.ItemFlag.ItemIsUserCheckable
                if path in locked_set:
                    flags &= ~Qt.ItemFlag.ItemIsEnabled
                    item.setToolTip(0, "一一对应生成的章节，始终响应该评分项")
                item.setFlags(flags)
                on = path in checked_set or path in locked_set
                item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
                if parent_item is None:
                    self.tree.addTopLevelItem(item)
                else:
                    parent_item.addChild(item)
                self._items.append(item)
                add(item, node.children, path)

        add(None, chapters, ())
        self.tree.expandAll()
        hint = QLabel(f"勾选响应“{item_title}”的章节（可多选）。评分索引表会列出这些章节及其页码。")
        hint.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("确定")
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("取消")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.buttons)
        self.resize(460, 520)

    def item_for(self, path: Path) -> QTreeWidgetItem | None:
        """The tree item of the section at ``path``."""
        return next((i for i in self._items if i.data(0, PathRole) == path), None)

    def chosen_paths(self) -> list[Path]:
        """The checked sections the user can change (locked chapters are not included)."""
        return [tuple(i.data(0, PathRole)) for i in self._items
                if i.checkState(0) == Qt.CheckState.Checked and i.flags() & Qt.ItemFlag.ItemIsEnabled]

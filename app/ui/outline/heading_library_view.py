"""The heading library browser (标题库): search the library, look at an entry's structures, and drop
one onto a chapter — or add it to the selected chapter with a button. Either way it is one undo step.

The panel shows entry → structure (variant) → level-2 heading → level-3 headings. A structure
or a single level-2 heading can be dragged (``LIBRARY_MIME``) onto a node of the outline tree;
the outline model turns the drop into :class:`InsertLibraryCommand`. Inserted headings are
marked as coming from the library; titles the target already has are skipped.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QMimeData, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.outline import Outline, OutlineNode, Path
from app.core.rules.outline import normalize_title
from app.pipeline.headings.library import HeadingLibrary, LibraryError, default_library, section_nodes
from app.ui.outline.commands import OutlineCommand

if TYPE_CHECKING:
    from PySide6.QtGui import QUndoStack

#: Mime type of a drag from the library: {"entry": id, "variant": id, "section": title or ""}.
LIBRARY_MIME = "application/x-bidstudio-heading-library"
#: Item data role holding the drag payload (entry, variant, section) of a tree item.
PayloadRole = Qt.ItemDataRole.UserRole + 1


def library_payload(data: QMimeData) -> tuple[str, str, str] | None:
    """The (entry, variant, section) a library drag carries, or None."""
    if not data.hasFormat(LIBRARY_MIME):
        return None
    try:
        raw = json.loads(bytes(data.data(LIBRARY_MIME).data()).decode())
        return str(raw["entry"]), str(raw["variant"]), str(raw.get("section") or "")
    except (ValueError, KeyError, TypeError):
        return None


def library_nodes(entry_id: str, variant_id: str, section: str = "",
                  library: HeadingLibrary | None = None) -> list[OutlineNode]:
    """The nodes a library item stands for: a structure's level-2 headings, or one of them."""
    lib = library or default_library()
    entry = lib.get(entry_id)
    if entry is None:
        return []
    nodes = section_nodes(entry.variant(variant_id))
    return [n for n in nodes if n.title == section] if section else nodes


class InsertLibraryCommand(OutlineCommand):
    """Append library headings under ``parent`` (one undo step); titles already there are skipped."""

    def __init__(self, outline: Outline, parent: Path, nodes: list[OutlineNode], text: str = "插入标题库结构") -> None:
        super().__init__(outline, text)
        self.parent_path = parent
        self.nodes = nodes
        self.inserted = 0

    def perform(self) -> None:
        """Append the nodes that are new under the parent."""
        have = {normalize_title(c.title) for c in self.outline.node(self.parent_path).children}
        for node in self.nodes:
            if normalize_title(node.title) in have:
                continue
            have.add(normalize_title(node.title))
            self.outline.append(self.parent_path, node.model_copy(deep=True))
            self.inserted += 1


def insert_command(outline: Outline, parent: Path, payload: tuple[str, str, str], max_depth: int,
                   library: HeadingLibrary | None = None) -> InsertLibraryCommand | None:
    """The command inserting a library item under ``parent``, or None when it cannot go there."""
    if not outline.exists(parent) or not parent:
        return None
    nodes = library_nodes(*payload, library=library)
    if not nodes or len(parent) + max(n.depth() for n in nodes) > max_depth:
        return None
    have = {normalize_title(c.title) for c in outline.node(parent).children}
    if all(normalize_title(n.title) in have for n in nodes):
        return None
    return InsertLibraryCommand(outline, parent, nodes)


class LibraryTree(QTreeWidget):
    """The library as a tree whose structures and level-2 headings can be dragged onto the outline."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setDragEnabled(True)
        self.setDragDropMode(QTreeWidget.DragDropMode.DragOnly)
        self.setDefaultDropAction(Qt.DropAction.CopyAction)

    def mimeTypes(self) -> list[str]:
        """Qt override: the library's own type."""
        return [LIBRARY_MIME]

    def mimeData(self, items: Any) -> QMimeData:
        """Qt override: the first dragged item's (entry, variant, section) as JSON."""
        mime = QMimeData()
        for item in items:
            payload = item.data(0, PayloadRole)
            if payload:
                entry, variant, section = payload
                mime.setData(LIBRARY_MIME, QByteArray(json.dumps(
                    {"entry": entry, "variant": variant, "section": section}, ensure_ascii=False).encode()))
                break
        return mime


class HeadingLibraryPanel(QWidget):
    """Search and browse the heading library; add the selected structure to the selected chapter.

    Signals:
        insert_requested(str, str, str): entry id, variant id and level-2 title ("" for the whole structure).
    """

    insert_requested = Signal(str, str, str)

    def __init__(self, library: HeadingLibrary | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("headingLibraryPanel")
        self.search = QLineEdit()
        self.search.setObjectName("librarySearch")
        self.search.setPlaceholderText("搜索评分项，如：应急预案、售后服务")
        self.search.setClearButtonEnabled(True)
        self.tree = LibraryTree()
        self.tree.setObjectName("libraryTree")
        self.add_button = QPushButton("添加到所选章节")
        self.add_button.setObjectName("libraryAdd")
        self.add_button.setToolTip("把选中的结构（或其中一个二级标题）加到目录中选中的章节下，可撤销")
        self.add_button.setEnabled(False)
        self.hint = QLabel("也可以把结构拖到目录的章节上。")
        self.hint.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.search)
        layout.addWidget(self.tree, 1)
        layout.addLayout(row)
        layout.addWidget(self.hint)
        try:
            self._library = library or default_library()
        except LibraryError as exc:
            self._library = HeadingLibrary([])
            self.hint.setText(f"标题库无法读取：{exc}")
        self._fill()
        self.search.textChanged.connect(self._on_search)
        self.tree.currentItemChanged.connect(self._on_current_changed)
        self.add_button.clicked.connect(self._on_add_clicked)

    def _fill(self) -> None:
        self.tree.clear()
        for entry in self._library:
            top = QTreeWidgetItem([entry.name])
            top.setToolTip(0, "识别词：" + "、".join((*entry.aliases, *entry.keywords)[:12]))
            top.setData(0, Qt.ItemDataRole.UserRole + 2, " ".join((entry.name, *entry.aliases, *entry.keywords)))
            top.setFlags(top.flags() & ~Qt.ItemFlag.ItemIsDragEnabled)
            for variant in entry.variants:
                v = QTreeWidgetItem([f"结构：{variant.label}"])
                v.setData(0, PayloadRole, (entry.id, variant.id, ""))
                for section in variant.sections:
                    s = QTreeWidgetItem([section.title])
                    s.setData(0, PayloadRole, (entry.id, variant.id, section.title))
                    for child in section.children:
                        leaf = QTreeWidgetItem([child])
                        leaf.setFlags(leaf.flags() & ~Qt.ItemFlag.ItemIsDragEnabled)
                        s.addChild(leaf)
                    v.addChild(s)
                top.addChild(v)
            self.tree.addTopLevelItem(top)

    def entry_names(self, visible_only: bool = True) -> list[str]:
        """The entries listed (only the ones the search leaves visible by default)."""
        items = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        return [it.text(0) for it in items if it is not None and not (visible_only and it.isHidden())]

    def _on_search(self, text: str) -> None:
        words = text.strip()
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is None:
                continue
            hay = str(item.data(0, Qt.ItemDataRole.UserRole + 2) or "")
            match = not words or any(w in hay or hay.find(w[:2]) >= 0 for w in words.split())
            item.setHidden(not match)
            item.setExpanded(bool(words) and match)

    def current_payload(self) -> tuple[str, str, str] | None:
        """(entry, variant, section) of the selected structure or level-2 heading."""
        item = self.tree.currentItem()
        payload = item.data(0, PayloadRole) if item is not None else None
        return tuple(payload) if payload else None

    def _on_current_changed(self, *_: object) -> None:
        self.add_button.setEnabled(self.current_payload() is not None)

    def _on_add_clicked(self) -> None:
        payload = self.current_payload()
        if payload is not None:
            self.insert_requested.emit(*payload)


def insert_into(outline: Outline, undo_stack: QUndoStack, parent: Path | None, payload: tuple[str, str, str],
                max_depth: int) -> str | None:
    """Push the insertion on ``undo_stack``; a Chinese message when it cannot be done (None on success)."""
    if parent is None:
        return "请先在目录中选中要添加到的章节"
    command = insert_command(outline, parent, payload, max_depth)
    if command is None:
        return "该结构不能加到所选位置（层级超出限制，或标题已经都在）"
    undo_stack.push(command)
    return None

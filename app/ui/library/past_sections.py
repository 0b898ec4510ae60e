"""历史标书 beside the outline and the section editor: past sections for the current heading.

For the selected heading (its title, and the scoring item's name and criteria) the panel
lists the best past sections with their source. “插入正文” puts one into the section's text
(old project name, client, place and dates replaced by this tender's; the replacements are
listed for review); “套用结构” gives the heading the past section's sub-headings. Each is
one undo step, done by the window through the outline's commands.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal, SignalInstance
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.library.search import SectionHit, search_sections, snippet
from app.library.store import LibraryError, LibraryStore
from app.ui.library.background import guarded

TOP_HITS = 5


class PastSectionsPanel(QWidget):
    """The top past sections for one heading.

    Signals:
        insert_requested(int): insert this stored section's text into the current heading.
        structure_requested(int): give the current heading this stored section's sub-headings.
    """

    insert_requested = Signal(int)
    structure_requested = Signal(int)

    #: Set by the window: told of every library failure (it shows the banner and reconnects).
    on_library_error: Callable[[LibraryError], None] | None = None

    def library_failed(self, error: LibraryError) -> None:
        """Say why the library cannot answer (the window's banner says it too)."""
        self.heading.setText(error.message_zh)
        if self.on_library_error is not None:
            self.on_library_error(error)

    def __init__(self, store: Callable[[], LibraryStore | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pastSectionsPanel")
        self._store = store
        self.hits: list[SectionHit] = []
        self.heading = QLabel("选择一个标题，查看历史标书中的相近章节")
        self.heading.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("pastSectionsList")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.itemSelectionChanged.connect(self._update_enabled)
        self.insert_button = QPushButton("插入正文")
        self.insert_button.setObjectName("pastInsert")
        self.insert_button.setToolTip("把所选历史段落插入本节正文；旧项目的名称、单位、地点和日期会替换为本项目的（可撤销）")
        self.insert_button.clicked.connect(lambda: self._emit(self.insert_requested))
        self.structure_button = QPushButton("套用结构")
        self.structure_button.setObjectName("pastStructure")
        self.structure_button.setToolTip("用所选历史章节的下级标题替换本标题的下级目录（可撤销）")
        self.structure_button.clicked.connect(lambda: self._emit(self.structure_requested))
        self.review = QLabel("")
        self.review.setObjectName("pastReview")
        self.review.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.insert_button)
        row.addWidget(self.structure_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.list, 1)
        layout.addLayout(row)
        layout.addWidget(self.review)
        self._update_enabled()

    @guarded(0)
    def show_for(self, title: str, context: str = "") -> int:
        """List the best past sections for ``title`` (``context``: its scoring item); returns how many."""
        store = self._store()
        self.hits = search_sections(store, title, TOP_HITS, context=context) if store is not None and title else []
        self.list.clear()
        for h in self.hits:
            item = QListWidgetItem(f"{h.section.title}  —  {h.source}\n{snippet(h.section.body, 60)}")
            item.setToolTip(h.section.body[:600])
            self.list.addItem(item)
        if self.hits:
            self.list.setCurrentRow(0)
        self.heading.setText(f"“{title}”的历史标书章节：{len(self.hits)} 个" if title else "选择一个标题")
        self._update_enabled()
        return len(self.hits)

    def selected(self) -> SectionHit | None:
        """The chosen past section."""
        row = self.list.currentRow()
        return self.hits[row] if 0 <= row < len(self.hits) else None

    def _emit(self, signal: SignalInstance) -> None:
        hit = self.selected()
        if hit is not None:
            signal.emit(hit.section.id)

    def _update_enabled(self) -> None:
        ok = self.selected() is not None
        self.insert_button.setEnabled(ok)
        self.structure_button.setEnabled(ok)

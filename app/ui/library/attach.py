"""Wiring the library into the main window: docks, menu entries, insert/structure commands.

The library file is opened lazily (first use), so starting the app never creates it; when
it already exists, drafting gets it as reference material from the start.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMenu, QTabWidget

from app.core.outline import OutlineNode
from app.library.reuse import adapt_text, section_text, structure_nodes
from app.library.store import LibraryError, LibraryStore, default_library_path
from app.ui.library.check_panel import CheckPanel
from app.ui.library.facts_panel import FactsPanel
from app.ui.library.library_panel import LibraryPanel
from app.ui.library.past_sections import PastSectionsPanel
from app.ui.outline.commands import EditFieldCommand, SetChildrenCommand
from app.ui.shell.stages import register_panel

if TYPE_CHECKING:
    from app.ui.shell.window_host import WindowHost


class LibraryHost:
    """The window's library: path, lazily opened store, docks and their handlers."""

    def __init__(self, window: WindowHost, path: Path | None = None) -> None:
        self.window = window
        self.path = path or default_library_path()
        self._store: LibraryStore | None = None
        self.error = ""
        self.import_action: QAction | None = None
        self.check_action: QAction | None = None
        c = window.controller
        self.panel = LibraryPanel(self.store)
        self.facts = FactsPanel(self.store)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.panel, "历史标书")
        self.tabs.addTab(self.facts, "企业资料")
        self.tabs.currentChanged.connect(lambda i: self.facts.refresh() if i == 1 else None)
        self.checks = CheckPanel(lambda: c.outline, self.store, self.own_names,
                                 tender_text=lambda: c.document.text() if c.document is not None else "")
        self.past = PastSectionsPanel(self.store)
        self.dock = self._dock("资料库", "libraryStoreDock", self.tabs)
        self.check_dock = self._dock("查重", "checkDock", self.checks)
        self.past_dock = self._dock("历史标书", "pastSectionsDock", self.past)
        register_panel(window, self.dock, "material", area=Qt.DockWidgetArea.RightDockWidgetArea, share=0.58)
        register_panel(window, self.check_dock, "review", area=Qt.DockWidgetArea.RightDockWidgetArea,
                       tab_with="reviewDock")
        # 历史标书 sits under the section editor (正文), so drafting shows the past sections beside the text,
        # and under the heading library (目录), where a past section's sub-headings are candidates too
        register_panel(window, self.past_dock, "text", area=Qt.DockWidgetArea.RightDockWidgetArea, below="sectionDock",
                       shown=self.path.exists)
        register_panel(window, self.past_dock, "outline", area=Qt.DockWidgetArea.RightDockWidgetArea,
                       below="libraryDock", shown=self.path.exists)
        # (both stages show it once there is a library: shown=self.path.exists is asked again on each visit)
        self.dock.visibilityChanged.connect(lambda shown: self.panel.refresh() if shown else None)
        self.past_dock.visibilityChanged.connect(lambda shown: self.refresh_past() if shown else None)
        self.checks.jump_requested.connect(self._on_jump)
        self.past.insert_requested.connect(self.insert_section)
        self.past.structure_requested.connect(self.apply_structure)
        self.panel.changed.connect(self.refresh_past)
        window.outline_view.selectionModel().currentChanged.connect(self._on_current_changed)
        if self.path.exists():
            self.store()  # drafting uses what the user already has

    def _dock(self, title: str, name: str, widget: object) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(name)
        dock.setWidget(widget)  # type: ignore[arg-type]
        return dock

    def store(self) -> LibraryStore | None:
        """The open library (opened on first use); None with a status message when it cannot be opened."""
        if self._store is None and not self.error:
            try:
                self._store = LibraryStore(self.path)
            except LibraryError as exc:
                self.error = exc.message_zh
                self.window.statusBar().showMessage(exc.message_zh, 10000)
                return None
            self.window.controller.drafting.library = self._store
        return self._store

    def own_names(self) -> list[str]:
        """This tender's own names (never flagged as another project's)."""
        ov = self.window.controller.analysis.overview
        return [x for x in (ov.project_name, ov.buyer) if x]

    def _tender_names(self) -> dict[str, str]:
        ov = self.window.controller.analysis.overview
        return {"project": ov.project_name, "client": ov.buyer}

    # ------------------------------------------------------------------ the current heading
    def _current(self) -> tuple[tuple[int, ...], OutlineNode] | None:
        path = self.window.outline_view.current_path()
        if path is None:
            return None
        return path, self.window.controller.outline.node(path)

    def _on_current_changed(self, *_args: object) -> None:
        if self.past_dock.isVisible():
            self.refresh_past()

    def refresh_past(self) -> int:
        """List past sections for the selected heading (its scoring item as context)."""
        cur = self._current()
        if cur is None:
            return self.past.show_for("")
        path, node = cur
        c = self.window.controller
        chapter = c.outline.node(path[:1])
        rid = node.source_requirement_id or chapter.source_requirement_id
        group = next((g for g in c.analysis.groups if g.id == rid), None) if rid else None
        context = f"{group.title} {group.description}" if group is not None else ""
        return self.past.show_for(node.title, context)

    def insert_section(self, section_id: int) -> bool:
        """Insert a past section's text into the current heading, names replaced; one undo step."""
        store, cur = self.store(), self._current()
        if store is None or cur is None:
            return False
        path, node = cur
        found = store.sections([section_id])
        if not found:
            return False
        past = found[0]
        bids = {b.id: b for b in store.bids()}
        b = bids.get(past.bid_id)
        old = {"project": past.project, "client": past.client, "place": b.place if b else ""}
        text, replaced = adapt_text(section_text(past), old, self._tender_names())
        content = f"{node.content.rstrip()}\n\n{text}".strip() if node.content.strip() else text
        c = self.window.controller
        c.undo_stack.push(EditFieldCommand(c.outline, path, "content", content, "插入历史标书段落"))
        lines = [r.describe() for r in replaced] or ["未发现需要替换的旧项目名称"]
        self.past.review.setText(f"已插入“{past.title}”（{past.bid_name}）。请核对替换：\n" + "\n".join(lines))
        self.window.statusBar().showMessage(f"已插入历史标书段落，替换 {len(replaced)} 项，可撤销", 8000)
        return True

    def apply_structure(self, section_id: int) -> bool:
        """Give the current heading a past section's sub-headings; one undo step."""
        store, cur = self.store(), self._current()
        if store is None or cur is None:
            return False
        path, _node = cur
        nodes = structure_nodes(store.subtree(section_id))
        if not nodes:
            self.window.statusBar().showMessage("所选历史章节没有下级标题", 6000)
            return False
        c = self.window.controller
        c.undo_stack.push(SetChildrenCommand(c.outline, path, nodes))
        return True

    def _on_jump(self, path: object) -> None:
        if isinstance(path, tuple) and self.window.controller.outline.exists(path):
            self.window.outline_view.select_path(path)

    def choose_and_import(self) -> None:
        """文件 → 导入历史标书…: show the dock and ask for files."""
        self.dock.show()
        self.dock.raise_()
        self.panel.choose_files()

    def check(self) -> None:
        """生成 → 查重: show the dock and check against the library."""
        self.check_dock.show()
        self.check_dock.raise_()
        self.checks.check_library()

    def shutdown(self) -> None:
        """Stop a running import and close the database (the window is closing)."""
        self.panel.shutdown()
        if self._store is not None:
            self.window.controller.drafting.library = None
            self._store.close()
            self._store = None


def _menu(window: WindowHost, title_prefix: str) -> QMenu | None:
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text().startswith(title_prefix):
            return menu
    return None


def attach_library(window: WindowHost, path: Path | None = None) -> LibraryHost:
    """Add the library's docks and its entries in 文件, 生成 and 视图."""
    host = LibraryHost(window, path)
    import_action = QAction("导入历史标书…", window)
    import_action.setObjectName("importPastBidsAction")
    import_action.triggered.connect(lambda _c=False: host.choose_and_import())
    check_action = QAction("查重（资料库与其他项目名称）", window)
    check_action.setObjectName("checkAction")
    check_action.triggered.connect(lambda _c=False: host.check())
    file_menu, gen_menu, view_menu = _menu(window, "文件"), _menu(window, "生成"), _menu(window, "视图")
    if file_menu is not None:
        file_menu.insertAction(window.act_save, import_action)
    if gen_menu is not None:
        gen_menu.addSeparator()
        gen_menu.addAction(check_action)
    if view_menu is not None:
        for dock in (host.dock, host.past_dock, host.check_dock):
            view_menu.addAction(dock.toggleViewAction())
    host.import_action, host.check_action = import_action, check_action
    return host

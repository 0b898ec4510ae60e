"""Wiring the library into the main window: docks, menu entries, insert/structure commands, the server banner.

The library is the one 设置 → 资料库 names (``AppSettings.library``): the local file, opened
lazily (first use), so starting the app never creates it — when it already exists, drafting
gets it as reference material from the start; or the office's PostgreSQL server, connected in
the background. While the server does not answer, each library dock shows a banner saying
why (the outline and drafting go on without the library) and :class:`LibraryMonitor` keeps
trying; when it answers the banner goes and the docks refresh.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QLabel, QMenu, QTabWidget, QVBoxLayout, QWidget

from app.core.outline import OutlineNode
from app.library.reuse import adapt_text, section_text, structure_nodes
from app.library.server import spec_from_settings
from app.library.store import LibraryError, LibrarySpec, LibraryStore, LibraryUnavailable, open_library
from app.ui.library.background import LibraryMonitor, guarded
from app.ui.library.check_panel import CheckPanel
from app.ui.library.facts_panel import FactsPanel
from app.ui.library.library_panel import LibraryPanel
from app.ui.library.past_sections import PastSectionsPanel
from app.ui.outline.commands import EditFieldCommand, SetChildrenCommand
from app.ui.shell.stages import register_panel

if TYPE_CHECKING:
    from app.core.settings_model import LibrarySettings
    from app.ui.shell.window_host import WindowHost

BANNER_STYLE = "background: #fff4e5; color: #8a4b00; border: 1px solid #f0c36d; padding: 6px;"


class LibraryHost:
    """The window's library: path, lazily opened store, docks and their handlers."""

    def __init__(self, window: WindowHost, path: Path | None = None) -> None:
        self.window = window
        settings = getattr(window, "settings", None)
        self.spec = spec_from_settings(settings.library) if settings is not None else LibrarySpec("sqlite")
        if path is not None:
            self.spec = LibrarySpec("sqlite", str(path))
        self.path = Path(open_library_path(self.spec))
        self._store: LibraryStore | None = None
        self.monitor: LibraryMonitor | None = None
        self.banners: list[QLabel] = []
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
        # and under the heading library (目录), where a past section's sub-headings are candidates too;
        # both stages show it once there is a library (``shown`` is asked again on each visit)
        register_panel(window, self.past_dock, "text", area=Qt.DockWidgetArea.RightDockWidgetArea, below="sectionDock",
                       share=0.36, shown=self.has_library)
        register_panel(window, self.past_dock, "outline", area=Qt.DockWidgetArea.RightDockWidgetArea,
                       below="libraryDock", shown=self.has_library)
        for panel in (self.panel, self.facts, self.checks, self.past):
            panel.on_library_error = self.library_failed
        self.dock.visibilityChanged.connect(lambda shown: self.panel.refresh() if shown else None)
        self.past_dock.visibilityChanged.connect(lambda shown: self.refresh_past() if shown else None)
        self.checks.jump_requested.connect(self._on_jump)
        self._unsubscribe = window.controller.session.subscribe(self._on_session_change)
        self.past.insert_requested.connect(self.insert_section)
        self.past.structure_requested.connect(self.apply_structure)
        self.panel.changed.connect(self.refresh_past)
        window.outline_view.selectionModel().currentChanged.connect(self._on_current_changed)
        self._open_at_start()

    def _open_at_start(self) -> None:
        if self.spec.engine == "postgres":
            self._open_office()
        elif self.path.exists():
            self.store()  # drafting uses what the user already has

    def _dock(self, title: str, name: str, widget: QWidget) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(name)
        banner = QLabel("")
        banner.setObjectName(f"{name}Banner")
        banner.setWordWrap(True)
        banner.setStyleSheet(BANNER_STYLE)
        banner.hide()
        self.banners.append(banner)
        holder = QWidget()
        box = QVBoxLayout(holder)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(banner)
        box.addWidget(widget, 1)
        dock.setWidget(holder)
        return dock

    def store(self) -> LibraryStore | None:
        """The open library (the local file is opened on first use); None, with the reason on show, when it
        cannot be used now (an office server that does not answer: the banner says why)."""
        if self.monitor is not None:
            return self._store if self.monitor.available else None
        if self._store is None and not self.error:
            try:
                self._store = open_library(self.spec)
            except LibraryError as exc:
                self.error = exc.message_zh
                self.window.statusBar().showMessage(exc.message_zh, 10000)
                return None
            self.window.controller.drafting.library = self._store
        return self._store

    # ------------------------------------------------------------------ the office server
    def _open_office(self) -> None:
        """Make the office library (no connection yet) and watch it; the first ping connects in the background."""
        try:
            store = open_library(self.spec, lazy=True)
        except LibraryError as exc:  # settings not complete (no server address)
            self.error = exc.message_zh
            self._show_banner(f"办公室资料库无法使用：{exc.message_zh}（设置 → 资料库设置）")
            return
        store.reconnect_on_call = False  # type: ignore[attr-defined]  # never a connect attempt on the GUI thread
        self._store = store
        self.monitor = LibraryMonitor(store, self.window)
        self.monitor.changed.connect(self._on_availability)
        self._show_banner(f"正在连接办公室资料库（{self.spec.describe()}）……")
        self.monitor.check_now()

    def _on_availability(self, available: bool, reason: str) -> None:
        c = self.window.controller
        if available:
            self._show_banner("")
            c.drafting.library = self._store
            self.window.statusBar().showMessage("办公室资料库已连接", 5000)
            if self.dock.isVisible():
                self.panel.refresh()
                if self.tabs.currentWidget() is self.facts:
                    self.facts.refresh()
            if self.past_dock.isVisible():
                self.refresh_past()
        else:
            c.drafting.library = None  # drafting goes on without references until the server is back
            self._show_banner(f"办公室资料库暂时无法使用：{reason}\n目录和正文可以照常编写；资料库的搜索、导入、查重和"
                              "企业资料将在连接恢复后自动可用（正在自动重试）。")

    def _show_banner(self, text: str) -> None:
        for banner in self.banners:
            banner.setText(text)
            banner.setVisible(bool(text))

    def library_failed(self, error: LibraryError) -> None:
        """A library call failed: an unreachable server turns the banner on (and is retried); any other error
        is shown in the status bar."""
        if isinstance(error, LibraryUnavailable) and self.monitor is not None:
            self.monitor.failed(error)
        else:
            self.window.statusBar().showMessage(error.message_zh, 10000)

    def use_settings(self, settings: LibrarySettings) -> bool:
        """Switch to the library the saved settings name (True when it changed); the docks follow."""
        spec = spec_from_settings(settings)
        if spec == self.spec:
            return False
        if self.panel.worker is not None and self.panel.worker.isRunning():
            self.window.statusBar().showMessage("正在导入历史标书：导入完成后再切换资料库", 8000)
            return False
        self._close_store()
        self.spec, self.error = spec, ""
        self.path = Path(open_library_path(spec))
        self._show_banner("")
        self._open_at_start()
        for refresh in (self.panel.refresh, self.facts.refresh):
            refresh()
        self.past.show_for("")
        self.window.statusBar().showMessage(f"资料库已切换为{spec.describe()}", 8000)
        return True

    def _close_store(self) -> None:
        if self.monitor is not None:
            self.monitor.stop()
            self.monitor.deleteLater()
            self.monitor = None
        if self._store is not None:
            self.window.controller.drafting.library = None
            self._store.close()
            self._store = None

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

    def has_library(self) -> bool:
        """Whether there is a library to show past sections from (an office server, or the local file)."""
        return self.spec.engine == "postgres" or self.path.exists()

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

    @guarded(False)
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

    @guarded(False)
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

    def _on_jump(self, path: object, found: str = "") -> None:
        """Show the heading of a 查重 finding and mark what was found in its text (the name, the passage)."""
        if not (isinstance(path, tuple) and self.window.controller.outline.exists(path)):
            return
        self.window.outline_view.select_path(path)
        editor = getattr(self.window, "section_editor", None)
        if editor is None or not found:
            return
        dock = self.window.section_dock
        if dock.isHidden():
            dock.show()
        dock.raise_()
        if not editor.highlight(found) and len(found) > 24:
            editor.highlight(found[:24])  # a long passage: its start

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

    def _on_session_change(self, change: str) -> None:
        """Another project is shown: nothing of the old one stays in the docks (its past sections, the
        replacements made in it, its 查重 results); the library itself is the user's, and stays."""
        if change != "reset":
            return
        self.past.show_for("")
        self.past.review.setText("")
        self.checks.clear()

    def shutdown(self) -> None:
        """Stop a running import and close the database (the window is closing)."""
        self._unsubscribe()
        self.panel.shutdown()
        self.facts.shutdown()
        self._close_store()


def open_library_path(spec: LibrarySpec) -> str:
    """The local library file of ``spec`` (the default one for a server library: what 复制 copies from)."""
    from app.library.store import default_library_path

    return spec.path or str(default_library_path())


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
    settings_action = QAction("资料库设置…", window)
    settings_action.setObjectName("librarySettingsAction")
    settings_action.triggered.connect(lambda _c=False: window.open_settings("library"))
    file_menu, gen_menu, view_menu = _menu(window, "文件"), _menu(window, "生成"), _menu(window, "视图")
    settings_menu = _menu(window, "设置")
    if settings_menu is not None:
        settings_menu.addAction(settings_action)
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

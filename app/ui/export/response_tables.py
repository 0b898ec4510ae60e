"""The 评分索引 / 技术偏离表 dock and its wiring to the window (kept out of ``main_window``).

:func:`attach_response_tables` adds one dock with the two editors, keeps them in step with
the controller's analysis, breakdown and outline (refreshed at most every
:data:`REFRESH_MS`, and every :data:`BUSY_REFRESH_MS` while a model streams), turns their edits into undo commands, and
lets a scoring item be dragged from the index onto a section of the outline tree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QDockWidget, QMenu, QTabWidget, QWidget
from typing_extensions import override

from app.core.breakdown import Breakdown
from app.core.outline import Path
from app.ui.export.deviation_view import DeviationView
from app.ui.export.index_table_view import SCORING_ITEM_MIME, IndexTableView
from app.ui.export.response_commands import MapSectionsCommand, mapped_paths
from app.ui.shell.stages import register_panel

if TYPE_CHECKING:
    from app.core.outline import Phase, TreeEvent
    from app.ui.shell.window_host import WindowHost

REFRESH_MS = 150
BUSY_REFRESH_MS = 1000


class ResponseTablesPanel(QTabWidget):
    """Two tabs: 评分索引 and 技术偏离表."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("responseTables")
        self.index_view = IndexTableView()
        self.deviation_view = DeviationView()
        self.addTab(self.index_view, "评分索引")
        self.addTab(self.deviation_view, "技术偏离表")


class ResponseTables(QObject):
    """The dock, its panel and the connections to one window."""

    def __init__(self, window: WindowHost) -> None:
        super().__init__(window)
        self.window = window
        self.panel = ResponseTablesPanel()
        self.dock = QDockWidget("评分索引与偏离表", window)
        self.dock.setObjectName("responseTablesDock")
        self.dock.setWidget(self.panel)
        self.dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                              | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                              | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        register_panel(window, self.dock, "review", area=Qt.DockWidgetArea.LeftDockWidgetArea, share=0.34)
        for menu in window.menuBar().findChildren(QMenu):
            if menu.title().startswith("视图"):
                menu.addAction(self.dock.toggleViewAction())
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        c = window.controller
        self._unsubscribe = c.outline.subscribe(self._on_tree_event)
        window.destroyed.connect(lambda *_a: self._unsubscribe())
        c.running_changed.connect(self._on_running)
        for signal in (c.undo_stack.indexChanged, c.analysis_changed, c.breakdown_changed,
                       window.analysis_view.analysis_edited, window.breakdown_view.breakdown_edited):
            signal.connect(self.schedule)
        self.panel.index_view.sections_chosen.connect(self.map_sections)
        self.panel.deviation_view.breakdown_edited.connect(self._on_breakdown_edited)
        self.panel.deviation_view.page_requested.connect(self._show_page)
        self._stale = False
        self.dock.visibilityChanged.connect(lambda shown: self.refresh() if shown and self._stale else None)
        self._drops = _OutlineDropFilter(self)
        window.outline_view.viewport().installEventFilter(self._drops)
        self.refresh()

    @property
    def index_view(self) -> IndexTableView:
        """The 评分索引 editor."""
        return self.panel.index_view

    @property
    def deviation_view(self) -> DeviationView:
        """The 技术偏离表 editor."""
        return self.panel.deviation_view

    @property
    def hidden(self) -> bool:
        """Whether the dock cannot be seen: closed, or a tab behind another dock."""
        return not self.dock.isVisible() or self.dock.visibleRegion().isEmpty()

    def show(self, tab: int = 0) -> None:
        """Bring the dock to the front on tab 0 (index) or 1 (deviations)."""
        self.dock.show()
        self.dock.raise_()
        self.panel.setCurrentIndex(tab)

    def schedule(self, *_args: object) -> None:
        """Refresh soon (coalesces bursts of outline events while a model streams)."""
        if not self._timer.isActive():
            # While a model streams, the tables follow once a second, not on every burst of headings.
            self._timer.setInterval(BUSY_REFRESH_MS if self.window.controller.busy_generating else REFRESH_MS)
            self._timer.start()

    def refresh(self) -> None:
        """Show the controller's current analysis, breakdown and outline.

        While a model streams and the dock is hidden (closed, or a tab behind another dock), the
        tables are only marked stale: they catch up when the dock shows or the run ends.
        """
        self._timer.stop()
        c = self.window.controller
        if c.busy_generating and self.hidden:
            self._stale = True
            return
        self._stale = False
        chapters = c.outline.chapters
        self.index_view.set_data(c.analysis, chapters)
        self.deviation_view.set_data(c.breakdown, chapters)

    def _on_running(self, running: bool) -> None:
        if not running:  # a run ended: show its result soon, not up to a busy interval later
            self._timer.start(REFRESH_MS)

    def _on_tree_event(self, phase: Phase, _event: TreeEvent) -> None:
        if phase == "after":
            self.schedule()

    def map_sections(self, group_id: str, paths: Any) -> None:
        """Make ``paths`` the sections answering ``group_id``: one undo step."""
        c = self.window.controller
        title = next((g.title for g in c.analysis.groups if g.id == group_id), group_id)
        c.undo_stack.push(MapSectionsCommand(c.outline, group_id, [tuple(p) for p in paths], title))
        self.schedule()

    def add_section(self, group_id: str, path: Path) -> None:
        """Add one section to the ones answering ``group_id`` (a drop on the outline)."""
        current = mapped_paths(self.window.controller.outline, group_id)
        if path not in current:
            self.map_sections(group_id, [*current, path])

    def _on_breakdown_edited(self, breakdown: Breakdown, text: str) -> None:
        from app.ui.tender.analysis_commands import EditBreakdownCommand

        c = self.window.controller
        c.undo_stack.push(EditBreakdownCommand(self._store_breakdown, c.breakdown, breakdown, text))

    def _store_breakdown(self, breakdown: Breakdown | None, _refresh: bool) -> None:
        """Keep ``breakdown`` as the controller's and show it in both breakdown views."""
        self.window.controller.breakdown = breakdown
        self.window.breakdown_view.set_breakdown(breakdown if breakdown is not None else Breakdown())
        self.schedule()  # not now: the edit that got us here is still being committed by the table

    def _show_page(self, page: int) -> None:
        show = getattr(self.window, "_show_page", None)
        if show is not None:
            show(page)


class _OutlineDropFilter(QObject):
    """Accepts a scoring item dragged from the index onto a section of the outline tree."""

    def __init__(self, owner: ResponseTables) -> None:
        super().__init__(owner)
        self.owner = owner

    def _target(self, event: QDropEvent | QDragMoveEvent) -> Path | None:
        view = self.owner.window.outline_view
        index = view.indexAt(event.position().toPoint())
        return view.outline_model.path_for_index(index) if index.isValid() else None

    @override
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Qt override: take drags carrying a scoring item; leave every other drag to the tree."""
        if event.type() in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            drag = event
            assert isinstance(drag, QDragEnterEvent | QDragMoveEvent | QDropEvent)
            if not drag.mimeData().hasFormat(SCORING_ITEM_MIME):
                return False
            target = self._target(drag)
            if event.type() == QEvent.Type.Drop and target is not None:
                group_id = bytes(drag.mimeData().data(SCORING_ITEM_MIME).data()).decode("utf-8")
                drag.setDropAction(Qt.DropAction.LinkAction)
                drag.accept()
                self.owner.add_section(group_id, target)
                return True
            if target is not None or event.type() == QEvent.Type.DragEnter:
                drag.setDropAction(Qt.DropAction.LinkAction)
                drag.accept()
            else:
                drag.ignore()
            return True
        return False


def attach_response_tables(window: WindowHost) -> ResponseTables:
    """Add the 评分索引与偏离表 dock to ``window`` and wire it."""
    return ResponseTables(window)

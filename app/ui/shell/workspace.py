"""The window as a workspace by stage: the stage bar, switching, each stage's layout kept and reset.

:class:`StageWorkspace` belongs to the main window (``window.workspace``). Panels register with
:func:`app.ui.shell.stages.register_panel`. Switching a stage saves the layout of the one left
(``QMainWindow.saveState``), hides every panel the next one does not show and restores that
one's layout (or builds its first-start layout from the registry). The outline tree is the
central widget and is never touched: its selection, scroll position and the undo stack stay.
The window keeps its size through a switch and never grows past the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabBar, QToolBar
from typing_extensions import override

from app.ui.shell.panel_frame import frame_panel, natural_minimum
from app.ui.shell.stages import STAGE_KEYS, STAGES, PanelRegistry, Placement, stage_named

if TYPE_CHECKING:
    from PySide6.QtWidgets import QAbstractScrollArea

#: Bumped when saved layouts can no longer be restored (``QMainWindow.restoreState`` version).
STATE_VERSION = 3
#: The stage a first start shows.
FIRST_STAGE = "analysis"
_SHOW_TO_PARENT = QEvent.Type.ShowToParent


class StageWorkspace(QObject):
    """The stages of one main window: the stage bar, Ctrl+1…Ctrl+5 and the per-stage layouts.

    Signals:
        stage_changed(str): the key of the stage now on show.
    """

    stage_changed = Signal(str)

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.registry = PanelRegistry()
        #: The stage on show ("" until :meth:`start`).
        self.current = ""
        self._states: dict[str, QByteArray] = {}
        self._known: dict[str, set[str]] = {}  # names of the panels each saved layout knows
        self._held: dict[str, set[str]] = {}  # panels a stage holds back until their ``shown`` says yes
        self._joined: list[Placement] = []  # held-back panels placed in this switch (sized once laid out)
        self._switching = False
        self._started = False
        self._shares_pending = False
        #: The scrolled view kept in place through a switch (the outline tree).
        self.keep_scrolled: QAbstractScrollArea | None = None
        #: The free area the window must stay in (None: the free area of the screen the window is on).
        self.screen_area: QRect | None = None
        # The side columns run the window's full height; a bottom panel sits under the outline only.
        window.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        window.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.bar = QTabBar()
        self.bar.setObjectName("stageBar")
        self.bar.setDocumentMode(True)
        self.bar.setExpanding(False)
        self.bar.setDrawBase(False)
        self.bar.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.toolbar = QToolBar("工作阶段", window)
        self.toolbar.setObjectName("stageToolBar")
        self.toolbar.setMovable(False)
        self.toolbar.setFloatable(False)
        self.toolbar.toggleViewAction().setVisible(False)
        self.toolbar.addWidget(self.bar)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        self.group = QActionGroup(self)
        self.actions: dict[str, QAction] = {}
        for n, stage in enumerate(STAGES, start=1):
            shortcut = QKeySequence(f"Ctrl+{n}")
            self.bar.addTab(f"{n} {stage.title}")
            self.bar.setTabToolTip(n - 1, f"{stage.title}（{shortcut.toString(QKeySequence.SequenceFormat.NativeText)}）："
                                          f"{stage.tip}")
            action = QAction(stage.title, window)
            action.setObjectName(f"stage_{stage.key}")
            action.setCheckable(True)
            action.setShortcut(shortcut)
            action.setStatusTip(stage.tip)
            action.triggered.connect(lambda _checked=False, key=stage.key: self.switch(key))
            self.group.addAction(action)
            window.addAction(action)  # the shortcut works whichever menu or panel has focus
            self.actions[stage.key] = action
        self.bar.currentChanged.connect(self._on_tab_changed)
        self._tidy_pending = False

    # ------------------------------------------------------------------ registry
    def register(self, placement: Placement) -> None:
        """Record ``placement``; once started, the panel is placed (or hidden) at once."""
        self.registry.add(placement)
        frame_panel(placement.dock)  # the panel scrolls rather than grow the window past the screen
        placement.dock.installEventFilter(self)
        if self._started and not self._switching:
            if placement.stage == self.current:
                self._place(placement, self._placed_docks())
            elif self.current not in self.registry.stages_of(placement.dock):
                self.window.removeDockWidget(placement.dock)

    def stages_of(self, dock: QDockWidget) -> list[str]:
        """The stages showing ``dock`` (its home first)."""
        return self.registry.stages_of(dock)

    def on_show(self, dock: QDockWidget) -> bool:
        """Whether ``dock`` can be seen now (its stage on show, the dock open and not a tab behind another)."""
        return dock.isVisible() and not dock.visibleRegion().isEmpty()

    # ------------------------------------------------------------------ switching
    def start(self, qsettings: QSettings | None = None) -> None:
        """Show the stage the user left (its layout restored), or the first stage's first-start layout."""
        stage = FIRST_STAGE
        if qsettings is not None:
            saved = qsettings.value("window/stage")
            if isinstance(saved, str) and saved in STAGE_KEYS:
                stage = saved
            for key in STAGE_KEYS:
                state = qsettings.value(f"window/stages/{key}")
                names = qsettings.value(f"window/stagePanels/{key}")
                held = qsettings.value(f"window/stageHeld/{key}")
                if isinstance(state, QByteArray | bytes) and isinstance(names, str):
                    self._states[key] = QByteArray(state)
                    self._known[key] = set(filter(None, names.split(",")))
                    self._held[key] = set(filter(None, held.split(","))) if isinstance(held, str) else set()
        self._started = True
        self.switch(stage)

    def switch(self, key: str) -> None:
        """Show stage ``key``: its panels, in the layout it had; the outline, selection and undo stay."""
        stage_named(key)
        if key == self.current or self._switching:
            self._sync_controls()
            return
        scroll = self.keep_scrolled.verticalScrollBar().value() if self.keep_scrolled is not None else None

        def change() -> None:
            if self.current:
                self._remember(self.current)
            self.current = key
            self._show_stage(key)
            self._sync_controls()

        self._rearrange(change)
        if scroll is not None and self.keep_scrolled is not None:
            bar = self.keep_scrolled.verticalScrollBar()
            bar.setValue(scroll)
            QTimer.singleShot(0, lambda: bar.setValue(scroll) if bar.value() != scroll else None)
        self.stage_changed.emit(key)

    def reset(self) -> None:
        """视图 → 重置布局: the stage on show goes back to its first-start layout and sizes."""
        if not self.current:
            return
        self._states.pop(self.current, None)
        self._known.pop(self.current, None)
        self._held.pop(self.current, None)
        self._rearrange(lambda: self._build_default(self.current))
        self.apply_shares()

    def _rearrange(self, change: Callable[[], None]) -> None:
        """Run ``change`` (panels come and go) with the window's size and place kept.

        While panels come and go, the layout's minimum size passes through sizes no stage has
        (the old stage's panels and the new one's at once) and Qt grows the window to each of
        them; the layout is off meanwhile, and the window keeps its size afterwards.
        """
        window = self.window
        layout = window.layout()
        size = window.size()
        self._switching = True
        if layout is not None:
            layout.setEnabled(False)
        try:
            change()
        finally:
            if layout is not None:
                layout.setEnabled(True)
            self._switching = False
        if layout is not None:
            layout.activate()
        joined, self._joined = self._joined, []
        if window.isVisible():
            self.apply_shares(joined)
        self._tidy_tab_bars()
        if window.isVisible():
            window.resize(size)  # a stage never resizes the window
            self.keep_on_screen()
            self._tidy_soon()

    def bring(self, dock: QDockWidget) -> None:
        """Show ``dock`` in front: in its home stage when the stage on show does not have it."""
        stages = self.registry.stages_of(dock)
        if stages and self.current not in stages:
            self.switch(stages[0])
        dock.show()
        dock.raise_()

    def save(self, qsettings: QSettings) -> None:
        """Write the stage on show and every stage's layout to ``qsettings``."""
        if self.current:
            self._remember(self.current)
            qsettings.setValue("window/stage", self.current)
        for key, state in self._states.items():
            qsettings.setValue(f"window/stages/{key}", state)
            qsettings.setValue(f"window/stagePanels/{key}", ",".join(sorted(self._known.get(key, set()))))
            qsettings.setValue(f"window/stageHeld/{key}", ",".join(sorted(self._held.get(key, set()))))

    # ------------------------------------------------------------------ layouts
    def _remember(self, key: str) -> None:
        self._states[key] = self.window.saveState(STATE_VERSION)
        self._known[key] = {d.objectName() for d in self.registry.docks()}

    def _retire_others(self, key: str) -> None:
        """Take the panels ``key`` does not show out of the layout (which hides them).

        Merely hidden, they would keep their tab groups, and Qt leaves the tab bar of a group
        with no panel on show drawn over the panels of the next stage.
        """
        for dock in self.registry.docks():
            if key not in self.registry.stages_of(dock):
                self.window.removeDockWidget(dock)

    def _show_stage(self, key: str) -> None:
        self._retire_others(key)
        state = self._states.get(key)
        if state is None or not self.window.restoreState(state, STATE_VERSION):
            self._build_default(key)
        else:
            known, held = self._known.get(key, set()), self._held.setdefault(key, set())
            placed = self._placed_docks()
            for placement in self.registry.in_stage(key):
                name = placement.dock.objectName()
                if name not in known:  # a panel newer than the saved layout
                    self._place(placement, placed)
                elif name in held and (not placement.dock.isHidden() or placement.shown_now()):
                    held.discard(name)  # shown by the user meanwhile, or what it waited for is there now
                    if placement.dock.isHidden():
                        self._place(placement, placed)
                        self._joined.append(placement)
            self._retire_others(key)

    def _placed_docks(self) -> dict[str, QDockWidget]:
        return {d.objectName(): d for d in self.registry.docks()
                if self.current in self.registry.stages_of(d) and not d.isHidden()}

    def _place(self, placement: Placement, placed: dict[str, QDockWidget]) -> None:
        window, dock = self.window, placement.dock
        tab_with, below = placed.get(placement.tab_with), placed.get(placement.below)
        if tab_with is not None and tab_with is not dock:
            window.tabifyDockWidget(tab_with, dock)
        elif below is not None and below is not dock:
            window.splitDockWidget(below, dock, Qt.Orientation.Vertical)
        else:
            window.addDockWidget(placement.area, dock)
        if dock.isFloating():
            dock.setFloating(False)
        shown = placement.shown_now()
        dock.setVisible(shown)
        held = self._held.setdefault(placement.stage, set())
        if shown:
            placed[dock.objectName()] = dock
            held.discard(dock.objectName())
        else:
            held.add(dock.objectName())

    def _build_default(self, key: str) -> None:
        placements = self.registry.in_stage(key)
        for dock in self.registry.docks():  # a clean layout: no tab group, split or floating panel left
            dock.setFloating(False)
            self.window.removeDockWidget(dock)
        placed: dict[str, QDockWidget] = {}
        for placement in placements:
            self._place(placement, placed)
        for placement in placements:
            if placement.front and placement.dock.isVisible():
                placement.dock.raise_()
        if self.window.isVisible():
            self.apply_shares()
        else:
            self._shares_pending = True

    def apply_shares(self, only: list[Placement] | None = None) -> None:
        """Size the stage's columns (and bottom row) to the shares their panels ask for (``only`` some)."""
        self._shares_pending = False
        window = self.window
        columns: list[QDockWidget] = []
        widths: list[int] = []
        rows: list[QDockWidget] = []
        heights: list[int] = []
        splits: list[tuple[QDockWidget, QDockWidget, float]] = []
        for p in self.registry.in_stage(self.current) if only is None else only:
            if p.share <= 0 or p.tab_with or not p.dock.isVisible() or p.dock.isFloating():
                continue
            if p.below:
                above = next((d for d in self.registry.docks() if d.objectName() == p.below), None)
                if above is not None and above.isVisible() and not above.isFloating():
                    splits.append((above, p.dock, p.share))
                continue
            # a share is never less than the panel (and its tab mates) needs unscrolled; where the window
            # is too small for that, Qt gives less and the panel scrolls (PanelFrame)
            natural = natural_minimum(p.dock)
            for mate in window.tabifiedDockWidgets(p.dock):
                natural = natural.expandedTo(natural_minimum(mate))
            if p.area in (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea):
                columns.append(p.dock)
                widths.append(max(int(window.width() * p.share), natural.width()))
            else:
                rows.append(p.dock)
                heights.append(max(int(window.height() * p.share), natural.height()))
        if columns:
            window.resizeDocks(columns, widths, Qt.Orientation.Horizontal)
        if rows:
            window.resizeDocks(rows, heights, Qt.Orientation.Vertical)
        for above, below, share in splits:  # a panel under another takes its share of their height
            total = above.height() + below.height()
            # …or what it needs unscrolled, as long as the panel above keeps what it needs
            low = min(max(int(total * share), natural_minimum(below).height()),
                      max(total - natural_minimum(above).height(), int(total * share)))
            window.resizeDocks([above, below], [total - low, low], Qt.Orientation.Vertical)

    def window_shown(self) -> None:
        """The window is on screen: size a first-start layout built before it was, its front tabs on top."""
        if self._shares_pending:
            self.apply_shares()
            for placement in self.registry.in_stage(self.current):
                if placement.front and placement.dock.isVisible():
                    placement.dock.raise_()

    def _tidy_tab_bars(self) -> None:
        """Show exactly the dock tab bars of tab groups on show.

        Qt keeps a tab bar per tab group and does not always keep up when whole groups come and
        go at once: the bar of a group with no panel on show stayed drawn over the next stage's
        panels, and a new group's bar stayed hidden. A bar is current when it has two tabs or more,
        all for panels on show in one tab group (bars Qt parks outside the window are not drawn).
        """
        window = self.window
        groups = set()
        direct = Qt.FindChildOption.FindDirectChildrenOnly  # docks and their tab bars are the window's own
        for dock in window.findChildren(QDockWidget, options=direct):
            if dock.isHidden() or dock.isFloating():
                continue
            mates = [m.windowTitle() for m in window.tabifiedDockWidgets(dock) if not m.isHidden()]
            if mates:
                groups.add(frozenset([dock.windowTitle(), *mates]))
        inside = window.rect()
        for bar in window.findChildren(QTabBar, options=direct):
            if bar is self.bar:
                continue
            if not inside.intersects(bar.geometry()):
                continue  # parked outside the window by Qt: not drawn
            titles = frozenset(bar.tabText(i) for i in range(bar.count()))
            current = bar.count() > 1 and titles in groups
            if bar.isVisible() != current:
                bar.setVisible(current)

    # ------------------------------------------------------------------ the screen
    def keep_on_screen(self, available: QRect | None = None) -> None:
        """Shrink and move the window so that it, frame included, is inside the screen's free area."""
        window = self.window
        available = available or self.screen_area
        if available is None:
            screen = window.screen()
            if screen is None:
                return
            available = screen.availableGeometry()
        if available.isEmpty() or window.isMaximized() or window.isFullScreen():
            return
        frame = window.frameGeometry()
        if available.contains(frame):
            return
        extra_w, extra_h = frame.width() - window.width(), frame.height() - window.height()
        window.resize(min(window.width(), available.width() - extra_w), min(window.height(), available.height() - extra_h))
        frame = window.frameGeometry()
        window.move(max(available.left(), min(frame.left(), available.right() - frame.width() + 1)),
                    max(available.top(), min(frame.top(), available.bottom() - frame.height() + 1)))

    # ------------------------------------------------------------------ events
    def _sync_controls(self) -> None:
        index = STAGE_KEYS.index(self.current) if self.current in STAGE_KEYS else -1
        self.bar.blockSignals(True)
        self.bar.setCurrentIndex(index)
        self.bar.blockSignals(False)
        if self.current in self.actions:
            self.actions[self.current].setChecked(True)

    def _on_tab_changed(self, index: int) -> None:
        if 0 <= index < len(STAGES):
            self.switch(STAGES[index].key)

    def _tidy_soon(self) -> None:
        if not self._tidy_pending:
            self._tidy_pending = True
            QTimer.singleShot(0, self._tidy_now)

    def _tidy_now(self) -> None:
        self._tidy_pending = False
        self._tidy_tab_bars()

    @override
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A panel shown (from a menu or by code) while its stage is not on show brings its stage."""
        if (event.type() == _SHOW_TO_PARENT and self._started and not self._switching
                and isinstance(watched, QDockWidget)):
            stages = self.registry.stages_of(watched)
            if stages and self.current not in stages:
                self.switch(stages[0])
                if watched.isHidden():  # closed in its own stage's layout: shown, as asked
                    watched.show()
        return False

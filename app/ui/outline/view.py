"""The outline tree view: inline rename, context menu, shortcuts, drag and drop.

The view holds no data: every action builds an undo command (``app.ui.outline.commands``) and
pushes it on the controller's stack; the adapter model turns the tree's events into row
changes, so selection and scroll position survive while a stream appends nodes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QContextMenuEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QKeySequence,
    QResizeEvent,
    QUndoCommand,
    QUndoStack,
)
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QInputDialog, QMenu, QTreeView, QWidget

from app.core.limits import STORED
from app.core.outline import OutlineNode, Path
from app.ui.figures.section_figures import SectionProposer, figure_menu
from app.ui.outline.commands import (
    InsertNodeCommand,
    MoveNodeCommand,
    RemoveNodeCommand,
    indent,
    move_up_down,
    outdent,
)
from app.ui.outline.model import COL_DESCRIPTION, COL_SOURCE, COL_TITLE, OutlineItemModel

NEW_TITLE = "新标题"
#: Rows the view expands on its own (beyond the chapters) before it stops opening sections.
AUTO_EXPAND_LIMIT = 160
#: While a model streams, the tree is painted at most this often (25 frames a second).
STREAM_PAINT_MS = 40
_T = QEvent.Type
#: Viewport events that change what the user sees. Not Qt's own follow-ups such as UpdateLater,
#: which a paint posts to itself: counting those would repaint an idle tree for ever.
_SHOWN_EVENTS = frozenset({
    _T.MouseButtonPress, _T.MouseButtonRelease, _T.MouseButtonDblClick, _T.MouseMove, _T.Wheel,
    _T.HoverEnter, _T.HoverLeave, _T.HoverMove, _T.Enter, _T.Leave, _T.KeyPress, _T.KeyRelease,
    _T.Resize, _T.Show, _T.DragEnter, _T.DragMove, _T.DragLeave, _T.Drop, _T.ContextMenu,
    _T.FocusIn, _T.FocusOut, _T.StyleChange, _T.PaletteChange, _T.FontChange,
})


class OutlineView(QTreeView):
    """A ``QTreeView`` over :class:`OutlineItemModel` whose edits are undoable commands.

    Signals:
        source_requested(str): the user asked to see the scoring item a node answers.
        regenerate_requested(object): rewrite the headings under this path (a tuple) with guidance.
        notice(str): a short message for the status bar (why a drop is refused).
    """

    source_requested = Signal(str)
    regenerate_requested = Signal(object)
    notice = Signal(str)

    def __init__(self, model: OutlineItemModel, undo_stack: QUndoStack, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.outline_model = model
        self.undo_stack = undo_stack
        self.setModel(model)
        self._streaming = False
        self._dirty = False
        self._quiet_until = 0.0
        selection = self.selectionModel()
        for signal in (model.rowsInserted, model.rowsRemoved, model.rowsMoved, model.dataChanged,
                       model.layoutChanged, model.modelReset, selection.selectionChanged, selection.currentChanged,
                       self.expanded, self.collapsed):
            signal.connect(self._mark_dirty)
        self._paint_tick = QTimer(self)
        self._paint_tick.setInterval(STREAM_PAINT_MS)
        self._paint_tick.timeout.connect(self._let_paint)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setAnimated(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
                             | QAbstractItemView.EditTrigger.SelectedClicked)
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(COL_TITLE, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COL_DESCRIPTION, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        self.setColumnWidth(COL_TITLE, 340)
        self.setColumnWidth(COL_SOURCE, 150)
        self._title_follows_width = True  # until the user drags the title column's edge
        self._sizing = False
        header.sectionResized.connect(self._on_section_resized)
        self.actions_by_name: dict[str, QAction] = {}
        #: Set by the window: asks the model for a figure's data (None: the editor's button is off).
        self.figure_proposer: SectionProposer | None = None
        self._build_actions()
        self._auto_shown = 0
        model.rowsInserted.connect(self._on_rows_inserted)
        model.modelReset.connect(self.expand_sensibly)
        self.expand_sensibly()
        self.selectionModel().currentChanged.connect(lambda *_: self.update_actions())
        self.doubleClicked.connect(self._on_double_clicked)
        self.update_actions()

    # ------------------------------------------------------------------ actions
    def _action(self, name: str, text: str, slot: Callable[[], object],
                *shortcuts: QKeySequence | QKeySequence.StandardKey | str) -> QAction:
        action = QAction(text, self)
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)
        self.actions_by_name[name] = action
        return action

    def _build_actions(self) -> None:
        self._action("add_sibling", "添加同级节点", self.add_sibling, "Insert", "Ctrl+Return", "Ctrl+Enter")
        self._action("add_child", "添加下级节点", self.add_child, "Ctrl+Shift+Return", "Ctrl+Shift+Enter")
        self._action("rename", "重命名", self.rename_current, "F2")
        self._action("edit_description", "编辑内容要点…", self.edit_description)
        self._action("delete", "删除", self.delete_current, QKeySequence.StandardKey.Delete)
        self._action("move_up", "上移", lambda: self.move_current(-1), "Alt+Up")
        self._action("move_down", "下移", lambda: self.move_current(1), "Alt+Down")
        self._action("indent", "降级（成为上一节点的下级）", self.indent_current)
        self._action("outdent", "升级（成为上级的同级）", self.outdent_current)
        self._action("regenerate", "重新生成本章（可附要求）…", self.request_regenerate)
        self._action("expand_all", "全部展开", self.expandAll)
        self._action("collapse_all", "全部折叠", self.collapseAll)
        self.actions_by_name["indent"].setToolTip("Tab")
        self.actions_by_name["outdent"].setToolTip("Shift+Tab")

    def update_actions(self) -> None:
        """Enable the edit actions that make sense for the current node and mode."""
        path = self.current_path()
        editable = not self.outline_model.read_only
        locked = self.outline_model.locked_top_level
        has = path is not None
        top = has and path is not None and len(path) == 1
        a = self.actions_by_name
        a["add_sibling"].setEnabled(editable and not (locked and (top or not has)))
        a["add_child"].setEnabled(editable and has and path is not None
                                  and len(path) < self.outline_model.limits.deepest)
        a["rename"].setEnabled(editable and has and not (locked and top))
        a["edit_description"].setEnabled(editable and has)
        a["delete"].setEnabled(editable and has and not (locked and top))
        for name in ("move_up", "move_down", "indent", "outdent"):
            a[name].setEnabled(editable and has and not (locked and top))
        a["regenerate"].setEnabled(editable and path is not None and len(path) < self.outline_model.limits.depth)

    # ------------------------------------------------------------------ helpers
    def current_path(self) -> Path | None:
        """The path of the current node, or None."""
        idx = self.currentIndex()
        return self.outline_model.path_for_index(idx) if idx.isValid() else None

    def select_path(self, path: Path, edit: bool = False) -> None:
        """Make ``path`` current and visible; optionally start renaming it."""
        idx = self.outline_model.index_for_path(path)
        if not idx.isValid():
            return
        self.setCurrentIndex(idx)
        self.selectionModel().select(idx, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                     | QItemSelectionModel.SelectionFlag.Rows)
        self.scrollTo(idx)
        if edit:
            self.edit(idx)

    def _push(self, command: QUndoCommand | None) -> bool:
        if command is None or self.outline_model.read_only:
            return False
        self.undo_stack.push(command)
        return not getattr(command, "error", None)

    # ------------------------------------------------------------------ edits
    def add_sibling(self, title: str = NEW_TITLE, edit: bool = True) -> Path | None:
        """Insert a node after the current one (or a chapter at the end) and rename it inline."""
        path = self.current_path()
        outline = self.outline_model.outline
        parent: Path
        if path is None:
            parent, index = (), len(outline.chapters)
        else:
            parent, index = path[:-1], path[-1] + 1
        if self.outline_model.locked_top_level and parent == ():
            return None
        if len(outline.node(parent).children) >= 12:
            return None
        cmd = InsertNodeCommand(outline, parent, index, OutlineNode(title=title), "添加同级节点")
        if not self._push(cmd):
            return None
        self.select_path(cmd.path, edit=edit)
        return cmd.path

    def add_child(self, title: str = NEW_TITLE, edit: bool = True) -> Path | None:
        """Append a child to the current node (within the outline's depth) and rename it inline."""
        path = self.current_path()
        outline = self.outline_model.outline
        if (path is None or len(path) >= self.outline_model.limits.deepest
                or len(outline.node(path).children) >= STORED.max_children):
            return None
        cmd = InsertNodeCommand(outline, path, len(outline.node(path).children), OutlineNode(title=title), "添加下级节点")
        if not self._push(cmd):
            return None
        self.expand(self.outline_model.index_for_path(path))
        self.select_path(cmd.path, edit=edit)
        return cmd.path

    def request_regenerate(self) -> None:
        """Ask for the current chapter or section to be regenerated (the window asks for guidance)."""
        path = self.current_path()
        if path is not None and not self.outline_model.read_only:
            self.regenerate_requested.emit(path)

    def rename_current(self) -> None:
        """Start inline editing of the current title."""
        idx = self.currentIndex()
        if idx.isValid():
            self.edit(idx.siblingAtColumn(COL_TITLE))

    def edit_description(self) -> None:
        """Edit the description in a multi-line dialog (opened non-blocking)."""
        idx = self.currentIndex()
        if not idx.isValid() or self.outline_model.read_only:
            return
        node = self.outline_model.node_for_index(idx)
        dialog = QInputDialog(self)
        dialog.setWindowTitle("编辑内容要点")
        dialog.setLabelText(f"“{node.title}”应写的内容：")
        dialog.setOption(QInputDialog.InputDialogOption.UsePlainTextEditForTextInput)
        dialog.setTextValue(node.description)
        target = QPersistentModelIndex(idx.siblingAtColumn(COL_DESCRIPTION))

        def done(text: str) -> None:
            if target.isValid():
                self.outline_model.setData(target, text, Qt.ItemDataRole.EditRole)

        dialog.textValueSelected.connect(done)
        dialog.open()

    def delete_current(self) -> None:
        """Delete the current node and its subtree; the next sibling (or the parent) becomes current."""
        path = self.current_path()
        if path is None:
            return
        if self.outline_model.locked_top_level and len(path) == 1:
            return
        if not self._push(RemoveNodeCommand(self.outline_model.outline, path)):
            return
        outline = self.outline_model.outline
        siblings = outline.node(path[:-1]).children
        if siblings:
            self.select_path((*path[:-1], min(path[-1], len(siblings) - 1)))
        elif path[:-1]:
            self.select_path(path[:-1])

    def move_current(self, delta: int) -> None:
        """Move the current node up (-1) or down (+1) among its siblings."""
        self._move(lambda p: move_up_down(self.outline_model.outline, p, delta))

    def indent_current(self) -> None:
        """Tab: the node becomes the last child of its previous sibling."""
        path = self.current_path()
        if path is not None and len(path) + self.outline_model.outline.node(path).depth() > self.outline_model.limits.deepest:
            return  # would exceed the outline's depth
        self._move(lambda p: indent(self.outline_model.outline, p))

    def outdent_current(self) -> None:
        """Shift+Tab: the node becomes the next sibling of its parent."""
        self._move(lambda p: outdent(self.outline_model.outline, p))

    def _move(self, make: Callable[[Path], MoveNodeCommand | None]) -> None:
        path = self.current_path()
        if path is None or (self.outline_model.locked_top_level and len(path) == 1):
            return
        cmd = make(path)
        if cmd is None:
            return
        if self.outline_model.locked_top_level and cmd.dst_parent == ():
            return
        if self._push(cmd):
            self.select_path(cmd.new_path)

    def _on_double_clicked(self, index: QModelIndex) -> None:
        if index.column() == COL_SOURCE:
            rid = self.outline_model.node_for_index(index).source_requirement_id
            if rid:
                self.source_requested.emit(rid)

    # ------------------------------------------------------------------ column widths
    def _on_section_resized(self, column: int, _old: int, _new: int) -> None:
        if column == COL_TITLE and not self._sizing:
            self._title_follows_width = False

    def fit_columns(self) -> None:
        """Titles get about half the width (the source column a fixed share) on any screen size."""
        if not self._title_follows_width:
            return
        width = self.viewport().width()
        self._sizing = True
        try:
            self.setColumnWidth(COL_SOURCE, max(90, min(170, width // 6)))
            self.setColumnWidth(COL_TITLE, max(200, min(560, width // 2)))
        finally:
            self._sizing = False

    # ------------------------------------------------------------------ Qt overrides
    def resizeEvent(self, event: QResizeEvent) -> None:
        """Qt override: keep the columns in proportion while the user has not sized them."""
        super().resizeEvent(event)
        self.fit_columns()

    def event(self, e: QEvent) -> bool:
        """Qt override: Tab / Shift+Tab indent and outdent instead of moving focus."""
        if (isinstance(e, QKeyEvent) and e.type() == QEvent.Type.KeyPress
                and self.state() != QAbstractItemView.State.EditingState):
            key = e.key()
            if key == Qt.Key.Key_Tab:
                self.indent_current()
                return True
            if key == Qt.Key.Key_Backtab:
                self.outdent_current()
                return True
        return super().event(e)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Qt override: the edit keys also work when the window-level shortcut did not fire."""
        key, mods = event.key(), event.modifiers()
        alt = Qt.KeyboardModifier.AltModifier
        ctrl = Qt.KeyboardModifier.ControlModifier
        shift = Qt.KeyboardModifier.ShiftModifier
        enter = key in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if self.state() != QAbstractItemView.State.EditingState:
            if mods & alt and key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
                self.move_current(-1 if key == Qt.Key.Key_Up else 1)
                return
            if key == Qt.Key.Key_Delete and not mods & (ctrl | alt):
                self.delete_current()
                return
            if key == Qt.Key.Key_Insert or (enter and mods & ctrl and not mods & shift):
                self.add_sibling()
                return
            if enter and mods & ctrl and mods & shift:
                self.add_child()
                return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """Qt override: the edit menu for the node under the mouse."""
        idx = self.indexAt(event.pos())
        if idx.isValid():
            self.setCurrentIndex(idx)
        self.update_actions()
        menu = QMenu(self)
        a = self.actions_by_name
        for name in ("regenerate", None, "add_sibling", "add_child", None, "rename", "edit_description", None,
                     "move_up", "move_down", "indent", "outdent", None, "delete", None, "expand_all", "collapse_all"):
            if name is None:
                menu.addSeparator()
            else:
                menu.addAction(a[name])
        if idx.isValid():
            node = self.outline_model.node_for_index(idx)
            menu.addSeparator()
            menu.addMenu(figure_menu(self.outline_model.outline, self.undo_stack, self.outline_model.path_for_index(idx),
                                     self, enabled=not self.outline_model.read_only, proposer=self.figure_proposer))
            if node.source_requirement_id:
                menu.addSeparator()
                rid = node.source_requirement_id
                menu.addAction(f"查看对应评分项 {rid}", lambda: self.source_requested.emit(rid))
        menu.popup(event.globalPos())

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        """Qt override: a refused place says why (a fourth level, a locked chapter) while hovering."""
        super().dragMoveEvent(event)
        if event.isAccepted():
            return
        pos = event.position().toPoint()
        index = self.indexAt(pos)
        rect = self.visualRect(index)
        margin = max(2, min(12, rect.height() * 2 // 11))  # the band Qt treats as “between rows”
        on_item = rect.top() + margin <= pos.y() <= rect.bottom() - margin
        parent = index if on_item or not index.isValid() else index.parent()
        reason = self.outline_model.drop_refusal(event.mimeData(), parent)
        if reason:
            self.notice.emit(reason)

    def dropEvent(self, event: QDropEvent) -> None:
        """Qt override: the model moves the node; report the drop as a copy so the view never
        removes the source rows itself."""
        super().dropEvent(event)
        if event.isAccepted():
            event.setDropAction(Qt.DropAction.CopyAction)

    # ------------------------------------------------------------------ streaming
    def set_streaming(self, streaming: bool) -> None:
        """Pace painting while a run streams into the tree.

        Every streamed chunk changes the tree, and Qt repaints the whole viewport after each
        one; a paint of a screenful of Chinese headings takes 10–50 ms on a small laptop, so
        painting took most of the GUI thread and delayed the next chunks. While streaming, a
        paint is let through at most every ``STREAM_PAINT_MS`` (and at most a third of the
        time goes to painting), and only when something changed: the tree or anything the
        user did in it. The model itself changes at once.
        """
        if streaming == self._streaming:
            return
        self._streaming = streaming
        self._dirty = True
        if streaming:
            self._paint_tick.start()
        else:
            self._paint_tick.stop()
            self.viewport().setUpdatesEnabled(True)  # repaints what changed since the last frame

    @property
    def streaming(self) -> bool:
        """Whether painting is paced for a streaming run."""
        return self._streaming

    def _mark_dirty(self, *_args: object) -> None:
        self._dirty = True

    def _let_paint(self) -> None:
        if self._dirty and time.perf_counter() >= self._quiet_until:
            self._dirty = False
            self.viewport().setUpdatesEnabled(True)  # schedules one paint of the whole viewport

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        """Qt override: a scroll while streaming shows at the next frame."""
        super().scrollContentsBy(dx, dy)
        self._dirty = True

    def viewportEvent(self, event: QEvent) -> bool:
        """Qt override: while streaming, hold painting after each frame until the next tick."""
        if not self._streaming:
            return super().viewportEvent(event)
        if event.type() != QEvent.Type.Paint:
            if event.type() in _SHOWN_EVENTS:
                self._dirty = True  # the user hovered, clicked, scrolled or resized: show it next frame
            return super().viewportEvent(event)
        started = time.perf_counter()
        handled = super().viewportEvent(event)
        spent = time.perf_counter() - started
        self._quiet_until = started + 3 * spent  # painting gets at most a third of the GUI thread
        self.viewport().setUpdatesEnabled(False)
        return handled

    def expand_sensibly(self) -> None:
        """Expand everything for a normal outline; only the chapters for a very large one.

        The tree view lays out every expanded row on each change, so thousands of visible
        rows would make a streaming run stutter.
        """
        self._auto_shown = 0
        if sum(1 for _ in self.outline_model.outline.walk()) <= AUTO_EXPAND_LIMIT + 12:
            self.expandAll()
        else:
            self.expandToDepth(0)

    def _on_rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        # Nodes open as their children stream in, until about AUTO_EXPAND_LIMIT rows below
        # the chapters are on show: every expanded row costs layout time on each later
        # change, so the rest of a huge outline streams in closed (the user opens it).
        if not parent.isValid():
            return
        if self.isExpanded(parent):
            self._auto_shown += last - first + 1
        elif self._auto_shown < AUTO_EXPAND_LIMIT:
            self._auto_shown += self.outline_model.rowCount(parent)
            self.expand(parent)


def install_read_only_tracking(view: OutlineView, source: QObject, signal_name: str = "running_changed") -> None:
    """Refresh the view's actions whenever ``source`` starts or ends a run."""
    getattr(source, signal_name).connect(lambda *_: view.update_actions())

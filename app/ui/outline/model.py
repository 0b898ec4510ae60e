"""The Qt item model of the outline: an adapter over the one evented ``core.Outline`` tree.

The model holds no data of its own (rule 1). It listens to the tree's "before"/"after"
events and turns them into ``beginInsertRows``/``endInsertRows``, ``beginRemoveRows``,
``beginMoveRows``, ``dataChanged`` and ``beginResetModel``. Edits made in a view go through
undo commands (rule 4) when an undo stack is attached. The number shown is the node's
code-owned ``id`` (``Outline.renumber`` after each edit), so a row's data changes only
through a ``Changed`` event, as Qt's model contract requires.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QByteArray,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication, QIcon, QPainter, QPen, QPixmap

from app.core.limits import STORED, OutlineLimits
from app.core.outline import (
    Changed,
    Inserted,
    Moved,
    Outline,
    OutlineNode,
    Path,
    Phase,
    Removed,
    Reset,
    TreeEvent,
)
from app.core.word_count import text_chars

if TYPE_CHECKING:
    from PySide6.QtGui import QUndoStack

    from app.ui.outline.commands import OutlineCommand

ModelIndex = QModelIndex | QPersistentModelIndex

#: Mime type of a drag inside the tree: a JSON list of paths.
OUTLINE_MIME = "application/x-bidstudio-outline-paths"

COL_TITLE, COL_DESCRIPTION, COL_SOURCE = range(3)
HEADERS = ("编号与标题", "内容要点", "对应评分项")
_COLUMNS = len(HEADERS)

#: Role returning the node's path (tuple) for any index.
PathRole = Qt.ItemDataRole.UserRole + 1
#: Role returning whether the node is a locked one-to-one chapter.
LockedRole = Qt.ItemDataRole.UserRole + 2

_R = Qt.ItemDataRole
_DISPLAY, _EDIT, _FONT, _BACKGROUND, _FOREGROUND, _TOOLTIP, _DECORATION = (
    _R.DisplayRole, _R.EditRole, _R.FontRole, _R.BackgroundRole, _R.ForegroundRole, _R.ToolTipRole,
    _R.DecorationRole)
_ROLES = frozenset({_DISPLAY, _EDIT, _FONT, _BACKGROUND, _FOREGROUND, _TOOLTIP, _DECORATION, PathRole, LockedRole})

_F = Qt.ItemFlag
_F_ROOT = _F.ItemIsDropEnabled
_F_ROOT_RO = _F.NoItemFlags
_F_RO = _F.ItemIsEnabled | _F.ItemIsSelectable
_F_MOVE = _F_RO | _F.ItemIsDragEnabled | _F.ItemIsDropEnabled
_F_EDIT = _F_MOVE | _F.ItemIsEditable
_F_LOCKED = _F_RO | _F.ItemIsDropEnabled
_F_LOCKED_EDIT = _F_LOCKED | _F.ItemIsEditable

_LOCKED_BG = QBrush(QColor("#eef2f7"))
_LOCKED_FG = QBrush(QColor("#34495e"))


class OutlineItemModel(QAbstractItemModel):
    """Three columns (number + title, description, source requirement) over an ``Outline``.

    ``internalPointer`` of an index is the node itself; a parent map (node id -> parent node)
    is kept in step with the tree's events and holds strong references so that ids are
    never reused while an index might still point at a node.
    """

    def __init__(self, outline: Outline, parent: Any = None, limits: OutlineLimits | None = None) -> None:
        super().__init__(parent)
        self._outline = outline
        self._limits = limits or OutlineLimits()
        self._parents: dict[int, OutlineNode] = {}
        self._keep: dict[int, OutlineNode] = {}
        self._pending_move: tuple[OutlineNode, OutlineNode, OutlineNode] | None = None
        self._undo_stack: QUndoStack | None = None
        self._locked_top_level = False
        self._read_only = False
        self._bold = QFont()
        self._bold.setBold(True)
        self._rebuild_parents()
        self._unsubscribe = outline.subscribe(self._on_tree_event)

    # ------------------------------------------------------------------ configuration
    @property
    def outline(self) -> Outline:
        """The adapted tree."""
        return self._outline

    def set_undo_stack(self, stack: QUndoStack | None) -> None:
        """Route view edits (rename, description, drops) through commands on ``stack``."""
        self._undo_stack = stack

    def set_locked_top_level(self, locked: bool) -> None:
        """One-to-one mode: chapters mirror scoring groups, so they cannot be renamed or dragged."""
        if locked == self._locked_top_level:
            return
        self._locked_top_level = locked
        rows = self.rowCount()
        if rows:
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, len(HEADERS) - 1))

    @property
    def limits(self) -> OutlineLimits:
        """The outline's bounds (depth above all): what drops and new rows may create."""
        return self._limits

    def set_limits(self, limits: OutlineLimits) -> None:
        """Use other bounds (the generation settings changed)."""
        self._limits = limits

    @property
    def locked_top_level(self) -> bool:
        """Whether top-level chapters are locked (one-to-one mode)."""
        return self._locked_top_level

    def set_read_only(self, read_only: bool) -> None:
        """Forbid edits while a generation run owns the tree."""
        self._read_only = read_only

    @property
    def read_only(self) -> bool:
        """Whether view edits are currently refused."""
        return self._read_only

    def detach(self) -> None:
        """Stop listening to the tree (call before dropping the model)."""
        self._unsubscribe()

    # ------------------------------------------------------------------ paths <-> indexes
    def index_for_path(self, path: Path, column: int = 0) -> QModelIndex:
        """The one function from a tree path to a ``QModelIndex`` (``()`` is the invalid root)."""
        if not path:
            return QModelIndex()
        node = self._outline.node(path)
        return self.createIndex(path[-1], column, node)

    def path_for_index(self, index: ModelIndex) -> Path:
        """The tree path of ``index`` (the inverse of :meth:`index_for_path`)."""
        path: list[int] = []
        node = self._node(index)
        root = self._outline.root
        while node is not root:
            parent = self._parents[id(node)]
            path.append(_row_of(parent, node))
            node = parent
        return tuple(reversed(path))

    def node_for_index(self, index: ModelIndex) -> OutlineNode:
        """The node behind ``index`` (the root for an invalid index)."""
        return self._node(index)

    def _node(self, index: ModelIndex) -> OutlineNode:
        if not index.isValid():
            return self._outline.root
        node = index.internalPointer()
        assert isinstance(node, OutlineNode)
        return node

    # ------------------------------------------------------------------ Qt structure
    def index(self, row: int, column: int, parent: ModelIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        """Qt override: child ``row`` of ``parent`` (hot path: kept lean)."""
        if parent.isValid():
            if parent.column() != 0:
                return QModelIndex()
            children = parent.internalPointer().children
        else:
            children = self._outline.root.children
        if 0 <= row < len(children) and 0 <= column < _COLUMNS:
            return self.createIndex(row, column, children[row])
        return QModelIndex()

    def parent(self, index: ModelIndex = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        """Qt override: the parent of ``index``."""
        if not index.isValid():
            return QModelIndex()
        parent = self._parents.get(id(index.internalPointer()))
        if parent is None or parent is self._outline.root:
            return QModelIndex()
        return self.createIndex(_row_of(self._parents[id(parent)], parent), 0, parent)

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Qt override: number of children."""
        if parent.isValid():
            return len(parent.internalPointer().children) if parent.column() == 0 else 0
        return len(self._outline.root.children)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Qt override: three columns everywhere."""
        return _COLUMNS

    def hasChildren(self, parent: ModelIndex = QModelIndex()) -> bool:  # noqa: B008
        """Qt override: whether ``parent`` has child rows."""
        return self.rowCount(parent) > 0

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override: Chinese column titles."""
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(HEADERS):
            return HEADERS[section]
        return None

    # ------------------------------------------------------------------ data
    def _is_locked(self, index: ModelIndex) -> bool:
        if not self._locked_top_level or not index.isValid():
            return False
        return self._parents.get(id(index.internalPointer())) is self._outline.root

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override: number + title, description, source requirement, plus styling roles.

        Called for every role of every painted cell, so unused roles return at once.
        """
        if role not in _ROLES or not index.isValid():
            return None
        node = index.internalPointer()
        col = index.column()
        if role == _DISPLAY:
            if col == COL_TITLE:
                title = f"{node.id}  {node.title}" if node.id else node.title
                return f"{title}  〔图 {len(node.figures)}〕" if node.figures else title
            # One line per row: a multi-line description would make every (uniform) row that tall.
            return _description_text(node) if col == COL_DESCRIPTION else _source_text(node)
        if role == _EDIT:
            if col == COL_TITLE:
                return node.title
            return node.description if col == COL_DESCRIPTION else _source_text(node)
        top = self._parents.get(id(node)) is self._outline.root
        locked = self._locked_top_level and top
        if role == _FONT:
            return self._bold if top and col == COL_TITLE else None
        if role == _DECORATION:
            if col != COL_TITLE:
                return None
            return lock_icon() if locked or node.locked else text_icon() if node.content.strip() else None
        if role == _BACKGROUND:
            return _LOCKED_BG if locked else None
        if role == _FOREGROUND:
            return _LOCKED_FG if locked else None
        if role == _TOOLTIP:
            parts = [node.title]
            if node.description:
                parts.append(node.description)
            if node.origin_source:
                parts.append(f"来源：{node.origin_source}")
            if node.content.strip():
                parts.append(f"已写正文 {text_chars(node.content)} 字")
            if node.children:
                written = sum(text_chars(n.content) for _, n in node.walk() if not n.children)
                parts.append(f"本{'章' if len(self.path_for_index(index)) == 1 else '节'}正文共 {written} 字")
            parts += [f"图：{f.title}" for f in node.figures]
            if locked:
                parts.append("（一一对应模式：一级章节对应评分项，已锁定）")
            elif node.locked:
                parts.append("（您的目录：已锁定，生成目录时原样保留）")
            return "\n".join(parts)
        if role == PathRole:
            return self.path_for_index(index)
        if role == LockedRole:
            return locked
        return None

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        """Qt override: titles and descriptions are editable; nodes drag and accept drops.

        Called for every visible row on each layout, so the combinations are precomputed.
        """
        if not index.isValid():
            return _F_ROOT_RO if self._read_only else _F_ROOT
        if self._read_only:
            return _F_RO
        locked = self._is_locked(index)
        if index.column() == COL_DESCRIPTION or (index.column() == COL_TITLE and not locked):
            flags = _F_LOCKED_EDIT if locked else _F_EDIT
        else:
            flags = _F_LOCKED if locked else _F_MOVE
        if self._is_leaf_level(index):  # the last level never has children: the view skips asking
            flags |= _F.ItemNeverHasChildren
        return flags

    def _is_leaf_level(self, index: ModelIndex) -> bool:
        node: OutlineNode | None = index.internalPointer()
        root = self._outline.root
        parents = self._parents
        for level in range(1, self._limits.deepest + 1):  # climb at most ``deepest`` levels
            node = parents.get(id(node))
            if node is None:
                return False
            if node is root:
                return level >= self._limits.deepest
        return True

    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Qt override: rename or edit a description through an undo command."""
        if not index.isValid() or role != Qt.ItemDataRole.EditRole or self._read_only:
            return False
        field = {COL_TITLE: "title", COL_DESCRIPTION: "description"}.get(index.column())
        if field is None or (field == "title" and self._is_locked(index)):
            return False
        text = str(value).strip() if field == "title" else str(value)
        if field == "title" and not 1 <= len(text) <= STORED.max_title_len:
            return False
        if field == "description" and len(text) > STORED.max_description_len:
            text = text[:STORED.max_description_len]
        path = self.path_for_index(index)
        if getattr(self._node(index), field) == text:
            return True
        from app.ui.outline.commands import EditFieldCommand

        command = EditFieldCommand(self._outline, path, field, text)
        if self._undo_stack is not None:
            self._undo_stack.push(command)
        else:
            command.redo()
        return True

    # ------------------------------------------------------------------ drag and drop
    def supportedDropActions(self) -> Qt.DropAction:
        """Qt override: nodes are moved inside the tree; heading-library structures are copied in."""
        return Qt.DropAction.MoveAction | Qt.DropAction.CopyAction

    def supportedDragActions(self) -> Qt.DropAction:
        """Qt override: nodes are moved inside the tree."""
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        """Qt override: our own path list type, and structures dragged from the heading library."""
        from app.ui.outline.heading_library_view import LIBRARY_MIME

        return [OUTLINE_MIME, LIBRARY_MIME]

    def mimeData(self, indexes: list[QModelIndex]) -> QMimeData:  # type: ignore[override]
        """Qt override: the dragged nodes as a JSON list of paths (one per row)."""
        paths = sorted({self.path_for_index(i) for i in indexes if i.isValid()})
        mime = QMimeData()
        mime.setData(OUTLINE_MIME, QByteArray(json.dumps([list(p) for p in paths]).encode()))
        return mime

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                        parent: ModelIndex) -> bool:
        """Qt override: only our own paths, never into themselves, never into a locked level."""
        if self._library_drop(data, parent) is not None:
            return True
        return self._drop_plan(data, action, row, parent) is not None

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                     parent: ModelIndex) -> bool:
        """Qt override: move the dragged node with an undoable command.

        The move happens here, and the base ``removeRows`` refuses, so the view's
        "remove the source after a move" step is a no-op.
        """
        library = self._library_drop(data, parent)
        plan = self._drop_plan(data, action, row, parent)
        if library is None and plan is None:
            return False
        from app.ui.outline.commands import MoveNodeCommand

        command: OutlineCommand
        if library is not None:
            command = library
        else:
            assert plan is not None
            src, dst_parent, dst_index = plan
            command = MoveNodeCommand(self._outline, src, dst_parent, dst_index, text="拖动移动")
        if self._undo_stack is not None:
            self._undo_stack.push(command)
        else:
            command.redo()
        return True

    def _library_drop(self, data: QMimeData, parent: ModelIndex) -> OutlineCommand | None:
        """The command adding a heading-library structure under the node it was dropped on (one undo step)."""
        from app.ui.outline.heading_library_view import insert_command, library_payload

        payload = library_payload(data)
        if self._read_only or payload is None or not parent.isValid():
            return None
        return insert_command(self._outline, self.path_for_index(parent), payload, self._limits.deepest)

    def drop_refusal(self, data: QMimeData, parent: ModelIndex) -> str:
        """Why dragged headings cannot go under ``parent`` (a user-facing sentence), or ""."""
        if self._read_only or not data.hasFormat(OUTLINE_MIME):
            return ""
        try:
            paths = [tuple(int(i) for i in p) for p in json.loads(bytes(data.data(OUTLINE_MIME).data()).decode())]
        except (ValueError, TypeError):
            return ""
        if len(paths) != 1 or not paths[0] or not self._outline.exists(paths[0]):
            return ""
        src = paths[0]
        dst_parent = self.path_for_index(parent) if parent.isValid() else ()
        if self._locked_top_level and (len(src) == 1 or dst_parent == ()):
            return "一一对应模式下一级章节由评分项确定，不能拖动或新增"
        deepest = len(dst_parent) + self._outline.node(src).depth()
        if deepest > self._limits.depth:
            return (f"不能放在这里：移过去会出现第 {deepest} 级标题，目录最多 {self._limits.depth} 级"
                    "（可放到上一级，或先把它的下级标题移走）")
        return ""

    def _drop_plan(self, data: QMimeData, action: Qt.DropAction, row: int,
                   parent: ModelIndex) -> tuple[Path, Path, int] | None:
        if self._read_only or action != Qt.DropAction.MoveAction or not data.hasFormat(OUTLINE_MIME):
            return None
        try:
            raw = json.loads(bytes(data.data(OUTLINE_MIME).data()).decode())
            paths = [tuple(int(i) for i in p) for p in raw]
        except (ValueError, TypeError):
            return None
        if len(paths) != 1:
            return None
        src = paths[0]
        if not src or not self._outline.exists(src):
            return None
        dst_parent = self.path_for_index(parent) if parent.isValid() else ()
        if dst_parent[: len(src)] == src:
            return None
        if self._locked_top_level and (len(src) == 1 or dst_parent == ()):
            return None
        if len(dst_parent) + self._outline.node(src).depth() > self._limits.deepest:
            return None
        count = len(self._outline.node(dst_parent).children)
        dst_index = count if row < 0 else min(row, count)
        return src, dst_parent, dst_index

    # ------------------------------------------------------------------ tree events
    def _on_tree_event(self, phase: Phase, event: TreeEvent) -> None:
        if isinstance(event, Inserted):
            self._on_inserted(phase, event)
        elif isinstance(event, Removed):
            self._on_removed(phase, event)
        elif isinstance(event, Moved):
            self._on_moved(phase, event)
        elif isinstance(event, Changed):
            if phase == "after":
                self.dataChanged.emit(self.index_for_path(event.path, 0),
                                      self.index_for_path(event.path, len(HEADERS) - 1))
        elif isinstance(event, Reset):
            if phase == "before":
                self.beginResetModel()
            else:
                self._rebuild_parents()
                self.endResetModel()

    def _on_inserted(self, phase: Phase, event: Inserted) -> None:
        if phase == "before":
            self.beginInsertRows(self.index_for_path(event.parent), event.index, event.index + event.count - 1)
            return
        parent = self._outline.node(event.parent)
        for node in parent.children[event.index: event.index + event.count]:
            self._register(node, parent)
        self.endInsertRows()

    def _on_removed(self, phase: Phase, event: Removed) -> None:
        if phase == "before":
            self.beginRemoveRows(self.index_for_path(event.parent), event.index, event.index + event.count - 1)
            return
        self.endRemoveRows()

    def _on_moved(self, phase: Phase, event: Moved) -> None:
        if phase == "before":
            node = self._outline.node((*event.src_parent, event.src_index))
            self._pending_move = (node, self._outline.node(event.src_parent), self._outline.node(event.dst_parent))
            ok = self.beginMoveRows(self.index_for_path(event.src_parent), event.src_index, event.src_index,
                                    self.index_for_path(event.dst_parent), event.dst_index)
            if not ok:  # Qt refused (not expected for moves the core accepts): fall back to a reset
                self._pending_move = None
                self.beginResetModel()
            return
        if self._pending_move is None:
            self._rebuild_parents()
            self.endResetModel()
            return
        node, _src_parent, dst_parent = self._pending_move
        self._pending_move = None
        self._parents[id(node)] = dst_parent
        self.endMoveRows()

    def _register(self, node: OutlineNode, parent: OutlineNode) -> None:
        self._parents[id(node)] = parent
        self._keep[id(node)] = node
        for child in node.children:
            self._register(child, node)

    def _rebuild_parents(self) -> None:
        self._parents.clear()
        self._keep.clear()
        root = self._outline.root
        self._keep[id(root)] = root
        for child in root.children:
            self._register(child, root)


_LOCK_ICON: list[QIcon] = []


def lock_icon() -> QIcon | None:
    """A small padlock drawn once (locked one-to-one chapters), no image files needed.

    None without a ``QGuiApplication`` (pixmaps need one; models are also used headless).
    """
    if not _LOCK_ICON:
        if QGuiApplication.instance() is None:
            return None
        pix = QPixmap(14, 14)
        pix.fill(QColor(0, 0, 0, 0))
        p = QPainter(pix)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        color = QColor("#5b6b7f")
        p.setPen(QPen(color, 1.6))
        p.setBrush(QColor(0, 0, 0, 0))
        p.drawArc(3, 1, 8, 9, 0, 180 * 16)
        p.drawLine(3, 5, 3, 7)
        p.drawLine(11, 5, 11, 7)
        p.setPen(QPen(color, 1))
        p.setBrush(color)
        p.drawRoundedRect(2, 6, 10, 7, 1.5, 1.5)
        p.end()
        _LOCK_ICON.append(QIcon(pix))
    return _LOCK_ICON[0]


_TEXT_ICON: list[QIcon] = []


def text_icon() -> QIcon | None:
    """A small page with lines: the mark of a section that has text (drawn once, like the padlock)."""
    if not _TEXT_ICON:
        if QGuiApplication.instance() is None:
            return None
        pix = QPixmap(14, 14)
        pix.fill(QColor(0, 0, 0, 0))
        p = QPainter(pix)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(QPen(QColor("#2e7d32"), 1.2))
        p.setBrush(QColor("#e8f5e9"))
        p.drawRoundedRect(2, 1, 10, 12, 1.5, 1.5)
        for y in (4, 7, 10):
            p.drawLine(4, y, 10 if y != 10 else 8, y)
        p.end()
        _TEXT_ICON.append(QIcon(pix))
    return _TEXT_ICON[0]


def _row_of(parent: OutlineNode, node: OutlineNode) -> int:
    """The index of ``node`` among ``parent``'s children, by identity (pydantic ``==`` compares values)."""
    for i, child in enumerate(parent.children):
        if child is node:
            return i
    raise LookupError("node is not a child of parent")


def _description_text(node: OutlineNode) -> str:
    """The description on one line, then where a copied heading came from (〔历史标书“…” › …〕)."""
    text = " ".join(node.description.split())
    if node.origin_source:
        return f"{text}  〔{node.origin_source}〕" if text else f"〔{node.origin_source}〕"
    return text


def _source_text(node: OutlineNode) -> str:
    if node.source_requirement_title and node.source_requirement_id:
        return f"{node.source_requirement_id} {node.source_requirement_title}"
    return node.source_requirement_title or node.source_requirement_id or ""

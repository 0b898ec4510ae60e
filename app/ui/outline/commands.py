"""Undo commands over the outline tree (rule 4: every edit is a command).

Each command performs its edit through ``Outline`` methods while an :class:`OpRecorder`
listens to the tree's events, and keeps what it saw: undo replays the inverse operations
in reverse order, redo replays the operations. The same recorder wraps a whole AI run, so
:class:`RecordedRunCommand` takes back every node the model added with one Ctrl+Z.
Numbers (ids) are renumbered by code after each edit, inside the same record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtGui import QUndoCommand

from app.core.outline import (
    Changed,
    Inserted,
    Moved,
    Outline,
    OutlineError,
    OutlineNode,
    Path,
    Phase,
    Removed,
    Reset,
    TreeEvent,
)

# --------------------------------------------------------------------------- recording


@dataclass
class _InsertOp:
    parent: Path
    index: int
    nodes: list[OutlineNode]


@dataclass
class _RemoveOp:
    parent: Path
    index: int
    nodes: list[OutlineNode]


@dataclass
class _ChangeOp:
    path: Path
    old: dict[str, Any]
    new: dict[str, Any]


@dataclass
class _MoveOp:
    src: Path  # before the move
    dst_parent: Path  # before the move (Qt-style index below)
    dst_index: int
    node: OutlineNode | None = None
    src_parent_node: OutlineNode | None = None
    src_index: int = 0


@dataclass
class _ResetOp:
    old: list[OutlineNode]
    new: list[OutlineNode] = field(default_factory=list)


_Op = _InsertOp | _RemoveOp | _ChangeOp | _MoveOp | _ResetOp


class OpRecorder:
    """Records the operations applied to an ``Outline`` so they can be undone and redone.

    Use as a context manager around code that edits the tree; ``ops`` then holds enough
    (node objects, old and new field values) to replay both directions exactly.
    """

    def __init__(self, outline: Outline) -> None:
        self.outline = outline
        self.ops: list[_Op] = []
        self._pending: _Op | None = None
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        """Begin listening."""
        if self._unsubscribe is None:
            self._unsubscribe = self.outline.subscribe(self._on_event)

    def stop(self) -> None:
        """Stop listening (idempotent)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def __enter__(self) -> OpRecorder:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _on_event(self, phase: Phase, event: TreeEvent) -> None:
        o = self.outline
        if isinstance(event, Inserted):
            if phase == "after":
                nodes = o.node(event.parent).children[event.index: event.index + event.count]
                self.ops.append(_InsertOp(event.parent, event.index, list(nodes)))
        elif isinstance(event, Removed):
            if phase == "before":
                nodes = o.node(event.parent).children[event.index: event.index + event.count]
                self.ops.append(_RemoveOp(event.parent, event.index, list(nodes)))
        elif isinstance(event, Changed):
            node = o.node(event.path)
            if phase == "before":
                self._pending = _ChangeOp(event.path, {f: getattr(node, f) for f in event.fields}, {})
            elif isinstance(self._pending, _ChangeOp):
                self._pending.new = {f: getattr(node, f) for f in event.fields}
                self.ops.append(self._pending)
                self._pending = None
        elif isinstance(event, Moved):
            if phase == "before":
                src = (*event.src_parent, event.src_index)
                self._pending = _MoveOp(src, event.dst_parent, event.dst_index, node=o.node(src),
                                        src_parent_node=o.node(event.src_parent), src_index=event.src_index)
            elif isinstance(self._pending, _MoveOp):
                self.ops.append(self._pending)
                self._pending = None
        elif isinstance(event, Reset):
            if phase == "before":
                self._pending = _ResetOp(list(o.chapters))
            elif isinstance(self._pending, _ResetOp):
                self._pending.new = list(o.chapters)
                self.ops.append(self._pending)
                self._pending = None


def find_path(outline: Outline, target: OutlineNode) -> Path:
    """The path of ``target`` by identity (pydantic ``==`` compares values, not objects)."""
    if target is outline.root:
        return ()
    for path, node in outline.walk():
        if node is target:
            return path
    raise OutlineError("node not in tree")


def move_node_to(outline: Outline, node: OutlineNode, parent: OutlineNode, final_index: int) -> Path:
    """Move ``node`` so that it ends up as child ``final_index`` of ``parent``."""
    path = find_path(outline, node)
    parent_path = find_path(outline, parent)
    qt_index = final_index
    if path[:-1] == parent_path and path[-1] < final_index:
        qt_index = final_index + 1
    return outline.move(path, parent_path, qt_index)


def undo_ops(outline: Outline, ops: list[_Op]) -> None:
    """Apply the inverse of ``ops`` in reverse order."""
    for op in reversed(ops):
        if isinstance(op, _InsertOp):
            for _ in op.nodes:
                outline.remove((*op.parent, op.index))
        elif isinstance(op, _RemoveOp):
            for offset, node in enumerate(op.nodes):
                outline.insert(op.parent, op.index + offset, node)
        elif isinstance(op, _ChangeOp):
            outline.update(op.path, **op.old)
        elif isinstance(op, _MoveOp):
            assert op.node is not None and op.src_parent_node is not None
            move_node_to(outline, op.node, op.src_parent_node, op.src_index)
        else:
            outline.replace(list(op.old))


def redo_ops(outline: Outline, ops: list[_Op]) -> None:
    """Apply ``ops`` again in order (the tree is in the state before the first one)."""
    for op in ops:
        if isinstance(op, _InsertOp):
            for offset, node in enumerate(op.nodes):
                outline.insert(op.parent, op.index + offset, node)
        elif isinstance(op, _RemoveOp):
            for _ in op.nodes:
                outline.remove((*op.parent, op.index))
        elif isinstance(op, _ChangeOp):
            outline.update(op.path, **op.new)
        elif isinstance(op, _MoveOp):
            outline.move(op.src, op.dst_parent, op.dst_index)
        else:
            outline.replace(list(op.new))


# --------------------------------------------------------------------------- commands


class OutlineCommand(QUndoCommand):
    """Base: the first ``redo`` performs the edit while recording, later ones replay it.

    Subclasses implement :meth:`perform`. A command whose edit fails (bad path) records
    nothing and is marked obsolete so the stack drops it.
    """

    def __init__(self, outline: Outline, text: str, *, renumber: bool = True) -> None:
        super().__init__(text)
        self.outline = outline
        self.ops: list[_Op] = []
        self._done_once = False
        self._renumber = renumber
        self.error: str | None = None

    def perform(self) -> None:
        """Do the edit through ``Outline`` methods (recorded by the caller)."""
        raise NotImplementedError

    def redo(self) -> None:
        """Qt override: perform (first time) or replay the recorded edit."""
        if self._done_once:
            redo_ops(self.outline, self.ops)
            return
        self._done_once = True
        with OpRecorder(self.outline) as rec:
            try:
                self.perform()
            except OutlineError as exc:
                self.error = str(exc)
            if self._renumber and rec.ops:
                self.outline.renumber()
        self.ops = rec.ops
        if not self.ops:
            self.setObsolete(True)

    def undo(self) -> None:
        """Qt override: replay the inverse operations."""
        undo_ops(self.outline, self.ops)


class EditFieldCommand(OutlineCommand):
    """Set one editable field (title, description, ...) of a node."""

    def __init__(self, outline: Outline, path: Path, field_name: str, value: Any, text: str | None = None) -> None:
        label = {"title": "重命名", "description": "编辑内容要点"}.get(field_name, "编辑")
        super().__init__(outline, text or label, renumber=False)
        self.path = path
        self.field_name = field_name
        self.value = value

    def perform(self) -> None:
        """Update the field."""
        self.outline.update(self.path, **{self.field_name: self.value})


class RenameCommand(EditFieldCommand):
    """Rename a node."""

    def __init__(self, outline: Outline, path: Path, title: str) -> None:
        super().__init__(outline, path, "title", title, "重命名")


class EditDescriptionCommand(EditFieldCommand):
    """Change a node's description (内容要点)."""

    def __init__(self, outline: Outline, path: Path, description: str) -> None:
        super().__init__(outline, path, "description", description, "编辑内容要点")


class InsertNodeCommand(OutlineCommand):
    """Insert a new node at ``parent[index]``; ``self.path`` is where it landed."""

    def __init__(self, outline: Outline, parent: Path, index: int, node: OutlineNode, text: str = "添加节点") -> None:
        super().__init__(outline, text)
        self.parent_path = parent
        self.index = index
        self.node = node
        self.path: Path = (*parent, index)

    def perform(self) -> None:
        """Insert the node."""
        self.path = self.outline.insert(self.parent_path, self.index, self.node)


class RemoveNodeCommand(OutlineCommand):
    """Delete a node and its subtree."""

    def __init__(self, outline: Outline, path: Path, text: str = "删除节点") -> None:
        super().__init__(outline, text)
        self.path = path

    def perform(self) -> None:
        """Remove the node."""
        self.outline.remove(self.path)


class MoveNodeCommand(OutlineCommand):
    """Move a node to ``dst_parent`` at the Qt-style ``dst_index``; ``new_path`` is where it ends."""

    def __init__(self, outline: Outline, path: Path, dst_parent: Path, dst_index: int, text: str = "移动节点") -> None:
        super().__init__(outline, text)
        self.path = path
        self.dst_parent = dst_parent
        self.dst_index = dst_index
        self.new_path: Path = path

    def perform(self) -> None:
        """Move the node."""
        node = self.outline.node(self.path)
        self.outline.move(self.path, self.dst_parent, self.dst_index)
        self.new_path = find_path(self.outline, node)


def move_up_down(outline: Outline, path: Path, delta: int) -> MoveNodeCommand | None:
    """A command moving the node one place up (-1) or down (+1) among its siblings, or None."""
    parent, row = path[:-1], path[-1]
    count = len(outline.node(parent).children)
    target = row + delta
    if not path or not 0 <= target < count:
        return None
    qt_index = target if delta < 0 else target + 1
    return MoveNodeCommand(outline, path, parent, qt_index, text="上移" if delta < 0 else "下移")


def indent(outline: Outline, path: Path) -> MoveNodeCommand | None:
    """Make the node the last child of its previous sibling (Tab), or None when impossible."""
    if not path or path[-1] == 0:
        return None
    new_parent = (*path[:-1], path[-1] - 1)
    count = len(outline.node(new_parent).children)
    return MoveNodeCommand(outline, path, new_parent, count, text="降级")


def outdent(outline: Outline, path: Path) -> MoveNodeCommand | None:
    """Make the node the next sibling of its parent (Shift+Tab), or None at the top level."""
    if len(path) < 2:
        return None
    parent = path[:-1]
    return MoveNodeCommand(outline, path, parent[:-1], parent[-1] + 1, text="升级")


class RecordedRunCommand(QUndoCommand):
    """An AI run (or any batch) that has already been applied, recorded by an :class:`OpRecorder`.

    Pushing it does not apply anything again; undo takes the whole run back in one step.
    """

    def __init__(self, outline: Outline, recorder: OpRecorder, text: str = "AI 生成目录", *,
                 locks: LockChange | None = None) -> None:
        super().__init__(text)
        self.outline = outline
        self.ops = list(recorder.ops)
        self.locks = locks
        self._first = True

    def redo(self) -> None:
        """Qt override: nothing the first time (already applied), replay afterwards."""
        if self._first:
            self._first = False
        else:
            redo_ops(self.outline, self.ops)
        if self.locks is not None:
            self.locks.apply(after=True)

    def undo(self) -> None:
        """Qt override: take the whole run back, the chapter lock as it was before the run included."""
        undo_ops(self.outline, self.ops)
        if self.locks is not None:
            self.locks.apply(after=False)


@dataclass
class LockChange:
    """The one-to-one chapter lock before and after a step that replaced chapters (a model run):
    undoing the step brings the chapters back locked as they were, redoing it locks them as the run did.

    ``model`` is anything with ``set_locked_top_level`` (the outline's item model).
    """

    model: Any
    before: bool
    after: bool

    def apply(self, *, after: bool) -> None:
        """Set the lock of one side of the step."""
        self.model.set_locked_top_level(self.after if after else self.before)


class ReplaceOutlineCommand(OutlineCommand):
    """Replace the whole outline (an imported outline): one undo step brings the old one back."""

    def __init__(self, outline: Outline, chapters: list[OutlineNode], text: str = "导入目录") -> None:
        super().__init__(outline, text)
        self.chapters = chapters

    def perform(self) -> None:
        """Replace every chapter."""
        self.outline.replace(self.chapters)


class SetChildrenCommand(OutlineCommand):
    """Replace the children of one heading (a past bid's section structure dropped onto it)."""

    def __init__(self, outline: Outline, path: Path, nodes: list[OutlineNode], text: str = "套用历史标书结构") -> None:
        super().__init__(outline, text)
        self.path = path
        self.nodes = nodes

    def perform(self) -> None:
        """Set the children."""
        self.outline.set_children(self.path, self.nodes)

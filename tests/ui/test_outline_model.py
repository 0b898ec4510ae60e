"""The outline adapter model under changes driven by the core tree, and its commands."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QUndoStack

from app.core.limits import OutlineLimits
from app.core.outline import Outline, OutlineNode
from app.ui.outline.commands import (
    EditDescriptionCommand,
    InsertNodeCommand,
    MoveNodeCommand,
    OpRecorder,
    RecordedRunCommand,
    RemoveNodeCommand,
    RenameCommand,
    indent,
    move_up_down,
    outdent,
)
from app.ui.outline.model import COL_TITLE, LockedRole, OutlineItemModel


def _tree() -> Outline:
    return Outline([
        OutlineNode(title="总体方案", children=[
            OutlineNode(title="项目理解", children=[OutlineNode(title="背景"), OutlineNode(title="目标")]),
            OutlineNode(title="技术路线"),
        ]),
        OutlineNode(title="实施计划", children=[OutlineNode(title="进度"), OutlineNode(title="人员")]),
        OutlineNode(title="售后服务"),
    ])


def _titles(outline: Outline) -> list[tuple[tuple[int, ...], str]]:
    return [(p, n.title) for p, n in outline.walk()]


def _model_titles(model: OutlineItemModel, parent: QModelIndex | None = None) -> list[str]:
    parent = parent or QModelIndex()
    out = []
    for row in range(model.rowCount(parent)):
        idx = model.index(row, 0, parent)
        out.append(model.data(idx))
        out += _model_titles(model, idx)
    return out


@pytest.mark.parametrize("force_py", [True, False], ids=["python-tester", "qt-tester"])
def test_model_passes_modeltester_under_core_driven_changes(qtmodeltester, force_py: bool) -> None:
    outline = _tree()
    model = OutlineItemModel(outline)
    qtmodeltester.check(model, force_py=force_py)
    rng = random.Random(7)
    for step in range(120):
        paths = [p for p, _ in outline.walk()]
        op = rng.choice(["insert", "insert", "remove", "move", "update"])
        if op == "insert" or not paths:
            parent = rng.choice([(), *paths])
            if len(parent) >= 3 or len(outline.node(parent).children) >= 12:
                continue
            outline.insert(parent, rng.randint(0, len(outline.node(parent).children)), OutlineNode(title=f"新{step}"))
        elif op == "remove":
            outline.remove(rng.choice(paths))
        elif op == "move":
            src = rng.choice(paths)
            dst = rng.choice([(), *paths])
            if dst[: len(src)] == src or len(outline.node(dst).children) >= 12:
                continue
            outline.move(src, dst, rng.randint(0, len(outline.node(dst).children)))
        else:
            outline.update(rng.choice(paths), title=f"改{step}")
        if step % 3 == 0:
            outline.renumber()  # the app renumbers after edits; ids then drive the display numbers
        # The model mirrors the tree exactly after every change.
        expected = [f"{n.id}  {n.title}" if n.id else n.title for p, n in outline.walk()]
        assert _model_titles(model) == expected
    outline.replace([OutlineNode(title="重置")])
    outline.renumber()
    assert _model_titles(model) == ["1  重置"]


def test_path_and_index_round_trip() -> None:
    outline = _tree()
    model = OutlineItemModel(outline)
    for path, node in outline.walk():
        idx = model.index_for_path(path)
        assert model.node_for_index(idx) is node
        assert model.path_for_index(idx) == path
    assert not model.index_for_path(()).isValid()


def test_persistent_index_follows_a_node_moved_by_the_core() -> None:
    outline = _tree()
    model = OutlineItemModel(outline)
    from PySide6.QtCore import QPersistentModelIndex

    pidx = QPersistentModelIndex(model.index_for_path((1, 1)))  # 人员
    outline.move((1, 1), (0,), 0)
    outline.renumber()
    assert model.path_for_index(pidx) == (0, 0)
    assert model.data(model.index(0, 0, model.index(0, 0))) == "1.1  人员"


def test_identical_siblings_are_told_apart() -> None:
    outline = Outline([OutlineNode(title="同名"), OutlineNode(title="同名")])
    model = OutlineItemModel(outline)
    second = model.index(1, 0)
    assert model.path_for_index(second) == (1,)


def test_setdata_goes_through_undo_stack() -> None:
    outline = _tree()
    model = OutlineItemModel(outline)
    stack = QUndoStack()
    model.set_undo_stack(stack)
    idx = model.index_for_path((0, 1))
    assert model.setData(idx, "新的技术路线", Qt.ItemDataRole.EditRole)
    assert outline.node((0, 1)).title == "新的技术路线"
    assert stack.count() == 1 and not stack.isClean()
    stack.undo()
    assert outline.node((0, 1)).title == "技术路线"
    assert stack.isClean()
    assert not model.setData(idx, "", Qt.ItemDataRole.EditRole)  # empty title refused
    assert not model.setData(idx, "长" * 61, Qt.ItemDataRole.EditRole)


def test_locked_top_level_in_one_to_one_mode(qapp: object) -> None:
    outline = _tree()
    model = OutlineItemModel(outline)
    model.set_locked_top_level(True)
    top, child = model.index(0, COL_TITLE), model.index_for_path((0, 0))
    assert model.data(top, LockedRole) and not model.data(child, LockedRole)
    assert not model.flags(top) & Qt.ItemFlag.ItemIsEditable
    assert not model.flags(top) & Qt.ItemFlag.ItemIsDragEnabled
    assert model.flags(child) & Qt.ItemFlag.ItemIsEditable
    assert model.data(top, Qt.ItemDataRole.BackgroundRole) is not None
    assert model.data(top, Qt.ItemDataRole.DecorationRole) is not None  # a padlock
    assert model.data(child, Qt.ItemDataRole.DecorationRole) is None
    assert not model.setData(top, "改名", Qt.ItemDataRole.EditRole)


def test_drop_moves_node_with_undo() -> None:
    outline = _tree()
    model = OutlineItemModel(outline)
    stack = QUndoStack()
    model.set_undo_stack(stack)
    mime = model.mimeData([model.index_for_path((1, 0))])  # 进度
    target = model.index_for_path((2,))  # onto 售后服务
    assert model.canDropMimeData(mime, Qt.DropAction.MoveAction, -1, 0, target)
    assert model.dropMimeData(mime, Qt.DropAction.MoveAction, -1, 0, target)
    assert outline.node((2, 0)).title == "进度"
    assert [c.title for c in outline.node((1,)).children] == ["人员"]
    # A fourth level in one branch is a shape people use; beyond the ceiling a drop is refused.
    assert model.canDropMimeData(model.mimeData([model.index_for_path((0, 0))]), Qt.DropAction.MoveAction,
                                 -1, 0, model.index_for_path((2, 0)))
    model.set_limits(OutlineLimits(max_depth=3))
    assert not model.canDropMimeData(model.mimeData([model.index_for_path((0, 0))]), Qt.DropAction.MoveAction,
                                     -1, 0, model.index_for_path((2, 0)))
    model.set_limits(OutlineLimits())
    # Dropping a node into its own subtree is refused.
    assert not model.canDropMimeData(model.mimeData([model.index_for_path((0,))]), Qt.DropAction.MoveAction,
                                     -1, 0, model.index_for_path((0, 0)))
    stack.undo()
    assert [c.title for c in outline.node((1,)).children] == ["进度", "人员"]


def test_commands_round_trip_through_undo_and_redo() -> None:
    outline = _tree()
    outline.renumber()
    original = outline.to_data()
    stack = QUndoStack()
    stack.push(RenameCommand(outline, (0,), "总体技术方案"))
    stack.push(EditDescriptionCommand(outline, (0, 1), "写明技术路线"))
    stack.push(InsertNodeCommand(outline, (0,), 0, OutlineNode(title="概述")))
    stack.push(RemoveNodeCommand(outline, (1, 1)))
    stack.push(MoveNodeCommand(outline, (2,), (), 0))
    up = move_up_down(outline, (1, 2), -1)
    assert up is not None
    stack.push(up)
    ind = indent(outline, (1, 1))
    assert ind is not None
    stack.push(ind)
    out = outdent(outline, (1, 0, 0))
    assert out is not None
    stack.push(out)
    assert move_up_down(outline, (0,), -1) is None
    assert indent(outline, (0,)) is None and outdent(outline, (0,)) is None
    after = outline.to_data()
    assert after != original
    # ids are renumbered by code after structural edits
    assert all(n.id == ".".join(str(i + 1) for i in p) for p, n in outline.walk())
    while stack.canUndo():
        stack.undo()
    assert outline.to_data() == original
    while stack.canRedo():
        stack.redo()
    assert outline.to_data() == after


def test_recorded_run_is_one_undo_step() -> None:
    outline = _tree()
    original = outline.to_data()
    model = OutlineItemModel(outline)
    stack = QUndoStack()
    with OpRecorder(outline) as rec:
        outline.replace([])
        for i in range(5):
            p = outline.append((), OutlineNode(title=f"章{i}"))
            outline.append(p, OutlineNode(title=f"节{i}"))
            outline.update((*p, 0), description="要点")
        outline.move((4,), (), 0)
        outline.remove((2,))
        outline.renumber()
    stack.push(RecordedRunCommand(outline, rec))
    generated = outline.to_data()
    assert stack.count() == 1
    stack.undo()
    assert outline.to_data() == original
    assert _model_titles(model)[0] == "总体方案"
    stack.redo()
    assert outline.to_data() == generated

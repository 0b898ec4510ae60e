"""The outline view: keyboard shortcuts, inline rename, locked chapters, selection while streaming."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QLineEdit

from app.core.outline import Outline, OutlineNode
from app.ui.outline.model import OutlineItemModel
from app.ui.outline.view import OutlineView


def _view(qtbot: Any, chapters: list[OutlineNode]) -> tuple[OutlineView, Outline, QUndoStack]:
    outline = Outline(chapters)
    outline.renumber()
    model = OutlineItemModel(outline)
    stack = QUndoStack()
    model.set_undo_stack(stack)
    view = OutlineView(model, stack)
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    view.setFocus()
    return view, outline, stack


def _titles(outline: Outline) -> list[tuple[str, str]]:
    return [(n.id, n.title) for _, n in outline.walk()]


def test_keyboard_shortcuts_edit_through_commands(qtbot: Any) -> None:
    view, outline, stack = _view(qtbot, [OutlineNode(title="甲", children=[OutlineNode(title="甲一"), OutlineNode(title="甲二")]),
                                         OutlineNode(title="乙")])
    view.select_path((0, 1))
    qtbot.keyClick(view, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert _titles(outline)[1:3] == [("1.1", "甲二"), ("1.2", "甲一")]
    qtbot.keyClick(view, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert outline.node((0, 1)).title == "甲二"
    view.select_path((1,))
    qtbot.keyClick(view, Qt.Key.Key_Tab)  # 乙 becomes the last child of 甲
    assert [c.title for c in outline.node((0,)).children] == ["甲一", "甲二", "乙"]
    assert view.current_path() == (0, 2)
    qtbot.keyClick(view, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert [c.title for c in outline.chapters] == ["甲", "乙"]
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert [c.title for c in outline.chapters] == ["甲"]
    qtbot.keyClick(view, Qt.Key.Key_Insert)  # adds a sibling and opens the inline editor
    assert [c.title for c in outline.chapters] == ["甲", "新标题"]
    editor = view.viewport().findChild(QLineEdit)
    assert isinstance(editor, QLineEdit) and editor.isVisible()
    editor.setText("丙章")  # QTest.keyClicks cannot type CJK characters
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: outline.node((1,)).title == "丙章", timeout=1000)  # the delegate commits queued
    assert outline.node((1,)).id == "2"
    # Each edit was one command; undo all returns to the start.
    while stack.canUndo():
        stack.undo()
    assert [n.title for _, n in outline.walk()] == ["甲", "甲一", "甲二", "乙"]


def test_locked_chapters_refuse_structure_edits(qtbot: Any) -> None:
    view, outline, _stack = _view(qtbot, [OutlineNode(title="评分项一", children=[OutlineNode(title="小节")]),
                                          OutlineNode(title="评分项二")])
    view.outline_model.set_locked_top_level(True)
    view.select_path((1,))
    view.update_actions()
    assert not view.actions_by_name["delete"].isEnabled()
    assert not view.actions_by_name["rename"].isEnabled()
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    qtbot.keyClick(view, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    assert [c.title for c in outline.chapters] == ["评分项一", "评分项二"]
    view.select_path((0, 0))
    view.update_actions()
    assert view.actions_by_name["rename"].isEnabled()
    assert view.add_sibling("新小节", edit=False) == (0, 1)


def test_selection_and_scroll_survive_streamed_appends(qtbot: Any) -> None:
    view, outline, _stack = _view(qtbot, [OutlineNode(title=f"章{i}") for i in range(12)])
    for i in range(12):
        for j in range(4):
            outline.append((i,), OutlineNode(title=f"节{i}-{j}"))
    view.select_path((3, 1))
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 3)
    before = bar.value()
    for i in range(12):  # a stream appending leaves below the user's position
        for j in range(4):
            outline.append((i, j), OutlineNode(title=f"点{i}-{j}"))
    assert view.current_path() == (3, 1)
    assert bar.value() == before
    assert view.isExpanded(view.outline_model.index_for_path((5, 2)))  # sections expand as children arrive


def test_depth_comes_from_the_one_limits_object(qtbot: Any) -> None:
    from app.core.limits import OutlineLimits

    view, outline, _stack = _view(qtbot, [OutlineNode(title="甲", children=[OutlineNode(title="甲一")]),
                                          OutlineNode(title="乙", children=[OutlineNode(title="乙一")])])
    model = view.outline_model
    leaf = model.index_for_path((0, 0))
    assert not model.flags(leaf) & Qt.ItemFlag.ItemNeverHasChildren  # depth 3: a section may have points
    view.select_path((0, 0))
    view.update_actions()
    assert view.actions_by_name["add_child"].isEnabled()
    model.set_limits(OutlineLimits(depth=2))  # generation asks for two levels; a person may still go deeper
    assert not model.flags(leaf) & Qt.ItemFlag.ItemNeverHasChildren
    model.set_limits(OutlineLimits(depth=2, max_depth=2))  # the ceiling of the one limits object
    assert model.flags(leaf) & Qt.ItemFlag.ItemNeverHasChildren
    view.update_actions()
    assert not view.actions_by_name["add_child"].isEnabled()
    assert view.add_child("不该出现", edit=False) is None
    view.select_path((1,))
    qtbot.keyClick(view, Qt.Key.Key_Tab)  # 乙 (with a child) under 甲 would make three levels
    assert [c.title for c in outline.chapters] == ["甲", "乙"]


class _PaintCounter(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False


def _stream_into(qtbot: Any, view: OutlineView, outline: Outline, count: int) -> int:
    """Append ``count`` headings one per turn of the event loop; the viewport's paint events."""
    counter = _PaintCounter()
    view.viewport().installEventFilter(counter)
    for i in range(count):
        outline.append((0,), OutlineNode(title=f"小节{i}"))
        qtbot.wait(4)
    view.viewport().removeEventFilter(counter)
    return counter.paints


def test_streaming_paints_at_a_steady_frame_rate_and_shows_the_end(qtbot: Any) -> None:
    """While a run streams, each change is in the model at once but the tree paints at most once
    per frame; the end of the run paints what came in since."""
    from app.ui.outline.view import STREAM_PAINT_MS

    view, outline, _ = _view(qtbot, [OutlineNode(title="甲")])
    view.expandAll()
    qtbot.wait(50)
    unpaced = _stream_into(qtbot, view, outline, 40)
    view.set_streaming(True)
    clock = time.monotonic()
    paced = _stream_into(qtbot, view, outline, 40)
    paced_s = time.monotonic() - clock
    assert len(outline.chapters[0].children) == 80  # every change reached the tree
    assert unpaced >= 30  # Qt alone paints after nearly every change
    assert paced <= paced_s * 1000 / STREAM_PAINT_MS + 2
    idle = _PaintCounter()  # waiting for the model: nothing changed, so painting stops
    view.viewport().installEventFilter(idle)
    for _ in range(20):  # the last changes' frame comes first (later on a busy machine)
        idle.paints = 0
        qtbot.wait(150)
        if idle.paints == 0:
            break
    idle.paints = 0
    qtbot.wait(300)
    assert idle.paints == 0
    view.verticalScrollBar().setValue(view.verticalScrollBar().maximum())  # the user scrolls: shown next frame
    qtbot.waitUntil(lambda: idle.paints > 0, timeout=1000)
    qtbot.wait(300)
    idle.paints = 0
    view.select_path((0, 5))  # the user moves the current row with the keyboard
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.currentIndex().row() == 6
    qtbot.waitUntil(lambda: idle.paints > 0, timeout=1000)
    view.viewport().removeEventFilter(idle)
    view.set_streaming(False)
    assert view.viewport().updatesEnabled()
    counter = _PaintCounter()
    view.viewport().installEventFilter(counter)
    qtbot.waitUntil(lambda: counter.paints > 0, timeout=2000)

"""Finding, counting and dragging in the outline; drafting progress (issue 30 minors)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QSettings, Qt
from PySide6.QtGui import QDragMoveEvent

from app.core.outline import OutlineNode
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer, Reply
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer,
                 reporter: ErrorReporter) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    win.resize(1400, 900)
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)


def _outline(window: MainWindow) -> None:
    c = window.controller
    c.outline.replace([
        OutlineNode(title="配送服务方案", children=[
            OutlineNode(title="冷链配送", children=[OutlineNode(title="冷藏车辆", content="我方配备冷藏车三台。"),
                                                   OutlineNode(title="温度记录")]),
            OutlineNode(title="常温配送", children=[OutlineNode(title="配送路线")])]),
        OutlineNode(title="食品安全管理", children=[OutlineNode(title="冷链追溯", children=[OutlineNode(title="台账")])]),
    ])
    c.outline.renumber()
    window.outline_view.expandAll()


async def test_ctrl_f_finds_headings_in_turn(window: MainWindow, qtbot: Any) -> None:
    _outline(window)
    view = window.outline_view
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = window.search_bar
    await wait_for(bar.field.hasFocus)
    qtbot.keyClicks(bar.field, "lc")  # nothing yet
    assert bar.count_label.text() == "没有找到"
    bar.field.clear()
    bar.field.insert("冷")  # what an input method commits
    assert view.current_path() == (0, 0) and bar.count_label.text() == "1/3"
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert view.current_path() == (0, 0, 0)
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert view.current_path() == (1, 0) and bar.count_label.text() == "3/3"
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)  # wraps round
    assert view.current_path() == (0, 0)
    qtbot.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert view.current_path() == (1, 0)
    qtbot.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisible()


async def test_word_counts_follow_typing_with_chapter_and_total(window: MainWindow, qtbot: Any) -> None:
    _outline(window)
    c = window.controller
    assert window.words_label.text() == "正文共 10 字"
    chapter_tip = c.model.index_for_path((0,)).data(Qt.ItemDataRole.ToolTipRole)
    assert "本章正文共 10 字" in chapter_tip
    window.outline_view.select_path((0, 0, 1))
    editor = window.section_editor
    assert editor.count_label.text() == "本节 0 字"
    qtbot.mouseClick(editor.source_button, Qt.MouseButton.LeftButton)
    editor.text.insertPlainText("每日记录温度两次")
    assert editor.count_label.text() == "本节 8 字"  # while typing, before the edit is committed
    assert window.words_label.text() == "正文共 18 字"


async def test_a_drop_that_would_make_a_fourth_level_says_why(window: MainWindow, qtbot: Any) -> None:
    _outline(window)
    view, c = window.outline_view, window.controller
    dragged = c.model.mimeData([c.model.index_for_path((0, 0))])  # 冷链配送 has sections below it
    target = view.visualRect(c.model.index_for_path((1, 0)))  # onto 冷链追溯 (a second-level heading)
    event = QDragMoveEvent(target.center(), Qt.DropAction.MoveAction, dragged,
                           Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    view.dragMoveEvent(event)  # what Qt calls while a drag hovers over the tree (QDrag.exec blocks a test)
    assert not event.isAccepted()
    message = window.statusBar().currentMessage()
    assert "第 4 级" in message and "最多 3 级" in message
    assert isinstance(dragged, QMimeData)


async def test_drafting_all_sections_shows_n_of_total(window: MainWindow, llm_server: OpenAIServer,
                                                      qtbot: Any) -> None:
    _outline(window)
    llm_server.default = Reply.text("我方按要求执行，专人负责，记录可查。")
    seen: list[tuple[int, int, str]] = []
    window.controller.drafting.run_progress.connect(
        lambda n, total: seen.append((n, total, window.status.stage.text())))
    window.act_draft_all.trigger()
    await wait_for(lambda: bool(seen) and seen[-1][0] == seen[-1][1] and not window.controller.busy, timeout=60)
    total = seen[0][1]
    assert total == 3  # the leaves without text
    assert [n for n, _, _ in seen] == list(range(total + 1))
    assert all(f"{n}/{total}" in text for n, _, text in seen)


async def test_the_table_button_edits_a_table_without_typing_markdown(window: MainWindow, qtbot: Any) -> None:
    """Issue 30 minor: in 编辑 mode a table is edited in a grid, written back as one undoable edit."""
    from PySide6.QtWidgets import QDialogButtonBox, QPushButton, QTableWidget, QTableWidgetItem

    from app.ui.outline.table_dialog import TableDialog

    c = window.controller
    _outline(window)
    c.outline.update((0, 0, 1), content="记录如下：\n\n| 时段 | 温度 |\n| --- | --- |\n| 上午 | 4℃ |\n")
    window.workspace.actions["text"].trigger()  # the 正文 stage (Ctrl+3)
    window.outline_view.select_path((0, 0, 1))
    editor = window.section_editor
    assert not editor.table_button.isVisible()  # only with the source
    qtbot.mouseClick(editor.source_button, Qt.MouseButton.LeftButton)
    assert editor.table_button.isVisible()
    cursor = editor.text.textCursor()
    cursor.setPosition(editor.text.document().findBlockByNumber(4).position())  # in the row 上午
    editor.text.setTextCursor(cursor)
    steps = c.undo_stack.count()
    qtbot.mouseClick(editor.table_button, Qt.MouseButton.LeftButton)
    dialog = editor.findChild(TableDialog)
    assert dialog is not None and dialog.isVisible()
    grid: QTableWidget = dialog.grid
    assert grid.rowCount() == 2 and grid.item(1, 1).text() == "4℃"
    grid.item(1, 1).setText("3℃")
    grid.setCurrentCell(1, 0)
    qtbot.mouseClick(next(b for b in dialog.findChildren(QPushButton) if b.text() == "加一行"), Qt.MouseButton.LeftButton)
    grid.setItem(2, 0, QTableWidgetItem("下午"))
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()
    content = c.outline.node((0, 0, 1)).content
    assert "| 上午 | 3℃ |" in content and "| 下午 |  |" in content and content.startswith("记录如下：")
    assert content.count("| --- | --- |") == 1
    assert c.undo_stack.count() == steps + 1  # one undo step

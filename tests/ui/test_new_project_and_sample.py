"""新建项目 leaves nothing of the old project on show; the sample's outline is not called the user's (issue 30)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from app.core.breakdown import Breakdown, BreakdownItem
from app.ui.shell.main_window import MainWindow
from tests.ui.test_workflow import _box
from tests.ui.ui_helpers import click_button, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


async def test_regenerating_the_untouched_sample_does_not_speak_of_your_edits(window: MainWindow, qtbot: Any) -> None:
    assert await window.open_sample()
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    box = await _box(window, "regenerateOutlineBox")
    assert "包含您的修改" not in box.text() and "个标题" in box.text()
    click_button(box, "取消")
    window.outline_view.select_path((0, 0))
    window.outline_view.actions_by_name["add_sibling"].trigger()  # a hand edit...
    await asyncio.sleep(0.05)
    qtbot.keyClick(window.outline_view, Qt.Key.Key_Escape)
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    box = await _box(window, "regenerateOutlineBox")
    assert "包含您的修改" in box.text()  # ...is named
    click_button(box, "取消")


async def test_a_new_project_clears_the_breakdown_and_the_status_bar(window: MainWindow) -> None:
    c = window.controller
    c.set_breakdown(Breakdown(status="executable", background="旧项目背景", goals=[BreakdownItem(text="旧目标")]))
    c.stage_changed.emit("需求拆解完成：目标 1 项，任务 0 项，风险 0 项")
    c.tokens_changed.emit(1200, 300)
    assert "旧项目背景" in window.breakdown_view.background_label.text()
    window.act_new.trigger()
    box = window.findChild(QMessageBox, "unsavedBox")
    if box is not None:
        await wait_for(box.isVisible)
        click_button(box, "不保存")
    await wait_for(lambda: "旧项目背景" not in window.breakdown_view.background_label.text())
    assert "尚未拆解" in window.breakdown_view.status_label.text()
    assert window.status.stage.text() == "就绪" and window.status.tokens.text() == ""

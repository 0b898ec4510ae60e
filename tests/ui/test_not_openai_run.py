"""A run whose endpoint never answered as an OpenAI endpoint says so in the window (issue 30, attack 4).

The loopback server answers every call with an HTML page (a login or proxy page at the
wrong address). The user clicks 生成目录: the run must end in a dialog that says, in Chinese,
that the address answered with a web page rather than an OpenAI stream, that the outline on
show was made by code alone (or, over an existing outline, that the old one was kept), and
that offers 模型设置 — clicked here, it opens them. Such an outline is not offered for 继续生成.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton

from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer, Reply
from tests.pipeline_support import Router, sample_analysis
from tests.ui.test_workflow import free_and_aligned
from tests.ui.ui_helpers import click_generate, regenerate_chapter_by_menu, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

LOGIN_PAGE = "<!DOCTYPE html><html><head><title>统一身份认证</title></head><body>请先登录</body></html>".encode()


async def _failure_box(window: MainWindow) -> QMessageBox:
    def visible() -> QMessageBox | None:
        box = window.findChild(QMessageBox, "runFailedBox")
        return box if box is not None and box.isVisible() else None

    await wait_for(lambda: visible() is not None)
    box = visible()
    assert box is not None
    return box


def _web_page(_req: object) -> Reply:
    return Reply.raw(LOGIN_PAGE, "text/html; charset=utf-8")


async def test_a_web_page_endpoint_ends_in_a_dialog_that_says_the_outline_is_code_made(
        window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> None:
    c = window.controller
    opened: list[int] = []
    window.settings_opener = lambda: opened.append(1)  # type: ignore[attr-defined]
    c.set_analysis(sample_analysis())
    llm_server.handler = _web_page
    ok, message = await click_generate(window, qtbot)
    assert llm_server.completion_requests  # the address was asked
    assert not ok, message
    assert "网页" in message and "不是 OpenAI 接口" in message and "仅由程序" in message
    assert c.outline.chapters  # the code-made outline stays on show, marked as such
    assert not c.can_resume("aligned")  # nothing to continue: the next click generates afresh
    assert "模型未参与" in c.undo_stack.undoText()
    box = await _failure_box(window)
    assert "OpenAI" in box.windowTitle()
    assert "网页" in box.text() and "仅由程序" in box.text() and "模型没有参与" in box.text()
    assert "模型设置" in box.informativeText() and "/v1" in box.informativeText()
    button = box.findChild(QPushButton, "openModelSettingsButton")
    assert button is not None and "模型设置" in button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: bool(opened))
    assert "网页" in window.status.stage.toolTip() + window.status.stage.text()  # the status bar says it too


async def test_over_an_existing_outline_the_dialog_says_the_old_one_was_kept(
        window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> None:
    c = window.controller
    c.set_analysis(sample_analysis())
    llm_server.handler = Router(free_and_aligned)
    ok, message = await click_generate(window, qtbot)
    assert ok, message
    before = c.outline.to_data()
    llm_server.handler = _web_page
    ok, message = await click_generate(window, qtbot)
    assert not ok
    assert c.outline.to_data() == before  # the model-written outline is what stays on show
    assert "网页" in message and "原有目录" in message and "仅由程序" not in message
    box = await _failure_box(window)
    assert "网页" in box.text() and "原有目录" in box.text()
    assert box.findChild(QPushButton, "openModelSettingsButton") is not None


@pytest.mark.qt_log_ignore(r"This plugin does not support (propagateSizeHints|raise|grabbing)")  # popup offscreen
async def test_regenerating_one_chapter_against_a_web_page_keeps_it_and_says_why(
        window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> None:
    c = window.controller
    c.set_analysis(sample_analysis())
    llm_server.handler = Router(free_and_aligned)
    ok, message = await click_generate(window, qtbot)
    assert ok, message
    before = c.outline.to_data()
    steps = c.undo_stack.count()
    llm_server.handler = _web_page
    await regenerate_chapter_by_menu(window, qtbot, (1,))
    box = await _failure_box(window)
    assert not c.busy
    assert c.outline.to_data() == before and c.undo_stack.count() == steps  # the chapter as it was, no step
    assert "网页" in box.text() and "原有内容未改变" in box.text()
    assert box.findChild(QPushButton, "openModelSettingsButton") is not None

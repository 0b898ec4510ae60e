"""A generation over an existing outline that fails keeps that outline on show (issue 30, major 2).

The window regenerates, by a click on 生成目录, over an outline the scripted loopback model wrote
a moment before; the model then answers every call with HTTP 500. The tree must never lose its
headings during the run, the run must end in a dialog that says so, and the undo history must
hold no empty "AI run" step. A run that succeeds still replaces the outline in one undo step.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer, Reply
from tests.pipeline_support import Router, sample_analysis
from tests.ui.test_workflow import free_and_aligned
from tests.ui.ui_helpers import click_generate, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


async def test_a_failed_regeneration_keeps_the_outline_on_show_and_says_so(window: MainWindow, llm_server: OpenAIServer,
                                                                          qtbot: Any) -> None:
    c = window.controller
    llm_server.handler = Router(free_and_aligned)
    c.set_analysis(sample_analysis())
    ok, message = await click_generate(window, qtbot)
    assert ok, message
    before = c.outline.to_data()
    headings = len(c.outline)
    assert headings > len(c.outline.chapters)  # chapters with sections below them
    steps = c.undo_stack.count()

    fewest = [headings]
    c.model.rowsRemoved.connect(lambda *_a: fewest.append(len(c.outline)))
    c.model.modelReset.connect(lambda: fewest.append(len(c.outline)))
    llm_server.handler = lambda _req: Reply.error(500, "upstream down")
    ok, message = await click_generate(window, qtbot)
    assert not ok
    assert min(fewest) == headings, "the outline was emptied while the failing run went on"
    assert c.outline.to_data() == before
    assert "原有目录未改变" in message
    assert c.undo_stack.count() == steps  # no empty AI step to undo
    def failure_box() -> QMessageBox | None:
        box = window.findChild(QMessageBox, "runFailedBox")
        return box if box is not None and box.isVisible() else None

    await wait_for(lambda: failure_box() is not None)  # shown once the click's coroutine resumes
    box = failure_box()
    assert box is not None and "原有目录未改变" in box.text()
    box.close()

    llm_server.handler = Router(free_and_aligned)
    window.mode_box.setCurrentIndex(window.mode_box.findData("free"))
    ok, message = await click_generate(window, qtbot)
    assert ok, message
    assert c.undo_stack.count() == steps + 1  # the new outline is one undo step
    c.undo_stack.undo()
    assert c.outline.to_data() == before

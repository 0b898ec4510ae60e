"""Ctrl+Z and Ctrl+Y of a model run bring the outline back as it was: its chapter locks and a 正文 pane
that shows no heading the step took away (issue 37 §2 minor: lock icons vanished, a deleted heading stayed).

Driven as a user does: 生成目录 clicked, the mode box changed, headings clicked, Ctrl+Z / Ctrl+Y typed
in the outline; the model is the scripted loopback server.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from app.core.outline import OutlineNode
from app.ui.outline.model import LockedRole
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer
from tests.pipeline_support import Router, sample_analysis
from tests.ui.conftest import make_client_factory
from tests.ui.test_workflow import FREE_TITLES, free_and_aligned
from tests.ui.ui_helpers import click_button, close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support (propagateSizeHints|raise)")

ALIGNED_TITLES = ["服务方案", "质量保障措施", "售后服务方案"]


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer,
                 reporter: ErrorReporter) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    win.show()
    llm_server.handler = Router(free_and_aligned)
    yield win
    await close_window(win)
    await asyncio.sleep(0)


async def _generate(window: MainWindow, qtbot: Any, mode: str) -> None:
    """Pick ``mode`` in the mode box and click 生成目录 (answering 重新生成 if asked)."""
    window.mode_box.setCurrentIndex(window.mode_box.findData(mode))
    finished: list[tuple[bool, str]] = []
    window.controller.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    for _ in range(300):
        if finished and not window.controller.busy:
            break
        box = window.findChild(QMessageBox, "regenerateOutlineBox")
        if box is not None and box.isVisible():
            click_button(box, "重新生成")
        await asyncio.sleep(0.05)
    assert finished and finished[-1][0], finished


def _locks_shown(window: MainWindow) -> list[bool]:
    """Whether each chapter row is drawn locked (what the lock icon shows)."""
    model = window.controller.model
    return [bool(model.data(model.index(r, 0), LockedRole)) for r in range(model.rowCount())]


def _pick(window: MainWindow, qtbot: Any, path: tuple[int, ...]) -> str:
    """Click a heading in the tree; the 正文 pane shows it. Its title."""
    view = window.outline_view
    view.expandAll()
    assert view.model() is window.controller.model
    index = window.controller.model.index_for_path(path)
    view.scrollTo(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())
    assert view.current_path() == path
    return window.controller.outline.node(path).title


async def _key(window: MainWindow, qtbot: Any, key: Qt.Key) -> None:
    window.activateWindow()
    window.outline_view.setFocus()
    await wait_for(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window.outline_view, key, Qt.KeyboardModifier.ControlModifier)
    await asyncio.sleep(0.05)


def _editor_matches_tree(window: MainWindow) -> None:
    """The 正文 pane shows the heading current in the tree, or none (and then 撰写本节 is off)."""
    editor = window.section_editor
    path = window.outline_view.current_path()
    if path is None:
        assert not editor.draft_button.isEnabled()
    else:
        assert window.controller.outline.node(path).title in editor.title_label.text()


async def test_undo_and_redo_of_runs_bring_back_the_locks_and_never_show_a_removed_heading(
        window: MainWindow, qtbot: Any) -> None:
    c = window.controller
    window.section_dock.show()
    c.set_analysis(sample_analysis())
    await _generate(window, qtbot, "aligned")  # one-to-one chapters: locked
    assert [ch.title for ch in c.outline.chapters] == ALIGNED_TITLES
    assert _locks_shown(window) == [True] * 3
    await _generate(window, qtbot, "free")  # the user's own chapters: not locked
    assert [ch.title for ch in c.outline.chapters] == FREE_TITLES
    assert _locks_shown(window) == [False] * 3
    removed = _pick(window, qtbot, (2, 1, 1))
    assert removed in window.section_editor.title_label.text()

    await _key(window, qtbot, Qt.Key.Key_Z)  # the free run undone: the locked chapters come back
    await wait_for(lambda: [ch.title for ch in c.outline.chapters] == ALIGNED_TITLES)
    assert _locks_shown(window) == [True] * 3 and c.model.locked_top_level
    assert removed not in window.section_editor.title_label.text()
    _editor_matches_tree(window)
    _pick(window, qtbot, (0,))
    assert not window.outline_view.actions_by_name["rename"].isEnabled()  # a locked chapter again

    await _key(window, qtbot, Qt.Key.Key_Z)  # the first run undone: an empty outline, nothing locked
    await wait_for(lambda: len(c.outline.chapters) == 0)
    assert not c.model.locked_top_level
    _editor_matches_tree(window)

    await _key(window, qtbot, Qt.Key.Key_Y)  # redo: locked again
    await wait_for(lambda: [ch.title for ch in c.outline.chapters] == ALIGNED_TITLES)
    assert _locks_shown(window) == [True] * 3
    await _key(window, qtbot, Qt.Key.Key_Y)  # redo: the free chapters, unlocked
    await wait_for(lambda: [ch.title for ch in c.outline.chapters] == FREE_TITLES)
    assert _locks_shown(window) == [False] * 3
    _editor_matches_tree(window)


async def test_a_run_over_a_hand_made_outline_undone_leaves_it_unlocked(window: MainWindow, qtbot: Any) -> None:
    c = window.controller
    c.outline.replace([OutlineNode(title="手写的旧目录", children=[OutlineNode(title="手写的小节")])])
    c.outline.renumber()
    c.set_analysis(sample_analysis())
    await _generate(window, qtbot, "aligned")
    assert _locks_shown(window) == [True] * 3
    await _key(window, qtbot, Qt.Key.Key_Z)
    await wait_for(lambda: [ch.title for ch in c.outline.chapters] == ["手写的旧目录"])
    assert _locks_shown(window) == [False]  # the user's own chapter is theirs to rename again

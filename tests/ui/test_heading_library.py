"""The heading library browser: search, add a structure to the selected chapter with the button or by
dropping it on a chapter — one undo step each, headings marked as coming from the library."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QTreeWidgetItem

from app.ui.outline.heading_library_view import HeadingLibraryPanel
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import close_window

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer, reporter: ErrorReporter) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat),
                     model_configured=True)
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)


def _item(panel: HeadingLibraryPanel, entry_name: str, variant_index: int = 0, section: int | None = None) -> QTreeWidgetItem:
    tree = panel.tree
    top = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount()) if tree.topLevelItem(i).text(0) == entry_name)
    assert top is not None
    item = top.child(variant_index)
    return item.child(section) if section is not None else item


def test_search_filters_the_entries(qtbot: Any) -> None:
    panel = HeadingLibraryPanel()
    qtbot.addWidget(panel)
    assert len(panel.entry_names()) >= 30
    panel.search.insert("应急")  # Chinese text as an input method delivers it (QTest types ASCII only)
    assert panel.entry_names() == ["应急预案"]
    panel.search.clear()
    assert len(panel.entry_names()) >= 30
    panel.search.insert("售后")
    assert "售后服务" in panel.entry_names() and "应急预案" not in panel.entry_names()


async def test_button_adds_the_selected_structure_to_the_selected_chapter(window: MainWindow, qtbot: Any) -> None:
    c: AppController = window.controller
    view = window.outline_view
    assert view.add_sibling("应急方案", edit=False) == (0,)
    window.library_dock.toggleViewAction().trigger()
    assert window.library_dock.isVisible()
    panel = window.library_panel
    assert not panel.add_button.isEnabled()
    panel.tree.setCurrentItem(_item(panel, "应急预案"))
    view.select_path((0,))
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    chapter = c.outline.node((0,))
    assert [n.title for n in chapter.children][:2] == ["应急组织体系", "风险识别与预警"]
    assert all(n.origin == "library" for _, n in chapter.walk())
    assert [n.id for n in chapter.children][:2] == ["1.1", "1.2"]
    window.act_undo.trigger()  # one step takes the whole structure back
    assert c.outline.node((0,)).children == []
    window.act_redo.trigger()
    assert len(c.outline.node((0,)).children) == 5
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)  # everything is there already: nothing added
    assert len(c.outline.node((0,)).children) == 5
    assert "已经都在" in window.statusBar().currentMessage()


async def test_dropping_a_heading_on_a_chapter(window: MainWindow) -> None:
    c = window.controller
    window.outline_view.add_sibling("售后服务方案", edit=False)
    panel = window.library_panel
    item = _item(panel, "售后服务", 0, 1)  # one level-2 heading of a structure
    mime = panel.tree.mimeData([item])
    model = c.model
    chapter = model.index(0, 0)
    assert model.canDropMimeData(mime, Qt.DropAction.CopyAction, -1, 0, chapter)
    assert model.dropMimeData(mime, Qt.DropAction.CopyAction, -1, 0, chapter)
    node = c.outline.node((0, 0))
    assert node.title == item.text(0) and node.origin == "library" and len(node.children) >= 2
    section = model.index(0, 0, chapter)
    assert model.canDropMimeData(mime, Qt.DropAction.CopyAction, -1, 0, section)  # levels 3–4: a fourth level is fine
    point = model.index(0, 0, section)
    assert not model.canDropMimeData(mime, Qt.DropAction.CopyAction, -1, 0, point)  # a fifth level: too deep
    assert c.undo_stack.count() == 2 and c.undo_stack.undoText() == "插入标题库结构"
    c.undo_stack.undo()
    assert c.outline.node((0,)).children == []

"""The main window with pytest-qt: open, broken files, edit/undo/save, export, close, live generation."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox

from app.core.outline import OutlineNode
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import ABOUT_HTML, MainWindow
from tests.openai_server import OpenAIServer, Reply
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import click_button, close_window, wait_for

# The offscreen platform plugin says this whenever a window with docks is shown.
pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


def _make_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    for i in range(3):
        page = doc.new_page()
        page.insert_text((72, 72), f"第{i + 1}页 项目概况 食堂服务采购", fontname="china-s", fontsize=12)
    doc.save(path)
    doc.close()
    return path


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer, reporter: ErrorReporter) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)  # the test's loop must outlive the window
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    qs = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(ctl, reporter=reporter, qsettings=qs, model_configured=False)
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)




async def test_window_shows_first_run_guide_and_about(window: MainWindow) -> None:
    assert "未命名项目" in window.windowTitle()
    assert window.guide.isVisible()
    assert not window.isWindowModified()
    assert "AGPL-3.0-or-later" in ABOUT_HTML
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus[:4] == ["文件(&F)", "编辑(&E)", "生成(&G)", "设置(&S)"]
    window.set_model_configured(True)
    assert not window.guide.isVisible()


async def test_broken_file_shows_error_dialog_not_traceback(window: MainWindow, tmp_path: Path) -> None:
    bad = tmp_path / "坏文件.pdf"
    bad.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 20)
    await window.open_path(bad)
    await wait_for(lambda: bool(window.error_dialogs))
    dialog = window.error_dialogs[0]
    assert dialog.isVisible()
    assert "Traceback" not in dialog.message
    assert any("\u4e00" <= ch <= "\u9fff" for ch in dialog.message)
    dialog.copy_details()
    assert dialog.message in QApplication.clipboard().text()


async def test_open_tender_edit_undo_save_reopen_export(window: MainWindow, tmp_path: Path) -> None:
    pdf = _make_pdf(tmp_path / "招标文件.pdf")
    await window.open_path(pdf)
    c = window.controller
    assert c.document is not None and c.document.page_count == 3
    assert "招标文件" in window.windowTitle()
    view = window.outline_view
    # Build an outline by hand, as a user without a model would.
    assert view.add_sibling("总体方案", edit=False) == (0,)
    assert view.add_child("项目理解", edit=False) == (0, 0)
    assert view.add_sibling("技术路线", edit=False) == (0, 1)
    view.select_path((0,))
    assert view.add_sibling("实施计划", edit=False) == (1,)
    assert window.isWindowModified()
    assert [n.id for _, n in c.outline.walk()] == ["1", "1.1", "1.2", "2"]
    view.select_path((0, 1))
    view.move_current(-1)
    assert c.outline.node((0, 0)).title == "技术路线"
    view.select_path((1,))
    view.indent_current()
    assert c.outline.node((0, 2)).title == "实施计划"
    view.outdent_current()
    assert c.outline.node((1,)).title == "实施计划"
    view.select_path((1,))
    view.delete_current()
    assert len(c.outline.chapters) == 1
    c.undo_stack.undo()
    assert [ch.title for ch in c.outline.chapters] == ["总体方案", "实施计划"]
    target = tmp_path / "我的项目.bidproj"
    assert window.save_to(target)
    assert not window.isWindowModified() and "我的项目" in window.windowTitle()
    saved = c.outline.to_data()
    c.undo_stack.undo()
    assert window.isWindowModified()
    # Reopen: discard the change when asked.
    task = c.spawn("dialog", window.open_project(target))
    box = await _find_box(window, "unsavedBox")
    click_button(box, "不保存")
    assert await task
    assert c.outline.to_data() == saved and not window.isWindowModified()
    assert c.tender_path == pdf
    written = window.export_word_to(tmp_path / "技术标.docx")
    assert written is not None and written.stat().st_size > 5000


async def _find_box(window: MainWindow, name: str) -> QMessageBox:
    box: QMessageBox | None = None

    def found() -> bool:
        nonlocal box
        box = window.findChild(QMessageBox, name)
        return box is not None and box.isVisible()

    await wait_for(found)
    assert box is not None
    return box




async def test_close_with_unsaved_changes_asks_and_can_be_cancelled(window: MainWindow) -> None:
    window.outline_view.add_sibling("第一章", edit=False)
    window.close()
    box = await _find_box(window, "unsavedBox")
    click_button(box, "取消")
    await asyncio.sleep(0.05)
    assert window.isVisible()
    window.close()
    box = await _find_box(window, "unsavedBox")
    click_button(box, "不保存")
    await wait_for(lambda: not window.isVisible())


async def test_generation_from_the_window_fills_tree_and_cancel_button(window: MainWindow,
                                                                       llm_server: OpenAIServer) -> None:
    chapters = [{"title": f"第{c + 1}章方案", "description": "说明",
                 "children": [{"title": f"第{c + 1}章措施{s + 1}", "description": "",
                               "children": [{"title": f"措施{c + 1}-{s + 1}要点{k + 1}"} for k in range(2)]}
                              for s in range(3)]} for c in range(4)]
    text = json.dumps({"outline": chapters}, ensure_ascii=False)
    llm_server.push(Reply.text(text, chunk_size=20, chunk_delay=0.03))
    window.controller.outline.replace([OutlineNode(title="旧目录")])
    window.mode_box.setCurrentIndex(window.mode_box.findData("free"))
    window.guidance.setText("突出节能")
    window.act_generate_free.trigger()
    click_button(await _find_box(window, "regenerateOutlineBox"), "重新生成")  # the old outline is the user's
    await wait_for(lambda: window.status.cancel.isVisible())
    await wait_for(lambda: len(window.controller.outline) >= 3)
    assert not window.outline_view.actions_by_name["delete"].isEnabled()  # read-only while generating
    window.status.cancel.click()
    await wait_for(lambda: not window.status.cancel.isVisible(), timeout=1.0)
    outline = window.controller.outline
    assert 3 <= len(outline) < 40
    assert all(n.id == ".".join(str(i + 1) for i in p) for p, n in outline.walk())
    assert window.isWindowModified()
    window.act_undo.trigger()
    assert [c.title for c in outline.chapters] == ["旧目录"]
    assert "突出节能" in llm_server.completion_requests[0].prompt_text


async def test_dock_layout_is_saved_and_restored(qapp: Any, tmp_path: Path, reporter: ErrorReporter) -> None:
    qapp.setQuitOnLastWindowClosed(False)
    ini = str(tmp_path / "layout.ini")
    first_ctl = AppController(reporter=reporter)
    first = MainWindow(first_ctl, reporter=reporter, qsettings=QSettings(ini, QSettings.Format.IniFormat))
    first.show()
    first.workspace.actions["outline"].trigger()  # the 目录 stage shows the log; the user closes it there
    first.log_dock.hide()
    first.resize(1200, 800)
    first._close_ok = True
    first.close()
    await first_ctl.shutdown()
    second_ctl = AppController(reporter=reporter)
    second = MainWindow(second_ctl, reporter=reporter, qsettings=QSettings(ini, QSettings.Format.IniFormat))
    second.show()
    try:
        assert second.workspace.current == "outline"
        assert not second.log_dock.isVisible()
        assert second.document_dock.isVisible() or second.analysis_dock.isVisible()
        assert QSettings(ini, QSettings.Format.IniFormat).value("window/stages/outline") is not None
    finally:
        second._close_ok = True
        second.close()
        await second_ctl.shutdown()
        first.deleteLater()
        second.deleteLater()
        await asyncio.sleep(0)

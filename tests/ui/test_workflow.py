"""The desktop workflow the way a user drives it: real buttons, menu actions and shortcuts.

The window runs the app's own generation path; the model is the scripted loopback server
answering by what each prompt asks for (``tests.pipeline_support.Router``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QFileDialog, QLabel, QMessageBox

from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router, as_instructions, chapter_children, is_stream, sample_analysis
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import click_button, close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

FREE_TITLES = ["运维服务总体方案", "信息安全保障", "设备巡检方案"]


def free_and_aligned(kind: str, req: RecordedRequest) -> Reply:
    """Whole free-mode outlines (JSON or instruction stream) besides the router's chapters and reviews."""
    if kind == "full":
        chapters = [chapter_children(t) | {"title": t} for t in FREE_TITLES]
        if is_stream(req):
            return Reply.text(as_instructions(chapters, "/outline"))  # type: ignore[arg-type]
        return Reply.text(json.dumps({"outline": chapters}, ensure_ascii=False))
    return Router._default(kind, req)


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer,
                 reporter: ErrorReporter) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    qs = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(ctl, reporter=reporter, qsettings=qs)
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)


async def _click_generate(window: MainWindow, qtbot: Any) -> tuple[int, str]:
    finished: list[tuple[int, str]] = []
    window.controller.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: bool(finished) and not window.controller.busy, timeout=30)
    return finished[-1]


async def test_generate_button_follows_the_mode_box(window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> None:
    router = Router(free_and_aligned)
    llm_server.handler = router
    c = window.controller
    assert window.mode_box.currentData() == "free"
    c.set_analysis(sample_analysis())
    assert window.mode_box.currentData() == "aligned"  # scoring items found: one-to-one is proposed
    ok, message = await _click_generate(window, qtbot)
    assert ok, message
    assert window.mode_box.currentData() == "aligned"
    assert [ch.title for ch in c.outline.chapters] == ["服务方案", "质量保障措施", "售后服务方案"]
    assert c.model.locked_top_level
    assert router.count("chapter:") >= 3 and router.count("full") == 0

    window.mode_box.setCurrentIndex(window.mode_box.findData("free"))
    ok, message = await _click_generate(window, qtbot)
    assert ok, message
    assert window.mode_box.currentData() == "free"
    assert [ch.title for ch in c.outline.chapters] == FREE_TITLES
    assert not c.model.locked_top_level
    assert router.count("full") >= 1


TENDER_TEXT = """第一章 招标公告

项目名称：某区智慧社区运维服务项目
采购人：某区政务服务数据管理局

第二章 采购需求

1. 提供 7×24 小时运维服务。
2. 建立信息安全管理制度。

第三章 评标办法

评分标准如下：服务方案包括但不限于人员配置、进度计划、质量保障等；培训方案全面得10分。
"""


async def test_http_500_during_analysis_keeps_the_overview_already_received(
        window: MainWindow, llm_server: OpenAIServer, tmp_path: Path) -> None:
    tender = tmp_path / "招标文件.txt"
    tender.write_text(TENDER_TEXT, encoding="utf-8")
    await window.open_path(tender)
    router = Router()  # answers "scoring" with HTTP 500
    router.add("overview", {"project_name": "某区智慧社区运维服务项目", "buyer": "某区政务服务数据管理局",
                            "summary": "智慧社区运维服务"})
    llm_server.handler = router
    finished: list[tuple[int, str]] = []
    window.controller.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    window.act_analyze.trigger()
    await wait_for(lambda: bool(finished) and not window.controller.busy, timeout=30)
    assert router.count("scoring") >= 1
    analysis = window.controller.analysis
    assert analysis.overview.buyer == "某区政务服务数据管理局"  # the overview received before the 500 is kept
    assert any("500" in n or "出错" in n for n in analysis.notes)
    assert not window.error_dialogs  # a note and a status message, not an error window
    assert "评分项" in finished[-1][1]


def _pdf(path: Path, text: str) -> Path:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), text, fontname="china-s", fontsize=12)
    doc.save(path)
    doc.close()
    return path


async def _box(window: MainWindow, name: str) -> QMessageBox:
    found: list[QMessageBox] = []

    def visible() -> bool:
        box = window.findChild(QMessageBox, name)
        if box is not None and box.isVisible():
            found.append(box)
            return True
        return False

    await wait_for(visible)
    return found[0]


async def test_a_new_tender_never_inherits_the_old_bid(window: MainWindow, tmp_path: Path) -> None:
    c = window.controller
    first = _pdf(tmp_path / "阳江项目.pdf", "项目概况：食堂食材配送服务")
    await window.open_path(first)
    window.outline_view.add_sibling("配送服务方案", edit=False)
    window.outline_view.add_child("配送流程", edit=False)
    assert window.save_to(tmp_path / "阳江项目.bidproj")
    # Another tender into a project with an outline: asked; 新建项目 starts clean.
    second = _pdf(tmp_path / "四川项目.pdf", "项目概况：IPTV 元数据服务")
    task = c.spawn("dialog", window.open_path(second))
    click_button(await _box(window, "newOrReplaceBox"), "新建项目")
    await asyncio.wait_for(task, 30)
    assert len(c.outline) == 0 and c.undo_stack.count() == 0
    assert c.tender_path == second and c.session.path is None
    assert window.windowTitle().startswith("四川项目") and not window.isWindowModified()
    window.act_undo.trigger()  # the old project's steps are gone
    assert len(c.outline) == 0
    # Replace the tender and keep the outline: the title keeps the project, marked unsaved.
    assert await window.open_project(tmp_path / "阳江项目.bidproj")
    assert [ch.title for ch in c.outline.chapters] == ["配送服务方案"] and c.tender_path == first
    task = c.spawn("dialog", window.open_path(second))
    click_button(await _box(window, "newOrReplaceBox"), "替换招标文件，保留目录")
    await asyncio.wait_for(task, 30)
    assert [ch.title for ch in c.outline.chapters] == ["配送服务方案"] and c.tender_path == second
    assert window.windowTitle().startswith("阳江项目") and window.isWindowModified()
    window.close()  # the quit prompt agrees with the title
    click_button(await _box(window, "unsavedBox"), "取消")
    assert window.isVisible()


async def test_new_project_asks_about_unsaved_work(window: MainWindow, qtbot: Any) -> None:
    c = window.controller
    window.outline_view.add_sibling("手写的章", edit=False)
    assert window.isWindowModified()
    assert window.act_new.shortcut() == QKeySequence(QKeySequence.StandardKey.New)
    window.act_new.trigger()
    click_button(await _box(window, "unsavedBox"), "取消")
    await asyncio.sleep(0.05)
    assert [ch.title for ch in c.outline.chapters] == ["手写的章"]
    window.act_new.trigger()
    click_button(await _box(window, "unsavedBox"), "不保存")
    await wait_for(lambda: len(c.outline) == 0)
    assert not window.isWindowModified() and window.windowTitle().startswith("未命名项目")


async def test_recovery_follows_the_saved_file_and_ctrl_s_saves_in_place(
        window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.project import load_project
    from app.core.recovery import pending_recoveries
    from app.core.settings_model import AppSettings
    from app.ui.project.session import SessionWiring

    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    wiring = SessionWiring(AppSettings())
    wiring.attach(window)
    autosaver = window.autosaver  # type: ignore[attr-defined]
    window.outline_view.add_sibling("服务方案", edit=False)
    assert autosaver.autosave_now()
    assert [i.project_path for i in pending_recoveries()] == [None]  # untitled work so far
    target = tmp_path / "项目.bidproj"
    assert window.save_to(target)
    assert pending_recoveries() == [] and autosaver.project_path == target  # told about the save
    window.outline_view.add_child("人员配置", edit=False)
    assert autosaver.autosave_now()
    (info,) = pending_recoveries()
    assert info.project_path == target and info.display_name == "项目.bidproj"
    window.act_save.trigger()  # Ctrl+S: in place, no dialog
    await wait_for(lambda: not window.isWindowModified())
    saved = load_project(target).outline.outline
    assert [(ch.title, [s.title for s in ch.children]) for ch in saved] == [("服务方案", ["人员配置"])]
    assert pending_recoveries() == []


async def _aligned_outline(window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> Router:
    router = Router(free_and_aligned)
    llm_server.handler = router
    window.controller.set_analysis(sample_analysis())
    ok, message = await _click_generate(window, qtbot)
    assert ok, message
    return router


def _type_text(window: MainWindow, qtbot: Any, path: tuple[int, ...], text: str) -> None:
    """Select a section in the tree and type its text in the section editor, as a user does."""
    window.section_dock.show()
    window.outline_view.select_path(path)
    editor = window.section_editor
    editor.text.setFocus()
    editor.text.insertPlainText(text)  # Chinese arrives committed by the input method, not key by key
    editor.commit_edit()  # what leaving the editor does


async def test_regenerating_asks_and_keeps_drafted_text_whose_heading_survives(
        window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> None:
    c = window.controller
    await _aligned_outline(window, llm_server, qtbot)
    leaf = (0, 0, 0)
    title = c.outline.node(leaf).title
    _type_text(window, qtbot, leaf, "我方配置专职项目经理一名。")
    assert c.outline.node(leaf).content == "我方配置专职项目经理一名。"
    # Cancel: nothing happens.
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    click_button(await _box(window, "regenerateOutlineBox"), "取消")
    await asyncio.sleep(0.1)
    assert not c.busy and c.outline.node(leaf).content == "我方配置专职项目经理一名。"
    # Keep: the same heading comes back with its text, in one undo step with the run.
    finished: list[tuple[int, str]] = []
    c.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    click_button(await _box(window, "regenerateOutlineBox"), "重新生成，保留已写正文")
    await wait_for(lambda: bool(finished) and not c.busy, timeout=30)
    assert finished[-1][0] and "保留 1 节正文" in finished[-1][1]
    assert c.outline.node(leaf).title == title and c.outline.node(leaf).content == "我方配置专职项目经理一名。"
    # Replace: the text goes, and one Ctrl+Z brings it back.
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    click_button(await _box(window, "regenerateOutlineBox"), "重新生成")
    await wait_for(lambda: len(finished) == 2 and not c.busy, timeout=30)
    assert c.outline.node(leaf).content == ""
    window.act_undo.trigger()
    assert c.outline.node(leaf).content == "我方配置专职项目经理一名。"


@pytest.mark.qt_log_ignore(r"This plugin does not support (propagateSizeHints|raise|grabbing)")  # popup offscreen
async def test_right_click_regenerates_one_chapter_with_guidance_as_one_undo_step(
        window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> None:
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QMenu

    c = window.controller
    router = await _aligned_outline(window, llm_server, qtbot)
    before = c.outline.to_data()
    fresh = {"children": [{"title": "驻场运维团队", "description": "人员与分工",
                           "children": [{"title": "项目经理职责"}, {"title": "驻场工程师配置"}]},
                          {"title": "运维工作流程", "description": "",
                           "children": [{"title": "日常巡检"}, {"title": "故障处理"}]}]}
    router.add("chapter:质量保障措施", fresh)
    view = window.outline_view
    rect = view.visualRect(c.model.index_for_path((1,)))
    view.contextMenuEvent(QContextMenuEvent(QContextMenuEvent.Reason.Mouse, rect.center(),
                                            view.viewport().mapToGlobal(rect.center()) + QPoint(0, 0)))
    menu = next(m for m in view.findChildren(QMenu) if m.isVisible())
    action = next(a for a in menu.actions() if a.text().startswith("重新生成本章"))
    assert action.isEnabled()
    action.trigger()
    menu.close()
    dialog = None

    def shown() -> bool:
        nonlocal dialog
        dialog = window.findChild(QDialog, "regenerateDialog")
        return dialog is not None and dialog.isVisible()

    await wait_for(shown)
    assert dialog is not None
    dialog.guidance.insertPlainText("突出驻场运维")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: not c.busy and [s.title for s in c.outline.node((1,)).children][:1] == ["驻场运维团队"],
                   timeout=30)
    assert "突出驻场运维" in llm_server.completion_requests[-1].prompt_text
    after = c.outline.to_data()
    assert after["outline"][0] == before["outline"][0] and after["outline"][2] == before["outline"][2]
    assert c.outline.node((1,)).title == "质量保障措施"  # the locked chapter itself stays
    assert c.undo_stack.undoText() == "重新生成“质量保障措施”"
    window.act_undo.trigger()  # one step back to the old chapter
    assert c.outline.to_data() == before


async def test_drafting_a_section_with_text_asks_and_undo_restores_it(
        window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> None:
    c = window.controller
    await _aligned_outline(window, llm_server, qtbot)
    leaf = (0, 0, 0)
    _type_text(window, qtbot, leaf, "旧的正文。")
    calls = len(llm_server.completion_requests)
    editor = window.section_editor
    qtbot.mouseClick(editor.draft_button, Qt.MouseButton.LeftButton)
    click_button(await _box(window, "redraftBox"), "取消")
    await asyncio.sleep(0.1)
    assert len(llm_server.completion_requests) == calls and c.outline.node(leaf).content == "旧的正文。"
    llm_server.handler = None
    llm_server.default = Reply.text("我方建立项目经理负责制，明确各岗位职责和考核要求。" * 3, chunk_size=30)
    qtbot.mouseClick(editor.draft_button, Qt.MouseButton.LeftButton)
    click_button(await _box(window, "redraftBox"), "重新撰写")
    await wait_for(lambda: "项目经理负责制" in c.outline.node(leaf).content and not c.busy, timeout=30)
    window.act_undo.trigger()
    assert c.outline.node(leaf).content == "旧的正文。"
    # 撰写全部正文 never replaces text that is there.
    c.outline.update((0, 0, 1), content="")
    window.act_draft_all.trigger()
    await wait_for(lambda: c.outline.node((0, 0, 1)).content != "" and not c.busy, timeout=30)
    assert c.outline.node(leaf).content == "旧的正文。"


async def _unreadable_blocks_generation(window: MainWindow, llm_server: OpenAIServer, qtbot: Any,
                                        tender: Path) -> None:
    c = window.controller
    await window.open_path(tender)
    assert c.document is not None and not c.document.has_readable_text
    assert any("文字识别" in n for n in c.analysis.notes)  # the analysis tab says why, not "no scoring items"
    router = Router(free_and_aligned)
    llm_server.handler = router
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    dialog = await _dialog(window, "noTextDialog")
    assert "需要先做文字识别" in dialog.findChild(QLabel, "noTextReason").text()
    assert not dialog.describe_button.isEnabled()  # a description is needed for free mode
    qtbot.mouseClick(dialog.hand_button, Qt.MouseButton.LeftButton)  # write by hand: a first heading to type
    await wait_for(lambda: len(c.outline) == 1)
    assert not llm_server.completion_requests
    window.outline_view.closePersistentEditor(window.outline_view.currentIndex())
    # Free mode from a description, chosen explicitly.
    c.undo_stack.undo()
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    dialog = await _dialog(window, "noTextDialog")
    dialog.description.insertPlainText("为某区政务服务中心提供 7×24 小时运维服务，包括设备巡检、故障处理和信息安全管理。")
    finished: list[tuple[int, str]] = []
    c.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    qtbot.mouseClick(dialog.describe_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: bool(finished) and not c.busy, timeout=30)
    assert finished[-1][0] and [ch.title for ch in c.outline.chapters] == FREE_TITLES
    assert "设备巡检" in llm_server.completion_requests[0].prompt_text
    assert window.mode_box.currentData() == "free"


async def _dialog(window: MainWindow, name: str) -> Any:
    found: list[QDialog] = []

    def visible() -> bool:
        dialog = window.findChild(QDialog, name)
        if dialog is not None and dialog.isVisible():
            found.append(dialog)
            return True
        return False

    await wait_for(visible)
    return found[0]


async def test_text_drawn_as_outlines_blocks_generation_unless_chosen(
        window: MainWindow, llm_server: OpenAIServer, qtbot: Any, tmp_path: Path) -> None:
    from tests.document_fixtures import outline_page_pdf

    await _unreadable_blocks_generation(window, llm_server, qtbot, outline_page_pdf(tmp_path / "轮廓文字.pdf"))


@pytest.mark.real_tender
async def test_real_garbled_tender_blocks_generation(window: MainWindow, llm_server: OpenAIServer, qtbot: Any,
                                                     tenders_dir: Path) -> None:
    await _unreadable_blocks_generation(window, llm_server, qtbot, tenders_dir / "garbled-text-layer.pdf")


async def test_fits_a_1366x768_laptop_with_compact_rows_marks_and_totals(
        window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> None:
    c = window.controller
    await _aligned_outline(window, llm_server, qtbot)
    window.section_dock.show()  # the widest arrangement: tender, outline and text side by side
    window.resize(1366, 768)
    await asyncio.sleep(0.05)
    hint = window.minimumSizeHint()
    assert hint.width() <= 1366 and hint.height() <= 768, hint
    assert window.width() <= 1366 and window.guidance.width() >= 120
    # A chapter with a multi-line description still gets one compact row (rows are uniform).
    c.outline.update((0,), description="第一行评分标准\n第二行评分标准\n第三行评分标准")
    view = window.outline_view
    line = view.fontMetrics().height()
    assert view.visualRect(c.model.index_for_path((0,))).height() < 2 * line
    assert "\n" not in c.model.index_for_path((0,), 1).data()
    # Sections with text carry a mark; the technical subtotal is on show.
    leaf = c.model.index_for_path((0, 0, 0))
    assert leaf.data(Qt.ItemDataRole.DecorationRole) is None
    _type_text(window, qtbot, (0, 0, 0), "已有正文。")
    assert leaf.data(Qt.ItemDataRole.DecorationRole) is not None
    assert window.score_label.isVisible() and window.score_label.text() == "技术评分 3 项，小计 30 分"


async def test_section_text_is_shown_rendered_and_markdown_on_demand(window: MainWindow, qtbot: Any) -> None:
    from app.core.outline import OutlineNode

    c = window.controller
    c.outline.replace([OutlineNode(title="配送服务方案", children=[OutlineNode(title="配送流程")])])
    c.outline.renumber()
    c.outline.update((0, 0), content="我方流程如下：\n\n- 接单确认\n- 按时配送\n\n| 环节 | 时限 |\n| --- | --- |\n| 接单 | 30 分钟 |\n")
    window.section_dock.show()
    window.outline_view.select_path((0, 0))
    editor = window.section_editor
    assert not editor.showing_source
    shown = editor.rendered.toPlainText()
    assert "接单确认" in shown and "30 分钟" in shown and "| ---" not in shown and "- 接单" not in shown
    assert editor.rendered.document().rootFrame().childFrames()  # the table is a real table
    qtbot.mouseClick(editor.source_button, Qt.MouseButton.LeftButton)  # Markdown on demand
    assert editor.showing_source and "| --- | --- |" in editor.text.toPlainText()
    editor.text.moveCursor(editor.text.textCursor().MoveOperation.End)
    editor.text.insertPlainText("\n补充说明。")
    qtbot.mouseClick(editor.source_button, Qt.MouseButton.LeftButton)  # back to the rendered text
    assert not editor.showing_source and "补充说明" in editor.rendered.toPlainText()
    assert c.outline.node((0, 0)).content.endswith("补充说明。")  # the edit was committed as one undo step
    window.act_undo.trigger()
    assert "补充说明" not in c.outline.node((0, 0)).content


async def test_save_and_export_dialogs_start_beside_the_tender_and_files_are_readable(
        window: MainWindow, tmp_path: Path) -> None:
    import os
    import stat

    folder = tmp_path / "投标资料"
    folder.mkdir()
    tender = _pdf(folder / "招标.pdf", "项目概况：食堂食材配送服务")
    await window.open_path(tender)
    assert window.start_folder() == folder
    window.outline_view.add_sibling("总体方案", edit=False)
    task = window.controller.spawn("dialog", window.save_as())
    found: list[QFileDialog] = []

    def shown() -> bool:
        for d in window.findChildren(QFileDialog):
            if d.isVisible():
                found.append(d)
                return True
        return False

    await wait_for(shown)
    assert Path(found[0].directory().absolutePath()) == folder
    found[0].reject()
    assert not await task
    written = window.export_word_to(folder / "技术标.docx")
    assert written is not None
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(written.stat().st_mode) == 0o666 & ~umask  # not 0600: colleagues can open it


async def test_sample_project_shows_the_whole_workflow_without_a_model(window: MainWindow, tmp_path: Path,
                                                                       llm_server: OpenAIServer) -> None:
    import docx

    c = window.controller
    assert await window.open_sample()
    technical = c.analysis.technical_groups
    assert len(technical) >= 3 and [ch.source_requirement_id for ch in c.outline.chapters] == [g.id for g in technical]
    assert all(len(ch.children) >= 2 for ch in c.outline.chapters)
    assert {n.origin for _, n in c.outline.walk()} <= {"tender", "library"}  # built by code, and says so
    assert window.sample_note.isVisible() and "没有使用模型" in window.sample_note.text()
    assert window.mode_box.currentData() == "aligned" and c.model.locked_top_level
    assert not window.isWindowModified() and not llm_server.completion_requests
    written = window.export_word_to(tmp_path / "示例技术标.docx")
    assert written is not None
    headings = [p.text for p in docx.Document(str(written)).paragraphs if p.style.name.startswith("Heading")]
    assert any(c.outline.chapters[0].title in h for h in headings)
    window.act_new.trigger()  # another project: the note goes
    await wait_for(lambda: len(c.outline) == 0)
    assert not window.sample_note.isVisible()


async def test_export_dialog_fits_a_laptop_and_shows_the_whole_warning(window: MainWindow, tmp_path: Path) -> None:
    from app.core.breakdown import Breakdown, RiskItem
    from app.core.outline import OutlineNode

    c = window.controller
    window.resize(1366, 768)
    c.outline.replace([OutlineNode(title=f"第{i + 1}章技术方案", children=[OutlineNode(title=f"第{i + 1}章实施措施")])
                       for i in range(12)])
    c.outline.renumber()
    c.set_breakdown(Breakdown(status="executable", risks=[
        RiskItem(text=f"★投标人须承诺第{i + 1}项实质性要求，逐条响应，否则投标无效。", origin="code", mark="★")
        for i in range(6)]))
    window.act_export.trigger()
    dialog = await _dialog(window, "exportDialog")
    await asyncio.sleep(0.05)
    assert dialog.height() <= 768
    chapters = dialog.chapter_list
    assert chapters.viewport().height() >= 6 * chapters.sizeHintForRow(0)  # not a 3-row peephole
    warning = dialog.warning_label
    assert warning.isVisible() and "★" in warning.text()
    assert warning.height() >= warning.heightForWidth(warning.width())  # every line of the warning shows
    dialog.reject()


async def test_open_through_the_file_dialog_then_undo_and_redo(window: MainWindow, tmp_path: Path, qtbot: Any) -> None:
    from PySide6.QtWidgets import QLineEdit

    c = window.controller
    tender = _pdf(tmp_path / "招标文件.pdf", "项目概况：食堂食材配送服务")
    assert window.act_open.shortcut() == QKeySequence(QKeySequence.StandardKey.Open)
    window.act_open.trigger()
    await wait_for(lambda: any(d.isVisible() for d in window.findChildren(QFileDialog)))
    dialog = next(d for d in window.findChildren(QFileDialog) if d.isVisible())
    assert "*.wps" in ";".join(dialog.nameFilters())
    name = dialog.findChild(QLineEdit, "fileNameEdit")
    name.setText(str(tender))  # typed (or pasted) into the name field
    qtbot.keyClick(name, Qt.Key.Key_Return)
    await wait_for(lambda: c.document is not None, timeout=30)
    assert c.tender_path == tender and window.windowTitle().startswith("招标文件")
    window.outline_view.add_sibling("总体方案", edit=False)
    window.act_undo.trigger()
    assert len(c.outline) == 0
    assert window.act_redo.shortcut() == QKeySequence(QKeySequence.StandardKey.Redo)
    window.act_redo.trigger()
    assert [ch.title for ch in c.outline.chapters] == ["总体方案"] and window.isWindowModified()


async def test_llamacpp_preset_hint_is_not_clipped(window: MainWindow, qtbot: Any) -> None:
    import keyring
    from keyring.backends import fail

    from app.core.api_keys import ApiKeyStore
    from app.core.settings_model import AppSettings
    from app.ui.shell.settings_dialog import SettingsDialog

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # no keyring: the longest form (with its warning line)
    try:
        window.resize(1366, 768)
        dialog = SettingsDialog(AppSettings(), ApiKeyStore(), window)
        dialog.show()
        dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData("llamacpp"))
        await asyncio.sleep(0.05)
        hint = dialog.hint_label
        assert hint.isVisible() and "llama" in hint.text()
        assert hint.height() >= hint.heightForWidth(hint.width())
        assert dialog.height() <= 768
        dialog.reject()
    finally:
        keyring.set_keyring(previous)


async def test_clicking_generate_paces_the_tree_during_the_run_and_releases_it_after(
        window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> None:
    view = window.outline_view
    seen: list[tuple[bool, bool]] = []
    window.controller.running_changed.connect(lambda running: seen.append((bool(running), view.streaming)))
    assert not view.streaming
    await _aligned_outline(window, llm_server, qtbot)  # 生成目录 clicked
    assert (True, True) in seen and seen[-1] == (False, False)
    assert view.viewport().updatesEnabled()  # the finished tree paints normally again


async def test_regenerating_with_keep_keeps_the_figures_of_surviving_headings(
        window: MainWindow, llm_server: OpenAIServer, qtbot: Any) -> None:
    from app.ui.figures.section_figures import set_figures
    from tests.figure_samples import org_figure

    c = window.controller
    await _aligned_outline(window, llm_server, qtbot)
    chapter_title = c.outline.node((0,)).title
    figure = org_figure(6)
    set_figures(c.outline, c.undo_stack, (0,), [figure], "插入组织机构图")
    finished: list[tuple[int, str]] = []
    c.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    click_button(await _box(window, "regenerateOutlineBox"), "重新生成，保留已写正文")
    await wait_for(lambda: bool(finished) and not c.busy, timeout=30)
    assert finished[-1][0] and "保留 1 张图" in finished[-1][1]
    assert c.outline.node((0,)).title == chapter_title and c.outline.node((0,)).figures == [figure]

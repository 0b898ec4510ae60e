"""文件 → 导入目录… clicked through: paste, preview, replace question, one undo step, locks kept by a run."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from app.core.outline import OutlineNode
from app.ui.outline.outline_import import OutlineImportDialog
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer
from tests.pipeline_support import Router
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import click_button, close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

PASTED = "第一章 项目理解\n一、项目背景\n二、需求分析\n第二章 总体服务方案\n第三章 应急预案"


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer, reporter: ErrorReporter) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)


async def _dialog(window: MainWindow) -> OutlineImportDialog:
    found: list[OutlineImportDialog] = []

    def visible() -> bool:
        found[:] = [d for d in window.findChildren(OutlineImportDialog) if d.isVisible()]
        return bool(found)

    await wait_for(visible)
    return found[0]


async def test_import_pasted_outline_replaces_after_asking_and_undoes_in_one_step(
        window: MainWindow, qtbot: Any, llm_server: OpenAIServer) -> None:
    c = window.controller
    c.outline.replace([OutlineNode(title="旧目录")])
    file_menu = window.menuBar().actions()[0].menu()
    assert window.act_import_outline in file_menu.actions()
    window.act_import_outline.trigger()
    dialog = await _dialog(window)
    assert not dialog.ok_button.isEnabled()
    QApplication.clipboard().setText(PASTED)
    dialog.text.setFocus()
    qtbot.keyClick(dialog.text, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)  # the user pastes
    assert "识别到 3 章、共 5 个标题，最深 2 级" in dialog.preview.text()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: window.findChild(QMessageBox, "replaceOutlineBox") is not None
                   and window.findChild(QMessageBox, "replaceOutlineBox").isVisible())
    box = window.findChild(QMessageBox, "replaceOutlineBox")
    click_button(box, "替换")
    await wait_for(lambda: [ch.title for ch in c.outline.chapters] == ["项目理解", "总体服务方案", "应急预案"])
    first = c.outline.chapters[0]
    assert [k.title for k in first.children] == ["项目背景", "需求分析"] and first.children[1].id == "1.2"
    assert all(n.locked and n.origin == "user" for _, n in c.outline.walk())
    window.act_undo.trigger()
    assert [ch.title for ch in c.outline.chapters] == ["旧目录"]
    window.act_redo.trigger()
    assert len(c.outline.chapters) == 3

    # a model run keeps the locked chapter with children and fills the open ones
    router = Router()
    llm_server.handler = router
    window.mode_box.setCurrentIndex(window.mode_box.findData("free"))
    window.guidance.setText("政务服务中心运维")  # no tender is open: the user describes the project
    window.act_generate_free.trigger()
    await wait_for(lambda: window.findChild(QMessageBox, "regenerateOutlineBox") is not None
                   and window.findChild(QMessageBox, "regenerateOutlineBox").isVisible())
    box = window.findChild(QMessageBox, "regenerateOutlineBox")
    assert "5 个标题已锁定" in box.text()
    click_button(box, "重新生成")
    await wait_for(lambda: c.last_outcome is not None and not c.busy_generating, timeout=30)
    assert c.last_outcome.ok, c.last_outcome.message
    assert router.count("chapter:项目理解") == 0 and router.count("chapter:应急预案") == 1
    assert [k.title for k in c.outline.chapters[0].children] == ["项目背景", "需求分析"]
    assert len(c.outline.chapters[2].children) >= 2 and c.outline.chapters[2].title == "应急预案"
    window.act_undo.trigger()  # the run is one step; the import stays
    assert [len(ch.children) for ch in c.outline.chapters] == [2, 0, 0]


async def test_import_a_docx_without_locks_and_a_bad_file(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    from docx import Document

    doc = Document()
    doc.add_heading("技术方案", level=1)
    doc.add_heading("系统架构", level=2)
    doc.add_heading("售后服务", level=1)
    path = tmp_path / "目录.docx"
    doc.save(str(path))
    bad = tmp_path / "坏.docx"
    bad.write_bytes(b"garbage")
    window.act_import_outline.trigger()
    dialog = await _dialog(window)
    dialog.load_file(bad)
    assert "损坏" in dialog.preview.text() and not dialog.ok_button.isEnabled()
    dialog.load_file(path)
    assert "来自文件“目录.docx”：识别到 2 章、共 3 个标题" in dialog.preview.text()
    dialog.lock.setChecked(False)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)  # the outline is empty: no question
    c = window.controller
    await wait_for(lambda: [ch.title for ch in c.outline.chapters] == ["技术方案", "售后服务"])
    assert not any(n.locked for _, n in c.outline.walk())


def test_dialog_takes_the_outline_the_tender_prescribes(qtbot: Any) -> None:
    from app.core.analysis import ScoringGroup

    tender = ("第六章 投标文件格式\n三、技术部分\n投标人须按以下顺序编写技术部分：\n一、项目理解\n二、服务方案\n"
              "（一）服务内容\n三、应急预案\n以上内容须装订成册，并加盖公章。\n")
    dialog = OutlineImportDialog([ScoringGroup(id="R1", title="应急预案")], tender)
    qtbot.addWidget(dialog)
    assert dialog.tender_button.isEnabled()
    qtbot.mouseClick(dialog.tender_button, Qt.MouseButton.LeftButton)
    assert "招标文件规定的目录（“投标人须按以下顺序编写技术部分：”）：识别到 3 章、共 4 个标题" in dialog.preview.text()
    assert "1 章对应到评分项" in dialog.preview.text()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    res = dialog.result_outline
    assert res is not None and [c.title for c in res.chapters] == ["项目理解", "服务方案", "应急预案"]
    assert res.chapters[2].source_requirement_id == "R1"
    empty = OutlineImportDialog([], "本项目没有规定格式。")
    qtbot.addWidget(empty)
    assert not empty.tender_button.isEnabled()


async def _open_tender(window: MainWindow, tmp_path: Path, text: str) -> None:
    path = tmp_path / "招标文件.txt"
    path.write_text(text, encoding="utf-8")
    await window.open_path(path)
    await wait_for(lambda: window.controller.document is not None and not window.controller.busy, timeout=30)


def _tree_titles(dialog: OutlineImportDialog) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []

    def walk(item: Any, depth: int) -> None:
        out.append((depth, item.text(0)))
        for k in range(item.childCount()):
            walk(item.child(k), depth + 1)

    for i in range(dialog.tree.topLevelItemCount()):
        walk(dialog.tree.topLevelItem(i), 1)
    return out


TENDER_RULES = ("第二章 投标人须知\n26. 评标结果\n综合得分相同的，按技术部分得分高低排序；仍相同的，按下列顺序处理：\n"
                "一、质疑及投诉\n二、采购人在收到评标报告后5个工作日内确定中标人\n三、中标通知书\n")


async def test_the_tenders_structure_is_offered_only_when_it_prescribes_one_and_its_headings_are_shown(
        window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    await _open_tender(window, tmp_path, TENDER_RULES + "第三章 评标办法\n本项目采用综合评分法。\n")
    window.act_import_outline.trigger()
    dialog = await _dialog(window)
    assert not dialog.tender_button.isEnabled()  # 投标人须知 clauses are no technical outline
    assert "没有规定技术部分的目录结构" in dialog.tender_button.toolTip()
    dialog.reject()
    await wait_for(lambda: not dialog.isVisible())

    await _open_tender(window, tmp_path, TENDER_RULES + "第六章 投标文件格式\n三、技术文件\n3.1配送车辆情况\n"
                       "说明：根据评分细则编写方案，格式自拟。\n3.2应急方案\n（1）食品安全事故\n（2）停电停水\n3.3售后服务方案\n"
                       "四、资格证明文件\n")
    window.act_import_outline.trigger()
    dialog = await _dialog(window)
    assert dialog.tender_button.isEnabled() and "三、技术文件" in dialog.tender_button.toolTip()
    qtbot.mouseClick(dialog.tender_button, Qt.MouseButton.LeftButton)
    assert _tree_titles(dialog) == [(1, "配送车辆情况"), (1, "应急方案"), (2, "食品安全事故"), (2, "停电停水"),
                                    (1, "售后服务方案")]  # the headings themselves, not only their count
    assert "识别到 3 章、共 5 个标题" in dialog.preview.text()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    c = window.controller
    await wait_for(lambda: [ch.title for ch in c.outline.chapters] == ["配送车辆情况", "应急方案", "售后服务方案"])


async def test_the_proposed_mapping_is_shown_and_the_user_changes_it_before_import(
        window: MainWindow, qtbot: Any) -> None:
    from app.core.analysis import Analysis, ScoringGroup

    c = window.controller
    c.set_analysis(Analysis(groups=[ScoringGroup(id="R1", title="项目服务方案", points=20),
                                    ScoringGroup(id="R2", title="质量保障措施", points=10),
                                    ScoringGroup(id="R3", title="售后服务", points=5)]))
    window.act_import_outline.trigger()
    dialog = await _dialog(window)
    dialog.text.setPlainText("第一章 项目理解\n第三章 质量保证措施\n一、质量目标\n第四章 售后服务方案\n第五章 售后服务承诺")
    combos = dialog.combos
    assert [cb.currentText() for cb in combos] == ["（不对应评分项）", "质量保障措施（10分）", "售后服务（5分）",
                                                   "（不对应评分项）"]  # 售后服务方案 is not 项目服务方案
    assert "2 章对应到评分项" in dialog.preview.text()
    assert all(dialog.tree.itemWidget(dialog.tree.topLevelItem(i), 1) is combos[i] for i in range(4))
    combos[0].setFocus()
    qtbot.keyClick(combos[0], Qt.Key.Key_Down)  # the user picks 项目服务方案 for 项目理解
    assert combos[0].currentData() == "R1" and "3 章对应到评分项" in dialog.preview.text()
    combos[3].setFocus()
    for _ in range(3):
        qtbot.keyClick(combos[3], Qt.Key.Key_Down)  # …and 售后服务 for 售后服务承诺
    assert combos[3].currentData() == "R3" and combos[2].currentData() == "R3"
    assert not dialog.ok_button.isEnabled() and "每个评分项只能对应一章" in dialog.preview.text()
    combos[2].setFocus()
    qtbot.keyClick(combos[2], Qt.Key.Key_Home)  # 售后服务方案: none
    assert dialog.ok_button.isEnabled() and "只能对应一章" not in dialog.preview.text()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: len(c.outline.chapters) == 4)
    assert [ch.source_requirement_id for ch in c.outline.chapters] == ["R1", "R2", None, "R3"]
    assert c.outline.chapters[3].source_requirement_title == "售后服务"


async def test_replacing_drafted_text_says_so_and_undo_brings_back_text_locks_and_the_editor(
        window: MainWindow, qtbot: Any) -> None:
    c = window.controller
    c.outline.replace([OutlineNode(title="服务方案", children=[
        OutlineNode(title="服务内容", content="我方安排十二名保洁员，按区域分片负责。"), OutlineNode(title="服务流程")]),
        OutlineNode(title="应急预案")])
    c.outline.renumber()
    c.model.set_locked_top_level(True)  # a one-to-one outline: its chapters are locked
    window.act_import_outline.trigger()
    dialog = await _dialog(window)
    dialog.text.setPlainText("第一章 项目理解\n一、项目背景\n二、需求分析")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: window.findChild(QMessageBox, "replaceOutlineBox") is not None
                   and window.findChild(QMessageBox, "replaceOutlineBox").isVisible())
    box = window.findChild(QMessageBox, "replaceOutlineBox")
    assert "4 个标题" in box.text() and "1 节已写有正文" in box.text() and "一并移除" in box.text()
    assert "找回原目录和其中的正文" in box.informativeText()
    click_button(box, "替换")
    await wait_for(lambda: [ch.title for ch in c.outline.chapters] == ["项目理解"])
    assert not c.model.locked_top_level
    window.outline_view.select_path((0, 1))  # 需求分析, shown in the 正文 pane
    editor = window.section_editor
    await wait_for(lambda: "需求分析" in editor.title_label.text())
    window.activateWindow()
    window.outline_view.setFocus()
    await wait_for(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window.outline_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Z
    await wait_for(lambda: [ch.title for ch in c.outline.chapters] == ["服务方案", "应急预案"])
    assert c.outline.node((0, 0)).content == "我方安排十二名保洁员，按区域分片负责。"
    assert c.model.locked_top_level  # the lock icons come back with the chapters
    assert "需求分析" not in editor.title_label.text() and not editor.draft_button.isEnabled()

"""The 评审模拟 dock on the real window: statuses, jumping by click, refresh while writing,
补写 as one undo step (with and without a model), 补写全部 with cancel, 提交前检查 and the xlsx."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from PySide6.QtCore import QEvent, QPoint, QSettings, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QTreeWidget, QTreeWidgetItem

from app.core.analysis import Analysis, ScoringGroup
from app.core.breakdown import Breakdown, RiskItem
from app.core.outline import OutlineNode
from app.ui.evaluation.checks_dialog import SubmissionChecksDialog
from app.ui.evaluation.review_dock import ReviewDock
from app.ui.evaluation.review_export import export_review
from app.ui.outline.commands import EditFieldCommand
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer, Reply
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

BODY = "我方设立专门小组，明确岗位和职责，每月检查一次并形成书面记录，发现问题当日整改并复查，确保落实。"
CRITERIA = ("方案内容包含但不限于：①人员配置方案；②应急处置预案；③服务质量保证措施。"
            "方案完整的得10分；方案较完整的得7分；方案简单的得3分；未提供的不得分。")
DRAFT = ("针对应急处置预案，我方按火灾、停电、食物中毒三类事件分级响应，现场负责人五分钟内到场组织处置，"
         "每季度组织一次演练并修订预案，演练记录报采购人备案。")


def _setup(ctl: AppController) -> None:
    ctl.set_analysis(Analysis(groups=[ScoringGroup(id="R1", title="服务方案", description=CRITERIA, points=10)]))
    ctl.outline.replace([OutlineNode(title="服务方案", source_requirement_id="R1", children=[
        OutlineNode(title="人员配置方案", content="人员配置方案如下：项目经理一名，保洁员十二名。" + BODY),
        OutlineNode(title="服务质量保证措施", content="服务质量保证措施包括日检、周查和月度考核。" + BODY)])])
    ctl.outline.renumber()


async def _window(qapp: Any, tmp_path: Path, ctl: AppController, reporter: ErrorReporter) -> MainWindow:
    qapp.setQuitOnLastWindowClosed(False)
    win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat),
                     model_configured=False)
    _setup(ctl)
    win.show()
    return win


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, reporter: ErrorReporter) -> AsyncIterator[MainWindow]:
    win = await _window(qapp, tmp_path, AppController(reporter=reporter), reporter)
    yield win
    await close_window(win)
    await asyncio.sleep(0)


@pytest.fixture
async def model_window(qapp: Any, tmp_path: Path, reporter: ErrorReporter,
                       llm_server: OpenAIServer) -> AsyncIterator[MainWindow]:
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = await _window(qapp, tmp_path, ctl, reporter)
    yield win
    await close_window(win)
    await asyncio.sleep(0)


async def _dock(window: MainWindow) -> ReviewDock:
    dock: ReviewDock = window.review_dock
    action = next(a for m in window.menuBar().actions() if m.text().startswith("视图")
                  for a in m.menu().actions() if a.text() == "评审模拟")
    if not dock.dock.isVisible():
        action.trigger()
    await wait_for(lambda: dock.dock.isVisible())
    dock.refresh()
    return dock


def _statuses(dock: ReviewDock) -> list[str]:
    model = dock.panel.model
    item = model.index(0, 0)
    return [model.index(r, 1, item).data() for r in range(model.rowCount(item))]


def _click_row(qtbot: Any, dock: ReviewDock, row: int) -> None:
    tree = dock.panel.tree
    index = dock.panel.model.index(row, 0, dock.panel.model.index(0, 0))
    tree.scrollTo(index)
    rect = tree.visualRect(index)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


async def test_the_dock_shows_statuses_and_a_click_jumps_to_the_section(window: MainWindow, qtbot: Any,
                                                                        qtmodeltester: Any) -> None:
    dock = await _dock(window)
    qtmodeltester.check(dock.panel.model)
    assert _statuses(dock) == ["已响应", "缺失", "已响应"]
    assert "预计技术得分 7 / 10 分" in dock.panel.summary.text()
    model = dock.panel.model
    point = model.index(2, 3, model.index(0, 0))
    assert "服务质量保证措施" in point.data()  # the quote
    _click_row(qtbot, dock, 2)
    assert window.outline_view.current_path() == (0, 1)
    _click_row(qtbot, dock, 0)
    assert window.outline_view.current_path() == (0, 0)


async def test_the_table_follows_the_writing(window: MainWindow) -> None:
    dock = await _dock(window)
    c = window.controller
    c.undo_stack.push(EditFieldCommand(c.outline, (0, 1), "content",
                                       c.outline.node((0, 1)).content + "应急处置预案另行制定。", "编辑正文"))
    await wait_for(lambda: _statuses(dock) == ["已响应", "单薄", "已响应"])
    c.undo_stack.undo()
    await wait_for(lambda: _statuses(dock) == ["已响应", "缺失", "已响应"])


async def test_fill_without_a_model_adds_the_heading_as_one_undo_step(window: MainWindow, qtbot: Any) -> None:
    dock = await _dock(window)
    c = window.controller
    _click_row(qtbot, dock, 1)
    assert dock.panel.fill_button.isEnabled()
    before = c.undo_stack.count()
    qtbot.mouseClick(dock.panel.fill_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: c.undo_stack.count() == before + 1)
    added = c.outline.node((0, 2))
    assert added.title == "应急处置预案" and added.content == "" and "补写提示" in added.description
    assert [n.content for n in c.outline.chapters[0].children[:2]] == [
        "人员配置方案如下：项目经理一名，保洁员十二名。" + BODY, "服务质量保证措施包括日检、周查和月度考核。" + BODY]
    c.undo_stack.undo()
    assert len(c.outline.chapters[0].children) == 2


async def test_fill_with_a_model_writes_only_that_point_as_one_undo_step(model_window: MainWindow, qtbot: Any,
                                                                        llm_server: OpenAIServer) -> None:
    window = model_window
    dock = await _dock(window)
    c = window.controller
    llm_server.push(Reply.text(DRAFT))
    _click_row(qtbot, dock, 1)
    before = [n.model_copy(deep=True) for n in c.outline.chapters[0].children]
    qtbot.mouseClick(dock.panel.fill_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: len(c.outline.chapters[0].children) == 3)
    assert c.outline.node((0, 2)).content == DRAFT
    assert c.outline.chapters[0].children[:2] == before  # nothing else overwritten
    await wait_for(lambda: _statuses(dock) == ["已响应", "已响应", "已响应"])
    assert c.undo_stack.undoText() == "补写 应急处置预案"
    c.undo_stack.undo()
    assert c.outline.chapters[0].children == before
    (request,) = llm_server.completion_requests
    assert "应急处置预案" in request.prompt_text


async def test_fill_all_shows_progress_and_can_be_cancelled(model_window: MainWindow, qtbot: Any,
                                                           llm_server: OpenAIServer) -> None:
    window = model_window
    c = window.controller
    c.set_analysis(Analysis(groups=[ScoringGroup(id="R1", title="服务方案", points=10, description=(
        "方案内容包含但不限于：①人员配置方案；②应急处置预案；③服务质量保证措施；④安全生产管理；⑤节能降耗措施。"))]))
    dock = await _dock(window)
    assert _statuses(dock).count("缺失") == 3
    llm_server.push(Reply.text(DRAFT), Reply.text("安全生产管理" + BODY * 2, delay=30.0))
    qtbot.mouseClick(dock.panel.fill_all_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: dock.panel.progress.isVisible() and len(llm_server.completion_requests) == 2)
    assert not dock.panel.fill_all_button.isEnabled() and dock.panel.cancel_button.isVisible()
    qtbot.mouseClick(dock.panel.cancel_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: not dock.panel.progress.isVisible())
    titles = [n.title for n in c.outline.chapters[0].children]
    assert titles == ["人员配置方案", "服务质量保证措施", "应急处置预案"]  # the first was written, then cancelled
    assert "已取消补写" in window.statusBar().currentMessage()


async def test_submission_checks_list_and_jump(window: MainWindow, qtbot: Any) -> None:
    c = window.controller
    c.set_breakdown(Breakdown(status="executable", risks=[
        RiskItem(text="★投标人须为全部派驻人员购买雇主责任险", origin="code", mark="★", category="rejection")]))
    c.outline.update((0, 1), content="本节【待补充】")
    dock = await _dock(window)
    action = next(a for m in window.menuBar().actions() if m.text().startswith("工具")
                  for a in m.menu().actions() if a.text() == "提交前检查…")
    action.trigger()
    dialog: SubmissionChecksDialog = await _found(window)
    rows = [dialog.list.topLevelItem(i).text(0) for i in range(dialog.list.topLevelItemCount())]
    assert rows[0].startswith("【必须处理】★条款") and any("占位文字" in r for r in rows)
    placeholder = next(i for i, r in enumerate(rows) if "占位文字" in r)
    _double_click(qtbot, dialog.list, dialog.list.topLevelItem(placeholder))
    assert window.outline_view.current_path() == (0, 1)
    dialog.close()
    assert dock is window.review_dock


async def _found(window: MainWindow) -> SubmissionChecksDialog:
    found: list[SubmissionChecksDialog] = []

    def look() -> bool:
        found[:] = [d for d in window.findChildren(SubmissionChecksDialog) if d.isVisible()]
        return bool(found)

    await wait_for(look)
    return found[0]


def _double_click(qtbot: Any, widget: QTreeWidget, item: QTreeWidgetItem) -> None:
    widget.scrollToItem(item)
    rect = widget.visualItemRect(item)
    pos = QPoint(rect.x() + 20, rect.center().y())
    qtbot.mouseClick(widget.viewport(), Qt.MouseButton.LeftButton, pos=pos)  # the view double-clicks a pressed row
    qtbot.mouseDClick(widget.viewport(), Qt.MouseButton.LeftButton, pos=pos)


async def test_the_table_exports_as_xlsx(window: MainWindow, tmp_path: Path) -> None:
    dock = await _dock(window)
    written = export_review(window, dock, tmp_path / "自评表")
    assert written == tmp_path / "自评表.xlsx"
    sheet = openpyxl.load_workbook(str(written)).active
    assert sheet is not None
    rows = [[c.value for c in row] for row in sheet.iter_rows()]
    assert rows[0][:4] == ["评分项", "分值", "评分要点", "状态"]
    assert [r[3] for r in rows[1:4]] == ["已响应", "缺失", "已响应"]
    assert rows[-1][0] == "合计" and rows[-1][6] == 7


async def test_the_export_option_puts_the_table_after_the_body(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    import docx

    from app.ui.export.dialog import ExportDialog

    task = window.controller.spawn("dialog", window.ask_export_choices())
    found: list[ExportDialog] = []

    def look() -> bool:
        found[:] = [d for d in window.findChildren(ExportDialog) if d.isVisible()]
        return bool(found)

    await wait_for(look)
    dialog = found[0]
    dialog.layout_check.setChecked(False)
    assert dialog.review_check.isEnabled() and not dialog.review_check.isChecked()
    qtbot.mouseClick(dialog.review_check, Qt.MouseButton.LeftButton, pos=QPoint(5, dialog.review_check.height() // 2))
    assert dialog.review_check.isChecked()
    dialog.ok_button.click()
    choices = await asyncio.wait_for(task, timeout=5)
    assert choices is not None and choices.options.review_table
    target = tmp_path / "带自评表.docx"
    assert window.export_word_to(target, choices) == target
    doc = docx.Document(str(target))
    texts = [p.text for p in doc.paragraphs]
    assert "附：技术评分自评表" in texts
    table = doc.tables[-1]
    assert [c.text for c in table.rows[0].cells][:4] == ["评分项", "分值", "评分要点", "状态"]
    assert [r.cells[3].text for r in table.rows[1:4]] == ["已响应", "缺失", "已响应"]
    assert table.rows[-1].cells[0].text == "合计" and table.rows[-1].cells[6].text == "7"


async def test_export_asks_before_going_on_with_a_blocking_finding(window: MainWindow, qtbot: Any) -> None:
    from app.ui.export.dialog import ExportDialog

    c = window.controller
    c.outline.update((0, 1), content="服务质量保证措施由XXX负责。" + BODY)
    found: list[ExportDialog] = []

    def look() -> bool:
        found[:] = [d for d in window.findChildren(ExportDialog) if d.isVisible()]
        return bool(found)

    for answer, expected in (("back", None), ("go", "choices")):
        task = c.spawn("dialog", window.ask_export_choices())
        await wait_for(look)
        found[0].ok_button.click()
        checks = await _found(window)
        assert checks.list.topLevelItem(0).text(0).startswith("【必须处理】占位文字")
        button = checks.back_button if answer == "back" else checks.go_button
        assert button is not None
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        result = await asyncio.wait_for(task, timeout=5)
        assert (result is None) == (expected is None)
        await asyncio.sleep(0.05)  # the dialog is deleted once answered


async def test_the_model_check_keeps_a_real_quote_across_refreshes(model_window: MainWindow, qtbot: Any,
                                                                  llm_server: OpenAIServer) -> None:
    import json

    window = model_window
    c = window.controller
    said = "遇到火情、停电等突发情况时，现场负责人五分钟内启动三级响应程序。"
    c.outline.update((0, 1), content=c.outline.node((0, 1)).content + said)
    dock = await _dock(window)
    assert _statuses(dock)[1] == "缺失"
    llm_server.push(Reply.text(json.dumps({"answer": "是", "quote": said}, ensure_ascii=False)))
    qtbot.mouseClick(dock.panel.check_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: _statuses(dock)[1] == "已响应（模型）")
    assert "采信 1 个" in window.statusBar().currentMessage()
    c.undo_stack.push(EditFieldCommand(c.outline, (0, 0), "content", c.outline.node((0, 0)).content + "。", "编辑"))
    dock.refresh()
    assert _statuses(dock)[1] == "已响应（模型）"  # the quote is still in the text
    c.undo_stack.push(EditFieldCommand(c.outline, (0, 1), "content", "服务质量保证措施包括日检。" + BODY, "编辑"))
    dock.refresh()
    assert _statuses(dock)[1] == "缺失"  # the quoted sentence was deleted: the model's answer no longer holds


async def test_typing_in_the_section_editor_updates_the_table_before_it_is_committed(window: MainWindow,
                                                                                    qtbot: Any) -> None:
    dock = await _dock(window)
    window.outline_view.select_path((0, 1))
    editor = window.section_editor
    await wait_for(lambda: editor.key == "1.2")
    editor.pages.setCurrentWidget(editor.text)  # the Markdown source, as a double-click opens it
    editor.text.setFocus()
    editor.text.moveCursor(editor.text.textCursor().MoveOperation.End)
    for ch in "另备有应急处置预案。":  # Chinese text typed as key events (QTest only types ASCII)
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            QApplication.sendEvent(editor.text, QKeyEvent(kind, 0, Qt.KeyboardModifier.NoModifier, ch))
    await wait_for(lambda: _statuses(dock)[1] == "单薄")
    assert "应急处置预案" not in window.controller.outline.node((0, 1)).content  # not committed yet


async def test_a_refused_fill_changes_nothing_and_an_item_without_points_is_written_into_its_chapter(
        model_window: MainWindow, qtbot: Any, llm_server: OpenAIServer) -> None:
    window = model_window
    c = window.controller
    c.set_analysis(Analysis(groups=[ScoringGroup(id="R1", title="应急预案", points=10)]))  # no criteria points
    c.outline.replace([OutlineNode(title="应急预案", source_requirement_id="R1", children=[
        OutlineNode(title="应急组织机构", content="")])])
    c.outline.renumber()
    dock = await _dock(window)
    assert _statuses(dock) == ["缺失"]
    before = c.outline.chapters[0].model_copy(deep=True)
    steps = c.undo_stack.count()
    llm_server.push(Reply.text("好的。"), Reply.text("收到"))
    for attempt in (1, 2):  # the click, then a retry
        _click_row(qtbot, dock, 0)
        qtbot.mouseClick(dock.panel.fill_button, Qt.MouseButton.LeftButton)
        await wait_for(lambda n=attempt: len(llm_server.completion_requests) == n  # type: ignore[misc]
                       and "模型返回的正文过短" in window.statusBar().currentMessage())
        await wait_for(lambda: dock.panel.fill_button.isEnabled())
        assert c.outline.chapters[0] == before and c.undo_stack.count() == steps  # nothing added, nothing to undo
        assert "未作改动" in window.statusBar().currentMessage()
    text = "针对应急预案，我方按火灾、停电、设备故障三类事件分级响应，现场负责人五分钟内到场组织处置，每季度演练一次并修订应急预案。"
    llm_server.push(Reply.text(text))
    _click_row(qtbot, dock, 0)
    qtbot.mouseClick(dock.panel.fill_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: c.outline.chapters[0].content == text)
    assert [k.title for k in c.outline.chapters[0].children] == ["应急组织机构"]  # no heading repeating the chapter
    assert c.undo_stack.count() == steps + 1


async def test_submission_checks_group_many_empty_sections_and_leave_quoted_names_alone(window: MainWindow,
                                                                                        qtbot: Any) -> None:
    c = window.controller
    c.outline.replace([OutlineNode(title="服务方案", source_requirement_id="R1", children=[
        OutlineNode(title=f"第{i}项服务") for i in range(1, 8)] + [
        OutlineNode(title="人员配置方案", content="项目经理张某某负责全面工作，保洁由“某某物业”派驻，执行《某某市物业管理办法》。"),
        OutlineNode(title="服务质量保证措施", content="由某某负责每日检查。")])])
    c.outline.renumber()
    dock = await _dock(window)
    action = next(a for m in window.menuBar().actions() if m.text().startswith("工具")
                  for a in m.menu().actions() if a.text() == "提交前检查…")
    action.trigger()
    dialog: SubmissionChecksDialog = await _found(window)
    tree = dialog.list
    rows = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    empty = [r for r in rows if "空章节" in r.text(0)]
    assert len(empty) == 1 and "7 节没有正文" in empty[0].text(0) and empty[0].childCount() == 7  # one row, not seven
    assert "发现 8 项问题" in dialog.summary.text()
    placeholders = [r.text(0) for r in rows if "占位文字" in r.text(0)]
    assert placeholders == ["【必须处理】占位文字：“1.9 服务质量保证措施”含占位文字“某某”"]  # not 张某某 or the quoted names
    empty[0].setExpanded(True)
    _double_click(qtbot, tree, empty[0].child(2))
    assert window.outline_view.current_path() == (0, 2)
    dialog.close()
    assert dock is window.review_dock


async def test_nothing_written_scores_nothing_and_a_point_needs_each_thing_it_names(window: MainWindow) -> None:
    c = window.controller
    criteria = ("方案内容包括：①安全测试方案和渗透测试流程；②漏洞修复措施。"
                "方案完整的得10分；方案较完整的得7分；方案简单的得3分。")  # no 不得分 tier
    c.set_analysis(Analysis(groups=[ScoringGroup(id="R1", title="安全服务方案", description=criteria, points=10)]))
    c.outline.replace([OutlineNode(title="安全服务方案", source_requirement_id="R1", children=[
        OutlineNode(title="安全测试"), OutlineNode(title="漏洞修复")])])
    c.outline.renumber()
    dock = await _dock(window)
    assert _statuses(dock) == ["缺失", "缺失"]
    assert "预计技术得分 0 / 10 分" in dock.panel.summary.text()  # headings alone earn no tier
    text = ("我方制定安全测试方案，测试前评估风险并备份数据，测试中全程记录操作，测试流程包括准备、执行和复核三个阶段，"
            "测试结束后提交测试报告并跟踪整改。")  # never mentions 渗透测试
    c.undo_stack.push(EditFieldCommand(c.outline, (0, 0), "content", text, "编辑正文"))
    await wait_for(lambda: _statuses(dock)[0] != "缺失")
    assert _statuses(dock)[0] == "单薄"  # not 已响应: 渗透测试 is not named
    c.undo_stack.push(EditFieldCommand(c.outline, (0, 0), "content", text + "渗透测试按授权范围进行，测试流程留痕。",
                                       "编辑正文"))
    await wait_for(lambda: _statuses(dock)[0] == "已响应")

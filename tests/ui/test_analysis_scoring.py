"""The analysis page's scoring part, driven by clicks: which table, checks, candidates, corrections.

Tenders are generated (``tests.scoring_fixtures``) and opened through the window, so the
view shows what the real parser read; one-to-one generation then runs the app's own path
against the scripted loopback server and must use exactly the corrected items.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QAbstractItemView, QLineEdit

from app.ui.shell.main_window import MainWindow
from app.ui.tender.scoring_items_model import COL_PAGE, COL_POINTS, COL_TITLE, ScoringTableModel
from tests.openai_server import OpenAIServer
from tests.pipeline_support import Router
from tests.scoring_fixtures import build
from tests.ui.scoring_clicks import candidate_texts, click_candidate_check
from tests.ui.test_workflow import FREE_TITLES, free_and_aligned
from tests.ui.ui_helpers import wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


def _row(model: ScoringTableModel, title: str) -> int:
    return next(i for i, g in enumerate(model.groups) if g.title == title)


async def _edit_cell(qtbot: Any, window: MainWindow, row: int, col: int, text: str) -> None:
    view = window.analysis_view
    index = view.table_model.index(row, col)
    view.table.setCurrentIndex(index)
    view.table.edit(index)

    def editor() -> QLineEdit | None:
        return next((w for w in view.table.viewport().findChildren(QLineEdit) if w.isVisible()), None)

    await wait_for(lambda: editor() is not None)
    line = editor()
    assert line is not None
    line.selectAll()
    if text.isascii():
        qtbot.keyClicks(line, text)
    else:
        line.insert(text)  # what an input method commits (QTest types ASCII keys only)
    qtbot.keyClick(line, Qt.Key.Key_Return)  # the delegate commits on the next event-loop turn
    await wait_for(lambda: view.table.state() != QAbstractItemView.State.EditingState)


async def test_source_checks_candidates_and_corrections_are_undo_steps(window: MainWindow, tmp_path: Path,
                                                                       qtbot: Any) -> None:
    path, _expect = build("decoys", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    stack = c.undo_stack
    assert "使用的评分表" in view.source_label.text()
    assert "合计 100 分（应为 100 分）✓" in view.checks_label.text() and "技术 60 分" in view.checks_label.text()
    pages: list[int] = []
    view.page_requested.connect(pages.append)
    qtbot.mouseClick(view.jump_button, Qt.MouseButton.LeftButton)
    used = next(t for t in c.analysis.scoring_tables if t.used)
    assert pages == [used.pages[0]]

    assert view.candidates_toggle.isVisible()
    if not view.candidates.isVisible():  # the list of candidate tables is one click away
        qtbot.mouseClick(view.candidates_toggle, Qt.MouseButton.LeftButton)
    assert view.candidates.isVisible()
    texts = candidate_texts(view.candidates)
    assert any("不像评分表" in t and "考核" in t for t in texts)
    decoy = next(i for i, t in enumerate(texts) if "考核" in t)
    before = c.analysis
    click_candidate_check(qtbot, view.candidates, decoy)  # pick the look-alike as well
    await wait_for(lambda: [g.title for g in c.analysis.groups][:3] == ["保洁质量", "安全管理", "服务态度"])
    assert "合计 200 分（应为 100 分）✗" in view.checks_label.text()
    assert stack.count() == 1
    stack.undo()
    assert c.analysis == before and view.table_model.rowCount() == 5

    model = view.table_model
    view.table.selectRow(_row(model, "人员培训计划"))
    qtbot.mouseClick(view.move_buttons["business"], Qt.MouseButton.LeftButton)
    moved = next(g for g in c.analysis.groups if g.title == "人员培训计划")
    assert moved.category == "business" and moved.decided_by == "user"
    assert "技术 45 分" in view.checks_label.text() and stack.undoText() == "编辑评分项"
    stack.undo()
    assert next(g for g in c.analysis.groups if g.title == "人员培训计划").category == "technical"

    await _edit_cell(qtbot, window, _row(model, "保洁作业方案"), COL_TITLE, "保洁作业实施方案")
    await _edit_cell(qtbot, window, _row(model, "保洁作业实施方案"), COL_POINTS, "30")
    edited = next(g for g in c.analysis.groups if g.title == "保洁作业实施方案")
    assert edited.points == 30 and "合计 95 分（应为 100 分）✗" in view.checks_label.text()
    stack.undo()
    stack.undo()
    assert next(g for g in c.analysis.groups if g.title == "保洁作业方案").points == 35


async def test_generation_uses_exactly_the_corrected_items(window: MainWindow, tmp_path: Path,
                                                           llm_server: OpenAIServer, qtbot: Any) -> None:
    llm_server.handler = Router()
    path, _expect = build("subtotal_rows", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    assert [g.title for g in c.analysis.technical_groups] == ["总体设计", "质量控制", "进度安排"]
    view.table.selectRow(_row(view.table_model, "进度安排"))
    qtbot.mouseClick(view.not_chapter_button, Qt.MouseButton.LeftButton)
    view.table.selectRow(_row(view.table_model, "节能产品"))
    qtbot.mouseClick(view.move_buttons["technical"], Qt.MouseButton.LeftButton)
    assert [g.title for g in c.analysis.technical_groups] == ["总体设计", "质量控制", "节能产品"]
    assert window.mode_box.currentData() == "aligned"
    finished: list[tuple[int, str]] = []
    c.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: bool(finished) and not c.busy, timeout=60)
    assert finished[-1][0], finished[-1][1]
    assert [ch.title for ch in c.outline.chapters] == ["总体设计", "质量控制", "节能产品"]


async def test_no_technical_scoring_says_why_and_offers_free_mode(window: MainWindow, tmp_path: Path,
                                                                 llm_server: OpenAIServer, qtbot: Any) -> None:
    llm_server.handler = Router(free_and_aligned)
    path, _expect = build("lowest_price", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    assert not c.analysis.has_technical_scoring
    assert view.no_scoring.isVisible() and "最低投标价法" in view.no_scoring.text()
    assert view.free_mode_button.isVisible()
    finished: list[tuple[int, str]] = []
    c.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    qtbot.mouseClick(view.free_mode_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: bool(finished) and not c.busy, timeout=60)
    assert finished[-1][0], finished[-1][1]
    assert window.mode_box.currentData() == "free"
    assert [ch.title for ch in c.outline.chapters] == FREE_TITLES


def test_scoring_items_model_passes_the_model_tester(qtmodeltester: Any) -> None:
    from app.core.analysis import ScoringGroup, ScoringSubItem

    model = ScoringTableModel()
    model.set_groups([
        ScoringGroup(id="R1", title="服务方案", points=30, category="technical",
                     sub_items=[ScoringSubItem(criteria="应急预案", points=10)]),
        ScoringGroup(id="R2", title="业绩", points=10, category="business"),
    ])
    qtmodeltester.check(model)
    assert model.setData(model.index(1, 1), "技术") and model.groups[1].category == "technical"
    assert not model.setData(model.index(1, 1), "不是类别")
    assert model.setData(model.index(0, 4), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    assert not model.groups[0].chapter


async def test_clicking_a_row_stays_on_the_analysis_and_double_click_edits(window: MainWindow, tmp_path: Path,
                                                                           qtbot: Any) -> None:
    """Issue 30 major 1: only the 页码 cell (or 查看原文) jumps to the tender; other cells select and edit."""
    path, _expect = build("decoys", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    window.analysis_dock.raise_()
    await wait_for(view.table.isVisible)
    pages: list[int] = []
    view.page_requested.connect(pages.append)
    model = view.table_model
    row = _row(model, "保洁作业方案")
    assert model.groups[row].source_page
    title_rect = view.table.visualRect(model.index(row, COL_TITLE))
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=title_rect.center())
    await asyncio.sleep(0.05)
    assert pages == [] and view.table.isVisible(), "a click on a row left the analysis"
    assert view.table.selectionModel().isRowSelected(row)

    points_rect = view.table.visualRect(model.index(row, COL_POINTS))
    await asyncio.sleep(0.6)  # past the double-click interval after the click above
    qtbot.mousePress(view.table.viewport(), Qt.MouseButton.LeftButton, pos=points_rect.center())
    qtbot.mouseRelease(view.table.viewport(), Qt.MouseButton.LeftButton, pos=points_rect.center())
    qtbot.mouseDClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=points_rect.center())
    await wait_for(lambda: any(w.isVisible() for w in view.table.viewport().findChildren(QLineEdit)))
    line = next(w for w in view.table.viewport().findChildren(QLineEdit) if w.isVisible())
    line.selectAll()
    qtbot.keyClicks(line, "30")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    await wait_for(lambda: view.table.state() != QAbstractItemView.State.EditingState)
    assert next(g for g in c.analysis.groups if g.title == "保洁作业方案").points == 30
    assert pages == [] and view.table.isVisible()

    qtbot.mouseClick(view.jump_button, Qt.MouseButton.LeftButton)  # the selected item's page
    assert pages == [model.groups[row].source_page]
    window.analysis_dock.raise_()
    await wait_for(view.table.isVisible)
    page_rect = view.table.visualRect(model.index(row, COL_PAGE))
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=page_rect.center())
    assert pages == [model.groups[row].source_page] * 2


async def test_score_summary_follows_a_category_move(window: MainWindow, tmp_path: Path, qtbot: Any) -> None:
    """Issue 30 minor: the line above the outline shows the new technical subtotal after a move (and undo)."""
    path, _expect = build("decoys", tmp_path)
    await window.open_path(path)
    view = window.analysis_view
    before = window.score_label.text()
    assert "小计 60 分" in before
    view.table.selectRow(_row(view.table_model, "人员培训计划"))
    qtbot.mouseClick(view.move_buttons["business"], Qt.MouseButton.LeftButton)
    assert "小计 45 分" in window.score_label.text()
    window.controller.undo_stack.undo()
    assert window.score_label.text() == before


async def test_the_project_name_is_read_whole_and_shown_with_its_check(window: MainWindow, tmp_path: Path,
                                                                       qtbot: Any) -> None:
    """Issue 30 major 3: a name wrapped on the cover is read whole, checked against the announcement."""
    import pymupdf

    name = "某市某区城市管理局2025-2026年度环卫作业车辆维修服务采购项目"
    pages = ["公开招标文件\n项目编号：AB-2025-001\n项目名称：某市某区城市管理局2025-2026\n年度环卫作业车辆维修服务采购项目\n"
             "采购人：某市某区城市管理局",
             f"第一章 招标公告\n项目名称：{name}\n采购人：某市某区城市管理局\n预算金额：人民币 128.5 万元"]
    path = tmp_path / "招标文件.pdf"
    doc = pymupdf.open()
    for text in pages:
        doc.new_page().insert_text((60, 72), text, fontname="china-s", fontsize=11)
    doc.save(path)
    doc.close()
    await window.open_path(path)
    view = window.analysis_view
    line = QTextDocumentFragment.fromHtml(view.overview_line.text()).toPlainText()
    assert f"项目名称✓：{name}" in line and "采购人✓：某市某区城市管理局" in line and "预算（待确认）：128.5万元" in line
    qtbot.mouseClick(view.overview_toggle, Qt.MouseButton.LeftButton)
    assert view.project_name.isVisible() and view.project_name.text() == name
    assert view.budget.toolTip().startswith("待确认") and "第2页" in view.budget.toolTip()
    view.budget.setFocus()
    view.budget.selectAll()
    qtbot.keyClicks(view.budget, "130")
    qtbot.keyClick(view.budget, Qt.Key.Key_Return)  # the user's own value counts as checked
    assert "预算✓：130" in QTextDocumentFragment.fromHtml(view.overview_line.text()).toPlainText()
    assert window.controller.analysis.overview.budget == "130"

"""Edits in the analysis view (overview fields, scoring groups) are undoable commands."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.core.project import load_project
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from app.ui.tender.scoring_items_model import COL_POINTS

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture
async def window(qapp: Any, tmp_path: Path) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)
    reporter = ErrorReporter(tmp_path / "data")
    ctl = AppController(reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, model_configured=False,
                     qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    ctl.set_analysis(Analysis(
        overview=ProjectOverview(project_name="食堂食材配送", buyer="某税务局"),
        groups=[ScoringGroup(id="R1", title="配送方案", points=10.0, category="technical"),
                ScoringGroup(id="R2", title="食品安全", points=8.0, category="technical"),
                ScoringGroup(id="B1", title="企业资质", points=5.0, category="business")]))
    win.show()
    yield win
    win._close_ok = True
    win.close()
    await ctl.shutdown()
    win.deleteLater()
    await asyncio.sleep(0)


async def test_overview_and_group_edits_undo_and_redo(window: MainWindow, tmp_path: Path) -> None:
    c, view = window.controller, window.analysis_view
    stack = c.undo_stack
    assert stack.count() == 0 and not window.isWindowModified()

    view.project_name.setText("某税务局食堂食材配送服务项目")
    view.project_name.editingFinished.emit()
    assert c.analysis.overview.project_name == "某税务局食堂食材配送服务项目"
    assert stack.count() == 1 and stack.undoText() == "编辑项目名称"
    assert window.isWindowModified()

    for ch in "每日配送":  # typing: one command per keystroke, merged into one step
        view.summary.moveCursor(view.summary.textCursor().MoveOperation.End)
        view.summary.insertPlainText(ch)
    assert c.analysis.overview.summary == "每日配送"
    assert stack.count() == 2 and stack.undoText() == "编辑项目概况"

    model = view.table_model
    assert model.setData(model.index(0, COL_POINTS), "15")
    row = model.add_group("售后服务")
    assert [g.title for g in c.analysis.technical_groups] == ["配送方案", "食品安全", "售后服务"]
    assert c.analysis.technical_groups[0].points == 15.0
    assert [g.id for g in c.analysis.groups if g.category == "business"] == ["B1"]  # untouched
    assert stack.count() == 4 and stack.undoText() == "编辑评分项" and row == 3

    stack.undo()  # the added group
    assert [g.title for g in c.analysis.technical_groups] == ["配送方案", "食品安全"]
    assert model.rowCount() == 3  # the view follows (every item is listed, the business one too)
    stack.undo()  # the points
    assert c.analysis.technical_groups[0].points == 10.0
    assert model.data(model.index(0, COL_POINTS), Qt.ItemDataRole.DisplayRole) == "10"
    stack.undo()  # the whole typed summary at once
    assert c.analysis.overview.summary == "" and view.summary.toPlainText() == ""
    stack.undo()
    assert c.analysis.overview.project_name == "食堂食材配送" and view.project_name.text() == "食堂食材配送"
    assert not window.isWindowModified() and stack.count() == 4  # nothing was saved: back at clean

    stack.redo()
    stack.redo()
    assert view.summary.toPlainText() == "每日配送" and view.project_name.text() == "某税务局食堂食材配送服务项目"
    assert window.isWindowModified()
    path = tmp_path / "分析.bidproj"
    assert window.save_to(path)
    assert not window.isWindowModified()
    saved = load_project(path)
    assert saved.analysis is not None and saved.analysis.overview.summary == "每日配送"
    assert [g.title for g in saved.analysis.technical_groups] == ["配送方案", "食品安全"]
    stack.undo()
    assert window.isWindowModified()  # the undo stack, not a flag, says what is unsaved


async def test_typing_back_to_the_original_text_leaves_nothing_to_undo(window: MainWindow) -> None:
    c, view = window.controller, window.analysis_view
    view.buyer.setText("某税务局机关服务中心")
    view.buyer.editingFinished.emit()
    view.buyer.setText("某税务局机关服务中心（食堂）")
    view.buyer.editingFinished.emit()
    assert c.undo_stack.count() == 1  # same field: merged
    view.buyer.setText("某税务局")
    view.buyer.editingFinished.emit()
    assert c.undo_stack.count() == 0  # back to where it started: the merged command is obsolete
    assert c.analysis.overview.buyer == "某税务局" and not window.isWindowModified()


async def test_marking_a_clause_answered_is_undoable_and_clears_the_export_warning(window: MainWindow) -> None:
    from app.core.breakdown import Breakdown, RiskItem
    from app.ui.tender.breakdown_view import COL_ANSWERED

    c = window.controller
    c.set_breakdown(Breakdown(status="executable", risks=[
        RiskItem(text="▲须承诺每日六点前送达", page=12, category="rejection", origin="code", mark="▲")]))
    view = window.breakdown_view
    assert view.unanswered_count() == 1
    risks = view.model.item(2, 0)  # 目标 / 任务 / 风险
    cell = risks.child(0, COL_ANSWERED)
    cell.setText("1.1")
    assert c.breakdown is not None and c.breakdown.risks[0].answered_in == "1.1"
    assert not c.breakdown.unanswered_marked() and view.unanswered_count() == 0
    assert c.undo_stack.count() == 1 and c.undo_stack.undoText() == "标注已响应章节"
    assert window.isWindowModified()
    c.undo_stack.undo()
    assert c.breakdown is not None and c.breakdown.risks[0].answered_in is None
    assert view.unanswered_count() == 1 and view.warning_label.isVisibleTo(view)
    assert not window.isWindowModified()
    c.undo_stack.redo()
    assert c.breakdown is not None and c.breakdown.risks[0].answered_in == "1.1" and view.unanswered_count() == 0

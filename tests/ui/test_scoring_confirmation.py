"""Unconfirmed scoring items, driven by clicks: the analysis page says what could not be confirmed and
marks the doubtful rows; one-to-one generation asks to confirm or review first (one click when right).

Tenders are generated (``tests.scoring_fixtures``), opened through the window and generated
against the scripted loopback model server.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from app.core.analysis import ScoringGroup, points_label
from app.ui.shell.main_window import MainWindow
from app.ui.tender.scoring_items_model import COL_POINTS, COL_TITLE
from tests.openai_server import OpenAIServer
from tests.pipeline_support import Router
from tests.scoring_fixtures_unseen import build_any
from tests.ui.ui_helpers import click_button, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


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


def _row(window: MainWindow, title: str) -> int:
    return next(i for i, g in enumerate(window.analysis_view.table_model.groups) if g.title == title)


async def test_unconfirmed_reading_is_said_marked_and_asked_before_one_to_one(
        window: MainWindow, tmp_path: Path, llm_server: OpenAIServer, qtbot: Any) -> None:
    llm_server.handler = Router()
    path, _ = build_any("split", tmp_path)  # sums to 100, but nothing else states a total; 业绩 guessed 商务
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    assert c.analysis.has_technical_scoring and c.analysis.needs_scoring_confirmation
    assert view.doubt_label.isVisible() and view.confirm_button.isVisible()
    assert view.doubt_label.text().startswith("评分表未能确认：") and "请核对第1页" in view.doubt_label.text()
    model = view.table_model
    doubtful = _row(window, "同类项目经验")
    assert model.data(model.index(doubtful, COL_TITLE), Qt.ItemDataRole.BackgroundRole) is not None
    assert "待核对" in model.data(model.index(doubtful, COL_TITLE), Qt.ItemDataRole.ToolTipRole)
    assert model.data(model.index(_row(window, "应急响应"), COL_TITLE), Qt.ItemDataRole.BackgroundRole) is None
    window.mode_box.setCurrentIndex(window.mode_box.findData("aligned"))

    # Review first: nothing is generated, the analysis page is brought forward.
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    box = await _box(window, "confirmScoringBox")
    assert "未能自动确认" in box.text() and "请核对第1页" in box.informativeText()
    click_button(box, "先核对评分项")
    await asyncio.sleep(0.1)
    assert not c.busy and not len(c.outline) and not c.analysis.scoring_user_confirmed

    # One click when it looks right: confirmed (one undo step) and generated from exactly these items.
    finished: list[tuple[int, str]] = []
    c.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    click_button(await _box(window, "confirmScoringBox"), "评分项无误，生成")
    await wait_for(lambda: bool(finished) and not c.busy, timeout=60)
    assert finished[-1][0], finished[-1][1]
    assert c.analysis.scoring_user_confirmed and not view.doubt_label.isVisible()
    assert [ch.title for ch in c.outline.chapters] == [g.title for g in c.analysis.technical_groups]


async def test_confirm_button_and_fixing_a_row(window: MainWindow, tmp_path: Path, llm_server: OpenAIServer,
                                              qtbot: Any) -> None:
    llm_server.handler = Router()
    path, _ = build_any("split", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    model = view.table_model
    row = _row(window, "同类项目经验")
    view.table.selectRow(row)
    qtbot.mouseClick(view.move_buttons["technical"], Qt.MouseButton.LeftButton)  # moving is not a fix of the doubt
    index = model.index(row, COL_POINTS)
    view.table.setCurrentIndex(index)
    view.table.edit(index)
    editor = view.table.focusWidget()
    assert editor is not None
    qtbot.keyClicks(editor, "10")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    await wait_for(lambda: not c.analysis.groups[row].doubt)  # the user set this row: no longer marked
    assert model.data(model.index(row, COL_TITLE), Qt.ItemDataRole.BackgroundRole) is None
    assert view.doubt_label.isVisible()  # the reading as a whole still is not confirmed
    stack = c.undo_stack
    before = stack.count()
    qtbot.mouseClick(view.confirm_button, Qt.MouseButton.LeftButton)
    assert c.analysis.scoring_user_confirmed and not view.confirm_button.isVisible()
    assert stack.count() == before + 1
    stack.undo()
    assert not c.analysis.scoring_user_confirmed and view.confirm_button.isVisible()


async def test_confirmed_reading_asks_nothing_and_weights_are_labelled(window: MainWindow, tmp_path: Path,
                                                                       qtbot: Any) -> None:
    path, _ = build_any("three_tables", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    assert c.analysis.scoring_confirmed and not c.analysis.needs_scoring_confirmation
    assert not view.doubt_label.isVisible() and not view.confirm_button.isVisible()
    weighted, _ = build_any("weighted", tmp_path)
    await window.open_path(weighted)
    model = view.table_model
    row = _row(window, "服务实施方案")
    assert model.data(model.index(row, COL_POINTS)) == "35%"
    assert "权重 35%" in model.data(model.index(row, COL_POINTS), Qt.ItemDataRole.ToolTipRole)
    assert points_label(c.analysis.groups[row]) == "权重35%"
    assert points_label(ScoringGroup(id="R1", title="方案", points=12)) == "12"


async def test_picking_another_table_asks_for_a_new_confirmation(window: MainWindow, tmp_path: Path,
                                                                 qtbot: Any) -> None:
    from tests.ui.scoring_clicks import click_candidate_check

    path, _ = build_any("three_tables", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    assert c.analysis.scoring_confirmed and not view.doubt_label.isVisible()
    used = view.candidates.checked().index(True)
    click_candidate_check(qtbot, view.candidates, used)
    await wait_for(lambda: not c.analysis.scoring_confirmed)
    assert view.doubt_label.isVisible() and "已改选评分表" in view.doubt_label.text()
    assert c.analysis.needs_scoring_confirmation

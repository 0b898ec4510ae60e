"""The lot (包/标段) choice on the analysis page, by clicks on the real combo box (issue 36).

A generated tender scores its two lots apart (tests/lot_fixtures.py): the combo shows only then;
choosing a lot replaces the scoring rows as one undo step, is saved with the project, and
one-to-one generation makes the chosen lot's technical items its chapters; 分析招标文件 with a
model reads the chosen lot again and the model's reading of its page confirms it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox

from app.core.project import load_project
from app.ui.shell.main_window import MainWindow
from tests.lot_fixtures import LOTS, TECHNICAL, two_lots
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router
from tests.second_reading_fixtures import build
from tests.ui.ui_helpers import click_generate, wait_for

# the offscreen platform cannot raise or grab for the combo's popup list
pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support (propagateSizeHints|raise|grabbing)")


async def choose(qtbot: Any, combo: QComboBox, index: int) -> None:
    """Open the combo's list with a click and click the item ``index`` in it, as a user does."""
    qtbot.mouseClick(combo, Qt.MouseButton.LeftButton)
    await wait_for(lambda: combo.view().isVisible())
    # the list ignores a release that comes within a double-click interval of its opening (the opening click's)
    await asyncio.sleep(QApplication.doubleClickInterval() / 1000 + 0.05)
    view = combo.view()
    rect = view.visualRect(combo.model().index(index, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    await wait_for(lambda: not combo.view().isVisible())


def _titles(window: MainWindow) -> list[str]:
    return [g.title for g in window.analysis_view.table_model.groups]


async def test_choosing_a_lot_replaces_the_rows_in_one_undo_step_and_is_saved(window: MainWindow, tmp_path: Path,
                                                                             qtbot: Any) -> None:
    path = tmp_path / "lots.docx"
    two_lots(path)
    await window.open_path(path)
    window.analysis_dock.raise_()
    c, view = window.controller, window.analysis_view
    box = view.scoring.lot_box
    await wait_for(box.isVisible)
    assert [box.itemText(k) for k in range(box.count())] == ["A包（100 分）", "B包（100 分）"]
    assert box.currentIndex() == 0 and _titles(window) == [n for n, *_ in LOTS["A包"]]
    steps = c.undo_stack.count()

    await choose(qtbot, box, 1)
    await wait_for(lambda: c.analysis.scoring_lot == 1)
    assert _titles(window) == [n for n, *_ in LOTS["B包"]]
    assert [g.title for g in c.analysis.technical_groups] == TECHNICAL["B包"]
    assert box.currentIndex() == 1 and "合计 100 分" in view.checks_label.text()
    assert c.undo_stack.count() == steps + 1 and c.undo_stack.undoText() == "改选包（标段）"
    c.undo_stack.undo()
    assert c.analysis.scoring_lot == 0 and _titles(window) == [n for n, *_ in LOTS["A包"]] and box.currentIndex() == 0
    c.undo_stack.redo()
    assert c.analysis.scoring_lot == 1 and box.currentIndex() == 1

    saved = tmp_path / "lots.bidproj"
    assert window.save_to(saved)
    assert load_project(saved).analysis.lot_name == "B包"
    assert await window.open_project(saved)
    assert window.controller.analysis.scoring_lot == 1 and box.currentIndex() == 1
    assert _titles(window) == [n for n, *_ in LOTS["B包"]]


async def test_one_to_one_chapters_follow_the_chosen_lot(window: MainWindow, tmp_path: Path,
                                                         llm_server: OpenAIServer, qtbot: Any) -> None:
    llm_server.handler = Router()
    path = tmp_path / "lots.docx"
    two_lots(path)
    await window.open_path(path)
    window.analysis_dock.raise_()
    view = window.analysis_view
    await choose(qtbot, view.scoring.lot_box, 1)
    await wait_for(lambda: window.controller.analysis.scoring_lot == 1)
    qtbot.mouseClick(view.confirm_button, Qt.MouseButton.LeftButton)  # the user checked lot B's items
    assert window.controller.analysis.scoring_user_confirmed
    window.mode_box.setCurrentIndex(window.mode_box.findData("aligned"))
    ok, message = await click_generate(window, qtbot)
    assert ok, message
    assert [ch.title for ch in window.controller.outline.chapters] == TECHNICAL["B包"]


async def test_a_single_scheme_shows_no_lot_choice(window: MainWindow, tmp_path: Path) -> None:
    path, _ = build("plain", tmp_path)
    await window.open_path(path)
    window.analysis_dock.raise_()
    view = window.analysis_view
    await wait_for(lambda: bool(view.table_model.groups))
    assert not view.scoring.lot_box.isVisible() and not view.scoring.lot_label.isVisible()


def _model_reading_lot_b() -> Router:
    router = Router()
    fallback = router.default
    reading = json.dumps({"rows": [{"name": n, "points": p, "category": cat, "group": g}
                                   for n, p, cat, g in LOTS["B包"]]}, ensure_ascii=False)

    def answer(kind: str, req: RecordedRequest) -> Reply:
        if kind == "overview":
            return Reply.text('{"project_name": "某市政务信息系统运维及设备采购项目"}')
        if kind == "second_reading":
            return Reply.text(reading)
        if '"answer"' in req.prompt_text:
            return Reply.text('{"answer": 1}')
        if kind == "scoring":
            return Reply.text('{"groups": []}')
        return fallback(kind, req)

    router.default = answer
    return router


async def test_analysing_again_reads_the_chosen_lot_twice(window: MainWindow, tmp_path: Path,
                                                         llm_server: OpenAIServer, qtbot: Any) -> None:
    """After choosing lot B, 分析招标文件 keeps lot B and the model's reading of its table confirms it."""
    llm_server.handler = _model_reading_lot_b()
    path = tmp_path / "lots.docx"
    two_lots(path)
    await window.open_path(path)
    window.analysis_dock.raise_()
    c, view = window.controller, window.analysis_view
    await choose(qtbot, view.scoring.lot_box, 1)
    await wait_for(lambda: c.analysis.scoring_lot == 1)
    assert not c.analysis.scoring_confirmed and view.doubt_label.isVisible()
    window.act_analyze.trigger()
    await wait_for(lambda: c.analysis.second_reading is not None and not c.busy, timeout=60)
    assert c.analysis.lot_name == "B包" and _titles(window) == [n for n, *_ in LOTS["B包"]]
    assert c.analysis.scoring_confirmed and view.verdict_label.isVisible()
    assert "程序与模型" in view.verdict_label.text()
    assert view.scoring.lot_box.itemText(1).endswith("✓") and not view.scoring.lot_box.itemText(0).endswith("✓")

"""The user's way out of a misread scoring table, by clicks on the real widgets (issue 36 items 3–4;
issue 37 §2 majors 5 and 6 and the minor on confirming).

Tenders are generated (tests/second_reading_fixtures.py, tests/scoring_fixtures*.py) and opened
through the window; the model, where one reads, is the loopback server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import QAbstractItemView, QLineEdit

from app.core.scoring_rows import insert_row
from app.documents.scoring.model import ScoringResult, ScoringRow, ScoringTable
from app.pipeline.analysis.tender import analyze_tender
from app.ui.shell.main_window import MainWindow
from app.ui.tender.scoring_items_model import COL_POINTS, COL_TITLE
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router
from tests.scoring_fixtures_unseen import build_any
from tests.second_reading_fixtures import Row, build
from tests.ui.scoring_clicks import candidate_texts, click_candidate_check, click_use_only
from tests.ui.ui_helpers import wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


def _row(window: MainWindow, title: str) -> int:
    return next(i for i, g in enumerate(window.analysis_view.table_model.groups) if g.title == title)


def _select(window: MainWindow, *rows: int) -> None:
    view = window.analysis_view
    selection = view.table.selectionModel()
    view.table.setCurrentIndex(view.table_model.index(rows[0], COL_TITLE))
    selection.clearSelection()
    for r in rows:
        selection.select(view.table_model.index(r, COL_TITLE),
                         QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)


async def _edit_cell(qtbot: Any, window: MainWindow, row: int, col: int, text: str) -> None:
    view = window.analysis_view
    rect = view.table.visualRect(view.table_model.index(row, col))
    qtbot.mousePress(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseRelease(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    await wait_for(lambda: any(w.isVisible() for w in view.table.viewport().findChildren(QLineEdit)))
    line = next(w for w in view.table.viewport().findChildren(QLineEdit) if w.isVisible())
    line.selectAll()
    qtbot.keyClicks(line, text) if text.isascii() else line.insert(text)
    qtbot.keyClick(line, Qt.Key.Key_Return)
    await wait_for(lambda: view.table.state() != QAbstractItemView.State.EditingState)


def _background(window: MainWindow, row: int) -> QBrush | None:
    model = window.analysis_view.table_model
    value = model.data(model.index(row, COL_TITLE), Qt.ItemDataRole.BackgroundRole)
    return value if isinstance(value, QBrush) else None


async def test_a_tick_changes_one_candidate_and_one_click_uses_another(window: MainWindow, tmp_path: Path,
                                                                      qtbot: Any) -> None:
    """Issue 37 major 6: two candidates read from one grid ticked and unticked together."""
    path, _ = build("plain", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view

    def scheme(name: str, points: float) -> ScoringTable:
        return ScoringTable(table_ids=["t1"], pages=[1], score=6.0,
                            rows=[ScoringRow(factor=name, points=points, table_id="t1", pages=[1])])

    first, second = scheme("保洁服务方案", 100), scheme("设备配置方案", 100)
    scoring = ScoringResult(found=True, tables=[first], candidates=[first, second])
    assert c.document is not None
    c.set_analysis(await analyze_tender(None, c.document, scoring=scoring))
    window.analysis_dock.raise_()
    if not view.candidates.isVisible():
        qtbot.mouseClick(view.candidates_toggle, Qt.MouseButton.LeftButton)
    assert view.candidates.checked() == [True, False]
    click_candidate_check(qtbot, view.candidates, 1)
    await wait_for(lambda: len(c.analysis.groups) == 2)
    assert view.candidates.checked() == [True, True]
    click_candidate_check(qtbot, view.candidates, 0)
    await wait_for(lambda: len(c.analysis.groups) == 1)
    assert view.candidates.checked() == [False, True] and c.analysis.groups[0].title == "设备配置方案"

    summary, _ = build("summary", tmp_path)
    await window.open_path(summary)
    window.analysis_dock.raise_()
    if not view.candidates.isVisible():
        qtbot.mouseClick(view.candidates_toggle, Qt.MouseButton.LeftButton)
    texts = candidate_texts(view.candidates)
    other = view.candidates.checked().index(False)  # a table not in use (the details, or the summary)
    before = c.undo_stack.count()
    click_use_only(qtbot, view.candidates, other)  # one click
    await wait_for(lambda: view.candidates.checked() == [i == other for i in range(len(texts))])
    wanted = next(t for t in c.analysis.scoring_tables if t.key == view.candidates.keys()[other])
    assert [g.title for g in c.analysis.groups] == [g.title for g in wanted.groups]
    assert c.undo_stack.count() == before + 1 and view.confirm_button.isVisible()


async def test_row_tools_edit_in_place_and_each_is_one_undo_step(window: MainWindow, tmp_path: Path,
                                                                 qtbot: Any) -> None:
    path, _ = build("plain", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    window.analysis_dock.raise_()
    stack = c.undo_stack
    actions = view.row_actions

    def titles() -> list[str]:
        return [g.title for g in c.analysis.groups]

    original = titles()
    _select(window, _row(window, "设备配置方案"), _row(window, "应急预案"))
    steps = stack.count()
    actions.merge.trigger()
    merged = c.analysis.groups[_row(window, "设备配置方案")]
    assert merged.points == 25 and [s.name for s in merged.sub_items] == ["设备配置方案", "应急预案"]
    assert "应急预案" not in titles() and stack.count() == steps + 1

    _select(window, _row(window, "设备配置方案"))
    actions.split.trigger()
    assert titles()[1:3] == ["设备配置方案", "应急预案"] and stack.count() == steps + 2

    _select(window, 1, 2)
    actions.down.trigger()  # the block moves as one
    assert titles()[1:4] == ["企业信誉", "设备配置方案", "应急预案"] and stack.count() == steps + 3
    assert view.row_actions.selected() == [2, 3]

    _select(window, 0)
    actions.insert.trigger()  # a new row right after the selected one, its title being edited
    await wait_for(lambda: view.table.state() == QAbstractItemView.State.EditingState)
    assert titles()[1] == "新评分项" and stack.count() == steps + 4
    line = next(w for w in view.table.viewport().findChildren(QLineEdit) if w.isVisible())
    line.selectAll()
    line.insert("节能措施")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    await wait_for(lambda: titles()[1] == "节能措施")

    _select(window, 1)
    actions.remove.trigger()
    assert "节能措施" not in titles()
    assert stack.count() == steps + 6  # merge, split, move, insert, the new title, delete
    for _ in range(6):
        stack.undo()
    assert titles() == original


async def test_a_category_row_becomes_a_group_in_one_action(window: MainWindow, tmp_path: Path) -> None:
    path, _ = build("plain", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    groups = insert_row(c.analysis.groups, 0, "技术部分")
    groups[0] = groups[0].model_copy(update={"points": 50.0, "category": "business", "decided_by": "code"})
    c.set_analysis(c.analysis.model_copy(update={"groups": groups}))
    window.analysis_dock.raise_()
    steps = c.undo_stack.count()
    _select(window, 0)
    view.row_actions.group.trigger()
    assert [g.title for g in c.analysis.groups][:3] == ["保洁服务方案", "设备配置方案", "应急预案"]
    assert {g.group_label for g in c.analysis.groups[:3]} == {"技术部分（50分）"}
    assert c.analysis.groups[3].group_label == "" and c.undo_stack.count() == steps + 1


async def test_confirming_says_the_user_confirmed_and_the_self_check_warning_goes(
        window: MainWindow, tmp_path: Path, qtbot: Any) -> None:
    """Issue 37 minor: a fixed table stayed 未能确认 until confirmed, 评分表自检未完全通过 stayed after."""
    path, _ = build("short_sum", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    window.analysis_dock.raise_()
    assert "未能确认" in view.doubt_label.text() and "自检未完全通过" in view.notes.text()
    await _edit_cell(qtbot, window, _row(window, "服务方案"), COL_POINTS, "25")
    await wait_for(lambda: "按你的修改" in view.doubt_label.text())
    assert "未能确认" not in view.doubt_label.text() and "合计 100 分" in view.doubt_label.text()
    qtbot.mouseClick(view.confirm_button, Qt.MouseButton.LeftButton)
    assert c.analysis.scoring_user_confirmed
    assert view.verdict_label.isVisible() and view.verdict_label.text() == "✓ 评分项已由你核对确认"
    assert not view.doubt_label.isVisible() and "自检未完全通过" not in view.notes.text()
    assert not any("自检未完全通过" in n for n in c.analysis.notes)


async def test_the_rows_that_explain_a_wrong_part_sum_are_marked_and_moved_in_one_click(
        window: MainWindow, tmp_path: Path, qtbot: Any) -> None:
    """Issue 37 major 5: a 商务-table row classed 技术 — the warning named the right total but marked a correct row."""
    path, _ = build_any("three_tables", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    business = next(t for t in c.analysis.scoring_tables if t.used and set(t.stated_by_category) == {"business"})
    misread = business.groups[-1].title
    guessed = business.groups[0].title
    groups = [g.model_copy(update={"category": "technical"}) if g.title == misread
              else g.model_copy(update={"doubt": "类别“商务”是按名称推断的"}) if g.title == guessed else g
              for g in c.analysis.groups]
    c.set_analysis(c.analysis.model_copy(update={"groups": groups, "scoring_confirmed": False,
                                                 "scoring_doubt": "评分表未能确认：商务各项合计不符"}))
    window.analysis_dock.raise_()
    assert _background(window, _row(window, misread)) is not None  # the row that explains both sums
    assert _background(window, _row(window, guessed)) is None  # a right row is not marked
    assert f"“{misread}”移到商务类" in view.doubt_label.text()
    assert view.fix_button.isVisible() and view.fix_button.text() == f"把“{misread}”移到商务类"
    qtbot.mouseClick(view.fix_button, Qt.MouseButton.LeftButton)
    assert next(g for g in c.analysis.groups if g.title == misread).category == "business"
    assert "✗" not in view.checks_label.text() and not view.fix_button.isVisible()


def _page_beside(window: MainWindow) -> int:
    """The page on screen beside the rows: the document pane's when the stage shows it, else the preview's."""
    pane, view = window.document_pane, window.analysis_view
    if pane.isVisible():
        assert not view.preview.isVisible()  # never twice
        return int(pane.current_page())
    assert view.preview.isVisible()
    return view.preview.page


async def test_an_unconfirmed_reading_opens_with_the_page_beside_the_rows(window: MainWindow, tmp_path: Path,
                                                                          qtbot: Any) -> None:
    path, _ = build_any("crossing", tmp_path)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    window.analysis_dock.raise_()
    assert c.analysis.needs_scoring_confirmation
    doubtful = next(g for g in c.analysis.groups if g.doubt)
    await wait_for(lambda: _page_beside(window) == doubtful.source_page, timeout=30)
    if view.preview.isVisible():
        await wait_for(lambda: view.preview.has_image, timeout=30)
        assert doubtful.title in view.preview.title.text()
    other = next((i for i, g in enumerate(c.analysis.groups) if g.source_page != doubtful.source_page), 0)
    rect = view.table.visualRect(view.table_model.index(other, COL_TITLE))
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    await wait_for(lambda: _page_beside(window) == c.analysis.groups[other].source_page)
    assert view.isVisible()  # the click stayed on the analysis
    qtbot.mouseClick(view.confirm_button, Qt.MouseButton.LeftButton)
    assert not view.preview.isVisible()  # confirmed: the rows get the room back

    window.document_dock.close()  # a layout without the document beside: the page opens in the analysis itself
    await window.open_path(build_any("narrow", tmp_path)[0])
    window.analysis_dock.raise_()
    assert c.analysis.needs_scoring_confirmation
    await wait_for(view.preview.isVisible)
    await wait_for(lambda: view.preview.has_image, timeout=30)
    first = next(g for g in c.analysis.groups if g.doubt)
    assert view.preview.page == first.source_page and first.title in view.preview.title.text()
    qtbot.mouseClick(view.preview_toggle, Qt.MouseButton.LeftButton)
    assert not view.preview.isVisible()  # and out of the way in one click


def _model_reading(rows: list[Row]) -> Router:
    router = Router()
    fallback = router.default
    reading = json.dumps({"rows": [{"name": n, "points": p, "category": cat, "group": g} for n, p, cat, g in rows]},
                         ensure_ascii=False)

    def answer(kind: str, req: RecordedRequest) -> Reply:
        if kind == "overview":
            return Reply.text('{"project_name": "某市第二人民医院后勤综合服务采购项目"}')
        if kind == "second_reading":
            return Reply.text(reading)
        if '"answer"' in req.prompt_text:
            return Reply.text('{"answer": 1}')
        if kind == "scoring":
            return Reply.text('{"groups": []}')
        return fallback(kind, req)

    router.default = answer
    return router


async def test_two_readings_side_by_side_and_one_click_takes_either(window: MainWindow, tmp_path: Path,
                                                                    llm_server: OpenAIServer, qtbot: Any) -> None:
    path, right = build("plain", tmp_path)
    # names and points as printed, but 企业信誉 and 类似项目业绩 filed under 技术: a reading that passes the check and differs
    other = [(n, p, "技术" if cat == "商务" else cat, g) for n, p, cat, g in right]
    llm_server.handler = _model_reading(other)
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    code = [(g.title, g.category) for g in c.analysis.groups]
    window.act_analyze.trigger()  # 分析招标文件 (Ctrl+R): the model reads the same pages on its own
    await wait_for(lambda: c.analysis.second_reading is not None and not c.busy, timeout=60)
    window.analysis_dock.raise_()
    await wait_for(view.compare.isVisible)
    assert not c.analysis.scoring_confirmed and c.analysis.second_reading.verified
    assert view.compare.code_table.rowCount() == view.compare.model_table.rowCount() == len(right)
    assert "不一致" in view.doubt_label.text()
    marked = [r for r in range(len(right)) if view.compare.model_table.item(r, 0).background().style() != Qt.BrushStyle.NoBrush]
    assert [right[r][0] for r in marked] == ["企业信誉", "类似项目业绩"]  # the rows that differ, in red
    rect = view.compare.model_table.visualItemRect(view.compare.model_table.item(marked[0], 0))
    qtbot.mouseClick(view.compare.model_table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    await wait_for(lambda: _page_beside(window) == c.analysis.second_reading.rows[marked[0]].source_page)
    steps = c.undo_stack.count()
    qtbot.mouseClick(view.compare.take_model, Qt.MouseButton.LeftButton)  # one click takes the model's reading
    assert [(g.title, g.category) for g in c.analysis.groups] == [
        (n, {"技术": "technical", "商务": "business", "价格": "price"}[cat]) for n, _, cat, _ in other]
    assert c.analysis.scoring_user_confirmed and not view.compare.isVisible()
    assert view.verdict_label.text() == "✓ 评分项已由你核对确认" and c.undo_stack.count() == steps + 1
    c.undo_stack.undo()
    assert [(g.title, g.category) for g in c.analysis.groups] == code and view.compare.isVisible()
    qtbot.mouseClick(view.compare.take_code, Qt.MouseButton.LeftButton)  # or code's, as well in one click
    assert [(g.title, g.category) for g in c.analysis.groups] == code
    assert c.analysis.scoring_user_confirmed and not view.compare.isVisible()


async def test_a_weak_model_s_reading_changes_nothing_on_the_page(window: MainWindow, tmp_path: Path,
                                                                  llm_server: OpenAIServer) -> None:
    path, _right = build("plain", tmp_path)
    llm_server.handler = _model_reading([("一级目录", 50, "技术", ""), ("二级目录", 50, "技术", "")])
    await window.open_path(path)
    c, view = window.controller, window.analysis_view
    before = (c.analysis.scoring_confirmed, c.analysis.scoring_doubt, [g.title for g in c.analysis.groups])
    window.act_analyze.trigger()
    await wait_for(lambda: c.analysis.second_reading is not None and not c.busy, timeout=60)
    window.analysis_dock.raise_()
    assert (c.analysis.scoring_confirmed, c.analysis.scoring_doubt, [g.title for g in c.analysis.groups]) == before
    assert not view.compare.isVisible() and "未通过原文核对" in view.notes.text()


"""The figure editor dialog and the outline's 图 menu: table edits, Chinese errors, undo, the tree's mark."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QDialogButtonBox, QMenu

from app.core.outline import Outline, OutlineNode
from app.ui.figures.editor import FigureEditorDialog
from app.ui.figures.section_figures import figure_menu, open_editor
from app.ui.outline.model import OutlineItemModel
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.figure_samples import org_figure
from tests.openai_server import OpenAIServer
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")  # dialogs offscreen


def _outline() -> Outline:
    outline = Outline([OutlineNode(title="项目组织", children=[OutlineNode(title="人员配置")])])
    outline.renumber()
    return outline


def _ok(qtbot: Any, dialog: FigureEditorDialog) -> None:
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)


def _set_cell(dialog: FigureEditorDialog, row: int, col: int, text: str) -> None:
    item = dialog.table.item(row, col)
    assert item is not None
    item.setText(text)  # what the delegate does when the user types into the cell
    dialog.refresh()  # the debounce timer would do this 300 ms later


def test_insert_an_org_chart_then_undo_and_redo(qtbot: Any) -> None:
    outline, stack = _outline(), QUndoStack()
    dialog = open_editor(outline, stack, (0, 0), None, kind="org")
    qtbot.addWidget(dialog)
    assert dialog.isVisible() and dialog.kind == "org"
    _set_cell(dialog, 0, 0, "项目总负责人")
    for row in (1, 2):
        _set_cell(dialog, row, 1, "项目总负责人")
    dialog.title_edit.setText("项目管理机构图")
    assert not dialog.preview.pixmap().isNull()
    _ok(qtbot, dialog)
    assert not dialog.isVisible()
    figures = outline.node((0, 0)).figures
    assert len(figures) == 1 and figures[0].title == "项目管理机构图"
    assert figures[0].data.units[0].name == "项目总负责人"  # type: ignore[union-attr]
    assert stack.undoText() == "插入组织机构图"
    stack.undo()
    assert outline.node((0, 0)).figures == []
    stack.redo()
    assert outline.node((0, 0)).figures == figures


def test_bad_table_shows_chinese_error_and_ok_keeps_the_dialog_open(qtbot: Any) -> None:
    outline, stack = _outline(), QUndoStack()
    dialog = open_editor(outline, stack, (0,), None, kind="org")
    qtbot.addWidget(dialog)
    _set_cell(dialog, 1, 1, "")  # a second unit without a parent: two roots
    assert "最上级岗位只能有一个" in dialog.error_label.text()
    _ok(qtbot, dialog)
    assert dialog.isVisible()
    assert outline.node((0,)).figures == [] and stack.count() == 0
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert not dialog.isVisible() and stack.count() == 0


def test_switching_to_gantt_and_adding_a_row(qtbot: Any) -> None:
    outline, stack = _outline(), QUndoStack()
    dialog = open_editor(outline, stack, (0,), None)
    qtbot.addWidget(dialog)
    dialog.kind_box.setCurrentIndex(2)
    assert dialog.kind == "gantt" and dialog.table.columnCount() == 3
    qtbot.mouseClick(dialog.add_row_button, Qt.MouseButton.LeftButton)
    row = dialog.table.rowCount() - 1
    dialog.set_rows([*dialog.rows()[:row], ["试运行", "72", "十"]])
    assert "第 4 行“天数”应为整数" in dialog.error_label.text()
    dialog.set_rows([*dialog.rows()[:row], ["试运行", "72", "10"]])
    assert dialog.error_label.text() in ("", "本机未找到中文字体，预览中的汉字可能显示为方框")
    _ok(qtbot, dialog)
    (figure,) = outline.node((0,)).figures
    assert figure.kind == "gantt" and figure.data.tasks[-1].name == "试运行"  # type: ignore[union-attr]


def test_edit_existing_figure_keeps_its_id_and_menu_deletes_it(qtbot: Any) -> None:
    outline, stack = _outline(), QUndoStack()
    existing = org_figure(6)
    outline.update((0,), figures=[existing])
    model = OutlineItemModel(outline)
    assert "〔图 1〕" in model.data(model.index(0, 0))
    dialog = open_editor(outline, stack, (0,), None, figure_id=existing.id)
    qtbot.addWidget(dialog)
    dialog.title_edit.setText("调整后的组织机构图")
    _ok(qtbot, dialog)
    (edited,) = outline.node((0,)).figures
    assert edited.id == existing.id and edited.title == "调整后的组织机构图"
    menu = figure_menu(outline, stack, (0,), dialog)
    sub = next(a.menu() for a in menu.actions() if a.menu() is not None)
    assert isinstance(sub, QMenu)
    next(a for a in sub.actions() if a.text() == "删除").trigger()
    assert outline.node((0,)).figures == [] and "〔图" not in model.data(model.index(0, 0))
    stack.undo()
    assert outline.node((0,)).figures == [edited]


async def test_model_proposal_fills_the_table_through_the_window(qapp: Any, qtbot: Any, tmp_path: Path,
                                                                 llm_server: OpenAIServer, reporter: ErrorReporter) -> None:
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    ctl.outline.replace([OutlineNode(title="应急响应", description="故障处置流程")])
    ctl.outline.renumber()
    win.show()
    try:
        steps = {"steps": [{"id": "1", "text": "接报", "shape": "start", "next": []},
                           {"id": "2", "text": "现场处置", "shape": "process", "next": []},
                           {"id": "3", "text": "结束", "shape": "end", "next": []}]}
        llm_server.push(json.dumps(steps, ensure_ascii=False))
        dialog = open_editor(ctl.outline, ctl.undo_stack, (0,), win, kind="flow",
                             proposer=win.outline_view.figure_proposer)
        assert dialog.propose_button.isEnabled()
        qtbot.mouseClick(dialog.propose_button, Qt.MouseButton.LeftButton)
        await wait_for(lambda: dialog.table.rowCount() == 3 and dialog.rows()[1][1] == "现场处置")
        assert "请核对" in dialog.error_label.text()
        _ok(qtbot, dialog)
        (figure,) = ctl.outline.node((0,)).figures
        assert figure.kind == "flow" and [s.text for s in figure.data.steps] == ["接报", "现场处置", "结束"]  # type: ignore[union-attr]
        # a broken answer three times: a Chinese message, the table kept as it was
        llm_server.push(*["不是 JSON"] * 3)
        again = open_editor(ctl.outline, ctl.undo_stack, (0,), win, figure_id=figure.id,
                            proposer=win.outline_view.figure_proposer)
        qtbot.mouseClick(again.propose_button, Qt.MouseButton.LeftButton)
        await wait_for(lambda: "模型没有给出可用的流程图数据" in again.error_label.text(), timeout=20)
        assert again.rows()[1][1] == "现场处置"
        again.reject()
    finally:
        await close_window(win)
        await asyncio.sleep(0)

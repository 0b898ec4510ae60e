"""The figure editor dialog and the outline's 图 menu: table edits, Chinese errors, undo, the tree's mark."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QDialogButtonBox, QMenu

from app.core.outline import Outline, OutlineNode
from app.ui.figures.editor import FigureEditorDialog
from app.ui.figures.section_figures import figure_menu, open_editor
from app.ui.outline.model import OutlineItemModel
from tests.figure_samples import org_figure

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

"""The 篇幅预算 dialog from the window: shares by chapter, a fixed chapter, stored in the project, cleared."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from app.ui.export.budget_dialog import LengthBudgetDialog
from tests.ui.test_export_dialog import _visible, window  # noqa: F401  (the fixture)

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


async def test_budget_dialog_sets_shares_and_drafting_targets(window: Any, qtbot: Any) -> None:  # noqa: F811
    window.act_budget.trigger()
    dialog: LengthBudgetDialog = await _visible(window, LengthBudgetDialog, "lengthBudgetDialog")
    dialog.total_spin.setValue(30)
    amounts = [int(dialog.table.item(r, 2).text()) for r in range(3)]
    assert amounts == [10, 10, 10]  # no points known: even shares
    dialog.table.item(0, 2).setText("16")  # the user fixes the first chapter
    assert [int(dialog.table.item(r, 2).text()) for r in range(3)] == [16, 7, 7]
    assert dialog.table.item(0, 2).font().bold()
    assert "目标共 30 页，已分配 30 页" in dialog.summary.text()
    dialog.limit_spin.setValue(25)
    assert "超过招标文件规定的 25 页上限" in dialog.summary.text()
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    budget = window.controller.length_budget
    assert budget is not None and budget.total == 30 and budget.fixed == {"配送服务方案": 16}
    assert budget.page_limit == 25 and window.controller.session.is_dirty
    targets = window.controller.drafting.length_targets()
    assert targets is not None and targets[(0, 0)] + targets[(0, 1)] == 16 * 700
    assert window.controller.session.snapshot().length_budget == budget  # saved with the project

    window.act_budget.trigger()
    again: LengthBudgetDialog = await _visible(window, LengthBudgetDialog, "lengthBudgetDialog")
    assert again.total_spin.value() == 30 and int(again.table.item(0, 2).text()) == 16
    qtbot.mouseClick(again.clear_button, Qt.MouseButton.LeftButton)
    assert window.controller.length_budget is None
    assert window.controller.drafting.length_targets() is None

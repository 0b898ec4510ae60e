"""The 投标文件组成 checklist model, without widgets: Qt's model checks, rows, ticks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from app.documents.forms.finder import find_forms
from app.ui.forms.board import FormsBoard
from app.ui.forms.checklist_model import FormsChecklistModel
from tests.forms_tenders import FORMS, docx_tender


def test_checklist_model_passes_qt_checks_and_reports_ticks(qtmodeltester: Any, tmp_path: Path) -> None:
    board = FormsBoard(reading=find_forms(docx_tender(tmp_path / "t.docx")))
    board.refill()
    model = FormsChecklistModel(FormsBoard())
    qtmodeltester.check(model)  # empty
    model.reset(board)
    qtmodeltester.check(model)
    assert model.rowCount() == len(FORMS) and model.columnCount() == 5
    ticks: list[tuple[int, bool]] = []
    model.done_toggled.connect(lambda row, done: ticks.append((row, done)))
    assert model.setData(model.index(2, 0), Qt.CheckState.Checked, Qt.ItemDataRole.CheckStateRole)
    assert ticks == [(2, True)]
    assert not model.setData(model.index(2, 1), "x", Qt.ItemDataRole.EditRole)
    assert model.index(0, 4).data().startswith("待填")

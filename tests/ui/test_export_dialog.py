"""The 导出 Word dialog: its choices reach the .docx, are remembered, warn about unanswered ★/▲
clauses, and an ExportError is shown with its Chinese message."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import docx
import pytest
from docx.shared import Cm
from PySide6.QtCore import QDate, QSettings, Qt
from PySide6.QtWidgets import QFileDialog, QLineEdit, QMessageBox

from app.core.breakdown import Breakdown, RiskItem
from app.core.outline import OutlineNode
from app.ui.export.dialog import ExportDialog
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.ui.ui_helpers import click_button, close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

BIDDER = "恒信配送有限公司"


@pytest.fixture
async def window(qapp: Any, tmp_path: Path) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)
    reporter = ErrorReporter(tmp_path / "data")
    ctl = AppController(reporter=reporter)
    qs = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(ctl, reporter=reporter, qsettings=qs, model_configured=False)
    ctl.outline.replace([
        OutlineNode(title="配送服务方案", description="说明配送全流程", children=[
            OutlineNode(title="配送流程", description="从下单到验收", content="订单每日十六点前汇总，次日六点前送达。"),
            OutlineNode(title="车辆管理", content="配送车辆均为冷藏车。")]),
        OutlineNode(title="食品安全保障", children=[OutlineNode(title="检测制度", content="每批次留样四十八小时。")]),
        OutlineNode(title="售后服务", children=[OutlineNode(title="投诉处理", content="接到投诉两小时内响应。")]),
    ])
    ctl.outline.renumber()
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)




async def _visible(window: MainWindow, cls: Any, name: str | None = None) -> Any:
    found: list[Any] = []

    def look() -> bool:
        for w in window.findChildren(cls):
            if w.isVisible() and (name is None or w.objectName() == name):
                found.append(w)
                return True
        return False

    await wait_for(look)
    return found[0]




async def test_dialog_choices_reach_the_docx_and_are_remembered(window: MainWindow, tmp_path: Path) -> None:
    task = window.controller.spawn("dialog", window.choose_and_export())
    dialog: ExportDialog = await _visible(window, ExportDialog, "exportDialog")
    assert not dialog.warning_label.isVisible()  # no breakdown: nothing to warn about
    assert dialog.chapter_list.count() == 3 and dialog.checked_chapters() == (0, 1, 2)
    dialog.preset_box.setCurrentIndex(dialog.preset_box.findData("正式装订版"))
    dialog.numbering_box.setCurrentIndex(dialog.numbering_box.findData("chinese"))
    dialog.project_edit.setText("某单位食堂食材配送服务")
    dialog.bidder_edit.setText(BIDDER)
    dialog.date_edit.setDate(QDate(2026, 12, 5))
    dialog.descriptions_check.setChecked(True)
    dialog.page_break_check.setChecked(False)
    dialog.chapter_list.item(1).setCheckState(Qt.CheckState.Unchecked)
    dialog.layout_check.setChecked(False)  # the layout pass has its own test (LibreOffice takes seconds)
    assert not dialog.index_check.isEnabled() and not dialog.deviation_check.isEnabled()  # no items, no clauses
    assert dialog.ok_button.isEnabled()
    dialog.ok_button.click()

    target = tmp_path / "技术标.docx"
    chooser: QFileDialog = await _visible(window, QFileDialog)
    assert chooser.acceptMode() == QFileDialog.AcceptMode.AcceptSave
    name_edit = chooser.findChild(QLineEdit, "fileNameEdit")  # Qt's own (non-native) file dialog
    assert name_edit is not None and name_edit.text().endswith("-技术标.docx")
    name_edit.setText(str(target))
    chooser.accept()
    await asyncio.wait_for(task, timeout=10)
    assert target.is_file() and not window.error_dialogs

    doc = docx.Document(str(target))
    texts = [p.text for p in doc.paragraphs]
    assert "某单位食堂食材配送服务" in texts
    assert f"投标人：{BIDDER}（盖章）" in texts
    assert "日　期：2026年12月5日" in texts
    headings = [p.text for p in doc.paragraphs if p.style.name.startswith("Heading")]
    assert headings == ["一、配送服务方案", "（一）配送流程", "（二）车辆管理", "二、售后服务", "（一）投诉处理"]
    assert "【编写提示】从下单到验收" in texts  # descriptions included
    assert not any("食品安全保障" in t for t in texts)  # the unchecked chapter is left out
    assert doc.styles["Heading 1"].paragraph_format.page_break_before is False
    assert abs(doc.sections[0].gutter - Cm(1.0)) < Cm(0.01)  # 正式装订版 binding margin (stored in twips)

    # The next export starts from the same choices (except the chapter selection and the date).
    again = window.controller.spawn("dialog", window.ask_export_choices())
    second: ExportDialog = await _visible(window, ExportDialog, "exportDialog")
    assert second is not dialog
    assert second.preset_box.currentData() == "正式装订版"
    assert second.numbering_box.currentData() == "chinese"
    assert second.bidder_edit.text() == BIDDER
    assert second.descriptions_check.isChecked() and not second.page_break_check.isChecked()
    assert second.checked_chapters() == (0, 1, 2)
    assert not second.layout_check.isChecked() or not second.layout_check.isEnabled()
    second.set_all_chapters(False)
    assert not second.ok_button.isEnabled()  # nothing to export: cannot accept
    second.reject()
    assert await asyncio.wait_for(again, timeout=5) is None


async def test_unanswered_marked_clauses_are_warned_about_before_export(window: MainWindow) -> None:
    c = window.controller
    c.set_breakdown(Breakdown(status="executable", risks=[
        RiskItem(text="▲投标人须承诺每日六点前送达，否则按无效投标处理", page=12, category="rejection",
                 origin="code", mark="▲"),
        RiskItem(text="★须提供冷链运输车辆证明", page=13, category="rejection", origin="code", mark="★",
                 answered_in="1.2"),
        RiskItem(text="配送路线可能受交通管制影响", category="delivery")]))
    task = c.spawn("dialog", window.ask_export_choices())
    dialog: ExportDialog = await _visible(window, ExportDialog, "exportDialog")
    assert dialog.warning_label.isVisible()
    warning = dialog.warning_label.text()
    assert "1 条" in warning and "每日六点前送达" in warning and "第12页" in warning
    assert "冷链运输车辆" not in warning  # answered in 1.2
    dialog.ok_button.click()
    box = await _visible(window, QMessageBox, "unansweredClausesBox")
    assert "每日六点前送达" in box.text()
    click_button(box, "返回检查")
    assert await asyncio.wait_for(task, timeout=5) is None  # no export, no file dialog
    assert window.breakdown_dock.isVisible()

    task = c.spawn("dialog", window.ask_export_choices())
    dialog = await _visible(window, ExportDialog, "exportDialog")
    dialog.ok_button.click()
    box = await _visible(window, QMessageBox, "unansweredClausesBox")
    click_button(box, "仍然导出")
    choices = await asyncio.wait_for(task, timeout=5)
    assert choices is not None and choices.options.chapters is None

    # Once every marked clause is answered, the dialog says nothing and no question follows.
    answered = c.breakdown.model_copy(deep=True) if c.breakdown else Breakdown()
    answered.risks[0].answered_in = "1.1"
    c.set_breakdown(answered)
    task = c.spawn("dialog", window.ask_export_choices())
    dialog = await _visible(window, ExportDialog, "exportDialog")
    assert not dialog.warning_label.isVisible()
    dialog.ok_button.click()
    assert await asyncio.wait_for(task, timeout=5) is not None
    assert window.findChild(QMessageBox, "unansweredClausesBox") is None or not window.findChild(
        QMessageBox, "unansweredClausesBox").isVisible()


async def test_export_error_is_shown_with_its_chinese_message(window: MainWindow, tmp_path: Path) -> None:
    c = window.controller
    c.outline.update((2, 0), content=f"{BIDDER}承诺接到投诉两小时内响应。")  # names the bidder: not allowed in 暗标
    task = c.spawn("dialog", window.ask_export_choices())
    dialog: ExportDialog = await _visible(window, ExportDialog, "exportDialog")
    dialog.preset_box.setCurrentIndex(dialog.preset_box.findData("暗标"))
    assert not dialog.date_edit.isEnabled() and "检查正文" in dialog.preset_note.text()
    dialog.bidder_edit.setText(BIDDER)
    dialog.ok_button.click()
    # 提交前检查 names the leak first; going on anyway, the writer's own check still refuses.
    from app.ui.evaluation.checks_dialog import SubmissionChecksDialog

    checks: SubmissionChecksDialog = await _visible(window, SubmissionChecksDialog, "submissionChecksDialog")
    assert any("投标人名称" in checks.list.topLevelItem(i).text(0) for i in range(checks.list.topLevelItemCount()))
    assert checks.go_button is not None
    checks.go_button.click()
    choices = await asyncio.wait_for(task, timeout=5)
    assert choices is not None and choices.options.preset == "暗标"
    target = tmp_path / "暗标.docx"
    assert window.export_word_to(target, choices) is None
    assert not target.exists()
    await wait_for(lambda: bool(window.error_dialogs))
    shown = window.error_dialogs[0]
    assert shown.isVisible()
    assert f"暗标文件中不得出现投标人名称“{BIDDER}”" in shown.message and "投诉处理" in shown.message
    assert "Traceback" not in shown.message
    assert window.controller.reporter is not None and not window.controller.reporter.crash_log_path.exists()

"""视图 → 投标文件组成: the checklist, a form with its blanks, the price typed once, 文件 → 导出商务标…,
提交前检查's 商务 rows, and what the user typed kept in the project file."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import docx
import pytest
from PySide6.QtCore import QSettings, Qt

from app.library.facts import save_facts
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.forms_fixtures import COMPANY, sample_facts
from tests.forms_tenders import FORMS, docx_tender
from tests.openai_server import OpenAIServer
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer, reporter: ErrorReporter,
                 monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[MainWindow]:
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)


def _menu_action(window: MainWindow, menu: str, name: str) -> Any:
    """The action as the menu shows it (the user's path: 视图 → …, 文件 → …)."""
    top = next(a.menu() for a in window.menuBar().actions() if a.text().startswith(menu))
    return next(a for a in top.actions() if a.objectName() == name)


async def _open(window: MainWindow, tmp_path: Path) -> Any:
    store = window.library.store()
    assert store is not None
    save_facts(store, sample_facts(tmp_path / "files"))
    await window.open_path(docx_tender(tmp_path / "图书馆物业.docx"))
    host = window.forms
    view_action = _menu_action(window, "视图", "viewFormsAction")
    assert not host.dock.isVisible() and host.board.reading is None  # a hidden dock reads nothing
    view_action.trigger()  # 视图 → 投标文件组成
    await wait_for(lambda: host.board.reading is not None and host.panel.model.rowCount() == len(FORMS), timeout=30)
    return host


async def test_checklist_form_view_and_price_typed_once(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    host = await _open(window, tmp_path)
    p = host.panel
    model = p.model
    assert [model.index(r, 1).data() for r in range(model.rowCount())][:2] == ["一、投标函", "二、开标一览表"]
    assert model.index(6, 2).data() == "视情况（如有）" and model.index(7, 2).data() == "必须（格式自拟）"
    assert "规定了 8 份格式" in p.summary.text()
    # the bid letter: company facts filled and marked, the price still empty
    p.table.selectRow(0)
    html = p.view.browser.toHtml()
    assert COMPANY["name"] in html and "待填：" in html
    sources = [p.view.table.item(r, 2).text() for r in range(p.view.table.rowCount())]
    assert any("企业资料 › 企业基本信息" in s for s in sources)
    # the price typed once in the 报价 fields: its capitals shown, copied into the letter and the 开标一览表
    price = p.price.edits["price"]
    price.setFocus()
    qtbot.keyClicks(price, "1286500")
    qtbot.keyClick(price, Qt.Key.Key_Return)
    await wait_for(lambda: window.controller.session.bid_forms.values.get("price") == "1286500")
    assert p.price.words.text() == "人民币壹佰贰拾捌万陆仟伍佰元整"
    assert "壹佰贰拾捌万陆仟伍佰" in p.view.browser.toHtml()
    p.table.selectRow(1)
    assert "1,286,500.00" in p.view.browser.toHtml()
    assert window.controller.session.is_dirty  # a change to save
    # a value typed for one blank, and a form ticked done
    p.table.selectRow(0)
    row = next(r for r in range(p.view.table.rowCount()) if p.view.table.item(r, 0).text() == "服务期")
    p.view.table.item(row, 1).setText("三年")
    await wait_for(lambda: "三年" in window.controller.session.bid_forms.blank_values.values())
    assert model.setData(model.index(0, 0), Qt.CheckState.Checked, Qt.ItemDataRole.CheckStateRole)
    assert window.controller.session.bid_forms.done == [host.board.forms[0].key]
    # 不适用 on the conditional consortium form
    p.table.selectRow(6)
    qtbot.mouseClick(p.na_button, Qt.MouseButton.LeftButton)
    assert model.index(6, 4).data() == "不适用"


async def test_export_from_the_file_menu_and_the_checks(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    await _open(window, tmp_path)
    action = _menu_action(window, "文件", "exportFormsAction")
    target = tmp_path / "商务部分.docx"

    async def answer() -> None:
        from app.ui.forms.export_flow import FormsExportDialog

        await wait_for(lambda: any(isinstance(w, FormsExportDialog) and w.isVisible() for w in window.findChildren(
            FormsExportDialog)))
        dialog = next(w for w in window.findChildren(FormsExportDialog) if w.isVisible())
        dialog.path_edit.setText(str(target))
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    answering = asyncio.ensure_future(answer())
    action.trigger()  # 文件 → 导出商务标…
    await answering
    await wait_for(lambda: "商务标已导出" in window.statusBar().currentMessage(), timeout=90)
    doc = docx.Document(str(target))
    assert any(p.text == "一、投标函" for p in doc.paragraphs)
    # 提交前检查 reads the 商务 part too: required forms with blanks left, and nothing about 暗标
    from app.ui.evaluation.checks_dialog import window_findings

    rules = {f.rule for f in window_findings(window)}
    assert "投标文件组成" in rules and "暗标" not in rules


async def test_export_as_one_file_before_the_technical_part(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    from tests.export_sample import sample_chapters

    await _open(window, tmp_path)
    window.controller.outline.replace(sample_chapters())  # the technical part as drafted
    target = tmp_path / "投标文件.docx"

    async def answer() -> None:
        from app.ui.forms.export_flow import FormsExportDialog

        await wait_for(lambda: any(isinstance(w, FormsExportDialog) and w.isVisible() for w in window.findChildren(
            FormsExportDialog)))
        dialog = next(w for w in window.findChildren(FormsExportDialog) if w.isVisible())
        dialog.path_edit.setText(str(target))
        from PySide6.QtCore import QPoint

        # 与技术部分合为一个文件（商务部分在前）: a click on its round indicator
        qtbot.mouseClick(dialog.before, Qt.MouseButton.LeftButton, pos=QPoint(8, dialog.before.height() // 2))
        assert dialog.before.isChecked()
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    answering = asyncio.ensure_future(answer())
    _menu_action(window, "文件", "exportFormsAction").trigger()
    await answering
    await wait_for(lambda: "商务标已导出" in window.statusBar().currentMessage(), timeout=120)
    doc = docx.Document(str(target))
    texts = [p.text for p in doc.paragraphs]
    assert texts.index("目  录（商务部分）") < texts.index("一、投标函") < texts.index("目  录（技术部分）")
    assert len(doc.sections) == 4 and window.forms.board.state.export.placement == "before_technical"


async def test_what_the_user_typed_is_saved_with_the_project(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    host = await _open(window, tmp_path)
    host.panel.price.edits["date"].setText("2026-06-30")
    host.panel.price.edits["date"].editingFinished.emit()
    path = window.controller.session.save(tmp_path / "bid.bidproj")
    from app.core.project import load_project

    assert load_project(path).bid_forms is not None and load_project(path).bid_forms.values["date"] == "2026-06-30"


async def test_the_facts_template_names_every_column_and_reads_back(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    from openpyxl import load_workbook
    from PySide6.QtWidgets import QFileDialog

    from app.library.facts import COLUMNS, KIND_LABELS, read_facts_xlsx

    target = tmp_path / "模板.xlsx"
    facts = window.library.facts
    qtbot.mouseClick(facts.template_button, Qt.MouseButton.LeftButton)  # a save dialog, not blocking the window
    await wait_for(lambda: any(d.isVisible() for d in facts.findChildren(QFileDialog)))
    chooser = next(d for d in facts.findChildren(QFileDialog) if d.isVisible())
    chooser.selectFile(str(target))
    chooser.accept()
    await wait_for(target.exists)
    assert "已保存企业资料模板" in facts.status.text()
    wb = load_workbook(str(target))
    for kind, fields in COLUMNS.items():
        header = [c.value for c in wb[KIND_LABELS[kind]][1]]
        assert header == [aliases[0] for aliases in fields.values()]
    # a filled template reads back as facts of each kind
    ws = wb[KIND_LABELS["company"]]
    ws.append([COMPANY.get(f, "") if f != "name" else COMPANY["name"] for f in COLUMNS["company"]])
    wb.save(str(target))
    got = read_facts_xlsx(target)
    assert any(f.kind == "company" and f.data["name"] == COMPANY["name"] for f in got.facts)


async def test_the_checks_read_the_forms_even_if_the_panel_was_never_shown(window: MainWindow, tmp_path: Path) -> None:
    from app.ui.evaluation.checks_dialog import window_findings

    await window.open_path(docx_tender(tmp_path / "图书馆物业.docx"))
    assert window.forms.board.reading is None  # the panel was never on show
    rules = [f.rule for f in window_findings(window)]
    assert "投标文件组成" in rules and window.forms.board.reading is not None

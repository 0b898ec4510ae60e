"""The library in the window: import with progress and cancel, list/search/remove, 历史标书 insert and structure
(one undo step each, names replaced), 查重 with jump-to and .xlsx export."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt

from app.core.analysis import Analysis, ProjectOverview
from app.core.outline import OutlineNode
from app.ui.outline.model import COL_DESCRIPTION
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.library_fixtures import OWN_OUTLINES, make_bid, write_docx
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


def _bids(folder: Path, n: int) -> list[Any]:
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for i in range(n):
        bid = make_bid(i, OWN_OUTLINES[i % len(OWN_OUTLINES)], paragraphs=3)
        write_docx(bid, folder / f"bid{i:02d}.docx")
        made.append(bid)
    return made


async def test_import_cancel_list_search_remove(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    lib = window.library
    assert not lib.path.exists()  # nothing is created until the library is used
    _bids(tmp_path / "bids", 12)
    lib.dock.toggleViewAction().trigger()
    panel = lib.panel
    assert panel.import_paths([tmp_path / "bids"])
    await wait_for(lambda: panel.cancel_button.isVisible())
    qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: not panel.cancel_button.isVisible(), timeout=30)
    stored = panel.bids.rowCount()
    assert 0 <= stored < 12 and len(panel.last_outcomes) == stored
    assert panel.import_paths([tmp_path / "bids"])
    await wait_for(lambda: panel.worker is None and not panel.cancel_button.isVisible(), timeout=60)
    assert panel.bids.rowCount() == 12 and "导入完成：新增" in panel.status.text()
    assert ("已在资料库中" in panel.status.text()) == (stored > 0)
    panel.search_box.setText("应急响应流程")
    qtbot.keyClick(panel.search_box, Qt.Key.Key_Return)
    assert panel.results.rowCount() > 0 and panel.results.item(0, 0).text() == "应急响应流程"
    panel.bids.selectRow(0)
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    assert panel.bids.rowCount() == 11 and lib.store().counts()[0] == 11  # type: ignore[union-attr]


async def test_past_section_insert_replaces_names_in_one_undo_step_and_structure(
        window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    lib = window.library
    past = _bids(tmp_path / "bids", 3)
    lib.panel.import_paths([tmp_path / "bids"])
    await wait_for(lambda: lib.panel.worker is None and lib.panel.bids.rowCount() == 3, timeout=60)
    c = window.controller
    c.analysis = Analysis(overview=ProjectOverview(project_name="新区智慧停车项目", buyer="新区城市管理局"))
    c.outline.replace([OutlineNode(title="服务方案", children=[OutlineNode(title="应急预案"), OutlineNode(title="日常巡检")])])
    window.outline_view.select_path((0, 0))
    window.section_dock.show()  # opening the section editor brings the past sections beside it
    await wait_for(lambda: lib.past_dock.isVisible())
    await wait_for(lambda: lib.past.list.count() > 0)
    hit = lib.past.selected()
    assert hit is not None and hit.section.title == "应急预案" and hit.source.startswith("历史标书：")
    old_project = hit.section.project
    before = c.undo_stack.count()
    qtbot.mouseClick(lib.past.insert_button, Qt.MouseButton.LeftButton)
    content = c.outline.node((0, 0)).content
    assert "新区智慧停车项目" in content and old_project not in content and "〔日期〕" not in content
    assert f"“{old_project}” → “新区智慧停车项目”" in lib.past.review.text()
    assert c.undo_stack.count() == before + 1
    window.act_undo.trigger()
    assert c.outline.node((0, 0)).content == ""
    # a chapter takes a past section's sub-headings (the candidates also come up beside the heading library)
    lib.past_dock.hide()
    window.library_dock.hide()  # (the first-start layout may already show it, or keep it behind a tab)
    window.library_dock.show()
    window.library_dock.raise_()
    await wait_for(lambda: lib.past_dock.isVisible())
    window.outline_view.select_path((0,))
    await wait_for(lambda: lib.past.list.count() > 0)
    lib.past.list.setCurrentRow(0)
    chosen = lib.past.selected()
    assert chosen is not None and chosen.section.title == "服务方案"
    before = c.undo_stack.index()
    qtbot.mouseClick(lib.past.structure_button, Qt.MouseButton.LeftButton)
    assert c.undo_stack.index() == before + 1  # the whole structure, all levels, is one step
    chapter = c.outline.node((0,))
    kids = [k.title for k in chapter.children]
    assert kids == ["服务内容", "服务流程"] and [k.title for k in chapter.children[1].children] == ["日常巡检", "故障处理"]
    marked = [n for _, n in chapter.walk()]
    assert all(n.origin == "history" for n in marked)  # 历史标书, with bid and section as the source
    source = f"历史标书“{chosen.section.bid_name}” › 服务方案"
    assert all(n.origin_source == source and not n.description for n in marked)
    model = window.outline_view.outline_model
    first = model.index_for_path((0, 0)).siblingAtColumn(COL_DESCRIPTION)  # 服务内容, under the chapter
    assert model.data(first) == f"〔{source}〕"  # the source is shown where the description stands
    assert f"来源：{source}" in model.data(first, Qt.ItemDataRole.ToolTipRole)
    window.act_undo.trigger()
    assert c.undo_stack.index() == before
    assert [k.title for k in c.outline.node((0,)).children] == ["应急预案", "日常巡检"]
    assert all(not k.children and k.origin is None for k in c.outline.node((0,)).children)
    assert past  # generated


async def test_check_dock_finds_stale_name_jumps_and_exports(window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    lib = window.library
    past = _bids(tmp_path / "bids", 2)
    lib.panel.import_paths([tmp_path / "bids"])
    await wait_for(lambda: lib.panel.worker is None and lib.panel.bids.rowCount() == 2, timeout=60)
    c = window.controller
    c.analysis = Analysis(overview=ProjectOverview(project_name="新区智慧停车项目", buyer="新区城市管理局"))
    c.outline.replace([OutlineNode(title="概述", content="本项目为新区智慧停车项目。"),
                       OutlineNode(title="服务承诺", content=f"我方承诺向{past[1].client}提供优质服务。")])
    lib.check_action.trigger()  # type: ignore[union-attr]
    assert lib.check_dock.isVisible()
    table = lib.checks.table
    assert table.rowCount() == 1 and table.item(0, 1).text() == past[1].client
    assert "其他项目的名称" in lib.checks.summary.text()
    window.resizeDocks([lib.check_dock], [260], Qt.Orientation.Vertical)
    await wait_for(lambda: table.viewport().height() > 40 and table.visualItemRect(table.item(0, 1)).height() > 0)
    rect = table.visualItemRect(table.item(0, 1))
    qtbot.mousePress(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # a double click's first press
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.outline_view.current_path() == (1,)
    editor = window.section_editor  # the name is marked in the section's text, selected and in view
    assert window.section_dock.isVisible() and editor.rendered.textCursor().selectedText() == past[1].client
    marks = editor.rendered.extraSelections()
    assert len(marks) == 1 and marks[0].cursor.selectedText() == past[1].client
    out = lib.checks.export(tmp_path / "查重结果.xlsx")
    assert out is not None and out.stat().st_size > 0
    c.outline.update((1,), content="我方承诺提供优质服务。")
    qtbot.mouseClick(lib.checks.check_button, Qt.MouseButton.LeftButton)
    assert table.rowCount() == 0 and "未发现问题" in lib.checks.summary.text()


async def test_company_facts_tab_imports_xlsx_flags_expired_and_takes_typed_rows(
        window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    from tests.test_library_facts import _workbook

    lib = window.library
    lib.dock.toggleViewAction().trigger()
    lib.tabs.setCurrentIndex(1)
    facts = lib.facts
    with qtbot.waitSignal(facts.imported, timeout=20_000) as got:
        assert facts.import_xlsx(_workbook(tmp_path / "企业资料.xlsx"))
    assert got.args == [5]
    assert "未识别的工作表：说明" in facts.status.text()
    facts.kind_box.setCurrentIndex(facts.kind_box.findData("certificate"))
    status = next(c for c in range(facts.table.columnCount()) if facts.table.horizontalHeaderItem(c).text() == "状态")
    assert facts.table.rowCount() == 2 and facts.table.item(0, status).text() == "已过期"
    assert "1 本已过有效期" in facts.status.text()
    facts.kind_box.setCurrentIndex(facts.kind_box.findData("equipment"))
    qtbot.mouseClick(facts.add_button, Qt.MouseButton.LeftButton)
    for col, value in enumerate(("全站仪", "TS-09", "2", "良好")):
        facts.table.item(0, col).setText(value)
    qtbot.mouseClick(facts.save_button, Qt.MouseButton.LeftButton)
    assert facts.table.rowCount() == 1 and facts.table.item(0, 0).data(256) is not None
    assert "设备：1 条" in facts.status.text()


def _many_rows(path: Path, rows: int) -> Path:
    """A 人员 sheet of ``rows`` rows, written as a stream, with no <dimension> (openpyxl's write-only mode
    writes none: its read-only mode then parsed the whole sheet to find one)."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet("人员")
    sheet.append(["姓名", "拟任岗位", "证书", "工作年限"])
    for i in range(rows):
        sheet.append([f"员工{i:06d}", "保洁员", "健康证", i % 30])
    book.save(str(path))
    return path


async def test_a_huge_facts_workbook_is_read_in_a_worker_and_cut_with_a_message(
        window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    """Issue 37 §3.5: 企业资料 from an .xlsx with far more rows than a company has — clicking 从 Excel 导入…
    reads it in a worker (the window keeps handling events), takes the first 5,000 rows of the sheet
    and says in Chinese that the rest was left out."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QFileDialog

    from app.library.xlsx_rows import MAX_SHEET_ROWS

    big = _many_rows(tmp_path / "人员花名册.xlsx", 30_000)
    lib = window.library
    lib.dock.toggleViewAction().trigger()
    lib.tabs.setCurrentIndex(1)
    facts = lib.facts
    qtbot.mouseClick(facts.import_button, Qt.MouseButton.LeftButton)
    chooser = window.findChild(QFileDialog, "factsImportDialog")
    await wait_for(lambda: chooser is not None and chooser.isVisible())
    assert chooser is not None
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(5)
    with qtbot.waitSignal(facts.imported, timeout=60_000) as got:
        chooser.selectFile(str(big))
        chooser.accept()
        assert facts.importing and not facts.import_button.isEnabled() and "正在读取" in facts.status.text()
    timer.stop()
    assert got.args == [MAX_SHEET_ROWS - 1]  # the header is one of the rows read
    assert len(ticks) >= 3, ticks  # the GUI thread ran while the workbook was read
    text = facts.status.text()
    assert "只读取了前 5,000 行" in text and "人员" in text and "其余未导入" in text, text
    assert facts.kind == "staff" and facts.table.rowCount() == MAX_SHEET_ROWS - 1


async def test_outline_run_takes_past_bids_only_when_the_library_has_some(
        window: MainWindow, tmp_path: Path, llm_server: OpenAIServer) -> None:
    """An empty library changes nothing; once it holds a past bid about a chapter, the run marks that
    chapter's headings 历史标书 with their source."""
    from tests.library_fixtures import PAST_QUALITY, QUALITY_BID
    from tests.openai_server import Reply
    from tests.pipeline_support import Router
    from tests.test_past_bid_candidates import GARBAGE, _analysis

    llm_server.handler = Router(lambda kind, req: Reply.text(GARBAGE))  # a weak model: code fills the chapters
    lib, c = window.library, window.controller
    c.analysis = _analysis(("质量保证措施", "质量管理体系健全、质量检查制度完善的得10分"), ("应急预案", "包括应急组织"))
    assert lib.store() is not None and c.past_bids() is None  # open, but empty
    outcome = await c.generate_outline("aligned")
    assert outcome.ok, outcome.message
    assert not any(n.origin == "history" for _, n in c.outline.walk())
    assert not any("历史标书" in r.prompt_text for r in llm_server.completion_requests)
    folder = tmp_path / "past"
    folder.mkdir()
    write_docx(make_bid(5, QUALITY_BID), folder / "quality.docx")
    lib.panel.import_paths([folder])
    await wait_for(lambda: lib.panel.worker is None and lib.panel.bids.rowCount() == 1, timeout=60)
    assert c.past_bids() is not None
    outcome = await c.generate_outline("aligned")
    assert outcome.ok, outcome.message
    past = [n for n in c.outline.chapters[0].children if n.origin == "history"]
    assert [n.title for n in past] == PAST_QUALITY
    assert all(n.origin_source == "历史标书“quality” › 质量保证措施" for n in past)


async def test_compare_button_lists_shared_slips_the_open_tender_does_not_write(
        window: MainWindow, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from docx import Document

    from tests.test_library_typos import _planted, _text

    lib = window.library
    other = Document()
    other.add_heading("实施方案", level=1)
    for line in _text(1, _planted()).splitlines():
        other.add_paragraph(line)
    other_path = tmp_path / "other.docx"
    other.save(str(other_path))
    c = window.controller
    c.outline.replace([OutlineNode(title="实施方案", content=_text(0, [])),
                       OutlineNode(title="运维服务", content="\n".join(_planted()))])
    lib.check_dock.show()

    async def compare_with(path: Path) -> None:
        from PySide6.QtWidgets import QFileDialog

        qtbot.mouseClick(lib.checks.compare_button, Qt.MouseButton.LeftButton)
        await wait_for(lambda: any(d.isVisible() for d in lib.checks.findChildren(QFileDialog)))
        chooser = next(d for d in lib.checks.findChildren(QFileDialog) if d.isVisible())
        chooser.selectFile(str(path))
        chooser.accept()
        await wait_for(lambda: "对比" in lib.checks.summary.text() and not chooser.isVisible())

    def slips() -> list[str]:
        table = lib.checks.table
        return sorted(table.item(r, 1).text() for r in range(table.rowCount()) if table.item(r, 0).text() == "相同的错别字")

    await compare_with(other_path)
    assert len(slips()) == 3
    tender = Document()
    tender.add_paragraph("服务要求：投标人须每日巡捡机房并做好记录。")
    tender_path = tmp_path / "tender.docx"
    tender.save(str(tender_path))
    await c.open_tender(tender_path)  # the tender writes one of them: the bidders copied it from there
    lib.checks.summary.setText("")
    await compare_with(other_path)
    assert len(slips()) == 2 and not any("捡" in s for s in slips())


async def test_inserting_a_past_section_keeps_its_table_a_table_through_to_the_word_file(
        window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    import docx

    from app.export import ExportMeta, ExportOptions
    from app.ui.export.dialog import ExportChoices
    from app.ui.export.flow import export_word
    from tests.library_fixtures import STAFF_HEADER, staff_rows

    lib = window.library
    (bid,) = _bids(tmp_path / "bids", 1)  # its first chapter (项目理解) holds the staff table
    lib.panel.import_paths([tmp_path / "bids"])
    await wait_for(lambda: lib.panel.worker is None and lib.panel.bids.rowCount() == 1, timeout=60)
    c = window.controller
    c.outline.replace([OutlineNode(title="项目理解")])
    window.outline_view.select_path((0,))
    window.section_dock.show()
    await wait_for(lambda: lib.past_dock.isVisible() and lib.past.list.count() > 0)
    lib.past.list.setCurrentRow(0)
    assert lib.past.selected().section.title == "项目理解"  # type: ignore[union-attr]
    qtbot.mouseClick(lib.past.insert_button, Qt.MouseButton.LeftButton)
    content = c.outline.node((0,)).content
    rows = staff_rows(bid)
    assert "| " + " | ".join(STAFF_HEADER) + " |" in content.splitlines()  # a table, not tab-separated lines
    assert "\t" not in content
    target = tmp_path / "out.docx"
    choices = ExportChoices(ExportMeta(project_name="新项目"), ExportOptions(layout_pass=False))
    assert await export_word(window, target, choices) == target
    tables = [[[cell.text for cell in row.cells] for row in t.rows] for t in docx.Document(str(target)).tables]
    assert rows in tables  # header and both people, cell by cell, in one Word table


async def test_another_project_leaves_nothing_of_the_old_one_in_the_library_docks(
        window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QMessageBox

    from tests.ui.ui_helpers import click_button

    lib = window.library
    past = _bids(tmp_path / "bids", 2)
    lib.panel.import_paths([tmp_path / "bids"])
    await wait_for(lambda: lib.panel.worker is None and lib.panel.bids.rowCount() == 2, timeout=60)
    c = window.controller
    c.outline.replace([OutlineNode(title="应急预案", content=f"我方承诺向{past[1].client}提供优质服务。")])
    window.outline_view.select_path((0,))
    window.section_dock.show()
    await wait_for(lambda: lib.past_dock.isVisible() and lib.past.list.count() > 0)
    qtbot.mouseClick(lib.past.insert_button, Qt.MouseButton.LeftButton)
    assert "请核对替换" in lib.past.review.text()
    lib.check_action.trigger()  # type: ignore[union-attr]
    assert lib.checks.table.rowCount() >= 1
    window.act_new.trigger()  # 新建项目
    await wait_for(lambda: window.findChild(QMessageBox, "unsavedBox") is not None
                   and window.findChild(QMessageBox, "unsavedBox").isVisible())
    click_button(window.findChild(QMessageBox, "unsavedBox"), "不保存")
    await wait_for(lambda: len(c.outline) == 0)
    assert lib.past.list.count() == 0 and lib.past.review.text() == ""  # the old heading's candidates are gone
    assert lib.checks.table.rowCount() == 0 and lib.checks.summary.text() == "尚未查重"
    assert lib.panel.bids.rowCount() == 2  # the library itself stays


async def test_compare_finds_a_sentence_copied_with_three_characters_changed(
        window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    from docx import Document
    from PySide6.QtWidgets import QFileDialog

    mine = ("我方针对本项目组建了专业的运维服务团队，由项目经理统一负责，每月组织一次全面巡检并形成书面报告，"
            "对发现的问题在二十四小时内完成整改并报采购人复核确认后存档备查。")
    theirs = mine.replace("每月", "每周").replace("报告", "记录")  # 80 characters, 3 of them changed
    assert len(mine) >= 80 and sum(a != b for a, b in zip(mine, theirs, strict=True)) == 3
    other = Document()
    other.add_heading("运维服务方案", level=1)
    other.add_paragraph("本项目的服务范围包括机房巡检、设备维护和故障处理。" + theirs)
    other_path = tmp_path / "另一投标人.docx"
    other.save(str(other_path))
    c = window.controller
    c.outline.replace([OutlineNode(title="服务方案", children=[OutlineNode(title="运维团队", content=mine)])])
    c.outline.renumber()
    lib = window.library
    lib.check_dock.show()
    qtbot.mouseClick(lib.checks.compare_button, Qt.MouseButton.LeftButton)  # 与其他投标文件对比…
    await wait_for(lambda: any(d.isVisible() for d in lib.checks.findChildren(QFileDialog)))
    chooser = next(d for d in lib.checks.findChildren(QFileDialog) if d.isVisible())
    chooser.selectFile(str(other_path))
    chooser.accept()
    table = lib.checks.table
    await wait_for(lambda: "对比" in lib.checks.summary.text())
    rows = [[table.item(r, k).text() for k in range(5)] for r in range(table.rowCount())]
    near = [r for r in rows if r[0] == "与对比文件几乎相同的句子"]
    assert len(near) == 1 and near[0][1].startswith("我方针对本项目组建了专业的运维服务团队")
    assert "相似度" in near[0][4] and "每周" in near[0][4]  # what the other file says
    assert near[0][2].endswith("运维团队")

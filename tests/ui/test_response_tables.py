"""The 评分索引与偏离表 dock: 未响应 in red, mapping by picker and by drag, deviation edits,
each one undo step, saved in the project, and the export dialog's defaults and warnings."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import docx
import pytest
from PySide6.QtCore import QMimeData, QObject, QPoint, QSettings, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QFileDialog, QLineEdit, QMessageBox, QTreeWidgetItem

from app.core.project import load_project
from app.core.response_map import index_entries
from app.ui.export.deviation_view import COL_DEVIATION, COL_NOTE, COL_RESPONSE, COL_SECTION
from app.ui.export.dialog import ExportDialog
from app.ui.export.index_table_view import COL_SECTIONS, COL_STATUS, SCORING_ITEM_MIME, UNANSWERED
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from app.ui.widgets.section_picker import SectionPickerDialog
from tests.export_sample import sample_analysis, sample_breakdown, sample_mapped_chapters
from tests.ui.ui_helpers import click_button, close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture
async def window(qapp: Any, tmp_path: Path) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)
    reporter = ErrorReporter(tmp_path / "data")
    ctl = AppController(reporter=reporter)
    qs = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(ctl, reporter=reporter, qsettings=qs, model_configured=False)
    ctl.outline.replace(sample_mapped_chapters())
    ctl.outline.renumber()
    ctl.set_analysis(sample_analysis())
    ctl.set_breakdown(sample_breakdown())
    ctl.undo_stack.clear()
    win.show()
    win.response_tables.show()
    win.response_tables.refresh()
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


def _click_row(qtbot: Any, view: Any, row: int, column: int = 0, edit: bool = False) -> None:
    """Click a cell; with ``edit``, press F2 on it as a user opens its editor from the keyboard."""
    table = view.table
    table.scrollTo(table.model().index(row, column))
    rect = table.visualRect(table.model().index(row, column))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    if edit:
        qtbot.keyClick(table, Qt.Key.Key_F2)


async def _editor(table: Any, cls: Any) -> Any:
    """The cell editor the table opened (a child of the table, visible)."""
    found: list[Any] = []

    def look() -> bool:
        found[:] = [w for w in table.findChildren(cls) if w.isVisible()]
        return bool(found)

    await wait_for(look)
    return found[0]


def _row_of(view: Any, group_id: str) -> int:
    return next(i for i, r in enumerate(view.model.rows) if r.group.id == group_id)


def test_models_pass_the_model_tester(window: MainWindow, qtmodeltester: Any) -> None:
    qtmodeltester.check(window.response_tables.index_view.model)
    qtmodeltester.check(window.response_tables.deviation_view.model)
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text().startswith("视图"))
    toggle = next(a for a in view_menu.actions() if a.text() == "评分索引与偏离表")
    toggle.trigger()
    assert not window.response_tables.dock.isVisible()  # the 视图 menu hides and shows the dock
    toggle.trigger()
    assert window.response_tables.dock.isVisible()


async def test_unanswered_item_is_red_and_mapping_by_picker_is_one_undo_step(window: MainWindow, qtbot: Any) -> None:
    tables = window.response_tables
    view = tables.index_view
    c = window.controller
    r5 = _row_of(view, "R5")
    status = view.model.index(r5, COL_STATUS)
    assert status.data() == UNANSWERED and status.data(Qt.ItemDataRole.ForegroundRole) is not None
    assert view.warning_label.isVisible() and "R5 培训方案" in view.warning_label.text()
    assert [r.group.id for r in view.model.rows] == ["R1", "R2", "R3", "R4", "R5", "B1", "B2"]  # no price
    assert view.model.index(_row_of(view, "R4"), COL_SECTIONS).data() == "3.1.2 人员组织\n3.2 质量保障措施"

    _click_row(qtbot, view, r5)
    qtbot.mouseClick(view.pick_button, Qt.MouseButton.LeftButton)
    picker: SectionPickerDialog = await _visible(window, SectionPickerDialog, "sectionPicker")
    item: QTreeWidgetItem | None = picker.item_for((1, 1))  # 2.2 主要功能设计
    assert item is not None and item.checkState(0) == Qt.CheckState.Unchecked
    item.setCheckState(0, Qt.CheckState.Checked)
    qtbot.mouseClick(picker.buttons.button(picker.buttons.StandardButton.Ok), Qt.MouseButton.LeftButton)
    await wait_for(lambda: c.outline.node((1, 1)).scoring_refs == ["R5"])
    assert c.undo_stack.count() == 1
    await wait_for(lambda: view.model.rows[r5].labels == ["2.2 主要功能设计"])
    assert not view.warning_label.isVisible() and view.model.index(r5, COL_STATUS).data() == "已对应"

    window.act_undo.trigger()
    assert c.outline.node((1, 1)).scoring_refs == []
    await wait_for(lambda: view.model.index(r5, COL_STATUS).data() == UNANSWERED)
    window.act_redo.trigger()
    await wait_for(lambda: view.model.index(r5, COL_STATUS).data() == "已对应")

    # A one-to-one chapter is shown checked and cannot be unchecked.
    _click_row(qtbot, view, _row_of(view, "R1"))
    picker = view.pick_for_current()  # the same slot the double click and the button use
    assert picker is not None
    locked = picker.item_for((0,))
    assert locked is not None and locked.checkState(0) == Qt.CheckState.Checked
    assert not locked.flags() & Qt.ItemFlag.ItemIsEnabled
    picker.reject()


def _drag_to(view: Any, pos: QPoint, data: QMimeData) -> QDropEvent:
    """What a drag does at the tree's viewport: enter, move, drop (the drop event is returned)."""
    args = (Qt.DropAction.LinkAction | Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), QDragEnterEvent(pos, *args))
    QApplication.sendEvent(view.viewport(), QDragMoveEvent(pos, *args))
    drop = QDropEvent(pos.toPointF(), *args)
    QApplication.sendEvent(view.viewport(), drop)
    return drop


def test_index_rows_are_drag_sources(window: MainWindow) -> None:
    model = window.response_tables.index_view.model
    data = model.mimeData([model.index(_row_of(window.response_tables.index_view, "R5"), 0)])
    assert bytes(data.data(SCORING_ITEM_MIME).data()) == b"R5"
    assert model.flags(model.index(0, 0)) & Qt.ItemFlag.ItemIsDragEnabled


async def test_dragging_an_item_onto_a_section_maps_it(window: MainWindow, qtbot: Any) -> None:
    c = window.controller
    view = window.outline_view
    index = view.outline_model.index_for_path((1, 0))  # 2.1 总体架构设计
    view.scrollTo(index)
    pos = view.visualRect(index).center()
    data = QMimeData()
    data.setData(SCORING_ITEM_MIME, b"R5")
    drop = _drag_to(view, pos, data)
    assert drop.isAccepted() and drop.dropAction() == Qt.DropAction.LinkAction
    assert c.outline.node((1, 0)).scoring_refs == ["R5"]
    assert [ch.title for ch in c.outline.chapters] == [ch.title for ch in sample_mapped_chapters()]  # nothing moved
    rows = {e.group.id: e.paths for e in index_entries(c.analysis, c.outline.chapters)}
    assert rows["R5"] == ((1, 0),)
    window.act_undo.trigger()
    assert c.outline.node((1, 0)).scoring_refs == []
    # A drop outside any section does nothing.
    miss = _drag_to(view, QPoint(5, view.viewport().height() - 2), data)
    assert not miss.isAccepted()
    assert c.undo_stack.count() == 1 and c.undo_stack.index() == 0


async def test_deviation_edits_are_undoable_and_warned(window: MainWindow, qtbot: Any) -> None:
    c = window.controller
    view = window.response_tables.deviation_view
    window.response_tables.show(1)
    model = view.model
    assert model.rowCount() == 3
    # Nothing is assumed for the writer (issue 30): 待确认 with the answering section, in grey.
    assert model.index(0, COL_RESPONSE).data() == "待确认（相关章节：“3.2 质量保障措施”）"
    assert model.index(0, COL_DEVIATION).data() == "待确认"
    assert model.index(0, COL_RESPONSE).data(Qt.ItemDataRole.ForegroundRole) is not None
    assert "3. 尚未填写响应章节" in view.warning_label.text()
    unanswered = model.index(2, COL_SECTION)
    assert unanswered.data() == "未响应" and unanswered.data(Qt.ItemDataRole.ForegroundRole) is not None
    assert unanswered.data(Qt.ItemDataRole.EditRole) == ""  # the editor starts empty

    # Type a response into row 1.
    _click_row(qtbot, view, 0, COL_RESPONSE, edit=True)
    editor = await _editor(view.table, QLineEdit)
    editor.selectAll()
    editor.insert("承诺 7×24 小时响应，1 小时到场")  # typed text arrives as one commit, as from an IME
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    await wait_for(lambda: c.breakdown is not None and c.breakdown.risks[0].response.startswith("承诺"))
    assert c.undo_stack.count() == 1 and "投标响应" in c.undo_stack.undoText()
    assert window.breakdown_view.breakdown.risks[0].response.startswith("承诺")  # both views agree

    # 负偏离 on a ★ clause through the combo box: red warning.
    _click_row(qtbot, view, 0, COL_DEVIATION, edit=True)
    box: QComboBox = await _editor(view.table, QComboBox)
    box.setCurrentText("负偏离")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    await wait_for(lambda: c.breakdown is not None and c.breakdown.risks[0].deviation == "负偏离")
    assert "负偏离可能导致投标无效" in view.warning_label.text()

    # A section number that does not exist.
    _click_row(qtbot, view, 2, COL_SECTION, edit=True)
    editor = await _editor(view.table, QLineEdit)
    qtbot.keyClicks(editor, "9.9")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    await wait_for(lambda: c.breakdown is not None and c.breakdown.risks[3].answered_in == "9.9")
    assert "目录中没有第 9.9 节" in view.warning_label.text()
    assert c.undo_stack.count() == 3

    for _ in range(3):
        window.act_undo.trigger()
    assert c.breakdown is not None and c.breakdown.risks == sample_breakdown().risks
    await wait_for(lambda: "负偏离" not in view.warning_label.text())
    assert model.index(0, COL_NOTE).data() == ""


async def test_mapping_and_deviations_are_saved_in_the_project(window: MainWindow, tmp_path: Path) -> None:
    c = window.controller
    window.response_tables.map_sections("R5", [(0, 1)])
    window.response_tables.deviation_view.model.setData(
        window.response_tables.deviation_view.model.index(1, COL_NOTE), "见第三方测试报告")
    target = tmp_path / "p.bidproj"
    assert window.save_to(target)
    project = load_project(target)
    assert project.outline.outline[0].children[1].scoring_refs == ["R5"]
    assert project.breakdown is not None and project.breakdown.risks[2].deviation_note == "见第三方测试报告"
    assert c.undo_stack.isClean()


async def test_export_dialog_defaults_warnings_and_tables_in_the_file(window: MainWindow, tmp_path: Path) -> None:
    window.mode_box.setCurrentIndex(window.mode_box.findData("aligned"))
    task = window.controller.spawn("dialog", window.choose_and_export())
    dialog: ExportDialog = await _visible(window, ExportDialog, "exportDialog")
    assert dialog.index_check.isChecked() and dialog.deviation_check.isChecked()  # one-to-one, ★/▲ found
    warning = dialog.warning_label.text()
    assert "R5 培训方案（5分）" in warning and "数据须存储" in warning
    dialog.index_check.setChecked(False)
    assert "R5" not in dialog.warning_label.text()  # items only matter when the index is exported
    dialog.index_check.setChecked(True)
    dialog.layout_check.setChecked(False)
    dialog.ok_button.click()
    box: QMessageBox = await _visible(window, QMessageBox, "unansweredClausesBox")
    assert "R5 培训方案" in box.text()
    click_button(box, "仍然导出")
    chooser: QFileDialog = await _visible(window, QFileDialog)
    target = tmp_path / "bid.docx"
    name_edit = chooser.findChild(QLineEdit, "fileNameEdit")
    assert name_edit is not None
    name_edit.setText(str(target))
    chooser.accept()
    assert await asyncio.wait_for(task, timeout=30) == target
    doc = docx.Document(str(target))
    titles = [p.text for p in doc.paragraphs if p.style.name == "目录标题"]
    assert titles == ["目  录", "评分索引表", "技术偏离表"]
    # Issue 30: the export ends in a box that opens the file or its folder (no notes to report here).
    done: QMessageBox = await _visible(window, QMessageBox, "exportReportBox")
    assert str(target) in done.text() and not done.informativeText()
    opened: list[str] = []

    class Catcher(QObject):
        @Slot(QUrl)
        def open(self, url: QUrl) -> None:
            opened.append(url.toLocalFile())

    catcher = Catcher()
    QDesktopServices.setUrlHandler("file", catcher, "open")
    try:
        click_button(done, "打开所在文件夹")
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert opened[0] == str(tmp_path)


@pytest.mark.libreoffice
async def test_export_runs_the_layout_pass_off_the_gui_thread(window: MainWindow, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    if not (shutil.which("soffice") or shutil.which("libreoffice")):
        pytest.skip("LibreOffice (soffice) is not installed")
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    task = window.controller.spawn("dialog", window.choose_and_export())
    dialog: ExportDialog = await _visible(window, ExportDialog, "exportDialog")
    assert dialog.layout_check.isEnabled() and dialog.layout_check.isChecked()
    dialog.ok_button.click()
    box: QMessageBox = await _visible(window, QMessageBox, "unansweredClausesBox")
    click_button(box, "仍然导出")
    chooser: QFileDialog = await _visible(window, QFileDialog)
    target = tmp_path / "laid-out.docx"
    name_edit = chooser.findChild(QLineEdit, "fileNameEdit")
    assert name_edit is not None
    name_edit.setText(str(target))
    chooser.accept()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while not task.done():
            ticks += 1
            await asyncio.sleep(0.05)

    ticker = asyncio.ensure_future(tick())
    assert await asyncio.wait_for(task, timeout=180) == target
    await ticker
    assert ticks >= 10  # the event loop kept running while LibreOffice laid the file out
    assert "页码已按排版结果写入" in window.statusBar().currentMessage()
    # The app keeps LibreOffice's profile for the next export, and leaves no lock behind.
    assert (tmp_path / "data" / "lo-layout-profile").is_dir()
    assert not (tmp_path / "data" / "lo-layout-profile.lock").exists()


@pytest.mark.parametrize("dock", ["closed", "behind", "shown"])
async def test_a_hidden_dock_waits_while_a_model_streams_and_catches_up_after(qapp: Any, tmp_path: Path,
                                                                              llm_server: Any, dock: str) -> None:
    from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
    from tests.openai_server import Reply
    from tests.pipeline_support import Router
    from tests.ui.conftest import make_client_factory

    def slow(kind: str, req: Any) -> Reply:  # chapters stream for about 0.7 s each: the run outlasts a busy refresh
        reply = Router._default(kind, req)
        reply.chunk_size, reply.chunk_delay = 20, 0.02
        return reply

    llm_server.handler = Router(slow)
    qapp.setQuitOnLastWindowClosed(False)
    reporter = ErrorReporter(tmp_path / "data")
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    groups = [ScoringGroup(id=f"R{i}", title=t, points=10.0, category="technical")
              for i, t in enumerate(["服务方案", "质量保障措施", "售后服务方案"], 1)]
    ctl.set_analysis(Analysis(overview=ProjectOverview(project_name="某单位运维服务"), groups=groups, source="table"))
    win.show()
    tables = win.response_tables
    shown = dock == "shown"
    if dock == "closed":
        tables.dock.hide()
    elif dock == "behind":  # another dock of the same tab group in front
        tables.show()
        win.tabifyDockWidget(win.review_dock.dock, tables.dock)
        win.review_dock.dock.raise_()
    else:
        tables.show()
    await wait_for(lambda: tables.hidden != shown)
    refreshed: list[int] = []
    tables.index_view.model.modelReset.connect(lambda: refreshed.append(len(ctl.outline)))
    try:
        finished: list[tuple[bool, str]] = []
        ctl.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
        QTest.mouseClick(win.generate_button, Qt.MouseButton.LeftButton)  # 生成目录, one-to-one by default
        await wait_for(lambda: bool(finished) and not ctl.busy, timeout=30)
        assert finished[-1][0], finished[-1][1]
        during = [n for n in refreshed if n < len(ctl.outline)]
        assert bool(during) == shown  # a hidden dock did no work while the model streamed
        if not shown:
            tables.show()
        view = tables.index_view
        await wait_for(lambda: bool(refreshed) and refreshed[-1] == len(ctl.outline))
        assert [r.group.id for r in view.model.rows] == ["R1", "R2", "R3"]
        assert all(not r.unanswered for r in view.model.rows)  # the tables show the finished outline
    finally:
        await close_window(win)
        await ctl.shutdown()

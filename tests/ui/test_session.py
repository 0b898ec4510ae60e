"""Start-up offers (crash log, recovery after a simulated crash), drag-and-drop open, a real tender."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

from app.core.outline import OutlineNode
from app.core.settings_model import AppSettings
from app.ui.project.session import SessionWiring
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorDialog, ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

WindowFactory = Callable[[], MainWindow]


@pytest.fixture
async def make_window(qapp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[WindowFactory]:
    """Build windows with isolated data folders; all are closed and their controllers shut down."""
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BIDSTUDIO_CONFIG_DIR", str(tmp_path / "config"))
    qapp.setQuitOnLastWindowClosed(False)
    made: list[MainWindow] = []

    def make() -> MainWindow:
        ctl = AppController(reporter=ErrorReporter(tmp_path / "data"))
        win = MainWindow(ctl, reporter=ctl.reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
        win.show()
        made.append(win)
        return win

    yield make
    for win in made:
        await close_window(win)
    await asyncio.sleep(0)




def _pdf(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "项目概况：某单位食堂食材配送服务", fontname="china-s", fontsize=12)
    doc.save(path)
    doc.close()
    return path


async def test_crash_log_of_the_last_session_is_offered_once(make_window: WindowFactory, tmp_path: Path) -> None:
    window = make_window()
    reporter = window.controller.reporter
    assert reporter is not None
    try:
        raise ValueError("bug in a slot")
    except ValueError as exc:
        reporter.report(exc)
    wiring = SessionWiring(AppSettings())
    wiring.attach(window)
    wiring.offer_crash_log(reporter)
    dialog = window.findChild(ErrorDialog, "crashLogDialog")
    assert dialog is not None and dialog.isVisible() and "bug in a slot" in dialog.details
    dialog.close()
    wiring.offer_crash_log(reporter)
    assert len(window.findChildren(ErrorDialog, "crashLogDialog")) == 1  # not offered again


async def test_work_is_recovered_after_a_simulated_crash(make_window: WindowFactory) -> None:
    first = make_window()
    wiring = SessionWiring(AppSettings())
    wiring.attach(first)
    view = first.outline_view
    view.add_sibling("服务方案", edit=False)
    view.add_child("人员配置", edit=False)
    autosaver = first.autosaver  # type: ignore[attr-defined]
    assert autosaver.autosave_now()
    autosaver.stop()  # the process "dies": no normal close, the recovery file stays
    first.controller.undo_stack.clear()

    second = make_window()
    wiring2 = SessionWiring(AppSettings())
    wiring2.attach(second)
    wiring2.offer_recovery()
    box: QMessageBox | None = None

    def shown() -> bool:
        nonlocal box
        box = second.findChild(QMessageBox, "recoveryBox")
        return box is not None and box.isVisible()

    await wait_for(shown)
    assert box is not None
    restore = next(b for b in box.buttons() if b.text() == "恢复")
    restore.click()
    await wait_for(lambda: len(second.controller.outline) == 2)
    assert [n.title for _, n in second.controller.outline.walk()] == ["服务方案", "人员配置"]
    assert second.isWindowModified()  # recovered work is not saved yet


async def test_dropping_a_tender_file_opens_it(make_window: WindowFactory, tmp_path: Path) -> None:
    window = make_window()
    pdf = _pdf(tmp_path / "拖入的招标文件.pdf")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(pdf))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    await wait_for(lambda: "拖入的招标文件" in window.windowTitle())
    assert window.controller.tender_path == pdf and window.controller.document is not None
    other = QMimeData()
    other.setUrls([QUrl.fromLocalFile(str(tmp_path / "图片.png"))])
    ignored = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, other, Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.NoModifier)
    window.dropEvent(ignored)
    assert not ignored.isAccepted()


@pytest.mark.real_tender
async def test_real_tender_scoring_table_fills_analysis_and_jumps_to_its_page(make_window: WindowFactory,
                                                                             tenders_dir: Path) -> None:
    window = make_window()
    await window.open_path(tenders_dir / "yangjiang-tax-canteen.pdf")
    c = window.controller
    assert c.document is not None and c.document.page_count == 111
    titles = [g.title for g in c.analysis.technical_groups]
    assert titles[:3] == ["配送车辆情况", "配送加工场地情况", "冷藏库仓储能力"] and len(titles) == 8
    assert window.analysis_view.table_model.rowCount() == 12  # every item: 8 technical, 3 business, 1 price
    pages: list[int] = []
    window.analysis_view.page_requested.connect(pages.append)
    # An outline node's source requirement leads to the scoring item and its page.
    rid = next(g.id for g in c.analysis.technical_groups if g.title == "冷藏库仓储能力")  # ids cover every category
    c.outline.replace([OutlineNode(title="冷藏库仓储能力", source_requirement_id=rid, source_requirement_title="冷藏库仓储能力")])
    window.outline_view.source_requested.emit(rid)
    assert pages == [67]
    pane = window.document_pane
    if hasattr(pane, "current_page"):
        await wait_for(lambda: pane.current_page() == 67, timeout=60)  # laid out off the GUI thread


async def test_requirement_breakdown_runs_from_the_window_and_is_saved(make_window: WindowFactory, tmp_path: Path,
                                                                      llm_server: Any) -> None:
    import importlib.util
    import json

    from app.core.project import load_project
    from tests.openai_server import Reply
    from tests.ui.conftest import make_client_factory

    spec = importlib.util.spec_from_file_location("make_sample_tender",
                                                  Path(__file__).resolve().parents[2] / "resources" / "samples" / "make_sample_tender.py")
    assert spec is not None and spec.loader is not None
    sample = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sample)
    pdf = tmp_path / "示例招标文件.pdf"
    sample.build(pdf)
    answer = {"status": "executable", "background": "为某单位提供服务。",
              "goals": [{"text": "按时提供合格服务", "page": 2}],
              "tasks": [{"text": "提供服务方案", "page": 2}, {"text": "提供应急预案", "page": 3}],
              "risks": [{"text": "服务中断", "page": 2, "category": "delivery"}]}
    llm_server.default = Reply.text(json.dumps(answer, ensure_ascii=False))
    window = make_window()
    window.controller.client_factory = make_client_factory(llm_server)
    await window.open_path(pdf)
    await window.controller.run_task("breakdown", window.controller.run_breakdown())
    b = window.controller.breakdown
    assert b is not None and llm_server.completion_requests  # the requirement pages went to the model
    assert window.breakdown_view.breakdown == b
    assert window.status.stage.text().startswith("需求拆解")
    assert window.save_to(tmp_path / "带拆解的项目.bidproj")
    assert load_project(tmp_path / "带拆解的项目.bidproj").breakdown == b


async def test_drafting_a_section_fills_its_text_as_one_undo_step(make_window: WindowFactory, llm_server: Any) -> None:
    from tests.openai_server import Reply
    from tests.ui.conftest import make_client_factory

    window = make_window()
    c = window.controller
    c.client_factory = make_client_factory(llm_server)
    c.outline.replace([OutlineNode(title="配送服务方案", children=[
        OutlineNode(title="配送流程", description="从下单到验收"), OutlineNode(title="配送时效保障")])])
    c.outline.renumber()
    body = "我方建立订单接收、分拣、装车、送达和验收五个环节的闭环流程，每个环节明确责任人和时限要求。" * 4
    llm_server.default = Reply.text(body, chunk_size=20)
    window.outline_view.select_path((0, 0))
    assert window.section_editor.key == "1.1"
    pieces: list[str] = []
    c.drafting.section_delta.connect(lambda _k, p: pieces.append(p))
    window.draft_current()
    await wait_for(lambda: c.outline.node((0, 0)).content != "", timeout=15)
    await wait_for(lambda: not c.busy)
    text = c.outline.node((0, 0)).content
    assert "订单接收" in text and len(pieces) > 1  # streamed in pieces, then applied
    assert window.section_editor.text.toPlainText() == text
    assert "配送流程" in llm_server.completion_requests[-1].prompt_text
    c.undo_stack.undo()
    assert c.outline.node((0, 0)).content == ""
    assert window.section_editor.text.toPlainText() == ""
    # A hand edit is one undoable command too.
    window.section_editor.text.setPlainText("手写的正文")
    window.section_editor.commit_edit()
    assert c.outline.node((0, 0)).content == "手写的正文"
    c.undo_stack.undo()
    assert c.outline.node((0, 0)).content == ""


async def test_first_run_guide_leads_to_settings_and_saving_configures_the_model(
        make_window: WindowFactory, tmp_path: Path, llm_server: Any) -> None:
    import keyring

    from app.core.api_keys import ApiKeyStore
    from app.core.settings_model import load_settings
    from app.ui.shell.settings_dialog import SettingsDialog
    from tests.test_settings import MemoryKeyring

    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        window = make_window()
        wiring = SessionWiring(AppSettings(), ApiKeyStore())
        wiring.attach(window)
        window.controller.client_factory = wiring.make_client
        window.set_model_configured(wiring.configured())
        assert window.guide.isVisible()
        window.guide.linkActivated.emit("settings")  # the guide's link opens the settings dialog
        dialog = window.findChild(SettingsDialog, "settingsDialog")
        assert dialog is not None and dialog.isVisible()
        dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData("custom"))
        dialog.base_url_edit.setText(llm_server.base_url)
        dialog.model_combo.setEditText("test-model")
        dialog.key_edit.setText("sk-test-key")
        dialog.accept()
        assert not window.guide.isVisible()  # configured now
        assert "sk-test-key" in backend.passwords.values()
        saved = load_settings()
        assert saved.model.base_url == llm_server.base_url and "sk-test" not in saved.model_dump_json()
        client = window.controller._client()
        assert client.config.api_key == "sk-test-key" and client.config.base_url == llm_server.base_url
    finally:
        keyring.set_keyring(previous)

"""OCR in the window: auto start for a scanned tender, progress, cancel, the per-page offer,
the settings switch, OCR lines over the page image and search over OCR text."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QColor

from app.documents.loader import load_tender
from app.documents.model import OcrLine, Page, TenderDocument, TextBlock
from app.documents.ocr.engine import engine_available
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from app.ui.tender.document_pane import DocumentPane
from tests.document_fixtures import composer
from tests.openai_server import OpenAIServer
from tests.scanned_fixtures import scan_pdf, scanned_text_pdf
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = [
    pytest.mark.qt_log_ignore("propagateSizeHints"),
    pytest.mark.skipif(not engine_available(), reason="OCR engine not installed"),
]

LINES = ["第二章 采购需求", "城市道路清扫保洁服务", "服务期 12 个月"]


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Cache, config and data folders of this test only (the OCR child inherits them)."""
    monkeypatch.setenv("BIDSTUDIO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIDSTUDIO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


@pytest.fixture
async def window(qapp: Any, isolated: Path, llm_server: OpenAIServer,
                 reporter: ErrorReporter) -> AsyncIterator[MainWindow]:
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    qs = QSettings(str(isolated / "ui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(ctl, reporter=reporter, qsettings=qs, model_configured=False)
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)


async def test_scanned_tender_is_read_by_itself_and_joins_the_document(window: MainWindow, isolated: Path) -> None:
    scan = scanned_text_pdf(isolated / "扫描件.pdf", LINES)
    pane = window.document_pane
    assert isinstance(pane, DocumentPane) and pane.ocr_enabled
    seen: list[tuple[int, int, int]] = []
    await window.controller.open_tender(scan)
    assert pane.ocr_job is not None and not pane.ocr_bar.isHidden()
    pane.ocr_job.progress.connect(lambda d, t, n: seen.append((d, t, n)))
    await wait_for(lambda: window.controller.document is not None
                   and window.controller.document.pages[0].source == "ocr", timeout=90)
    assert seen == [(1, 1, 1)] and pane.ocr_job is None and pane.ocr_bar.isHidden()
    doc = window.controller.document
    assert "清扫保洁" in doc.text() and doc.unreadable_pages == []
    await wait_for(lambda: pane.document is doc)
    await wait_for(lambda: 1 in pane.page_view._ocr)  # framed once the pages are laid out
    finished: list[tuple[str, int]] = []
    pane.searchFinished.connect(lambda q, n: finished.append((q, n)))
    pane.search_edit.setText("清扫保洁")
    pane.search_edit.returnPressed.emit()
    await wait_for(lambda: bool(finished), timeout=20)
    assert finished == [("清扫保洁", 1)] and pane.search_hits() == [(1, 0)]
    # Settings → 自动文字识别 off: the pane no longer starts OCR by itself, and the choice is saved
    window.act_ocr_auto.trigger()
    assert not window.settings.ocr_auto and not pane.ocr_enabled
    other = scanned_text_pdf(isolated / "另一份.pdf", LINES[:1])
    await window.controller.open_tender(other)
    assert pane.ocr_job is None and "对这些页做文字识别" in pane.banner_label.text()


@pytest.fixture
def pane(qtbot: Any, isolated: Path) -> Iterator[DocumentPane]:
    widget = DocumentPane()
    widget.ocr_cache_dir = str(isolated / "cache")
    qtbot.addWidget(widget)
    widget.resize(700, 900)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.shutdown()
    assert widget.ocr_job is None


def test_cancel_button_stops_the_worker(qtbot: Any, pane: DocumentPane, isolated: Path) -> None:
    c = composer()
    for k in range(3):
        c.text(f"第{k + 1}页：投标人须知，评标办法，合同条款。" * 6)
        c.new_page()
    native = isolated / "three.pdf"
    c.save(native)
    scan = scan_pdf(native, isolated / "three-scan.pdf", dpi=100)
    pane.set_document(load_tender(scan))
    job = pane.ocr_job
    assert job is not None and pane.ocr_progress.maximum() == 4
    with qtbot.waitSignal(pane.ocrFinished, timeout=60_000) as blocker:
        qtbot.mouseClick(pane.ocr_cancel_button, Qt.MouseButton.LeftButton)
        assert "取消" in pane.ocr_label.text()
    _any_read, message = blocker.args
    assert "取消" in message or "停止" in message
    assert job.done < 4 and not job._process.is_alive() and pane.ocr_job is None


def test_partial_pages_are_offered_not_started(qtbot: Any, pane: DocumentPane, isolated: Path) -> None:
    c = composer()
    c.text("第一页有文字层。项目名称：示例项目。")
    c.new_page()
    c.text("第二页将被扫描。")
    native = isolated / "two.pdf"
    c.save(native)
    scanned = scan_pdf(native, isolated / "p2.pdf", pages=[2], dpi=100)
    mixed = isolated / "mixed.pdf"
    with pymupdf.open(native) as src, pymupdf.open(scanned) as sc, pymupdf.open() as out:
        out.insert_pdf(src, from_page=0, to_page=0)
        out.insert_pdf(sc)
        out.save(mixed)
    pane.set_document(load_tender(mixed))
    assert pane.ocr_job is None and "对这些页做文字识别" in pane.banner_label.text()
    with qtbot.waitSignal(pane.ocrFinished, timeout=60_000) as blocker:
        pane.banner_label.linkActivated.emit("ocr")  # the banner link
        assert pane.ocr_job is not None and pane.ocr_job.pages == [2]
    assert blocker.args[0] is True


def test_low_confidence_lines_are_filled_over_the_page(qtbot: Any, pane: DocumentPane, isolated: Path) -> None:
    path = isolated / "page.pdf"
    with pymupdf.open() as d:
        d.new_page(width=400, height=300)
        d.save(path)
    sure = OcrLine(text="确定的一行", bbox=(40, 40, 200, 60), confidence=0.98)
    unsure = OcrLine(text="模糊的一行", bbox=(40, 120, 200, 160), confidence=0.41)
    page = Page(number=1, blocks=[TextBlock(page=1, text="确定的一行\n模糊的一行", source="ocr", confidence=0.41)],
                source="ocr", ocr_lines=[sure, unsure], char_count=10)
    doc = TenderDocument(source_path=str(path), kind="pdf", pages=[page])
    with qtbot.waitSignal(pane.pageRendered, timeout=10_000):
        pane.set_document(doc)
    pane.set_zoom(1.0)
    qtbot.waitUntil(lambda: pane.page_image(1) is not None, timeout=10_000)
    view = pane.page_view
    rect = view.page_rect(1)
    s = view.scale
    dx, dy = view.horizontalScrollBar().value(), view.verticalScrollBar().value()

    def at(x: float, y: float) -> QColor:
        shot = view.viewport().grab().toImage()
        ratio = shot.devicePixelRatio()
        return QColor(shot.pixel(int((rect.x() + x * s - dx) * ratio), int((rect.y() + y * s - dy) * ratio)))

    filled, plain = at(120, 140), at(120, 50)
    assert filled.red() > 240 and filled.blue() < 230  # orange tint on white
    assert plain.lightness() > 245  # a sure line is only framed
    hit = view.ocr_line_at(QPoint(int(rect.x() + 120 * s - dx), int(rect.y() + 140 * s - dy)).toPointF())
    assert hit == (1, "模糊的一行", 0.41)


def _mixed_pdf(folder: Path, scanned_pages: list[int], total: int) -> Path:
    """A ``total``-page PDF whose ``scanned_pages`` are images only; the others keep their text layer."""
    c = composer()
    for k in range(1, total + 1):
        c.text(f"第{k}页：投标人须知，评标办法，合同条款，项目名称：示例项目。")
        if k < total:
            c.new_page()
    native = folder / "native.pdf"
    c.save(native)
    scan = scan_pdf(native, folder / "scan.pdf", dpi=100)
    mixed = folder / "mixed.pdf"
    with pymupdf.open(native) as src, pymupdf.open(scan) as sc, pymupdf.open() as out:
        for k in range(total):
            out.insert_pdf(sc if k + 1 in scanned_pages else src, from_page=k, to_page=k)
        out.save(mixed)
    return mixed


def _toggle(qtbot: Any, dialog: Any, number: int) -> None:
    """Click a page's row in the checklist, then Space: what a keyboard user does to (un)check it."""
    items = [dialog.page_list.item(i) for i in range(dialog.page_list.count())]
    item = next(it for it in items if it.data(Qt.ItemDataRole.UserRole) == number)
    rect = dialog.page_list.visualItemRect(item)
    qtbot.mouseClick(dialog.page_list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.keyClick(dialog.page_list, Qt.Key.Key_Space)


def test_the_offer_lets_the_user_choose_pages(qtbot: Any, pane: DocumentPane, isolated: Path) -> None:
    from app.documents.ocr.apply import OcrMode, OcrSettings
    from app.ui.tender.ocr_pages_dialog import OcrPagesDialog

    mixed = _mixed_pdf(isolated, [2, 3, 4], total=4)
    pane.set_document(load_tender(mixed))
    assert pane.ocr_job is None and "有 3 页没有可用文字" in pane.banner_label.text()
    pane.banner_label.linkActivated.emit("ocr")  # the banner link (QLabel links are not clickable offscreen)
    dialog = pane.ocr_pages_dialog
    assert isinstance(dialog, OcrPagesDialog) and dialog.isVisible() and pane.ocr_job is None
    assert dialog.chosen_pages() == [2, 3, 4] and dialog.ok_button.text() == "识别所选的 3 页"
    # Cancel: nothing is read
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert pane.ocr_pages_dialog is None and pane.ocr_job is None
    # Again, uncheck page 3, read 2 and 4 only
    pane.banner_label.linkActivated.emit("ocr")
    dialog = pane.ocr_pages_dialog
    assert dialog is not None
    _toggle(qtbot, dialog, 3)
    assert dialog.chosen_pages() == [2, 4] and dialog.ok_button.text() == "识别所选的 2 页"
    qtbot.mouseClick(dialog.none_button, Qt.MouseButton.LeftButton)
    assert dialog.chosen_pages() == [] and not dialog.ok_button.isEnabled()
    qtbot.mouseClick(dialog.all_button, Qt.MouseButton.LeftButton)
    _toggle(qtbot, dialog, 3)
    with qtbot.waitSignal(pane.ocrFinished, timeout=90_000) as blocker:
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        assert pane.ocr_job is not None and pane.ocr_job.pages == [2, 4]
    assert blocker.args[0] is True and pane.ocr_pages_dialog is None
    cached = load_tender(mixed, ocr=OcrSettings(mode=OcrMode.CACHED, cache_dir=isolated / "cache"))
    assert [p.number for p in cached.pages if p.source == "ocr"] == [2, 4]  # read once, cached
    assert cached.unreadable_pages == [3] and "第4页" in "".join(cached.text(4, 4).split())


def test_the_offer_can_read_only_the_page_being_shown(qtbot: Any, pane: DocumentPane, isolated: Path) -> None:
    mixed = _mixed_pdf(isolated, [1, 3, 4], total=4)
    with qtbot.waitSignal(pane.pageRendered, timeout=20_000):
        pane.set_document(load_tender(mixed))
    qtbot.waitUntil(lambda: pane.page_count() == 4, timeout=20_000)
    assert pane.show_page(3)
    qtbot.waitUntil(lambda: pane.current_page() == 3, timeout=10_000)
    pane.banner_label.linkActivated.emit("ocr")
    dialog = pane.ocr_pages_dialog
    assert dialog is not None and dialog.current_button.isEnabled() and "第 3 页" in dialog.current_button.text()
    qtbot.mouseClick(dialog.current_button, Qt.MouseButton.LeftButton)
    assert dialog.chosen_pages() == [3] and dialog.ok_button.text() == "识别所选的 1 页"
    with qtbot.waitSignal(pane.ocrFinished, timeout=90_000):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
        assert pane.ocr_job is not None and pane.ocr_job.pages == [3]

"""The document pane: PDF pages rendered off the GUI thread, navigation, zoom, search, banner, text view."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest
from PySide6.QtGui import QColor

from app.documents.loader import load_tender
from app.documents.model import Diagnostic, DiagnosticCode, Page, Severity, TenderDocument, TextBlock
from app.ui.tender.document_pane import DocumentPane
from app.ui.tender.page_view import POINTS_TO_PIXELS

# Showing a top-level widget on the offscreen platform logs this harmless warning.
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")

PAGE_TEXTS = ["第一章 项目概况", "第二章 评分标准\n技术方案 评分标准", "", "第四章 评分标准 附件"]
BLACK_BOX = (100, 100, 300, 200)  # points, on page 1


def _make_pdf(path: Path, texts: list[str] = PAGE_TEXTS) -> Path:
    doc = pymupdf.open()
    for i, text in enumerate(texts):
        page = doc.new_page(width=595, height=842)  # A4
        if text:
            page.insert_text((72, 300), text, fontname="china-s", fontsize=14)
        if i == 0:
            page.draw_rect(pymupdf.Rect(*BLACK_BOX), color=(0, 0, 0), fill=(0, 0, 0))
    doc.save(str(path))
    doc.close()
    return path


def _pdf_document(path: Path, diagnostics: list[Diagnostic] | None = None,
                  unreadable: tuple[int, ...] = ()) -> TenderDocument:
    pages = [Page(number=i + 1, blocks=[TextBlock(page=i + 1, text=t)] if t else [], readable=i + 1 not in unreadable)
             for i, t in enumerate(PAGE_TEXTS)]
    return TenderDocument(source_path=str(path), kind="pdf", pages=pages, diagnostics=diagnostics or [])


@pytest.fixture
def pane(qtbot) -> Iterator[DocumentPane]:
    widget = DocumentPane()
    qtbot.addWidget(widget)
    widget.resize(900, 1000)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.shutdown()
    assert not widget.renderer.busy() and not widget.renderer.timer.isActive()  # no leaked timers
    assert not widget._warm_timer.isActive()


def _open(qtbot, pane: DocumentPane, document: TenderDocument) -> None:
    with qtbot.waitSignal(pane.pageRendered, timeout=10_000):
        pane.set_document(document)


def test_pdf_pages_render_off_the_gui_thread(qtbot, pane: DocumentPane, tmp_path: Path) -> None:
    doc = _pdf_document(_make_pdf(tmp_path / "招标.pdf"))
    _open(qtbot, pane, doc)
    qtbot.waitUntil(lambda: pane.page_image(1) is not None, timeout=10_000)
    assert pane.is_pdf_view and pane.page_count() == 4
    assert pane.render_pids and os.getpid() not in pane.render_pids  # PyMuPDF runs in a child process

    image = pane.page_image(1)
    assert image is not None
    s = POINTS_TO_PIXELS * pane.zoom() * image.devicePixelRatio()
    assert abs(image.width() - 595 * s) <= 1 and abs(image.height() - 842 * s) <= 1
    x0, y0, x1, y1 = BLACK_BOX
    inside = QColor(image.pixel(int((x0 + x1) / 2 * s), int((y0 + y1) / 2 * s)))
    outside = QColor(image.pixel(int(450 * s), int(700 * s)))
    assert inside.lightness() < 30 and outside.lightness() > 240
    assert pane.page_image(4) is None  # far pages are not rendered until they are near the view
    assert pane.page_total.text() == "/ 4"


def test_navigation_and_zoom(qtbot, pane: DocumentPane, tmp_path: Path) -> None:
    _open(qtbot, pane, _pdf_document(_make_pdf(tmp_path / "a.pdf")))
    assert pane.current_page() == 1
    with qtbot.waitSignal(pane.pageChanged) as sig:
        assert pane.show_page(3)
    assert sig.args == [3] and pane.current_page() == 3 and pane.page_spin.value() == 3
    qtbot.waitUntil(lambda: pane.page_image(3) is not None, timeout=10_000)  # rendered on arrival
    pane.next_page()
    assert pane.current_page() == 4
    pane.next_page()
    assert pane.current_page() == 4  # stays on the last page
    pane.previous_page()
    assert pane.current_page() == 3
    assert not pane.show_page(0) and not pane.show_page(5)
    pane.page_spin.setValue(2)
    assert pane.current_page() == 2

    pane.set_zoom(2.0)
    assert pane.current_page() == 2  # zoom keeps the page being read
    assert pane.zoom_combo.currentText() == "200%"
    qtbot.waitUntil(lambda: pane.page_image(2) is not None, timeout=10_000)
    assert abs(pane.page_image(2).width() - 595 * 2.0 * POINTS_TO_PIXELS * pane.devicePixelRatioF()) <= 1
    pane.zoom_in()
    assert pane.zoom() == 2.5
    pane.zoom_out()
    pane.zoom_out()
    assert pane.zoom() == 1.75
    pane.fit_width()
    assert abs(pane.page_view.page_rect(1).width() - (pane.page_view.viewport().width() - 24)) <= 2
    assert pane.zoom_combo.currentText() == "适合宽度"


def test_narrow_pane_starts_at_fit_width(qtbot, pane: DocumentPane, tmp_path: Path) -> None:
    pane.resize(400, 700)
    _open(qtbot, pane, _pdf_document(_make_pdf(tmp_path / "a.pdf")))
    assert pane.zoom() < 1.0 and pane.zoom_combo.currentText() == "适合宽度"
    assert pane.page_view.horizontalScrollBar().maximum() == 0


def test_search_finds_hits_across_pages(qtbot, pane: DocumentPane, tmp_path: Path) -> None:
    _open(qtbot, pane, _pdf_document(_make_pdf(tmp_path / "a.pdf")))
    with qtbot.waitSignal(pane.searchFinished, timeout=10_000) as sig:
        pane.search("评分标准")
    assert sig.args == ["评分标准", 3]
    assert pane.search_hits() == [(2, 0), (2, 1), (4, 0)]
    assert pane.current_page() == 2 and pane.search_status.text() == "1/3"
    pane.find_next()
    pane.find_next()
    assert pane.current_page() == 4 and pane.search_status.text() == "3/3"
    pane.find_next()  # wraps around
    assert pane.search_status.text() == "1/3" and pane.current_page() == 2
    pane.find_previous()
    assert pane.search_status.text() == "3/3"

    with qtbot.waitSignal(pane.searchFinished, timeout=10_000) as sig:
        pane.search("不存在的词")
    assert sig.args == ["不存在的词", 0] and pane.search_status.text() == "未找到"


def test_banner_shows_diagnostics_and_jumps_to_pages(qtbot, pane: DocumentPane, tmp_path: Path) -> None:
    path = _make_pdf(tmp_path / "a.pdf")
    clean = _pdf_document(path)
    _open(qtbot, pane, clean)
    assert not pane.banner.isVisible()

    scanned = Diagnostic(code=DiagnosticCode.NO_TEXT_LAYER, severity=Severity.WARNING,
                         message_zh="第 3 页是扫描图片，没有文字层，需要 OCR", pages=[3])
    garbled = Diagnostic(code=DiagnosticCode.GARBLED_TEXT, severity=Severity.ERROR,
                         message_zh="部分页面文字为乱码", pages=[4, 4])
    _open(qtbot, pane, _pdf_document(path, [scanned, garbled], unreadable=(3, 4)))
    assert pane.banner.isVisible()
    text = pane.banner_label.text()
    assert text.index("乱码") < text.index("扫描图片")  # errors first
    assert "page:3" in text and "第 4 页" in text
    assert "#e57373" in pane.banner.styleSheet()  # coloured by the worst severity
    pane.banner_label.linkActivated.emit("page:3")
    assert pane.current_page() == 3
    pane.banner_close.click()
    assert not pane.banner.isVisible()


def test_unreadable_pages_without_diagnostics_still_warn(qtbot, pane: DocumentPane, tmp_path: Path) -> None:
    _open(qtbot, pane, _pdf_document(_make_pdf(tmp_path / "a.pdf"), unreadable=(3,)))
    assert pane.banner.isVisible() and "1 页文字无法识别" in pane.banner_label.text()


def test_real_reader_output_and_replacing_the_document(qtbot, pane: DocumentPane, tmp_path: Path) -> None:
    first = load_tender(_make_pdf(tmp_path / "first.pdf"))
    second = load_tender(_make_pdf(tmp_path / "second.pdf", ["唯一一页 评分标准"]))
    pane.set_document(first)
    with qtbot.waitSignal(pane.pageRendered, timeout=10_000):
        pane.set_document(second)  # the first document's late results are dropped
    qtbot.waitUntil(lambda: pane.page_image(1) is not None, timeout=10_000)
    assert pane.page_count() == 1 and pane.document is second
    pane.clear()
    assert pane.page_count() == 0 and pane.current_page() == 0 and pane.page_image(1) is None
    assert not pane.search_edit.isEnabled()


def _text_document(pages: int = 4) -> TenderDocument:
    return TenderDocument(
        source_path="招标.docx", kind="docx", page_numbers_estimated=True,
        pages=[Page(number=n, blocks=[TextBlock(page=n, text=f"第{n}页 第{k}段 内容") for k in range(80)]
                    + ([TextBlock(page=n, text="技术评分标准")] if n in (2, 3) else []))
               for n in range(1, pages + 1)],
    )


def test_docx_text_view_navigation_and_search(qtbot, pane: DocumentPane) -> None:
    doc = _text_document()
    pane.set_document(doc)
    assert not pane.is_pdf_view and pane.text_view.isVisible()
    assert pane.page_count() == 4 and pane.current_page() == 1
    assert "约第 1 页" in pane.text_view.toPlainText() and pane.page_total.text() == "/ 4（估计）"
    assert not pane.zoom_combo.isEnabled()
    with qtbot.waitSignal(pane.pageChanged):
        assert pane.show_page(2)
    assert pane.current_page() == 2

    with qtbot.waitSignal(pane.searchFinished) as sig:
        pane.search("技术评分标准")
    assert sig.args == ["技术评分标准", 2]
    assert len(pane.text_view.extraSelections()) == 2
    assert pane.text_view.textCursor().block().text() == "技术评分标准"
    pane.find_next()
    assert pane.search_status.text() == "2/2" and pane.current_page() == 3


def test_broken_pdf_path_shows_a_message(qtbot, pane: DocumentPane, tmp_path: Path) -> None:
    bad = tmp_path / "gone.pdf"
    pane.set_document(TenderDocument(source_path=str(bad), kind="pdf", pages=[Page(number=1)]))
    qtbot.waitUntil(lambda: pane.page_view.placeholder.startswith("无法显示该 PDF"), timeout=10_000)
    assert pane.page_count() == 0

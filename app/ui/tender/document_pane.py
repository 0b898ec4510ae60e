"""The tender document pane: PDF pages (rendered off the GUI thread) or text, search, diagnostics.

:class:`DocumentPane` shows a :class:`~app.documents.model.TenderDocument`: a PDF as a
continuous column of page images (:class:`~app.ui.tender.page_view.PageView`, rendered lazily
by :mod:`app.ui.tender.pdf_render` tasks on the pane's own thread pool), anything else (DOCX,
converted .doc, text) as read-only text with page markers. A banner lists the
document's diagnostics (unreadable pages, garbled text) with links to their pages.
Pages without usable text are read by OCR in a worker process
(:mod:`app.ui.tender.ocr_process`): at once when the whole tender has none, on request
(a banner link) when only some pages lack it; OCR lines are framed over the page image,
low-confidence ones filled, and search finds their text.
``show_page(n)`` is what a click on a scoring item or an outline node's source calls.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QColor, QImage, QKeySequence, QShortcut, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QSpinBox,
    QStackedWidget,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from typing_extensions import override

from app.documents.model import Diagnostic, DiagnosticCode, Severity, TenderDocument
from app.documents.ocr.apply import pages_needing_ocr
from app.documents.ocr.layout import LOW_CONFIDENCE, find_in_lines
from app.ui.tender.ocr_pages_dialog import OcrPagesDialog
from app.ui.tender.ocr_process import OcrJob
from app.ui.tender.page_view import PageView
from app.ui.tender.pdf_render import PdfRenderer, Rect

if TYPE_CHECKING:
    from PySide6.QtGui import QCloseEvent

ZOOM_STEPS = (0.5, 0.67, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0)
MAX_TEXT_HITS = 2000
_BANNER_STYLE = {
    Severity.ERROR: "background:#fdecea; border:1px solid #e57373; color:#8e1c1c;",
    Severity.WARNING: "background:#fff4e5; border:1px solid #ffb74d; color:#7a4300;",
    Severity.INFO: "background:#e8f1fb; border:1px solid #90caf9; color:#0d3c61;",
}
_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


class DocumentPane(QWidget):
    """Shows the tender beside the outline; jump with :meth:`show_page`, find with :meth:`search`.

    Signals:
        pageChanged(int): the 1-based page the reader is on changed.
        pageRendered(int): a PDF page image arrived (tests and busy indicators).
        searchFinished(str, int): a search ended with this many hits.
        ocrFinished(bool, str): an OCR run ended: whether pages were read (then the tender is
            re-read with them) and a Chinese message.
    """

    pageChanged = Signal(int)
    pageRendered = Signal(int)
    searchFinished = Signal(str, int)
    ocrFinished = Signal(bool, str)

    def __init__(self, parent: QWidget | None = None, *, processes: int = 2, warm_up_ms: int = 1500) -> None:
        super().__init__(parent)
        self.setObjectName("documentPane")
        self._document: TenderDocument | None = None
        self._password: str | None = None
        self._generation = 0
        self._pdf_path: str | None = None
        self._in_flight: set[tuple[int, float]] = set()
        self._last_page = 0
        self._hits: list[tuple[int, int]] = []  # PDF: (page, rect index); text: (position, length)
        self._hit_rects: dict[int, list[Rect]] = {}
        self._hit_index = -1
        self._query = ""
        self._text_page_starts: list[int] = []  # text view: block number where each page starts
        self.render_pids: set[int] = set()  # processes that rendered pages (diagnostics, tests)
        #: Start OCR by itself for a tender without usable text (the settings switch).
        self.ocr_enabled = True
        self.ocr_cache_dir: str | None = None  # None: the user's cache folder
        self.ocr_job: OcrJob | None = None
        self.ocr_pages_dialog: OcrPagesDialog | None = None  # the per-page offer, while open
        self.renderer = PdfRenderer(processes=processes, parent=self)
        self.renderer.laidOut.connect(self._on_laid_out)
        self.renderer.rendered.connect(self._on_rendered)
        self.renderer.renderFailed.connect(self._on_render_failed)
        self.renderer.searched.connect(self._on_searched)
        self._build()
        self.clear()
        # Start a PDF process soon after the window appears, not during start-up itself.
        self._warm_timer = QTimer(self)
        self._warm_timer.setSingleShot(True)
        self._warm_timer.setInterval(warm_up_ms)
        self._warm_timer.timeout.connect(self.renderer.warm_up)
        if warm_up_ms >= 0:
            self._warm_timer.start()

    # ------------------------------------------------------------------ building
    def _build(self) -> None:
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 2)
        self.prev_button = self._tool("◀", "上一页 (PgUp)", self.previous_page)
        self.page_spin = QSpinBox()
        self.page_spin.setMinimum(1)
        self.page_spin.setToolTip("页码")
        self.page_spin.setKeyboardTracking(False)
        self.page_spin.valueChanged.connect(self._on_spin_page)
        self.page_total = QLabel("/ 0")
        self.next_button = self._tool("▶", "下一页 (PgDown)", self.next_page)
        self.zoom_out_button = self._tool("－", "缩小 (Ctrl+-)", self.zoom_out)
        self.zoom_combo = QComboBox()
        for z in ZOOM_STEPS:
            self.zoom_combo.addItem(f"{round(z * 100)}%", z)
        self.zoom_combo.addItem("适合宽度", 0.0)
        self.zoom_combo.setCurrentIndex(ZOOM_STEPS.index(1.0))
        self.zoom_combo.activated.connect(self._on_zoom_chosen)
        self.zoom_in_button = self._tool("＋", "放大 (Ctrl++)", self.zoom_in)
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("在招标文件中查找")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.returnPressed.connect(self._on_search_return)
        self.search_status = QLabel()
        self.find_prev_button = self._tool("↑", "上一个结果 (Shift+F3)", self.find_previous)
        self.find_next_button = self._tool("↓", "下一个结果 (F3)", self.find_next)
        for w in (self.prev_button, self.page_spin, self.page_total, self.next_button, self.zoom_out_button,
                  self.zoom_combo, self.zoom_in_button):
            bar.addWidget(w)
        bar.addSpacing(12)
        bar.addWidget(self.search_edit, 1)
        for w in (self.search_status, self.find_prev_button, self.find_next_button):
            bar.addWidget(w)

        self.banner = QFrame()
        self.banner.setObjectName("diagnosticBanner")
        banner_layout = QHBoxLayout(self.banner)
        banner_layout.setContentsMargins(8, 4, 4, 4)
        self.banner_label = QLabel()
        self.banner_label.setWordWrap(True)
        self.banner_label.linkActivated.connect(self._on_banner_link)
        self.banner_close = self._tool("✕", "关闭提示", self.banner.hide)
        banner_layout.addWidget(self.banner_label, 1)
        banner_layout.addWidget(self.banner_close)

        self.ocr_bar = QFrame()
        self.ocr_bar.setObjectName("ocrBar")
        ocr_layout = QHBoxLayout(self.ocr_bar)
        ocr_layout.setContentsMargins(8, 2, 4, 2)
        self.ocr_label = QLabel()
        self.ocr_progress = QProgressBar()
        self.ocr_progress.setMaximumWidth(160)
        self.ocr_cancel_button = self._tool("取消识别", "停止文字识别（已识别的页保留）", self.cancel_ocr)
        ocr_layout.addWidget(self.ocr_label, 1)
        ocr_layout.addWidget(self.ocr_progress)
        ocr_layout.addWidget(self.ocr_cancel_button)
        self.ocr_bar.hide()

        self.page_view = PageView()
        self.page_view.viewChanged.connect(self._on_view_changed)
        self.text_view = QPlainTextEdit()
        self.text_view.setObjectName("documentText")
        self.text_view.setReadOnly(True)
        self.text_view.verticalScrollBar().valueChanged.connect(self._on_text_scrolled)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.page_view)
        self.stack.addWidget(self.text_view)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.banner)
        layout.addWidget(self.ocr_bar)
        layout.addWidget(self.stack, 1)

        for keys, slot in ((QKeySequence.StandardKey.FindNext, self.find_next),
                           (QKeySequence.StandardKey.FindPrevious, self.find_previous),
                           (QKeySequence.StandardKey.ZoomIn, self.zoom_in),
                           (QKeySequence.StandardKey.ZoomOut, self.zoom_out)):
            QShortcut(QKeySequence(keys), self, slot)

    def _tool(self, text: str, tip: str, slot: object) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    # ------------------------------------------------------------------ document
    @property
    def document(self) -> TenderDocument | None:
        """The document shown (None when empty)."""
        return self._document

    @property
    def pdf_path(self) -> str | None:
        """The PDF shown (None for other documents): what the analysis page's preview renders from."""
        return self._pdf_path

    @property
    def password(self) -> str | None:
        """The open password of the PDF shown, if it has one."""
        return self._password

    @property
    def is_pdf_view(self) -> bool:
        """True when pages are shown as images (PDF), False for the text view."""
        return self.stack.currentWidget() is self.page_view

    def set_document(self, document: TenderDocument, password: str | None = None) -> None:
        """Show ``document``: PDF pages as images (rendered in the background), others as text."""
        if self.ocr_job is not None and self.ocr_job.path != document.source_path:
            self.stop_ocr()
        if self.ocr_pages_dialog is not None:  # its page list belongs to the document shown until now
            self.ocr_pages_dialog.reject()
        self._reset()
        self._document = document
        self._password = password
        self._show_diagnostics(document.diagnostics, document)
        if document.kind == "pdf":
            self.stack.setCurrentWidget(self.page_view)
            self.page_view.placeholder = "正在打开……"
            self._pdf_path = document.source_path
            self.renderer.layout(self._generation, document.source_path, password)
        else:
            self.stack.setCurrentWidget(self.text_view)
            self._fill_text(document)
        self._set_nav_enabled(True)
        if (self.ocr_enabled and document.kind == "pdf" and not document.has_readable_text
                and pages_needing_ocr(document) and self.ocr_job is None):
            self.start_ocr(pages_needing_ocr(document))

    def clear(self, message: str = "尚未打开招标文件") -> None:
        """Show nothing but ``message`` (also cancels background work)."""
        self.stop_ocr()
        self._reset()
        self.page_view.placeholder = message
        self.page_view.viewport().update()
        self.stack.setCurrentWidget(self.page_view)
        self._set_nav_enabled(False)

    def _reset(self) -> None:
        self.renderer.cancel()
        self._generation += 1
        self._pdf_path = None
        self._document = None
        self._in_flight.clear()
        self._last_page = 0
        self._clear_search()
        self.page_view.set_pages([])
        self.page_view.set_unreadable(set())
        self.text_view.clear()
        self._text_page_starts = []
        self.banner.hide()
        self._update_page_controls()

    def shutdown(self) -> bool:
        """Cancel background work and stop the PDF child processes (call before the window closes).

        A later :meth:`set_document` starts them again. Returns True (kept for callers that check).
        """
        self._warm_timer.stop()
        self.stop_ocr()
        self.renderer.shutdown()
        return True

    def _set_nav_enabled(self, on: bool) -> None:
        pdf = on and self.is_pdf_view
        widgets: list[tuple[QWidget, bool]] = [
            (self.prev_button, on), (self.next_button, on), (self.page_spin, on), (self.search_edit, on),
            (self.find_prev_button, on), (self.find_next_button, on),
            (self.zoom_in_button, pdf), (self.zoom_out_button, pdf), (self.zoom_combo, pdf),
        ]
        for widget, enabled in widgets:
            widget.setEnabled(enabled)

    # ------------------------------------------------------------------ diagnostics banner
    def _show_diagnostics(self, diagnostics: list[Diagnostic], document: TenderDocument) -> None:
        shown = sorted(diagnostics, key=lambda d: _SEVERITY_RANK[d.severity])
        if document.unreadable_pages and not any(d.pages for d in shown):
            pages = document.unreadable_pages
            shown.append(Diagnostic(code=DiagnosticCode.NO_TEXT_LAYER, severity=Severity.WARNING,
                                    message_zh=f"有 {len(pages)} 页文字无法识别", pages=pages))
        if not shown:
            self.banner.hide()
            return
        lines = []
        for d in shown:
            text = d.message_zh
            if d.page_range is not None:
                first, last = d.page_range
                where = f"第 {first} 页" if first == last else f"第 {first}–{last} 页"
                text += f"（<a href='page:{first}'>{where}</a>）"
            lines.append(("⚠ " if d.severity != Severity.INFO else "ℹ ") + text)
        if document.kind == "pdf" and pages_needing_ocr(document) and (document.has_readable_text or not self.ocr_enabled):
            count = len(pages_needing_ocr(document))
            lines.append(f"ℹ 有 {count} 页没有可用文字：<a href='ocr'>对这些页做文字识别（OCR）{'…' if count > 1 else ''}</a>")
        self.banner_label.setText("<br>".join(lines))
        self.banner.setStyleSheet(f"QFrame#diagnosticBanner {{{_BANNER_STYLE[shown[0].severity]}}}")
        self.banner.show()

    def _on_banner_link(self, link: str) -> None:
        if link.startswith("page:"):
            self.show_page(int(link.split(":", 1)[1]))
        elif link == "ocr" and self._document is not None and self.ocr_job is None:
            self.offer_ocr()

    def offer_ocr(self) -> None:
        """The per-page offer: one page is read at once; several open a checklist of pages (all checked)."""
        pages = pages_needing_ocr(self._document) if self._document is not None else []
        if len(pages) <= 1:
            self.start_ocr(pages)
            return
        if self.ocr_pages_dialog is not None:
            self.ocr_pages_dialog.raise_()
            return
        dialog = OcrPagesDialog(pages, self.current_page(), self)
        self.ocr_pages_dialog = dialog

        def finished(result: int) -> None:
            self.ocr_pages_dialog = None
            if result == QDialog.DialogCode.Accepted.value:
                self.start_ocr(dialog.chosen_pages())
            dialog.deleteLater()

        dialog.finished.connect(finished)
        dialog.open()

    # ------------------------------------------------------------------ OCR
    def start_ocr(self, pages: list[int]) -> bool:
        """Read ``pages`` of the shown PDF by OCR in a worker process (False when nothing to do)."""
        doc = self._document
        if doc is None or doc.kind != "pdf" or not pages or self.ocr_job is not None:
            return False
        job = OcrJob(doc.source_path, self._password, pages, cache_dir=self.ocr_cache_dir, parent=self)
        job.progress.connect(self._on_ocr_progress)
        job.finished.connect(self._on_ocr_finished)
        self.ocr_job = job
        self.ocr_label.setText(f"正在做文字识别（OCR），共 {len(pages)} 页……")
        self.ocr_progress.setRange(0, len(pages))
        self.ocr_progress.setValue(0)
        self.ocr_cancel_button.setEnabled(True)
        self.ocr_bar.show()
        job.start()
        return True

    def cancel_ocr(self) -> None:
        """Stop the OCR run after its current page (pages read so far are kept)."""
        if self.ocr_job is not None:
            self.ocr_label.setText("正在取消文字识别……")
            self.ocr_cancel_button.setEnabled(False)
            self.ocr_job.cancel()

    def stop_ocr(self) -> None:
        """End any OCR run at once, without re-reading the tender."""
        job, self.ocr_job = self.ocr_job, None
        if job is not None:
            job.finished.disconnect(self._on_ocr_finished)
            job.shutdown()
            job.deleteLater()
        self.ocr_bar.hide()

    def _on_ocr_progress(self, done: int, total: int, page: int) -> None:
        self.ocr_progress.setValue(done)
        self.ocr_label.setText(f"正在做文字识别（OCR）：第 {page} 页已读完（{done}/{total}）")

    def _on_ocr_finished(self, any_read: bool, cancelled: bool, message: str) -> None:
        job, self.ocr_job = self.ocr_job, None
        if job is not None:
            job.deleteLater()
        self.ocr_bar.hide()
        self.ocrFinished.emit(any_read, message)

    def _show_ocr_lines(self, document: TenderDocument) -> None:
        self.page_view.set_ocr_lines(
            {p.number: [(ln.bbox, ln.text, ln.confidence) for ln in p.ocr_lines]
             for p in document.pages if p.source == "ocr"},
            LOW_CONFIDENCE,
        )

    # ------------------------------------------------------------------ navigation
    def page_count(self) -> int:
        """Pages of the shown document (0 when none)."""
        if self._document is None:
            return 0
        return self.page_view.page_count if self.is_pdf_view else len(self._text_page_starts)

    def current_page(self) -> int:
        """The 1-based page being read (0 when nothing is shown)."""
        if self._document is None:
            return 0
        if self.is_pdf_view:
            return self.page_view.current_page()
        if not self._text_page_starts:
            return 0
        top = self.text_view.verticalScrollBar().value()
        return max(1, bisect.bisect_right(self._text_page_starts, top))

    def show_page(self, page: int) -> bool:
        """Scroll to a 1-based page; False when there is no such page (yet)."""
        if not 1 <= page <= self.page_count():
            return False
        if self.is_pdf_view:
            self.page_view.scroll_to_page(page)
        else:
            self.text_view.verticalScrollBar().setValue(self._text_page_starts[page - 1])
            cursor = QTextCursor(self.text_view.document().findBlockByNumber(self._text_page_starts[page - 1]))
            self.text_view.setTextCursor(cursor)
        self._sync_page()
        return True

    def next_page(self) -> None:
        """Go one page on."""
        self.show_page(min(self.current_page() + 1, self.page_count()))

    def previous_page(self) -> None:
        """Go one page back."""
        self.show_page(max(self.current_page() - 1, 1))

    def _on_spin_page(self, page: int) -> None:
        if page != self.current_page():
            self.show_page(page)

    def _sync_page(self) -> None:
        page = self.current_page()
        if page != self._last_page:
            self._last_page = page
            self._update_page_controls()
            self.pageChanged.emit(page)

    def _update_page_controls(self) -> None:
        count = self.page_count()
        self.page_spin.blockSignals(True)
        self.page_spin.setMaximum(max(1, count))
        self.page_spin.setValue(max(1, self.current_page()))
        self.page_spin.blockSignals(False)
        estimated = self._document is not None and self._document.page_numbers_estimated
        self.page_total.setText(f"/ {count}" + ("（估计）" if estimated else ""))

    # ------------------------------------------------------------------ zoom
    def zoom(self) -> float:
        """The PDF zoom factor (1.0 = 100%)."""
        return self.page_view.zoom

    def set_zoom(self, zoom: float) -> None:
        """Set the PDF zoom; pages re-render in the background at the new size."""
        self.page_view.set_zoom(zoom)
        index = self.zoom_combo.findData(round(self.page_view.zoom, 2))
        self.zoom_combo.setCurrentIndex(index if index >= 0 else self.zoom_combo.count() - 1)

    def zoom_in(self) -> None:
        """Next larger zoom step."""
        self.set_zoom(next((z for z in ZOOM_STEPS if z > self.zoom() + 1e-3), ZOOM_STEPS[-1]))

    def zoom_out(self) -> None:
        """Next smaller zoom step."""
        self.set_zoom(next((z for z in reversed(ZOOM_STEPS) if z < self.zoom() - 1e-3), ZOOM_STEPS[0]))

    def fit_width(self) -> None:
        """Zoom so the widest page fills the view's width."""
        self.set_zoom(self.page_view.fit_width_zoom())

    def _on_zoom_chosen(self, index: int) -> None:
        z = float(self.zoom_combo.itemData(index))
        self.fit_width() if z == 0.0 else self.set_zoom(z)

    # ------------------------------------------------------------------ PDF rendering
    def page_image(self, page: int) -> QImage | None:
        """The rendered image of a PDF page at the current zoom, if it has arrived."""
        return self.page_view.image(page)

    def _on_laid_out(self, generation: int, result: object) -> None:
        if generation != self._generation or self._document is None:
            return
        if isinstance(result, str):
            self.page_view.placeholder = result
            self.page_view.viewport().update()
            return
        assert isinstance(result, list)
        self.page_view.set_pages(result)
        self.page_view.set_unreadable(set(self._document.unreadable_pages))
        self._show_ocr_lines(self._document)
        if self.page_view.fit_width_zoom() < 1.0:  # a narrow pane starts with whole-width pages
            self.fit_width()
        self._update_page_controls()
        self._sync_page()

    def _on_view_changed(self) -> None:
        if self._pdf_path is None or not self.page_view.page_count:
            return
        scale = self.page_view.scale
        visible = self.page_view.visible_pages()
        wanted = {(p, scale) for p in self.page_view.visible_pages(extra=2)}
        self._in_flight = self.renderer.cancel_renders(wanted, self._generation)
        dpr = self.devicePixelRatioF()
        for page in visible + [p for p, _ in sorted(wanted) if p not in visible]:  # visible pages first
            key = (page, scale)
            if key in self._in_flight or self.page_view.has_image(page, scale):
                continue
            self._in_flight.add(key)
            self.renderer.render(self._generation, self._pdf_path, self._password, page, scale, dpr)
        self._sync_page()

    def _on_rendered(self, generation: int, page: int, scale: float, image: QImage, pid: int) -> None:
        if generation != self._generation:
            return
        self._in_flight.discard((page, scale))
        self.render_pids.add(pid)
        self.page_view.put_image(page, scale, image)
        self.pageRendered.emit(page)

    def _on_render_failed(self, generation: int, page: int, message: str) -> None:
        if generation == self._generation:
            self._in_flight = {k for k in self._in_flight if k[0] != page}
            self.page_view.mark_failed(page, message)

    # ------------------------------------------------------------------ text view
    def _fill_text(self, document: TenderDocument) -> None:
        parts: list[str] = []
        starts: list[int] = []
        line = 0
        approx = "约" if document.page_numbers_estimated else ""
        for page in document.pages:
            starts.append(line)
            lines = [f"—— {approx}第 {page.number} 页 ——"] if len(document.pages) > 1 else []
            lines += [b.text for b in page.blocks] or ["（本页没有文字）"]
            text = "\n".join(lines)
            parts.append(text)
            line += text.count("\n") + 1
        self._text_page_starts = starts
        self.text_view.setPlainText("\n".join(parts))
        self.text_view.moveCursor(QTextCursor.MoveOperation.Start)
        self._update_page_controls()
        self._sync_page()

    def _on_text_scrolled(self, _value: int) -> None:
        if self._document is not None and not self.is_pdf_view:
            self._sync_page()

    # ------------------------------------------------------------------ search
    def search(self, query: str) -> None:
        """Find ``query`` everywhere (PDF: in a worker); ``searchFinished`` reports the count."""
        self._clear_search()
        self._query = query.strip()
        if not self._query or self._document is None:
            self.searchFinished.emit(self._query, 0)
            return
        self.search_edit.setText(self._query)
        if self.is_pdf_view:
            if self._pdf_path is None:
                return
            self.search_status.setText("查找中……")
            self.renderer.search(self._generation, self._pdf_path, self._password, self._query,
                                 self.page_view.page_count)
        else:
            self._search_text()

    def search_hits(self) -> list[tuple[int, int]]:
        """The hits: PDF ``(page, index on page)``; text ``(position, length)``."""
        return list(self._hits)

    def find_next(self) -> None:
        """Go to the next hit (wrapping)."""
        self._step_hit(+1)

    def find_previous(self) -> None:
        """Go to the previous hit (wrapping)."""
        self._step_hit(-1)

    def _on_search_return(self) -> None:
        text = self.search_edit.text().strip()
        if text and text == self._query and self._hits:
            self.find_next()
        else:
            self.search(text)

    def _clear_search(self) -> None:
        self._hits = []
        self._hit_rects = {}
        self._hit_index = -1
        self._query = ""
        self.search_status.setText("")
        self.page_view.set_hits({}, None)
        self.text_view.setExtraSelections([])

    def _on_searched(self, generation: int, query: str, hits: object) -> None:
        if generation != self._generation or query != self._query:
            return
        assert isinstance(hits, dict)
        hits = dict(hits)
        for page in self._document.pages if self._document is not None else []:
            if page.source == "ocr":  # the file's own text layer there is empty or garbage
                found = find_in_lines(page.ocr_lines, query)
                if found:
                    hits[page.number] = found
                else:
                    hits.pop(page.number, None)
        self._hit_rects = hits
        self._hits = [(page, i) for page in sorted(hits) for i in range(len(hits[page]))]
        self._after_search()

    def _search_text(self) -> None:
        doc = self.text_view.document()
        cursor = QTextCursor(doc)
        while len(self._hits) < MAX_TEXT_HITS:
            cursor = doc.find(self._query, cursor, QTextDocument.FindFlag(0))
            if cursor.isNull():
                break
            self._hits.append((cursor.selectionStart(), cursor.selectionEnd() - cursor.selectionStart()))
        self._after_search()

    def _after_search(self) -> None:
        if not self._hits:
            self.search_status.setText("未找到")
            self.searchFinished.emit(self._query, 0)
            return
        here = self.current_page()
        self._hit_index = 0
        for i, hit in enumerate(self._hits):  # start at the first hit on or after this page
            if self._hit_page(hit) >= here:
                self._hit_index = i
                break
        self._go_to_hit()
        self.searchFinished.emit(self._query, len(self._hits))

    def _hit_page(self, hit: tuple[int, int]) -> int:
        if self.is_pdf_view:
            return hit[0]
        block = self.text_view.document().findBlock(hit[0]).blockNumber()
        return max(1, bisect.bisect_right(self._text_page_starts, block))

    def _step_hit(self, step: int) -> None:
        if not self._hits:
            return
        self._hit_index = (self._hit_index + step) % len(self._hits)
        self._go_to_hit()

    def _go_to_hit(self) -> None:
        hit = self._hits[self._hit_index]
        self.search_status.setText(f"{self._hit_index + 1}/{len(self._hits)}")
        if self.is_pdf_view:
            page, i = hit
            self.page_view.set_hits(self._hit_rects, (page, i))
            self.page_view.scroll_to_page(page, self._hit_rects[page][i][1])
        else:
            self._highlight_text(hit)
        self._sync_page()

    def _highlight_text(self, current: tuple[int, int]) -> None:
        selections = []
        for pos, length in self._hits:
            sel = QTextEdit.ExtraSelection()
            sel.cursor = QTextCursor(self.text_view.document())
            sel.cursor.setPosition(pos)
            sel.cursor.setPosition(pos + length, QTextCursor.MoveMode.KeepAnchor)
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(255, 140, 0) if (pos, length) == current else QColor(255, 230, 0))
            sel.format = fmt
            selections.append(sel)
        self.text_view.setExtraSelections(selections)
        cursor = QTextCursor(self.text_view.document())
        cursor.setPosition(current[0])
        self.text_view.setTextCursor(cursor)
        self.text_view.centerCursor()

    # ------------------------------------------------------------------ closing
    @override
    def closeEvent(self, event: QCloseEvent) -> None:
        """Qt override: stop the workers with the pane."""
        self.shutdown()
        super().closeEvent(event)


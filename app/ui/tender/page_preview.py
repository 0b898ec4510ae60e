"""The page beside the scoring rows: the tender page a row was read from, with the row marked.

A PDF page is rendered by the document pane's own PyMuPDF processes (a request of a
generation of its own, which the pane ignores) and shown scaled to the preview's width, the
block that holds the selected row's name framed in orange and scrolled into view; any other
document shows the page's text with the name highlighted. The analysis page opens it beside
the rows whenever the reading is not confirmed, so checking a row never leaves the rows.
"""

from __future__ import annotations

import html
from typing import Protocol

from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QStackedWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.documents.model import TenderDocument
from app.ui.tender.pdf_render import PdfRenderer

#: The render generation of the preview's requests (the document pane's are 0, 1, 2 …).
PREVIEW_GENERATION = -36
#: Pixels per PDF point of the preview's renders (sharp when scaled down to a dock's width).
RENDER_SCALE = 1.5
#: A render not delivered after this long (dropped from a busy queue) is asked for again.
RETRY_MS = 1500
_MARK = QColor(230, 120, 0)


class PageSource(Protocol):
    """What the preview needs of the document pane: the document, its PDF and the render processes."""

    @property
    def document(self) -> TenderDocument | None:
        """The document shown."""

    @property
    def pdf_path(self) -> str | None:
        """The PDF file shown (None for other documents)."""

    @property
    def password(self) -> str | None:
        """Its open password, if any."""

    renderer: PdfRenderer

    def show_page(self, page: int) -> bool:
        """Scroll the pane to ``page``."""

    def isVisible(self) -> bool:
        """Whether the pane is on screen (not closed, not a tab behind another)."""


class PagePreview(QWidget):
    """One tender page, the selected row framed on it.

    Signals:
        open_requested(int): show this page in the document pane (the whole tender).
    """

    open_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scoringPagePreview")
        self._source: PageSource | None = None
        self._pending_follow = 0
        self._page = 0
        self._needle = ""
        self._image: QImage | None = None
        self.title = QLabel("原文")
        self.title.setObjectName("previewTitle")
        self.prev_button = self._tool("◀", "上一页", lambda: self.show_page(self._page - 1, self._needle))
        self.next_button = self._tool("▶", "下一页", lambda: self.show_page(self._page + 1, self._needle))
        self.open_button = self._tool("在招标文件中打开", "在“招标文件”中显示这一页", lambda: self.open_requested.emit(self._page))
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.title, 1)
        for b in (self.prev_button, self.next_button, self.open_button):
            bar.addWidget(b)
        self.image_label = QLabel()
        self.image_label.setObjectName("previewImage")
        self.image_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setWidget(self.image_label)
        self.text = QTextBrowser()
        self.text.setObjectName("previewText")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.scroll_area)
        self.stack.addWidget(self.text)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        self._retry = QTimer(self)
        self._retry.setSingleShot(True)
        self._retry.setInterval(RETRY_MS)
        self._retry.timeout.connect(self._request)

    def _tool(self, text: str, tip: str, slot: object) -> QToolButton:
        b = QToolButton()
        b.setText(text)
        b.setToolTip(tip)
        b.clicked.connect(slot)
        return b

    def set_source(self, source: PageSource | None) -> None:
        """Render from ``source`` (the document pane); None shows page text only."""
        if self._source is not None:
            try:
                self._source.renderer.rendered.disconnect(self._on_rendered)
                self._source.renderer.laidOut.disconnect(self._on_laid_out)
            except (RuntimeError, TypeError):
                pass
        self._source = source
        if source is not None:
            source.renderer.rendered.connect(self._on_rendered)
            source.renderer.laidOut.connect(self._on_laid_out)

    def source_on_screen(self) -> bool:
        """Whether the document pane itself is on screen beside the rows (a stage that shows both)."""
        return self._source is not None and self._source.isVisible() and self._source.document is not None

    def follow(self, page: int) -> bool:
        """Show ``page`` in the document pane when it is on screen beside the rows; False when it is not.

        A PDF the pane is still laying out gets the page once it is laid out."""
        if not page or not self.source_on_screen() or self._source is None:
            return False
        self._pending_follow = 0 if self._source.show_page(page) else page
        return True

    def _on_laid_out(self, *_args: object) -> None:
        page, self._pending_follow = self._pending_follow, 0
        if page:
            QTimer.singleShot(0, self, lambda: self.follow(page))

    @property
    def page(self) -> int:
        """The page on show (0: none)."""
        return self._page

    @property
    def has_image(self) -> bool:
        """Whether a rendered page image is on show."""
        return self.stack.currentWidget() is self.scroll_area and self._image is not None

    def _document(self) -> TenderDocument | None:
        return self._source.document if self._source is not None else None

    def show_page(self, page: int, needle: str = "", document: TenderDocument | None = None) -> None:
        """Show ``page`` (1-based) with ``needle`` (a row's name) marked; ``document`` when no source has one."""
        doc = document or self._document()
        if doc is None or not 1 <= page <= doc.page_count:
            return
        self._page, self._needle = page, needle
        self.title.setText(f"原文 第 {page} 页" + (f" · {needle}" if needle else ""))
        self.prev_button.setEnabled(page > 1)
        self.next_button.setEnabled(page < doc.page_count)
        if doc.kind == "pdf" and self._source is not None and self._source.pdf_path:
            self.stack.setCurrentWidget(self.scroll_area)
            self._image = None
            self.image_label.setText("正在显示……")
            self._request()
        else:
            self.stack.setCurrentWidget(self.text)
            self._show_text(doc, page, needle)

    def _request(self) -> None:
        source = self._source
        if source is None or not source.pdf_path or not self._page or self._image is not None:
            return
        source.renderer.render(PREVIEW_GENERATION, source.pdf_path, source.password, self._page, RENDER_SCALE,
                               self.devicePixelRatioF())
        self._retry.start()

    def _on_rendered(self, generation: int, page: int, scale: float, image: QImage, _pid: int) -> None:
        if generation != PREVIEW_GENERATION or page != self._page:
            return
        self._retry.stop()
        self._image = image
        self._paint()

    def _paint(self) -> None:
        """The image scaled to the preview's width with the needle's block framed, scrolled to it."""
        image, doc = self._image, self._document()
        if image is None:
            return
        width = max(200, self.scroll_area.viewport().width() - 4)
        dpr = image.devicePixelRatio() or 1.0
        pixmap = QPixmap.fromImage(image).scaledToWidth(int(width * dpr), Qt.TransformationMode.SmoothTransformation)
        pixmap.setDevicePixelRatio(dpr)
        factor = width / (image.width() / dpr) * RENDER_SCALE  # display pixels per PDF point
        box = _block_box(doc, self._page, self._needle) if doc is not None else None
        top = 0
        if box is not None:
            painter = QPainter(pixmap)
            painter.setPen(QPen(_MARK, 2))
            painter.fillRect(QRectF(box[0] * factor, box[1] * factor, (box[2] - box[0]) * factor,
                                    (box[3] - box[1]) * factor), QColor(255, 200, 0, 60))
            painter.drawRect(QRectF(box[0] * factor - 2, box[1] * factor - 2, (box[2] - box[0]) * factor + 4,
                                    (box[3] - box[1]) * factor + 4))
            painter.end()
            top = int(box[1] * factor)
        self.image_label.setPixmap(pixmap)
        # once the label has its new size (the scroll range follows on the next turn of the event loop)
        QTimer.singleShot(0, self, lambda: self.scroll_area.verticalScrollBar().setValue(max(0, top - 40)))

    def _show_text(self, doc: TenderDocument, page: int, needle: str) -> None:
        from app.pipeline.analysis.reading_check import name_core, norm  # loaded with the first preview

        text = html.escape(doc.page(page).text) if doc.page(page).readable else "（此页文字无法识别）"
        core = name_core(needle) if needle else ""
        if core and core in norm(doc.page(page).text):
            text = _mark_text(text, needle)
        self.text.setHtml(f"<div style='white-space:pre-wrap'>{text}</div>")
        if "<a name='hit'>" in text:
            self.text.scrollToAnchor("hit")

    def resizeEvent(self, event: object) -> None:
        """Qt override: the page follows the preview's width."""
        super().resizeEvent(event)  # type: ignore[arg-type]
        if self._image is not None:
            self._paint()


def _block_box(doc: TenderDocument, page: int, needle: str) -> tuple[float, float, float, float] | None:
    """The box of the block on ``page`` holding ``needle`` (whitespace and width aside); a name wrapped over
    two or three blocks (a narrow cell) gets the box around them."""
    from app.pipeline.analysis.reading_check import (  # not at start: it loads the scoring reader
        name_core,
        norm,
    )

    core = name_core(needle) if needle else ""
    if len(core) < 2 or not 1 <= page <= doc.page_count:
        return None
    blocks = [b for b in doc.page(page).blocks if b.bbox is not None]
    for span in (1, 2, 3):
        for i in range(len(blocks) - span + 1):
            run = blocks[i:i + span]
            if core in norm("".join(b.text for b in run)):
                boxes = [b.bbox for b in run if b.bbox is not None]
                return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                        max(b[3] for b in boxes))
    return None


def _mark_text(escaped: str, needle: str) -> str:
    """The first occurrence of ``needle`` (as printed, maybe with spaces) highlighted in escaped page text."""
    from app.pipeline.analysis.reading_check import name_core

    words = html.escape(needle.strip())
    at = escaped.find(words)
    if at < 0:
        core = html.escape(name_core(needle))
        at = escaped.find(core)
        words = core
    if at < 0:
        return escaped
    return (f"{escaped[:at]}<a name='hit'></a><span style='background:#ffe0a0;font-weight:bold'>{words}</span>"
            f"{escaped[at + len(words):]}")

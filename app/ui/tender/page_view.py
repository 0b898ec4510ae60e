"""The continuous page view of a PDF: lays out all pages, paints cached page images.

A ``QAbstractScrollArea`` whose viewport paints only the visible pages: the image at the
current scale when cached, a scaled image of another zoom while the sharp one renders,
or a grey placeholder. It knows nothing about PyMuPDF; the pane feeds it page sizes and
images (rendered off the GUI thread by :mod:`app.ui.tender.pdf_render`) and reads which pages
are visible to request renders.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QHelpEvent, QImage, QPainter, QPen
from PySide6.QtWidgets import QAbstractScrollArea, QToolTip, QWidget
from typing_extensions import override

if TYPE_CHECKING:
    from PySide6.QtGui import QPaintEvent, QResizeEvent

    from app.ui.tender.pdf_render import PageSize, Rect

MARGIN = 12
GAP = 12
CACHE_BYTES = 192 * 1024 * 1024
POINTS_TO_PIXELS = 96.0 / 72.0


class PageView(QAbstractScrollArea):
    """Scrollable column of pages; zoom ``1.0`` shows a page at its printed size on a 96 dpi screen.

    Signals:
        viewChanged(): scrolled, resized or re-laid-out; the visible pages may differ.
    """

    viewChanged = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pageView")
        self.viewport().setAutoFillBackground(True)
        pal = self.viewport().palette()
        pal.setColor(self.viewport().backgroundRole(), QColor("#8a8f96"))
        self.viewport().setPalette(pal)
        self._sizes: list[PageSize] = []
        self._zoom = 1.0
        self._tops: list[int] = []
        self._content_w = 0
        self._content_h = 0
        self._images: OrderedDict[tuple[int, float], QImage] = OrderedDict()
        self._image_bytes = 0
        self._hits: dict[int, list[Rect]] = {}
        self._current_hit: tuple[int, int] | None = None
        self._unreadable: set[int] = set()
        #: OCR pages: (box in points, text, confidence) of every line read from the image.
        self._ocr: dict[int, list[tuple[Rect, str, float]]] = {}
        self.low_confidence = 0.8
        self._failed: dict[int, str] = {}
        self.placeholder = ""
        # Always shown: a scrollbar appearing after layout would change the width "fit width" used.
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.verticalScrollBar().setSingleStep(40)
        self.horizontalScrollBar().setSingleStep(40)

    # ------------------------------------------------------------------ layout
    @property
    def scale(self) -> float:
        """Pixels per PDF point at the current zoom (what renders are keyed by)."""
        return round(self._zoom * POINTS_TO_PIXELS, 4)

    @property
    def zoom(self) -> float:
        """The zoom factor (1.0 = 100%)."""
        return self._zoom

    @property
    def page_count(self) -> int:
        """Pages laid out."""
        return len(self._sizes)

    def set_pages(self, sizes: list[PageSize]) -> None:
        """Lay out pages of these sizes (points); clears images, hits and marks."""
        self._sizes = list(sizes)
        self._images.clear()
        self._image_bytes = 0
        self._hits = {}
        self._ocr = {}
        self._current_hit = None
        self._failed = {}
        self._relayout()
        self.verticalScrollBar().setValue(0)
        self.horizontalScrollBar().setValue(0)
        self.viewChanged.emit()

    def set_zoom(self, zoom: float) -> None:
        """Change the zoom, keeping the page at the top of the view in place."""
        zoom = max(0.1, min(zoom, 8.0))
        if abs(zoom - self._zoom) < 1e-6:
            return
        page, frac = self._anchor()
        self._zoom = zoom
        self._relayout()
        if page:
            top = self._tops[page - 1]
            height = self._page_px(page - 1)[1]
            self.verticalScrollBar().setValue(int(top - MARGIN + frac * height))
        self.viewport().update()
        self.viewChanged.emit()

    def fit_width_zoom(self) -> float:
        """The zoom at which the widest page fills the viewport width."""
        if not self._sizes:
            return self._zoom
        widest = max(w for w, _ in self._sizes)
        return max(0.1, (self.viewport().width() - 2 * MARGIN) / (widest * POINTS_TO_PIXELS))

    def _page_px(self, index: int) -> tuple[int, int]:
        w, h = self._sizes[index]
        s = self.scale
        return round(w * s), round(h * s)

    def _relayout(self) -> None:
        self._tops = []
        y = MARGIN
        widest = 0
        for i in range(len(self._sizes)):
            w, h = self._page_px(i)
            self._tops.append(y)
            y += h + GAP
            widest = max(widest, w)
        self._content_h = y - GAP + MARGIN if self._sizes else 0
        self._content_w = widest + 2 * MARGIN
        self._update_scrollbars()

    def _update_scrollbars(self) -> None:
        vp = self.viewport().size()
        self.verticalScrollBar().setRange(0, max(0, self._content_h - vp.height()))
        self.verticalScrollBar().setPageStep(vp.height())
        self.horizontalScrollBar().setRange(0, max(0, self._content_w - vp.width()))
        self.horizontalScrollBar().setPageStep(vp.width())

    def page_rect(self, page: int) -> QRect:
        """Content-coordinate rectangle of a 1-based page."""
        w, h = self._page_px(page - 1)
        width = max(self._content_w, self.viewport().width())
        return QRect((width - w) // 2, self._tops[page - 1], w, h)

    def _anchor(self) -> tuple[int, float]:
        """(page at the top edge, fraction of it scrolled past)."""
        page = self.page_at(self.verticalScrollBar().value() + MARGIN)
        if not page:
            return 0, 0.0
        top = self._tops[page - 1]
        height = max(1, self._page_px(page - 1)[1])
        return page, max(0.0, (self.verticalScrollBar().value() + MARGIN - top) / height)

    def page_at(self, y: int) -> int:
        """The 1-based page at content height ``y`` (0 when there are no pages)."""
        if not self._tops:
            return 0
        return max(1, bisect.bisect_right(self._tops, y))

    def visible_pages(self, extra: int = 0) -> list[int]:
        """1-based pages intersecting the viewport, widened by ``extra`` pages each side."""
        if not self._tops:
            return []
        top = self.verticalScrollBar().value()
        first = self.page_at(top)
        last = self.page_at(top + self.viewport().height())
        return list(range(max(1, first - extra), min(self.page_count, last + extra) + 1))

    def current_page(self) -> int:
        """The page a reader is looking at: the one crossing a third of the view height."""
        return self.page_at(self.verticalScrollBar().value() + self.viewport().height() // 3)

    def scroll_to_page(self, page: int, y_points: float | None = None) -> None:
        """Bring a page (and, when given, a height on it in points) into view."""
        top = self._tops[page - 1] - MARGIN
        if y_points is not None:
            top = int(self._tops[page - 1] + y_points * self.scale - self.viewport().height() / 3)
        self.verticalScrollBar().setValue(top)
        self.viewport().update()

    # ------------------------------------------------------------------ content
    def has_image(self, page: int, scale: float) -> bool:
        """Whether the image of ``page`` at ``scale`` is cached."""
        return (page, scale) in self._images

    def image(self, page: int, scale: float | None = None) -> QImage | None:
        """The cached image of a page at ``scale`` (default: the current one)."""
        return self._images.get((page, self.scale if scale is None else scale))

    def put_image(self, page: int, scale: float, image: QImage) -> None:
        """Cache a rendered page (least recently used images go beyond the byte budget)."""
        key = (page, scale)
        if key in self._images:
            self._image_bytes -= self._images.pop(key).sizeInBytes()
        self._images[key] = image
        self._image_bytes += image.sizeInBytes()
        while self._image_bytes > CACHE_BYTES and len(self._images) > 1:
            _, old = self._images.popitem(last=False)
            self._image_bytes -= old.sizeInBytes()
        self._failed.pop(page, None)
        self.viewport().update()

    def mark_failed(self, page: int, message: str) -> None:
        """Show a message instead of the page image."""
        self._failed[page] = message
        self.viewport().update()

    def set_unreadable(self, pages: set[int]) -> None:
        """Pages whose text could not be read get a corner tag."""
        self._unreadable = set(pages)
        self.viewport().update()

    def set_ocr_lines(self, lines: dict[int, list[tuple[Rect, str, float]]], low_confidence: float) -> None:
        """OCR pages' lines (box, text, confidence): framed over the image, low-confidence ones filled."""
        self._ocr = lines
        self.low_confidence = low_confidence
        self.viewport().update()

    def ocr_line_at(self, pos: QPointF) -> tuple[int, str, float] | None:
        """The OCR line under a viewport position: (page, text, confidence), or None."""
        y = pos.y() + self.verticalScrollBar().value()
        x = pos.x() + self.horizontalScrollBar().value()
        page = self.page_at(int(y))
        rect = self.page_rect(page) if 1 <= page <= self.page_count else None
        if rect is None:
            return None
        s = self.scale
        px, py = (x - rect.x()) / s, (y - rect.y()) / s
        for (x0, y0, x1, y1), text, conf in self._ocr.get(page, []):
            if x0 <= px <= x1 and y0 <= py <= y1:
                return page, text, conf
        return None

    def set_hits(self, hits: dict[int, list[Rect]], current: tuple[int, int] | None) -> None:
        """Search hit rectangles (points) per page and the current one (page, index)."""
        self._hits = hits
        self._current_hit = current
        self.viewport().update()

    # ------------------------------------------------------------------ Qt overrides
    @override
    def resizeEvent(self, event: QResizeEvent) -> None:
        """Qt override: recompute scroll ranges."""
        super().resizeEvent(event)
        self._update_scrollbars()
        self.viewChanged.emit()

    @override
    def scrollContentsBy(self, dx: int, dy: int) -> None:
        """Qt override: repaint and tell the pane what is visible now."""
        self.viewport().update()
        self.viewChanged.emit()

    @override
    def viewportEvent(self, event: QEvent) -> bool:
        """Qt override: a tooltip over an OCR line shows what was read and how sure the engine was."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            hit = self.ocr_line_at(QPointF(event.pos()))
            if hit is not None:
                _page, text, conf = hit
                note = "（把握不大，请核对）" if conf < self.low_confidence else ""
                QToolTip.showText(event.globalPos(), f"识别文字：{text}\n置信度 {conf:.0%}{note}", self.viewport())
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    @override
    def paintEvent(self, event: QPaintEvent) -> None:
        """Qt override: paint the visible pages, their hits and marks."""
        painter = QPainter(self.viewport())
        try:
            if not self._sizes:
                if self.placeholder:
                    painter.setPen(QColor("white"))
                    painter.drawText(self.viewport().rect(), Qt.AlignmentFlag.AlignCenter, self.placeholder)
                return
            dx, dy = self.horizontalScrollBar().value(), self.verticalScrollBar().value()
            painter.translate(-dx, -dy)
            for page in self.visible_pages():
                self._paint_page(painter, page)
        finally:
            painter.end()

    def _paint_page(self, painter: QPainter, page: int) -> None:
        rect = self.page_rect(page)
        painter.fillRect(rect, QColor("white"))
        image = self._images.get((page, self.scale))
        if image is None:  # a blurry stand-in from another zoom while the sharp one renders
            image = next((img for (p, _), img in reversed(self._images.items()) if p == page), None)
        if image is not None:
            painter.drawImage(QRectF(rect), image)
        else:
            painter.setPen(QColor("#888"))
            text = self._failed.get(page, f"第 {page} 页\n加载中……")
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.setPen(QPen(QColor("#555"), 1))
        painter.drawRect(rect.adjusted(0, 0, -1, -1))
        s = self.scale
        for i, (x0, y0, x1, y1) in enumerate(self._hits.get(page, [])):
            current = self._current_hit == (page, i)
            color = QColor(255, 140, 0, 120) if current else QColor(255, 230, 0, 100)
            painter.fillRect(QRectF(QPointF(rect.x() + x0 * s, rect.y() + y0 * s),
                                    QPointF(rect.x() + x1 * s, rect.y() + y1 * s)), color)
        if page in self._ocr:
            self._paint_ocr(painter, page, rect)
        if page in self._unreadable:
            tag = QRect(rect.x(), rect.y(), min(rect.width(), 220), 22)
            painter.fillRect(tag, QColor(198, 40, 40, 200))
            painter.setPen(QColor("white"))
            painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, "此页文字无法识别")

    def _paint_ocr(self, painter: QPainter, page: int, rect: QRect) -> None:
        """Frame each OCR line; fill the ones the engine was unsure of; tag the page."""
        s = self.scale
        normal = QPen(QColor(30, 110, 200, 90), 1)
        doubtful = QColor(255, 120, 0, 70)
        for (x0, y0, x1, y1), _text, conf in self._ocr[page]:
            box = QRectF(QPointF(rect.x() + x0 * s, rect.y() + y0 * s), QPointF(rect.x() + x1 * s, rect.y() + y1 * s))
            if conf < self.low_confidence:
                painter.fillRect(box, doubtful)
                painter.setPen(QPen(QColor(230, 90, 0), 1))
            else:
                painter.setPen(normal)
            painter.drawRect(box)
        tag = QRect(rect.right() - min(rect.width(), 120), rect.y(), min(rect.width(), 120), 20)
        painter.fillRect(tag, QColor(30, 110, 200, 190))
        painter.setPen(QColor("white"))
        painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, "文字识别（OCR）")

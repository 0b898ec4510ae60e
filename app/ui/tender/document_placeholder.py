"""The document pane: ui-support's ``DocumentPane`` when present, else a plain text view.

Both offer ``show_document(TenderDocument)`` and ``show_page(int)``; the placeholder shows
page texts with anchors and a banner line for the reader's diagnostics.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QTextBrowser, QWidget

if TYPE_CHECKING:
    from app.documents.model import TenderDocument


class TextDocumentPane(QTextBrowser):
    """Read-only page-by-page text of the tender (used until the rendered pane is available)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("documentPane")
        self.setOpenLinks(False)
        self.setPlaceholderText("尚未打开招标文件。")

    def show_document(self, doc: TenderDocument) -> None:
        """Show every page's text (unreadable pages are marked, not shown as garbage)."""
        parts = []
        for d in doc.diagnostics:
            parts.append(f"<p style='background:#fff3cd;padding:4px'>⚠ {html.escape(d.message_zh)}</p>")
        for page in doc.pages:
            parts.append(f"<h4><a name='p{page.number}'></a>第 {page.number} 页</h4>")
            if not page.readable:
                parts.append("<p style='color:#a00'>（此页文字无法识别）</p>")
                continue
            parts.append("<p>" + html.escape(page.text).replace("\n", "<br>") + "</p>")
        self.setHtml("".join(parts))

    def show_page(self, number: int) -> None:
        """Scroll to page ``number``."""
        self.scrollToAnchor(f"p{number}")


def make_document_pane(parent: QWidget | None = None) -> QWidget:
    """The best document pane available in this build."""
    try:
        from app.ui.tender.document_pane import DocumentPane  # built in parallel by ui-support
    except ImportError:
        return TextDocumentPane(parent)
    pane: QWidget = DocumentPane(parent)
    return pane

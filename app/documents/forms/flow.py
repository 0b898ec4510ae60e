"""A tender as one flow of paragraphs and tables, the way its forms are read and later copied.

The format chapter is read from this flow rather than from ``TenderDocument`` blocks because
forms need what the block text loses: a DOCX paragraph's raw text with its underlined runs
(a blank is often a run of underlined spaces) and the body position the export copies it
from; a PDF's lines joined back into paragraphs. ``source`` is the DOCX body child index or,
for a PDF, the running block number, so :mod:`app.export.forms` can find the original again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.word_runs import W as _W
from app.core.word_runs import paragraph_runs, run_text


@dataclass
class FlowParagraph:
    """One paragraph: its raw text, underlined character spans, style hints, page and source."""

    index: int
    text: str
    page: int = 1
    source: int = -1
    underlined: list[tuple[int, int]] = field(default_factory=list)
    heading_level: int | None = None
    align: str = ""
    bold: bool = False
    list_item: bool = False  # a DOCX auto-numbered list entry (not a heading)
    auto_numbered: bool = False  # Word numbers it (its number is not in the text)
    page_top: bool = False  # the first paragraph on its page

    @property
    def kind(self) -> str:
        """``"paragraph"``."""
        return "paragraph"


@dataclass
class FlowTable:
    """One table: its grid (``None`` continues a merged cell), page and source."""

    index: int
    rows: list[list[str | None]]
    page: int = 1
    source: int = -1

    @property
    def kind(self) -> str:
        """``"table"``."""
        return "table"


FlowItem = FlowParagraph | FlowTable


def _underlined(run: Any) -> bool:
    u = run.find(f"{_W}rPr/{_W}u")
    return u is not None and (u.get(f"{_W}val") or "single") != "none"


def _bold(run: Any) -> bool:
    b = run.find(f"{_W}rPr/{_W}b")
    return b is not None and (b.get(f"{_W}val") or "true") not in ("0", "false")


def docx_paragraph(p: Any) -> tuple[str, list[tuple[int, int]], bool]:
    """A paragraph element's text, its underlined spans and whether its text is all bold."""
    text: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    bold_chars = visible = 0
    for r in paragraph_runs(p):
        t = run_text(r)
        if not t:
            continue
        if _underlined(r):
            if spans and spans[-1][1] == pos:
                spans[-1] = (spans[-1][0], pos + len(t))
            else:
                spans.append((pos, pos + len(t)))
        n = len(t.strip())
        visible += n
        if _bold(r):
            bold_chars += n
        text.append(t)
        pos += len(t)
    return "".join(text), spans, bool(visible) and bold_chars == visible


def _align(p: Any) -> str:
    jc = p.find(f"{_W}pPr/{_W}jc")
    val = jc.get(f"{_W}val") if jc is not None else ""
    return {"center": "center", "right": "right", "end": "right", "both": "left", "left": "left", "start": "left"}.get(
        val or "", "")


def _outline_level(p: Any) -> int | None:
    """The outline level a paragraph sets directly (``w:outlineLvl`` 0–8 → 1–9), or None."""
    el = p.find(f"{_W}pPr/{_W}outlineLvl")
    val = el.get(f"{_W}val") if el is not None else None
    return int(val) + 1 if val is not None and val.isdigit() and int(val) < 9 else None


def docx_flow(path: Path) -> list[FlowItem]:
    """The body of a DOCX as a flow (pages counted from recorded breaks, as the reader does)."""
    from docx import Document
    from docx.table import Table as DocxTable

    from app.documents.docx_reader import _page_breaks, _style_level, _style_names, _table_rows

    document = Document(str(path))
    names = _style_names(document)
    items: list[FlowItem] = []
    page = 1
    for source, child in enumerate(document.element.body.iterchildren()):
        if child.tag == f"{_W}p":
            breaks = _page_breaks(child)
            text, spans, bold = docx_paragraph(child)
            if breaks and not text.strip():
                page += breaks
                continue
            page += breaks
            if not text.strip():
                continue
            level = _style_level(child, names) or _outline_level(child)
            num = child.find(f"{_W}pPr/{_W}numPr/{_W}numId")
            listed = (num is not None and num.get(f"{_W}val") not in (None, "0") and not level and not bold
                      and _align(child) != "center")
            numbered = num is not None and num.get(f"{_W}val") not in (None, "0")
            top = not items or items[-1].page != page
            items.append(FlowParagraph(len(items), text, page, source, spans, level or None, _align(child), bold, listed,
                                       numbered, top))
        elif child.tag == f"{_W}tbl":
            rows = _table_rows(DocxTable(child, document))
            items.append(FlowTable(len(items), rows, page, source))
            page += len(child.findall(f".//{_W}lastRenderedPageBreak"))
    return items

"""Read a DOCX tender with python-docx into a :class:`TenderDocument`.

Paragraphs and tables are walked in document order. Merged cells are de-duplicated
through the underlying ``<w:tc>`` element: python-docx returns a merged cell once per
grid position, so repeats (to the right or below) become ``None`` like PyMuPDF's
continuation cells. DOCX has no pages; page numbers count the page breaks Word recorded
(``lastRenderedPageBreak`` or explicit breaks) and are marked as estimated.
"""

from __future__ import annotations

import time
import zipfile
from pathlib import Path
from typing import Any

from docx import Document
from docx.table import Table as DocxTable
from docx.table import _Cell
from docx.text.paragraph import Paragraph

from app.core.input_limits import LIMITS
from app.documents.errors import CorruptedFileError, corrupted_or_gone
from app.documents.model import (
    Diagnostic,
    DiagnosticCode,
    Heading,
    Page,
    Severity,
    Table,
    TenderDocument,
    TextBlock,
)
from app.documents.text_patterns import heading_level
from app.documents.zip_guard import check_zip_container

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MAX_CAPTION_CHARS = 120
#: Estimated pages stop counting here (a few KB of repeated page breaks must not become 10⁶ pages).
_MAX_PAGES = LIMITS.tender_max_pages


def _style_names(document: Any) -> dict[str, str]:
    """styleId -> style name, read once (python-docx's per-paragraph lookup is slow)."""
    names: dict[str, str] = {}
    for st in document.styles.element.findall(f"{_W}style"):
        sid = st.get(f"{_W}styleId")
        name_el = st.find(f"{_W}name")
        if sid and name_el is not None:
            names[sid] = name_el.get(f"{_W}val") or ""
    return names


def _style_level(element: Any, style_names: dict[str, str]) -> int | None:
    """Heading level from the paragraph style ("Heading 2", "标题 2"); 0 for TOC entries."""
    style = element.find(f"{_W}pPr/{_W}pStyle")
    if style is None:
        return None
    sid = style.get(f"{_W}val") or ""
    lowered = style_names.get(sid, sid).lower()
    if lowered.startswith("toc"):
        return 0
    for prefix in ("heading ", "标题 ", "标题"):
        if lowered.startswith(prefix):
            rest = lowered[len(prefix) :].strip()
            if rest.isascii() and rest.isdigit() and 1 <= int(rest) <= 9:
                return int(rest)
    return None


def _page_breaks(element: Any) -> int:
    """Page breaks inside a paragraph element: rendered breaks, else explicit ones."""
    rendered = len(element.findall(f".//{_W}lastRenderedPageBreak"))
    if rendered:
        return rendered
    return sum(1 for br in element.iter(f"{_W}br") if br.get(f"{_W}type") == "page")


def _table_rows(table: DocxTable) -> list[list[str | None]]:
    """The grid with merged-cell repeats turned into None (same ``<w:tc>`` left or above)."""
    rows: list[list[str | None]] = []
    above: list[Any] = []
    keep: list[Any] = []  # holds the lxml proxies so identity comparisons stay valid
    for row in table.rows:
        try:
            cells = list(row.cells)
        except (IndexError, ValueError):  # a merge python-docx cannot resolve: read the row's own cells
            own, own_tcs = _own_cells(table, row)
            keep.append(own_tcs)
            rows.append(own)
            above = own_tcs
            continue
        tcs = [c._tc for c in cells]
        keep.append(tcs)
        out: list[str | None] = []
        for j, (cell, tc) in enumerate(zip(cells, tcs, strict=True)):
            if (j > 0 and tcs[j - 1] is tc) or (j < len(above) and above[j] is tc):
                out.append(None)
            else:
                out.append(cell.text.strip())
        rows.append(out)
        above = tcs
    return rows


def _own_cells(table: DocxTable, row: Any) -> tuple[list[str | None], list[Any]]:
    """A row read from its own ``<w:tc>`` elements: a cell spanning columns once, then None; a cell that
    continues a vertical merge None (python-docx refuses a row whose merge starts above the table's top:
    a table that a conversion or the writer cut inside a merged cell, its upper part in the table before)."""
    out: list[str | None] = []
    tcs: list[Any] = []
    for tc in row._tr.tc_lst:
        span = max(1, int(tc.grid_span or 1))
        out.append(None if tc.vMerge == "continue" else _Cell(tc, table).text.strip())
        out.extend([None] * (span - 1))
        tcs.extend([tc] * span)
    return out, tcs


def _render_table(rows: list[list[str | None]]) -> str:
    """Table text for model input and locating: one line per row, cells joined by " | "."""
    lines = []
    for r in rows:
        cells = [c.replace("\n", " ") for c in r if c]
        if cells:
            lines.append(" | ".join(cells))
    return "\n".join(lines)


def read_docx(path: Path) -> TenderDocument:
    """Read a DOCX into a TenderDocument (CorruptedFileError when python-docx cannot)."""
    t0 = time.perf_counter()
    check_zip_container(path)  # sizes and ratios from the central directory, before inflating
    try:
        document = Document(str(path))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, Exception) as exc:
        raise corrupted_or_gone(path, "无法打开该 Word 文件：文件已损坏或不是有效的 .docx", exc) from exc
    try:
        return _walk(document, path, t0)
    except Exception as exc:  # python-docx on a malformed part: the file, not the app, is broken
        raise CorruptedFileError(
            "该 Word 文件的内容结构已损坏，无法读取", path=str(path), detail=f"{type(exc).__name__}: {exc}"
        ) from exc


def _walk(document: Any, path: Path, t0: float) -> TenderDocument:
    """The body in document order: paragraphs, headings, tables, estimated pages."""
    page = 1
    pages: dict[int, list[TextBlock]] = {1: []}
    tables: list[Table] = []
    headings: list[Heading] = []
    last_texts: list[str] = []
    breaks_seen = 0
    body = document.element.body
    style_names = _style_names(document)
    for child in body.iterchildren():
        tag = child.tag
        if tag == f"{_W}p":
            paragraph = Paragraph(child, document)
            breaks = _page_breaks(child)
            text = paragraph.text.strip()
            if breaks and not text:
                page = min(page + breaks, _MAX_PAGES)
                breaks_seen += breaks
                pages.setdefault(page, [])
                continue
            if breaks:
                # a break inside a paragraph with text: count the text on the new page
                page = min(page + breaks, _MAX_PAGES)
                breaks_seen += breaks
                pages.setdefault(page, [])
            if not text:
                continue
            style_level = _style_level(child, style_names)
            level = None if style_level == 0 else style_level or heading_level(text)
            block = TextBlock(
                page=page, text=text, kind="heading" if level else "paragraph", heading_level=level
            )
            blocks = pages.setdefault(page, [])
            if level:
                headings.append(Heading(text=text, level=level, page=page, block_index=len(blocks)))
            blocks.append(block)
            last_texts = [*last_texts[-1:], text]
        elif tag == f"{_W}tbl":
            table = DocxTable(child, document)
            rows = _table_rows(table)
            table_id = f"t{len(tables) + 1}"
            caption = " ".join(last_texts)[-_MAX_CAPTION_CHARS:]
            tables.append(Table(id=table_id, page=page, rows=rows, caption=caption))
            rendered = _render_table(rows)
            if rendered:
                pages.setdefault(page, []).append(
                    TextBlock(page=page, text=rendered, kind="table", table_id=table_id)
                )
            last_texts = []
            inner = len(child.findall(f".//{_W}lastRenderedPageBreak"))
            if inner:  # the table ran over pages: what follows starts on a later page
                page = min(page + inner, _MAX_PAGES)
                breaks_seen += inner
                pages.setdefault(page, [])
    page_list = []
    for n in range(1, max(pages) + 1):
        blocks = pages.get(n, [])
        text = "".join(b.text for b in blocks)
        page_list.append(
            Page(number=n, blocks=blocks, readable=True, char_count=sum(1 for c in text if not c.isspace()))
        )
    diagnostics: list[Diagnostic] = []
    if breaks_seen >= _MAX_PAGES:
        diagnostics.append(
            Diagnostic(
                code=DiagnosticCode.PAGES_LIMITED,
                severity=Severity.WARNING,
                message_zh=f"该 Word 文件记录了 {breaks_seen + 1} 个分页，超过 {_MAX_PAGES} 页的上限；"
                           f"第 {_MAX_PAGES} 页之后的内容都按第 {_MAX_PAGES} 页计",
            )
        )
    if breaks_seen:
        diagnostics.append(
            Diagnostic(
                code=DiagnosticCode.ESTIMATED_PAGES,
                severity=Severity.INFO,
                message_zh="Word 文件没有固定页码，页码按文件中记录的分页估算，可能与打印版略有出入",
            )
        )
    if not any(p.char_count for p in page_list):
        diagnostics.append(
            Diagnostic(
                code=DiagnosticCode.NO_READABLE_TEXT,
                severity=Severity.ERROR,
                message_zh="该 Word 文件没有任何文字内容，无法分析",
            )
        )
    return TenderDocument(
        source_path=str(path),
        kind="docx",
        pages=page_list,
        tables=tables,
        headings=headings,
        diagnostics=diagnostics,
        page_numbers_estimated=True,
        timings={"docx_read": time.perf_counter() - t0},
    )

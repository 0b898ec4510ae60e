"""Put OCR results into a :class:`TenderDocument`, and decide which pages to read.

Modes (:class:`OcrMode`): ``off`` leaves the document as read; ``auto`` reads the pages
the diagnostics found without usable text (scans, outlines, garbled layers); ``force``
reads every page; ``cached`` uses only what the cache already holds (the desktop app
opens a tender with it, then reads the rest in its worker process). An OCR page gets
blocks marked ``source="ocr"`` with their confidence, its lines with boxes, its headings,
its rebuilt tables, and becomes readable; the page diagnostics are recomputed, and what
OCR did or could not do is added as diagnostics.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from app.documents.diagnostics import PageState, common_cjk_ratio, page_diagnostics
from app.documents.model import Diagnostic, DiagnosticCode, Severity, TenderDocument
from app.documents.ocr.cache import OcrCache, OcrPageResult
from app.documents.ocr.engine import OcrUnavailableError
from app.documents.ocr.layout import LOW_CONFIDENCE, blocks_from_lines, headings_of
from app.documents.ocr.runner import OcrProgress, recognize_pages
from app.documents.text_patterns import format_page_ranges

log = logging.getLogger(__name__)

_PAGE_CODES = frozenset({
    DiagnosticCode.NO_TEXT_LAYER, DiagnosticCode.TEXT_AS_OUTLINES, DiagnosticCode.GARBLED_TEXT,
    DiagnosticCode.BLANK_PAGES, DiagnosticCode.NO_READABLE_TEXT,
})
_OCR_CODES = frozenset({
    DiagnosticCode.OCR_APPLIED, DiagnosticCode.OCR_LOW_CONFIDENCE, DiagnosticCode.OCR_EMPTY,
    DiagnosticCode.OCR_TABLE_UNCERTAIN, DiagnosticCode.OCR_NOT_RUN,
})
_NEEDS_OCR = ("scanned", "outlines", "garbled")
MIN_OCR_CHARS = 10  # an OCR page with fewer characters than this stays unreadable


class OcrMode(str, Enum):
    """When to read pages by OCR."""

    OFF = "off"
    AUTO = "auto"
    FORCE = "force"
    CACHED = "cached"


@dataclass(frozen=True)
class OcrSettings:
    """How the loader runs OCR: the mode, the cache folder (None: the user's), progress and cancel."""

    mode: OcrMode = OcrMode.OFF
    cache_dir: Path | None = None
    progress: OcrProgress | None = None
    cancelled: Callable[[], bool] | None = None


def pages_needing_ocr(doc: TenderDocument) -> list[int]:
    """Pages whose own text layer is unusable and that OCR has not read yet."""
    return [p.number for p in doc.pages if p.layer in _NEEDS_OCR and p.source != "ocr"]


def apply_results(doc: TenderDocument, results: dict[int, OcrPageResult]) -> list[int]:
    """Replace the text of the pages in ``results`` with their OCR reading; the pages changed."""
    changed: list[int] = []
    empty: list[int] = []
    for number, result in sorted(results.items()):
        if not 1 <= number <= doc.page_count:
            continue
        page = doc.page(number)
        blocks = blocks_from_lines(result.lines, number)
        text = "".join(b.text for b in blocks)
        chars = sum(1 for ch in text if not ch.isspace())
        if chars < MIN_OCR_CHARS:  # nothing read: keep what the page had
            if page.layer != "ok":
                empty.append(number)
            continue
        page.blocks = blocks
        page.ocr_lines = list(result.lines)
        page.source = "ocr"
        page.readable = True
        page.char_count = chars
        page.common_cjk_ratio = common_cjk_ratio(text)
        doc.headings = [h for h in doc.headings if h.page != number]
        doc.headings.extend(headings_of(blocks, number))
        doc.tables = [t for t in doc.tables if t.page != number]
        doc.tables.extend(result.tables())
        changed.append(number)
    doc.headings.sort(key=lambda h: (h.page, h.block_index))
    doc.tables.sort(key=lambda t: (t.page, t.bbox[1] if t.bbox else 0.0))
    _refresh_diagnostics(doc, empty)
    return changed


def _refresh_diagnostics(doc: TenderDocument, empty: list[int]) -> None:
    """Page diagnostics for what is still unreadable, plus what OCR did."""
    states = {p.number: PageState.OK if p.source == "ocr" else PageState(p.layer) for p in doc.pages}
    kept = [d for d in doc.diagnostics if d.code not in _PAGE_CODES and d.code not in _OCR_CODES]
    out = page_diagnostics(doc.pages, states)
    ocr_pages = [p.number for p in doc.pages if p.source == "ocr"]
    if ocr_pages:
        out.append(Diagnostic(
            code=DiagnosticCode.OCR_APPLIED, severity=Severity.INFO, pages=ocr_pages,
            message_zh=f"{format_page_ranges(ocr_pages)}的文字由文字识别（OCR）读出，可能有个别错字，引用前请核对原页",
        ))
    low = [p.number for p in doc.pages if p.source == "ocr" and any(
        ln.confidence < LOW_CONFIDENCE for ln in p.ocr_lines)]
    if low:
        count = sum(1 for p in doc.pages for ln in p.ocr_lines if ln.confidence < LOW_CONFIDENCE)
        out.append(Diagnostic(
            code=DiagnosticCode.OCR_LOW_CONFIDENCE, severity=Severity.WARNING, pages=low,
            message_zh=f"{format_page_ranges(low)}有 {count} 行识别把握不大（已在页面上标出），请对照原页核对",
        ))
    if empty:
        out.append(Diagnostic(
            code=DiagnosticCode.OCR_EMPTY, severity=Severity.WARNING, pages=sorted(empty),
            message_zh=f"{format_page_ranges(sorted(empty))}做了文字识别（OCR），但没有识别出文字",
        ))
    for t in doc.tables:
        if t.source == "ocr" and t.uncertain:
            out.append(Diagnostic(
                code=DiagnosticCode.OCR_TABLE_UNCERTAIN, severity=Severity.WARNING, pages=[t.page],
                message_zh=f"第{t.page}页扫描表格的结构可能有误（{t.uncertain}），请对照原页核对",
            ))
    doc.diagnostics = kept + out


def note_not_run(doc: TenderDocument, pages: list[int], why: str) -> None:
    """Say that ``pages`` need OCR that did not run, and why (in Chinese)."""
    if not pages:
        return
    doc.diagnostics.append(Diagnostic(
        code=DiagnosticCode.OCR_NOT_RUN, severity=Severity.WARNING, pages=pages,
        message_zh=f"{format_page_ranges(pages)}需要文字识别（OCR）：{why}",
    ))


def ocr_document(doc: TenderDocument, path: Path, password: str | None, settings: OcrSettings) -> None:
    """Run OCR on ``doc`` (a PDF read from ``path``) as ``settings`` say, in place."""
    if doc.kind != "pdf" or settings.mode == OcrMode.OFF:
        return
    wanted = [p.number for p in doc.pages] if settings.mode == OcrMode.FORCE else pages_needing_ocr(doc)
    if not wanted:
        return
    cache = OcrCache.for_file(path, settings.cache_dir)
    if settings.mode == OcrMode.CACHED:
        results = {n: r for n in wanted if (r := cache.get(n)) is not None}
        apply_results(doc, results)
        return
    try:
        run = recognize_pages(path, wanted, password=password, cache=cache,
                              progress=settings.progress, cancelled=settings.cancelled)
    except OcrUnavailableError as exc:
        log.warning("OCR unavailable: %s", exc)
        note_not_run(doc, wanted, exc.message_zh)
        return
    doc.timings["ocr"] = run.seconds
    apply_results(doc, run.results)
    if run.cancelled:
        note_not_run(doc, [n for n in wanted if n not in run.results], "识别已取消")

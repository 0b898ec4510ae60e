"""Read a PDF tender with PyMuPDF into a :class:`TenderDocument`.

Text comes block by block in the file's reading order with page numbers; each page is
judged (scan, vector outlines, garbled, fine) and tables are extracted only on pages
that may hold the scoring table (see :mod:`app.documents.pdf_tables`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pymupdf as _pymupdf_module

from app.core.input_limits import LIMITS
from app.documents.diagnostics import (
    MIN_TEXT_CHARS,
    PageFacts,
    PageState,
    classify_page,
    common_cjk_ratio,
    page_diagnostics,
)
from app.documents.errors import (
    CorruptedFileError,
    PasswordRequiredError,
    WrongPasswordError,
    corrupted_or_gone,
)
from app.documents.model import Diagnostic, DiagnosticCode, Heading, Page, Severity, TenderDocument, TextBlock
from app.documents.pdf_tables import extract_scoring_candidate_tables
from app.documents.text_patterns import format_page_ranges, heading_level

pymupdf: Any = _pymupdf_module  # PyMuPDF is only partly typed: use it as a dynamic module
PdfDocument = Any
PdfPage = Any
_BLOCK_FIELDS = set(TextBlock.model_fields)  # never changes: every field is always set
_WRAPPED_HEADING_CHARS = 26  # a longer first line of a multi-line block is a wrapped paragraph

pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)
if hasattr(pymupdf, "no_recommend_layout"):  # PyMuPDF ≥ 1.27 prints an advert for its layout add-on
    pymupdf.no_recommend_layout()


def open_pdf(path: Path) -> PdfDocument:
    """``pymupdf.open`` that also works for names that are not valid UTF-8 (Linux bytes names).

    MuPDF takes the name as UTF-8; a name the file system stores as other bytes (shown by
    Python with surrogate escapes) is read into memory and opened from there instead.
    """
    name = str(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return pymupdf.open(stream=Path(path).read_bytes(), filetype="pdf")
    return pymupdf.open(name, filetype="pdf")


def _open(path: Path, password: str | None) -> tuple[PdfDocument, list[Diagnostic]]:
    """Open and unlock the PDF, raising the specific DocumentError when it cannot be."""
    try:
        doc = open_pdf(path)
    except Exception as exc:  # MuPDF raises FileDataError/RuntimeError/ValueError variously
        raise corrupted_or_gone(path, "无法打开该 PDF：文件已损坏或不是有效的 PDF", exc) from exc
    notes: list[Diagnostic] = []
    if doc.needs_pass:
        if not password:
            doc.close()
            raise PasswordRequiredError("该 PDF 设有打开密码，请输入密码后再打开", path=str(path))
        if not doc.authenticate(password):
            doc.close()
            raise WrongPasswordError("密码不正确，无法打开该 PDF，请重新输入", path=str(path))
    elif doc.is_encrypted or (doc.metadata or {}).get("encryption"):
        notes.append(
            Diagnostic(
                code=DiagnosticCode.COPY_RESTRICTED,
                severity=Severity.INFO,
                message_zh="该 PDF 设有权限限制（仅所有者密码），已正常打开并提取文字",
            )
        )
    if doc.page_count == 0:
        doc.close()
        raise CorruptedFileError("该 PDF 没有任何页面，文件可能已损坏", path=str(path))
    return doc, notes


def _image_coverage(page: PdfPage) -> float:
    """Share of the page area covered by images (capped at 1)."""
    area = float(page.rect.width * page.rect.height) or 1.0
    covered = 0.0
    for info in page.get_image_info():
        r = pymupdf.Rect(info["bbox"]) & page.rect
        covered += float(r.width * r.height) if not r.is_empty else 0.0
    return min(1.0, covered / area)


def _drawing_count(page: PdfPage) -> int:
    """Number of vector paths on the page (the C-level listing is ~3x faster)."""
    getter = getattr(page, "get_cdrawings", None) or page.get_drawings
    return len(getter())


def _read_page(page: PdfPage, number: int) -> tuple[Page, PageState, list[Heading]]:
    """Blocks, state and headings of one page."""
    blocks: list[TextBlock] = []
    headings: list[Heading] = []
    try:
        raw_blocks = page.get_text("blocks")
    except Exception:  # a damaged content stream: treat the page as having no text
        raw_blocks = []
    for b in raw_blocks:
        if b[6] != 0:
            continue
        text = str(b[4]).strip()
        if not text:
            continue
        first = text.split("\n", 1)[0]
        level = heading_level(first) if first == text or len(first) <= _WRAPPED_HEADING_CHARS else None
        blocks.append(
            TextBlock.model_construct(  # typed values straight from PyMuPDF: no validation per block
                _BLOCK_FIELDS,  # one shared "fields set" instead of one set per block (memory)
                page=number,
                text=text,
                kind="heading" if level is not None and "\n" not in text else "paragraph",
                bbox=(float(b[0]), float(b[1]), float(b[2]), float(b[3])),
                heading_level=level,
                table_id=None,
            )
        )
    text = "".join(b.text for b in blocks)
    chars = sum(1 for ch in text if not ch.isspace())
    ratio = common_cjk_ratio(text)
    if chars < MIN_TEXT_CHARS:
        facts = PageFacts(
            char_count=chars,
            font_count=len(page.get_fonts()),
            image_coverage=_image_coverage(page),
            drawing_count=_drawing_count(page),
            cjk_ratio=ratio,
        )
    else:
        facts = PageFacts(chars, 1, 0.0, 0, ratio)
    state = classify_page(facts)
    readable = state in (PageState.OK, PageState.BLANK)
    if readable:
        for i, blk in enumerate(blocks):
            if blk.heading_level is not None:
                headings.append(
                    Heading(text=blk.text.split("\n", 1)[0].strip(), level=blk.heading_level, page=number, block_index=i)
                )
    page_model = Page(number=number, blocks=blocks, readable=readable, char_count=chars, common_cjk_ratio=ratio,
                      layer=state.value)
    return page_model, state, headings


def _limit_diagnostics(skipped: list[int], truncated: list[int]) -> list[Diagnostic]:
    """What the bounded table search left out, as warnings naming the pages."""
    out: list[Diagnostic] = []
    if skipped:
        out.append(Diagnostic(
            code=DiagnosticCode.TABLES_LIMITED, severity=Severity.WARNING, pages=skipped,
            message_zh=f"{format_page_ranges(skipped)}的表格没有读取（表格页数、内容或耗时超出上限）；"
                       "评分表若在这些页上，请在分析页核对或手工补充",
        ))
    if truncated:
        out.append(Diagnostic(
            code=DiagnosticCode.TABLES_LIMITED, severity=Severity.WARNING, pages=truncated,
            message_zh=f"{format_page_ranges(truncated)}的表格行数过多，只读取了每张表的前若干行",
        ))
    return out


def read_pdf(path: Path, password: str | None = None) -> TenderDocument:
    """Read a PDF into a TenderDocument (raises DocumentError subclasses when it cannot)."""
    t0 = time.perf_counter()
    doc, notes = _open(path, password)
    with doc:
        total_pages = doc.page_count
        pages: list[Page] = []
        states: dict[int, PageState] = {}
        headings: list[Heading] = []
        for index in range(min(doc.page_count, LIMITS.tender_max_pages)):
            try:
                page = doc[index]
            except Exception as exc:
                raise CorruptedFileError(
                    f"该 PDF 第{index + 1}页已损坏，无法读取", path=str(path), detail=str(exc)
                ) from exc
            p, state, heads = _read_page(page, index + 1)
            pages.append(p)
            states[p.number] = state
            headings.extend(heads)
        t1 = time.perf_counter()
        scan = extract_scoring_candidate_tables(doc, pages)
        t2 = time.perf_counter()
    limited = _limit_diagnostics(scan.skipped_pages, scan.truncated_pages)
    for first, last, why in scan.cut_joins:  # a table that goes on past where reading stopped: say where and why
        limited.append(Diagnostic(
            code=DiagnosticCode.TABLES_LIMITED, severity=Severity.WARNING, pages=[last],
            message_zh=f"从第{first}页开始的表格到第{last}页底仍未结束，但{why}，第{last + 1}页起的部分没有读取；"
                       "评分表若在其中，评分项会不全，请在分析页核对",
        ))
    if total_pages > len(pages):
        limited.append(Diagnostic(
            code=DiagnosticCode.PAGES_LIMITED, severity=Severity.WARNING,
            message_zh=f"该 PDF 共 {total_pages} 页，超过 {LIMITS.tender_max_pages} 页的上限，只读取了前 "
                       f"{len(pages)} 页；请只导入招标文件的正文部分"))
    return TenderDocument(
        source_path=str(path),
        kind="pdf",
        pages=pages,
        tables=scan.tables,
        headings=headings,
        diagnostics=notes + page_diagnostics(pages, states) + limited,
        timings={"pdf_text": t1 - t0, "pdf_tables": t2 - t1},
    )

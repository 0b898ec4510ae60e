"""Read a plain-text or Markdown tender (.txt/.md) into a :class:`TenderDocument`.

Text files have no pages; form feeds (``\\f``) split pages when present, otherwise the
whole file is page 1. Encodings tried: UTF-8 (with or without BOM), then GB18030.
"""

from __future__ import annotations

from pathlib import Path

from app.documents.errors import CorruptedFileError
from app.documents.model import Diagnostic, DiagnosticCode, Heading, Page, Severity, TenderDocument, TextBlock
from app.documents.text_patterns import heading_level


def decode_text(data: bytes) -> str:
    """Decode text bytes as UTF-8 or GB18030 (the two encodings Chinese tenders use)."""
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise UnicodeDecodeError("utf-8/gb18030", data[:16], 0, 1, "not UTF-8 or GB18030 text")


def read_text(path: Path) -> TenderDocument:
    """Read a .txt/.md file; Markdown ``#`` headings and numbered lines become headings."""
    try:
        text = decode_text(path.read_bytes())
    except UnicodeDecodeError as exc:
        raise CorruptedFileError(
            "无法识别该文本文件的编码（既不是 UTF-8 也不是 GBK/GB18030）", path=str(path), detail=str(exc)
        ) from exc
    if "\x00" in text:
        raise CorruptedFileError("该文件包含二进制内容，不是文本文件", path=str(path))
    pages: list[Page] = []
    headings: list[Heading] = []
    for number, chunk in enumerate(text.split("\f"), start=1):
        blocks: list[TextBlock] = []
        for para in _paragraphs(chunk):
            level: int | None
            if para.startswith("#"):
                level = min(6, len(para) - len(para.lstrip("#")))
                para = para.lstrip("#").strip()
            else:
                level = heading_level(para)
            if level:
                headings.append(Heading(text=para, level=level, page=number, block_index=len(blocks)))
            blocks.append(
                TextBlock(page=number, text=para, kind="heading" if level else "paragraph", heading_level=level)
            )
        chars = sum(1 for b in blocks for c in b.text if not c.isspace())
        pages.append(Page(number=number, blocks=blocks, readable=True, char_count=chars))
    diagnostics = []
    if not any(p.char_count for p in pages):
        diagnostics.append(
            Diagnostic(
                code=DiagnosticCode.NO_READABLE_TEXT,
                severity=Severity.ERROR,
                message_zh="该文本文件没有任何文字内容，无法分析",
            )
        )
    return TenderDocument(
        source_path=str(path), kind="text", pages=pages, headings=headings, diagnostics=diagnostics
    )


def _paragraphs(chunk: str) -> list[str]:
    """Non-empty lines; each line is a paragraph (tender text files are line-oriented)."""
    return [ln.strip() for ln in chunk.splitlines() if ln.strip()]

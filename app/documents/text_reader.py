"""Read a plain-text or Markdown tender (.txt/.md) into a :class:`TenderDocument`.

Text files have no pages; form feeds (``\\f``) split pages when present, otherwise the
whole file is page 1. Encodings: a BOM decides (UTF-8/16/32); else UTF-8, UTF-16 without a BOM
(judged by its zero bytes), then GB18030.
"""

from __future__ import annotations

from pathlib import Path

from app.documents.errors import CorruptedFileError
from app.documents.model import Diagnostic, DiagnosticCode, Heading, Page, Severity, TenderDocument, TextBlock
from app.documents.text_patterns import heading_level

_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def _plausible_share(text: str) -> float:
    """Share of characters a Chinese text is made of (CJK, CJK punctuation, printable ASCII, spaces)."""
    if not text:
        return 0.0
    good = sum(1 for c in text if c.isspace() or " " <= c <= "~" or "\u4e00" <= c <= "\u9fff"
               or "\u3000" <= c <= "\u303f" or "\uff00" <= c <= "\uffef" or "\u2010" <= c <= "\u206f")
    return good / len(text)


def _bomless_utf16(data: bytes) -> str | None:
    """"utf-16-le"/"utf-16-be" when the bytes read as UTF-16 without a BOM (Notepad's "Unicode").

    GB18030 and UTF-8 text never contain zero bytes; UTF-16 has one beside every ASCII
    character. The byte order is the one whose decoding looks like Chinese text.
    """
    sample = data[:8192]
    if len(data) % 2 or sample.count(0) < 2:
        return None
    best, best_share = None, 0.9
    for encoding in ("utf-16-le", "utf-16-be"):
        try:
            share = _plausible_share(sample.decode(encoding))
        except UnicodeDecodeError:
            continue
        if share > best_share:
            best, best_share = encoding, share
    return best


def decode_text(data: bytes) -> str:
    """Decode text bytes: a BOM says which Unicode form; else UTF-8, UTF-16 without BOM, GB18030.

    UTF-8 and GB18030 are what Chinese tenders use; UTF-16 comes from Windows "Unicode" saves.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding.replace("-sig", ""))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    guess = _bomless_utf16(data)
    if guess is not None:
        try:
            return data.decode(guess)
        except UnicodeDecodeError:
            pass
    return data.decode("gb18030")


def read_text(path: Path) -> TenderDocument:
    """Read a .txt/.md file; Markdown ``#`` headings and numbered lines become headings."""
    try:
        text = decode_text(path.read_bytes())
    except UnicodeDecodeError as exc:
        raise CorruptedFileError(
            "无法识别该文本文件的编码（不是 UTF-8、UTF-16 或 GBK/GB18030）", path=str(path), detail=str(exc)
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

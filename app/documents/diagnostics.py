"""Judge whether each page's text can be trusted, and summarise it as diagnostics.

A healthy Chinese tender has 70–80% of its non-ASCII characters among the ~3,755 most
common hanzi (GB2312 level 1) or common CJK punctuation; a mojibake text layer (fonts
like "宋体-GBK-EUC-H" with a broken ToUnicode map) has about 1%. Pages without any
characters are scans (big images) or text drawn as vector outlines (many drawings).
Unreadable pages are marked so that model input leaves them out.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from app.documents.model import Diagnostic, DiagnosticCode, Page, Severity
from app.documents.text_patterns import format_page_ranges

GARBLED_RATIO = 0.30  # below this share of common characters a page is mojibake
MIN_CHARS_TO_JUDGE = 20  # fewer non-ASCII characters than this: not judged
MIN_TEXT_CHARS = 10  # fewer characters than this: the page has no real text layer
OUTLINE_DRAWINGS = 30  # this many vector paths on a text-less page: glyph outlines
SCAN_IMAGE_COVERAGE = 0.25  # images covering this share of the page: a scan


class PageState(str, Enum):
    """What a page's text layer is like."""

    OK = "ok"
    BLANK = "blank"
    SCANNED = "scanned"
    OUTLINES = "outlines"
    GARBLED = "garbled"


@lru_cache(maxsize=65536)
def _is_common(ch: str) -> bool:
    """GB2312 level-1 hanzi (rows 0xB0–0xD7) or the GB2312 punctuation / full-width rows."""
    try:
        b = ch.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return len(b) == 2 and (0xB0 <= b[0] <= 0xD7 or b[0] in (0xA1, 0xA3))


def common_cjk_ratio(text: str) -> float | None:
    """Share of non-ASCII, non-space characters that are common Chinese; None if too few."""
    total = common = 0
    for ch in text:
        if ch.isascii() or ch.isspace():
            continue
        total += 1
        if _is_common(ch):
            common += 1
    if total < MIN_CHARS_TO_JUDGE:
        return None
    return common / total


@dataclass(frozen=True)
class PageFacts:
    """Measurements of one page that decide its state (cheap ones always, drawings lazily)."""

    char_count: int
    font_count: int
    image_coverage: float
    drawing_count: int
    cjk_ratio: float | None


def classify_page(facts: PageFacts) -> PageState:
    """Decide a page's state from its measurements."""
    if facts.char_count < MIN_TEXT_CHARS:
        if facts.drawing_count >= OUTLINE_DRAWINGS and facts.font_count == 0:
            return PageState.OUTLINES
        if facts.image_coverage >= SCAN_IMAGE_COVERAGE:
            return PageState.SCANNED
        if facts.drawing_count >= OUTLINE_DRAWINGS:
            return PageState.OUTLINES
        return PageState.BLANK if facts.char_count == 0 else PageState.OK
    if facts.cjk_ratio is not None and facts.cjk_ratio < GARBLED_RATIO:
        return PageState.GARBLED
    return PageState.OK


_MESSAGES: dict[PageState, tuple[DiagnosticCode, str]] = {
    PageState.SCANNED: (DiagnosticCode.NO_TEXT_LAYER, "{pages}无文字层（扫描图像），需 OCR 后才能使用，这些页不会发送给模型"),
    PageState.OUTLINES: (
        DiagnosticCode.TEXT_AS_OUTLINES,
        "{pages}的文字以矢量轮廓绘制，没有可提取的文字层，需 OCR，这些页不会发送给模型",
    ),
    PageState.GARBLED: (
        DiagnosticCode.GARBLED_TEXT,
        "{pages}的文字层是乱码（字体编码损坏，常用汉字仅占 {ratio}），需 OCR 或重新导出 PDF，这些页不会发送给模型",
    ),
    PageState.BLANK: (DiagnosticCode.BLANK_PAGES, "{pages}是空白页"),
}


def page_diagnostics(pages: list[Page], states: dict[int, PageState]) -> list[Diagnostic]:
    """One diagnostic per problem kind, listing its pages; plus one if nothing is readable."""
    out: list[Diagnostic] = []
    for state, (code, template) in _MESSAGES.items():
        nums = [n for n, s in states.items() if s == state]
        if not nums:
            continue
        ratios = [p.common_cjk_ratio for p in pages if p.number in nums and p.common_cjk_ratio is not None]
        ratio = f"{100 * sum(ratios) / len(ratios):.0f}%" if ratios else "很少"
        severity = Severity.INFO if state == PageState.BLANK else Severity.WARNING
        out.append(
            Diagnostic(
                code=code,
                severity=severity,
                message_zh=template.format(pages=format_page_ranges(nums), ratio=ratio),
                pages=nums,
            )
        )
    if pages and not any(p.readable and p.char_count > 0 for p in pages):
        out.append(
            Diagnostic(
                code=DiagnosticCode.NO_READABLE_TEXT,
                severity=Severity.ERROR,
                message_zh="整份文件没有可用的文字（" + _reason(states) + "），无法分析；请先做 OCR 或换用可复制文字的版本",
            )
        )
    return out


def _reason(states: dict[int, PageState]) -> str:
    """Main reason for a document without usable text, in Chinese."""
    kinds = {s for s in states.values() if s != PageState.OK}
    if PageState.GARBLED in kinds:
        return "文字层为乱码"
    if PageState.OUTLINES in kinds:
        return "文字以矢量轮廓绘制"
    if PageState.SCANNED in kinds:
        return "扫描图像，无文字层"
    return "没有文字内容"

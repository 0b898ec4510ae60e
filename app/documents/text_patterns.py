"""Text patterns shared by the readers: heading numbering, cell text clean-up, page ranges.

Half of real DOCX tenders use no Heading styles and PDFs have none, so chapters are
recognised by their numbering (第X章, 一、, （一）, 1.1) on short lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_CN_NUM = "一二三四五六七八九十百零〇两"
_CHAPTER = re.compile(rf"^第[{_CN_NUM}\d]+[章篇部卷](?:\s|$|[^\d])")
_SECTION = re.compile(rf"^第[{_CN_NUM}\d]+节")
_CN_LIST = re.compile(rf"^[{_CN_NUM}]+[、．.]\s*\S")
_CN_PAREN = re.compile(rf"^[（(][{_CN_NUM}]+[)）]\s*\S")
_DECIMAL = re.compile(r"^(\d{1,2})((?:\.\d{1,2}){1,3})\.?\s*[^\d.\s%％]")
_TOC_LEADER = re.compile(r"(\.{4,}|…{2,}|·{4,}|-{4,})\s*\d*\s*$|\t\s*\d+\s*$")
_KEY_VALUE = re.compile(r"[:：]\s*\S{2,}")
_SENTENCE_END = re.compile(r"[。；;，,：:]$")
MAX_HEADING_CHARS = 40


def heading_level(line: str) -> int | None:
    """Heading level (1–4) of a line judged by its numbering, or None for body text.

    Long lines, sentence endings and table-of-contents leaders ("……12") are not headings.
    """
    s = line.strip()
    if not s or len(s) > MAX_HEADING_CHARS or _TOC_LEADER.search(s):
        return None
    if _CHAPTER.match(s):
        return 1
    if _SENTENCE_END.search(s):
        return None
    if _SECTION.match(s) or _CN_LIST.match(s):
        return 2
    if _CN_PAREN.match(s):
        return 3
    m = _DECIMAL.match(s)
    if m and not _KEY_VALUE.search(s):
        return min(4, 1 + m.group(2).count("."))
    return None


_ENUM_START = re.compile(r"^\s*(?:[（(]?\d{1,2}[)）.、．]|[（(][一二三四五六七八九十]+[)）]|[①-⑳]|注[:：]|[-•·★▲※])")
_CJK = r"\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
_SPACE_BETWEEN_CJK = re.compile(rf"(?<=[{_CJK}])[ \t]+(?=[{_CJK}])")


def clean_cell_text(text: str, *, keep_breaks: bool = True) -> str:
    """Join lines that a table cell merely wrapped; keep breaks before list items.

    "配送加工场地\\n情况" becomes "配送加工场地情况"; "…如下：\\n1.800平方米…" keeps its
    break when ``keep_breaks``. Stray spaces between Chinese characters are removed.
    """
    lines = [ln.strip() for ln in text.replace("\r", "\n").split("\n")]
    lines = [ln for ln in lines if ln]
    out = ""
    for ln in lines:
        if not out:
            out = ln
        elif keep_breaks and _ENUM_START.match(ln):
            out += "\n" + ln
        elif out[-1].isascii() and out[-1].isalnum() and ln[0].isascii() and ln[0].isalnum():
            out += " " + ln
        else:
            out += ln
    return _SPACE_BETWEEN_CJK.sub("", out)


_WHITESPACE = re.compile(r"\s+")


# what a page carries besides its content: a page number, "第 3 页 共 9 页", "3/9", "Page 3 of 9"
PAGE_FURNITURE = re.compile(
    r"^(?:[-—–_]*\d{1,4}[-—–_]*|第\d{1,4}页(?:共\d{1,4}页)?|\d{1,4}/\d{1,4}|[Pp]age\d{1,4}(?:of\d{1,4})?)$"
)


MAX_RUNNING_LINES = 6  # lines a running header and footer take at most on a page left empty


def furniture_only(text: str, neighbours: Iterable[str] = ()) -> bool:
    """True when ``text`` (a page's) holds nothing but page numbers, blank lines and a few lines that
    also stand, word for word, on each neighbouring page (``neighbours``: their texts; a running header
    or footer): a page a conversion or a section break left empty, which does not end a table running
    over it."""
    around = [{compact(line) for line in n.splitlines()} for n in neighbours]
    rest = [c for line in text.splitlines() if (c := compact(line)) and not PAGE_FURNITURE.match(c)]
    if len(rest) > MAX_RUNNING_LINES:
        return False
    return all(around and all(c in keys for keys in around) for c in rest)


def compact(text: str) -> str:
    """Text without any whitespace, for matching headers like "分 值" or "评审因素\\n及权重"."""
    return _WHITESPACE.sub("", text)


def format_page_ranges(pages: Iterable[int]) -> str:
    """Page numbers as Chinese ranges: [1, 2, 3, 7] -> "第1–3、7页"."""
    nums = sorted(set(pages))
    if not nums:
        return ""
    parts: list[str] = []
    start = prev = nums[0]
    for n in [*nums[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(f"{start}" if start == prev else f"{start}–{prev}")
        if n is not None:
            start = prev = n
    return "第" + "、".join(parts) + "页"

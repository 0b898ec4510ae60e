"""Prepare requirement text for the breakdown: judge it, split it, and place items on pages.

Code decides what never needs a model: input that is empty, a few lines or mojibake is
refused before any call; long requirement sections are cut at located headings into
chunks that fit the model's context; and an item the model wrote is attributed to the
page whose text it overlaps most when the model's page is missing or out of range.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.similarity import char_ngrams
from app.documents.clauses import PageText
from app.documents.diagnostics import GARBLED_RATIO, common_cjk_ratio

#: Fewer meaningful characters than this is "a few lines": nothing to break down.
MIN_MEANINGFUL_CHARS = 200

_MEANINGFUL = re.compile(r"[\u4e00-\u9fffA-Za-z0-9]")
_HEADING = re.compile(
    r"^\s*(?:第[一二三四五六七八九十百零\d]{1,4}[章节部分]|[一二三四五六七八九十]{1,3}\s*[、.．]|"
    r"[（(][一二三四五六七八九十]{1,3}[）)]|\d{1,2}\.\d{1,2}(?!\d))\s*\S{1,30}$"
)


def meaningful_chars(text: str) -> int:
    """Hanzi, letters and digits in ``text`` (what is left after layout and punctuation)."""
    return len(_MEANINGFUL.findall(text))


def assess_input(pages: Sequence[PageText]) -> str | None:
    """A Chinese reason why this text must not go to a model, or None when it may.

    Too little text (empty, a few lines) and a garbled text layer are both refused.
    """
    text = "\n".join(p.text for p in pages)
    ratio = common_cjk_ratio(text)
    if ratio is not None and ratio < GARBLED_RATIO:
        return (
            f"需求部分的文字层是乱码（常用汉字仅占 {ratio:.0%}），不能当作文字交给模型；"
            "请用 OCR 处理或换用其他版本的招标文件。"
        )
    count = meaningful_chars(text)
    if count == 0:
        return "需求部分没有可读取的文字（可能是扫描件或未找到采购需求章节），无法拆解需求。"
    if count < MIN_MEANINGFUL_CHARS:
        return f"需求部分只有 {count} 个有效字符，信息过少，无法拆解；请确认是否选对了采购需求章节。"
    return None


@dataclass(frozen=True)
class Chunk:
    """A piece of the requirement text sent in one call, with its page range."""

    pages: tuple[PageText, ...]

    @property
    def first_page(self) -> int:
        """First page number in the chunk."""
        return self.pages[0].page

    @property
    def last_page(self) -> int:
        """Last page number in the chunk."""
        return self.pages[-1].page

    @property
    def page_numbers(self) -> tuple[int, ...]:
        """All page numbers in the chunk (a page split over two chunks appears in both)."""
        return tuple(sorted({p.page for p in self.pages}))

    def prompt_text(self) -> str:
        """The text with a ``[第N页]`` marker where each page starts."""
        parts: list[str] = []
        last: int | None = None
        for p in self.pages:
            if p.page != last:
                parts.append(f"[第{p.page}页]")
                last = p.page
            parts.append(p.text.strip())
        return "\n".join(parts)

    @property
    def chars(self) -> int:
        """Characters of the chunk's text."""
        return sum(len(p.text) for p in self.pages)


def _segments(pages: Sequence[PageText], headings: Sequence[tuple[int, str]]) -> list[list[PageText]]:
    """Cut the pages at heading lines: each segment starts at a heading (or the start)."""
    wanted = {(page, re.sub(r"\s+", "", title)) for page, title in headings}
    segments: list[list[PageText]] = [[]]
    for p in pages:
        buf: list[str] = []
        for line in p.text.splitlines():
            key = re.sub(r"\s+", "", line)
            is_heading = (p.page, key) in wanted if wanted else bool(_HEADING.match(line))
            if is_heading and buf:
                segments[-1].append(PageText(p.page, "\n".join(buf)))
                buf = []
                segments.append([])
            elif is_heading and segments[-1]:
                segments.append([])
            buf.append(line)
        if buf:
            segments[-1].append(PageText(p.page, "\n".join(buf)))
    return [s for s in segments if any(x.text.strip() for x in s)]


def _split_long(piece: PageText, max_chars: int) -> list[PageText]:
    """Split one page's text at line boundaries into pieces of at most ``max_chars``."""
    out: list[PageText] = []
    buf: list[str] = []
    size = 0
    for line in piece.text.splitlines():
        if buf and size + len(line) + 1 > max_chars:
            out.append(PageText(piece.page, "\n".join(buf)))
            buf, size = [], 0
        while len(line) > max_chars:
            out.append(PageText(piece.page, line[:max_chars]))
            line = line[max_chars:]
        buf.append(line)
        size += len(line) + 1
    if buf:
        out.append(PageText(piece.page, "\n".join(buf)))
    return out


def split_into_chunks(pages: Sequence[PageText], max_chars: int,
                      headings: Sequence[tuple[int, str]] = ()) -> list[Chunk]:
    """Pack heading segments greedily into chunks of at most ``max_chars`` characters.

    ``headings`` are located headings as ``(page, title)``; without them, lines that look
    like headings (第X章, 一、, （一）, 3.1 标题) are used. A segment longer than a chunk
    is cut at page and then line boundaries.
    """
    max_chars = max(200, max_chars)
    chunks: list[Chunk] = []
    current: list[PageText] = []
    size = 0
    for segment in _segments(pages, headings):
        seg_size = sum(len(p.text) for p in segment)
        if current and size + seg_size > max_chars:
            chunks.append(Chunk(tuple(current)))
            current, size = [], 0
        for piece in segment:
            for part in _split_long(piece, max_chars) if len(piece.text) > max_chars else [piece]:
                if current and size + len(part.text) > max_chars:
                    chunks.append(Chunk(tuple(current)))
                    current, size = [], 0
                current.append(part)
                size += len(part.text)
    if current:
        chunks.append(Chunk(tuple(current)))
    return chunks


def locate_page(text: str, pages: Sequence[PageText], claimed: int | None) -> int | None:
    """The page an item came from: the model's page when it is one of ``pages``, else the
    page sharing most character 3-grams with the item (None when nothing overlaps)."""
    numbers = {p.page for p in pages}
    if claimed is not None and claimed in numbers:
        return claimed
    grams = char_ngrams(text)
    if not grams:
        return None
    best, best_score = None, 0
    for p in pages:
        score = len(grams & char_ngrams(p.text))
        if score > best_score:
            best, best_score = p.page, score
    return best if best_score >= 2 else None

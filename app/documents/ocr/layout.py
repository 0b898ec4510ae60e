"""OCR lines → reading order, text blocks and headings, in the document model's terms.

Lines are put in reading order by bands: a line whose vertical middle falls inside the
previous line's band is on the same row (table cells, "label: value" pairs) and sorted
left to right. Consecutive lines become one paragraph block when the gap between them is
small and the first one runs to the text's right edge (a wrapped line); a line that looks
like a heading (第X章, 一、, 1.1) always starts a block of its own.
"""

from __future__ import annotations

from app.documents.model import Heading, OcrLine, TextBlock
from app.documents.text_patterns import heading_level

LOW_CONFIDENCE = 0.80  # lines the engine is less sure of than this are highlighted for checking
_WRAP_SHARE = 0.90  # a line reaching this share of the text width is wrapped, not ended
_GAP_SHARE = 0.8  # a vertical gap under this share of the line height keeps the paragraph


_FULL_WIDTH = {"(": "（", ")": "）", ",": "，", ":": "：", ";": "；", "?": "？", "!": "！"}


def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef"


def normalize_punctuation(text: str) -> str:
    """ASCII brackets and punctuation the engine reads in Chinese text, as the full-width forms
    Chinese typesetting uses: ``(`` before and ``)`` after a Chinese character, ``,:;?!`` after one."""
    chars = list(text)
    for i, ch in enumerate(chars):
        if ch not in _FULL_WIDTH:
            continue
        before = chars[i - 1] if i > 0 else ""
        after = chars[i + 1] if i + 1 < len(chars) else ""
        if ch == "(":
            close = text.find(")", i)
            inner = text[i + 1 : close] if close > i else after
            if any(_is_cjk(c) for c in inner):
                chars[i] = _FULL_WIDTH[ch]
        elif ch == ")":
            open_ = max(text.rfind("(", 0, i), text.rfind("（", 0, i))
            inner = text[open_ + 1 : i] if open_ >= 0 else before
            if any(_is_cjk(c) for c in inner) or (open_ >= 0 and chars[open_] == "（"):
                chars[i] = _FULL_WIDTH[ch]
        elif before and _is_cjk(before):
            chars[i] = _FULL_WIDTH[ch]
    return "".join(chars)


def reading_order(lines: list[OcrLine]) -> list[OcrLine]:
    """Lines sorted top to bottom, lines on one row left to right."""
    rest = sorted(lines, key=lambda ln: (ln.bbox[1] + ln.bbox[3]) / 2)
    rows: list[list[OcrLine]] = []
    for ln in rest:
        mid = (ln.bbox[1] + ln.bbox[3]) / 2
        if rows:
            top = min(x.bbox[1] for x in rows[-1])
            bottom = max(x.bbox[3] for x in rows[-1])
            if top <= mid <= bottom and mid - top < 0.75 * (bottom - top) + 1:
                rows[-1].append(ln)
                continue
        rows.append([ln])
    return [ln for row in rows for ln in sorted(row, key=lambda x: x.bbox[0])]


def _block(lines: list[OcrLine], number: int) -> TextBlock:
    text = "\n".join(ln.text for ln in lines)
    level = heading_level(lines[0].text) if len(lines) == 1 else None
    return TextBlock(
        page=number,
        text=text,
        kind="heading" if level is not None else "paragraph",
        bbox=(min(ln.bbox[0] for ln in lines), min(ln.bbox[1] for ln in lines),
              max(ln.bbox[2] for ln in lines), max(ln.bbox[3] for ln in lines)),
        heading_level=level,
        source="ocr",
        confidence=round(min(ln.confidence for ln in lines), 4),
    )


def blocks_from_lines(lines: list[OcrLine], number: int) -> list[TextBlock]:
    """Paragraph and heading blocks of one OCR page, in reading order."""
    ordered = reading_order(lines)
    if not ordered:
        return []
    left = min(ln.bbox[0] for ln in ordered)
    right = max(ln.bbox[2] for ln in ordered)
    width = max(right - left, 1.0)
    groups: list[list[OcrLine]] = []
    for ln in ordered:
        if groups:
            prev = groups[-1][-1]
            height = max(prev.bbox[3] - prev.bbox[1], 1.0)
            gap = ln.bbox[1] - prev.bbox[3]
            wrapped = (prev.bbox[2] - left) >= _WRAP_SHARE * width
            if (0 <= gap < _GAP_SHARE * height and wrapped and heading_level(ln.text) is None
                    and heading_level(groups[-1][0].text) is None):
                groups[-1].append(ln)
                continue
        groups.append([ln])
    return [_block(g, number) for g in groups]


def headings_of(blocks: list[TextBlock], number: int, first_index: int = 0) -> list[Heading]:
    """The headings among one page's blocks (``first_index``: the page's first block index)."""
    return [
        Heading(text=b.text.strip(), level=b.heading_level, page=number, block_index=first_index + i)
        for i, b in enumerate(blocks)
        if b.heading_level is not None
    ]


def find_in_lines(lines: list[OcrLine], query: str) -> list[tuple[float, float, float, float]]:
    """Boxes (page points) of ``query`` in OCR lines, spaces ignored on both sides.

    The engine gives one box per line, so a hit's box is the matching share of its line's
    width (characters taken as equally wide).
    """
    needle = "".join(query.split())
    if not needle:
        return []
    hits: list[tuple[float, float, float, float]] = []
    for ln in lines:
        kept = [i for i, ch in enumerate(ln.text) if not ch.isspace()]
        squashed = "".join(ln.text[i] for i in kept)
        x0, y0, x1, y1 = ln.bbox
        step = (x1 - x0) / max(len(ln.text), 1)
        start = squashed.find(needle)
        while start >= 0:
            first, last = kept[start], kept[start + len(needle) - 1]
            hits.append((x0 + first * step, y0, x0 + (last + 1) * step, y1))
            start = squashed.find(needle, start + len(needle))
    return hits

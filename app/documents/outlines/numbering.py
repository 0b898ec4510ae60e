"""Chinese heading numbering: recognise a heading's number, strip it, and nest headings by it.

A user's outline, a past bid and a tender's prescribed format number their headings with
the usual Chinese ladder — 第一章 / 第一节 / 一、 / （一） / 1.1 / 1.1.1 / 1、 / (1) / 1) / ① —
but every writer picks their own rungs and order. So nothing here assumes a fixed ladder:
:func:`parse_numbering` names the *style* of a number, and :func:`nest_levels` gives each
style the depth at which it first appeared under its parent (a stack of styles, as a reader
does), which also allows uneven depth: a chapter may go one level deep and the next three.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_CN = "一二三四五六七八九十百零〇两"
_TAIL_LEADER = re.compile(r"\s*(?:\.{3,}|…{1,}|·{3,}|-{4,}|_{4,}|\t)\s*\d{0,4}\s*$")
_TAIL_PAGE = re.compile(r"(?<=[\u4e00-\u9fff）)])\s+\d{1,4}\s*$")
_MAX_TITLE = 80
_NUMERIC_START = re.compile(r"^\d+(?:[.．%％年月日:：/\-]|\s|$)")

#: (style key, pattern); the first match wins. Group 1 is the number itself.
_STYLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("chapter", re.compile(rf"^(第[{_CN}\d]+[章篇部卷])[\s:：、.．]*")),
    ("section", re.compile(rf"^(第[{_CN}\d]+节)[\s:：、.．]*")),
    ("article", re.compile(rf"^(第[{_CN}\d]+条)[\s:：、.．]*")),
    ("cn_list", re.compile(rf"^([{_CN}]{{1,3}})[、．.]\s*")),
    ("cn_list", re.compile(rf"^([{_CN}]{{1,3}})\s+(?=\S)")),
    ("cn_paren", re.compile(rf"^([（(][{_CN}]{{1,3}}[)）])[、.．]?\s*")),
    ("decimal", re.compile(r"^(\d{1,3}(?:[.．]\d{1,3}){1,5})[.．、]?(?![\d%％])\s*")),
    ("num_dun", re.compile(r"^(\d{1,3})、\s*")),
    ("num_paren", re.compile(r"^([（(]\d{1,3}[)）])[、.．]?\s*")),
    ("num_half", re.compile(r"^(\d{1,3}[)）])\s*")),
    ("decimal", re.compile(r"^(\d{1,3})(?:[.．](?![\d%％])\s*|\s+)")),
    ("circled", re.compile(r"^([\u2460-\u2473\u2776-\u277f])\s*")),
    ("latin", re.compile(r"^([A-Z])[、.．]\s*")),
)


@dataclass(frozen=True)
class Numbered:
    """A line split into its number's style, the number as written, and the title after it."""

    style: str  # "chapter", "cn_list", "dec2", … (decimal numbers carry their part count)
    number: str
    title: str


def strip_leader(text: str) -> str:
    """``text`` without a table-of-contents leader and page number ("编制说明……3" → "编制说明")."""
    s = _TAIL_LEADER.sub("", text.rstrip())
    return _TAIL_PAGE.sub("", s).rstrip()


def parse_numbering(line: str) -> Numbered | None:
    """The numbering of a heading line, or None when the line has no number a heading uses.

    The title is kept as written (only the number, the separator after it and a trailing
    table-of-contents leader are removed); a number with nothing after it is not a heading.
    """
    s = line.strip().replace("\u3000", " ")
    for style, pattern in _STYLES:
        m = pattern.match(s)
        if m is None:
            continue
        title = strip_leader(s[m.end():]).strip()
        if not title or title[0] in "%％.．:：" or _NUMERIC_START.match(title):
            return None
        number = m.group(1)
        if style == "decimal":
            style = f"dec{len(re.split(r'[.．]', number))}"
        return Numbered(style, number, title)
    return None


def nest_levels(styles: Sequence[str | None], fallback: Sequence[int] | None = None) -> list[int]:
    """Depth (1 = top) of each heading from its numbering style.

    A style met again closes everything opened after it (a sibling); a new style opens a
    level below the current one. Decimal styles also know their own order: ``dec2`` sits
    below an open ``dec1`` even when other styles came between. An unnumbered heading
    (``None``) takes ``fallback[i]`` when given (e.g. from indentation) clamped to one below
    the current level, else the current level.
    """
    stack: list[str] = []
    levels: list[int] = []
    for i, style in enumerate(styles):
        if style is None:
            want = fallback[i] if fallback is not None else len(stack) or 1
            level = max(1, min(want, len(stack) + 1))
            del stack[level:]
            levels.append(level)
            continue
        if style in stack:
            del stack[stack.index(style) + 1:]
        else:
            cut = _decimal_parent(stack, style)
            if cut is not None:
                del stack[cut + 1:]
            stack.append(style)
        levels.append(len(stack))
    return levels


def _decimal_parent(stack: list[str], style: str) -> int | None:
    """For ``decN``, the stack index of the deepest open ``decM`` with M < N (its parent)."""
    if not style.startswith("dec"):
        return None
    depth = int(style[3:])
    for j in range(len(stack) - 1, -1, -1):
        if stack[j].startswith("dec") and int(stack[j][3:]) < depth:
            return j
    return None


def looks_like_body(text: str) -> bool:
    """Whether a line reads as body text rather than a heading (long, or ends a sentence)."""
    s = text.strip()
    return len(s) > _MAX_TITLE or s.endswith(("。", "；", ";", "，", ","))

"""Titles taken from the tender itself (scoring item names), made fit to show as chapter titles.

A scoring item's name is the tender's wording, not the model's: it becomes a locked
chapter in one-to-one mode and is never refused by the title rules. What the tender's
layout adds to it is removed for display: ellipses and leader dots ("服务方案……"),
template braces ("(含{考核})"), the points written into the name ("（25分）", "42%"),
item numbering and stray punctuation at the ends.
"""

from __future__ import annotations

import re

_ELLIPSIS = re.compile(r"…+|\.{3,}|·{3,}|。{3,}|-{3,}|_{2,}")
_BRACES = re.compile(r"[{}｛｝「」『』【】\[\]]")
_TRAILING_POINTS = re.compile(
    r"\s*[（(][^（()）]{0,8}?\d+(?:\.\d+)?\s*(?:分|%|％)[^（()）]{0,4}[)）]\s*$|(?<![\d.])\s*\d+(?:\.\d+)?\s*分\s*$"
)
_NUMBERING = re.compile(r"^\s*(?:[（(]?[一二三四五六七八九十\d]{1,3}[)）.、．]|第[一二三四五六七八九十\d]+[项条])\s*")
_EMPTY_PARENS = re.compile(r"[（(]\s*[)）]")
_EDGE = " \t\r\n:：，,。；;、"
MAX_TITLE = 60


def display_title(name: str, limit: int = MAX_TITLE) -> str:
    """The tender's item name without layout debris; "" when nothing is left."""
    text = " ".join((name or "").split())
    text = _ELLIPSIS.sub("", text)
    text = _BRACES.sub("", text)
    for _ in range(2):
        text = _TRAILING_POINTS.sub("", text).strip(_EDGE)
    text = _NUMBERING.sub("", text)
    text = _EMPTY_PARENS.sub("", text).strip(_EDGE)
    text = re.sub(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])", "", text)
    return text[:limit].strip(_EDGE)

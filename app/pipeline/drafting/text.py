"""Checks and clean-up of drafted section text: light markdown, refusals, continuation seams.

Drafted text is "light markdown" (paragraphs, ``- `` lists, pipe tables) that the Word
export turns into real structures. Weak models add headings repeating the title, code
fences, or answer with a refusal; continuations after a cut often repeat the last words.
All of that is handled here by code.
"""

from __future__ import annotations

import re

from app.core.similarity import containment, normalize_text
from app.llm.json.repetition import is_looping_text

_REFUSAL = re.compile(
    r"^\s*(?:抱歉|对不起|很抱歉|我无法|我不能|无法(?:提供|完成|协助)|作为(?:一个)?(?:AI|人工智能|语言模型)|"
    r"I'?m sorry|I am sorry|I cannot|I can'?t|As an AI)",
    re.IGNORECASE,
)
REFUSAL_MAX_CHARS = 300
_FENCE = re.compile(r"^\s*```[\w-]*\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(.+?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[*•·●▪]|\d+[\.、）)])\s+")


def refusal_reason(text: str) -> str | None:
    """A Chinese reason when the whole answer is a refusal or empty, else None."""
    stripped = text.strip()
    if not stripped:
        return "模型返回了空内容（可能是提示词超出上下文长度，或模型没有作答）。"
    if len(stripped) <= REFUSAL_MAX_CHARS and _REFUSAL.match(stripped):
        return f"模型拒绝撰写本节：“{stripped[:80]}”"
    return None


def clean_markdown(text: str, title: str = "") -> str:
    """Normalise drafted text to light markdown.

    Drops code fences and a leading heading that repeats the section title, turns other
    headings into bold paragraphs, unifies bullets to ``- `` and collapses blank lines.
    """
    out: list[str] = []
    title_key = normalize_text(re.sub(r"^[\d.\s]+", "", title))
    for line in text.replace("\r\n", "\n").split("\n"):
        if _FENCE.match(line):
            continue
        m = _HEADING.match(line)
        if m:
            heading = m.group(1).strip()
            key = normalize_text(re.sub(r"^[\d.\s]+", "", heading))
            if not any(x.strip() for x in out) and title_key and (key == title_key or title_key in key):
                continue
            line = f"**{heading.strip('*')}**"
        elif _BULLET.match(line) and not line.lstrip().startswith("|"):
            line = _BULLET.sub("- ", line, count=1)
        out.append(line.rstrip())
    cleaned = re.sub(r"\n{3,}", "\n\n", "\n".join(out))
    return cleaned.strip()


def seam_overlap(written: str, continuation: str, min_len: int = 6, max_len: int = 200) -> int:
    """How many leading characters of ``continuation`` repeat the end of ``written``."""
    limit = min(max_len, len(written), len(continuation))
    for size in range(limit, min_len - 1, -1):
        if written.endswith(continuation[:size]):
            return size
    return 0


class SeamTrimmer:
    """Buffers the start of a continuation so a repeated tail can be cut before it is shown."""

    def __init__(self, written: str, hold: int = 60) -> None:
        self._written = written
        self._hold = hold
        self._buffer = ""
        self._released = not written.strip()

    def feed(self, piece: str) -> str:
        """Text that may be shown now (empty while the seam is still being checked)."""
        if self._released:
            return piece
        self._buffer += piece
        if len(self._buffer) < self._hold:
            return ""
        return self._release()

    def finish(self) -> str:
        """Whatever is still held back."""
        return "" if self._released else self._release()

    def _release(self) -> str:
        self._released = True
        text = self._buffer.lstrip("\n") if self._written.endswith("\n") else self._buffer
        cut = seam_overlap(self._written, text)
        self._buffer = ""
        return text[cut:]


#: Lines of our own prompts that a weak model echoes into its answer.
PROMPT_ECHOES = frozenset(normalize_text(x) for x in (
    "直接输出正文：", "写作要求：", "【本节标题】", "【本节要点】", "【同级小节】", "【对应评分项】",
    "【需要响应的招标要求】", "【用户的写作要求】", "【项目概况】", "【本节位置】", "【现有正文】", "【改写要求】",
))
MIN_MEANINGFUL_CHARS = 12


def drop_repeated_lines(text: str, min_chars: int = 6) -> tuple[str, int]:
    """Remove lines repeating an earlier line, runs of one same line and echoed prompt lines
    (weak models loop); returns the text and how many lines went.

    Distinct lines shorter than ``min_chars`` meaningful characters (table rules, labels) are kept.
    """
    seen: set[str] = set()
    kept: list[str] = []
    dropped = 0
    previous = None
    for line in text.split("\n"):
        key = normalize_text(line)
        stripped = line.strip()
        if (len(key) >= min_chars and key in seen) or (stripped and stripped == previous) or \
                (key and key in PROMPT_ECHOES):
            dropped += 1
            continue
        previous = stripped or previous
        if len(key) >= min_chars:
            seen.add(key)
        kept.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)), dropped


def degenerate_reason(text: str) -> str | None:
    """A Chinese reason when cleaned text has (almost) no real content or loops, else None.

    Digits and punctuation do not count as content: ``1.1.1.1…`` is not a section.
    """
    meaningful = len(re.findall(r"[\u4e00-\u9fffA-Za-z]", text))
    if meaningful < MIN_MEANINGFUL_CHARS:
        return f"模型输出几乎没有有效文字（仅 {meaningful} 个字符），可能是模型能力不足或提示词过长，请重试或换用更强的模型。"
    loop = is_looping_text(text)
    if loop is not None:
        return f"模型输出陷入重复（{loop}），已拒绝本次结果。"
    return None


def is_looping(before: str, added: str, threshold: float = 0.8) -> bool:
    """Does the newly generated ``added`` mostly repeat ``before``? (then stop continuing)"""
    return len(normalize_text(added)) >= 20 and containment(added, before) >= threshold

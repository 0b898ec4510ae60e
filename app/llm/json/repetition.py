"""Loop detection while a model streams: a weak model that repeats itself is stopped early.

Small models under a token limit fall into loops: ``1.1.1.1.1…``, the same phrase again
and again, the same line over and over. :class:`RepetitionDetector` is fed the streamed
text and says when the tail has become a loop:

- a short period repeated: the last ``max(MIN_LOOP_CHARS, REPEATS * p)`` characters are
  one unit of ``p`` characters (1 ≤ p ≤ :data:`MAX_PERIOD`) over and over;
- a long unit repeated: the same line of at least :data:`MIN_LINE_CHARS` characters, with
  real words in it (six CJK characters or thirty letters/digits: JSON boilerplate such as
  ``"description": ""`` does not count), arrives :data:`LINE_REPEATS` times.

Checks run every few dozen characters on a bounded tail, so the cost stays flat however
long the answer gets.
"""

from __future__ import annotations

import re
from collections import Counter

MIN_LOOP_CHARS = 160
REPEATS = 6
MAX_PERIOD = 200
MIN_LINE_CHARS = 16
LINE_REPEATS = 5
CHECK_EVERY = 32
_TAIL = max(MIN_LOOP_CHARS, REPEATS * MAX_PERIOD) + MAX_PERIOD
_SPACE = re.compile(r"\s+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[A-Za-z0-9]")


def _has_content(line: str) -> bool:
    """Enough words that a repeat means a loop (not ``"description": ""`` in pretty-printed JSON)."""
    return len(_CJK.findall(line)) >= 6 or len(_WORD.findall(line)) >= 30


class RepetitionDetector:
    """Feed streamed pieces; :attr:`looping` turns True (and stays) once the text loops."""

    def __init__(self) -> None:
        self._tail = ""
        self._since_check = 0
        self._line = ""
        self._lines: Counter[str] = Counter()
        self.looping = False
        self.reason = ""

    def feed(self, piece: str) -> bool:
        """Take one piece of the answer; True when the answer is looping."""
        if self.looping or not piece:
            return self.looping
        self._feed_lines(piece)
        self._tail = (self._tail + piece)[-_TAIL:]
        self._since_check += len(piece)
        if not self.looping and self._since_check >= CHECK_EVERY:
            self._since_check = 0
            self._check_period()
        return self.looping

    def _feed_lines(self, piece: str) -> None:
        parts = (self._line + piece).split("\n")
        self._line = parts.pop()
        for line in parts:
            key = _SPACE.sub("", line)
            if len(key) < MIN_LINE_CHARS or not _has_content(key):
                continue
            self._lines[key] += 1
            if self._lines[key] >= LINE_REPEATS:
                self.looping = True
                self.reason = f"同一行内容重复了 {LINE_REPEATS} 次：“{line.strip()[:30]}”"
                return

    def _check_period(self) -> None:
        tail = self._tail
        n = len(tail)
        for p in range(1, MAX_PERIOD + 1):
            span = max(MIN_LOOP_CHARS, REPEATS * p)
            if span + p > n:
                break
            if tail[n - span:] == tail[n - span - p:n - p]:
                unit = tail[n - p:]
                if unit.strip():
                    self.looping = True
                    self.reason = f"输出不断重复同一段内容：“{unit.strip()[:30]}”"
                    return


def is_looping_text(text: str) -> str | None:
    """Why a finished text is a loop, or None (the same checks as while streaming)."""
    detector = RepetitionDetector()
    step = CHECK_EVERY
    for i in range(0, len(text), step):
        if detector.feed(text[i:i + step]):
            return detector.reason
    detector.feed("\n")
    return detector.reason if detector.looping else None

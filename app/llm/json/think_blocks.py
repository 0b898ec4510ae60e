"""Separate a reasoning model's thinking from its answer.

Reasoning models wrap their thoughts in ``<think>…</think>`` (or ``<thinking>``,
``<reasoning>``) inside the content. The answer must not contain them (they break JSON
parsing and pollute the outline) but the journal keeps them. :class:`ThinkFilter` works
on a stream, where a tag may be split across chunks; :func:`split_think` on whole text.
"""

from __future__ import annotations

import re

_TAGS = ("think", "thinking", "reasoning")
_OPEN = tuple(f"<{t}>" for t in _TAGS)
_CLOSE_RE = re.compile(r"</(?:think|thinking|reasoning)>", re.IGNORECASE)
_BLOCK_RE = re.compile(r"<(think|thinking|reasoning)>(.*?)(?:</\1>|$)", re.IGNORECASE | re.DOTALL)


def split_think(text: str) -> tuple[str, str]:
    """``(answer, reasoning)`` of a complete text.

    Handles closed blocks, an unclosed block at the end (cut by the token limit) and a
    leading ``…</think>`` whose opening tag was put in the prompt by the chat template.
    """
    reasoning: list[str] = []
    close = _CLOSE_RE.search(text)
    first_open = min((i for i in (text.lower().find(o) for o in _OPEN) if i >= 0), default=-1)
    if close and (first_open < 0 or close.start() < first_open):
        reasoning.append(text[: close.start()].strip())
        text = text[close.end():]

    def take(m: re.Match[str]) -> str:
        reasoning.append(m.group(2).strip())
        return ""

    answer = _BLOCK_RE.sub(take, text)
    return answer.strip(), "\n\n".join(r for r in reasoning if r)


class ThinkFilter:
    """Incremental think-block remover for streamed content.

    ``feed(piece)`` returns the answer text that is safe to show now; text that could be
    the start of a tag is held back until the next piece decides it. ``finish()`` flushes.
    """

    def __init__(self) -> None:
        self._buf = ""
        self._inside: str | None = None  # the closing tag we wait for
        self.reasoning_parts: list[str] = []

    @property
    def reasoning(self) -> str:
        """Everything seen inside think blocks so far."""
        return "".join(self.reasoning_parts).strip()

    def feed(self, piece: str) -> str:
        """Add streamed content; return the visible answer part."""
        self._buf += piece
        out: list[str] = []
        while self._buf:
            low = self._buf.lower()
            if self._inside is None:
                hits = [(low.find(o), o) for o in _OPEN if low.find(o) >= 0]
                if hits:
                    pos, tag = min(hits)
                    out.append(self._buf[:pos])
                    self._buf = self._buf[pos + len(tag):]
                    self._inside = "</" + tag[1:]
                    continue
                keep = _partial_suffix(low, _OPEN)
                out.append(self._buf[: len(self._buf) - keep])
                self._buf = self._buf[len(self._buf) - keep:]
                break
            pos = low.find(self._inside)
            if pos >= 0:
                self.reasoning_parts.append(self._buf[:pos])
                self._buf = self._buf[pos + len(self._inside):]
                self._inside = None
                continue
            keep = _partial_suffix(low, (self._inside,))
            self.reasoning_parts.append(self._buf[: len(self._buf) - keep])
            self._buf = self._buf[len(self._buf) - keep:]
            break
        return "".join(out)

    def finish(self) -> str:
        """Flush held-back text at the end of the stream."""
        rest, self._buf = self._buf, ""
        if self._inside is not None:
            self.reasoning_parts.append(rest)
            return ""
        return rest


def _partial_suffix(low: str, tags: tuple[str, ...]) -> int:
    """Length of the longest suffix of ``low`` that is a proper prefix of one of ``tags``."""
    best = 0
    for tag in tags:
        for n in range(min(len(tag) - 1, len(low)), 0, -1):
            if low.endswith(tag[:n]):
                best = max(best, n)
                break
    return best

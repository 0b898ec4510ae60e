"""Reading one streamed chunk defensively, and mending text split inside a UTF-16 pair.

A broken or hostile server sends events whose JSON has the wrong shape (``choices`` a
string, ``content`` a number) or splits an emoji's surrogate pair over two events
(``"\\ud83d"`` then ``"\\ude00"``), or sends a lone surrogate. Python strings then hold
unencodable text that crashes the journal or the console later. :func:`chunk_parts`
turns a wrong shape into :class:`ValueError` (a malformed event: a failed attempt), and
:class:`SurrogateMender` joins split pairs and replaces lone surrogates with U+FFFD.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.llm.client.completion import Usage, extra_str


@dataclass(frozen=True)
class ChunkParts:
    """What one chunk carries: usage (if reported) and (finish_reason, reasoning, content) per choice."""

    usage: Usage | None
    choices: list[tuple[str | None, str, str]]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"content is {type(value).__name__}, not text")
    return value


def _count(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("token count is not an integer")
    return value


def chunk_parts(chunk: Any) -> ChunkParts:
    """The parts of a streamed chunk; :class:`ValueError` when it is not shaped like one."""
    try:
        usage = None
        raw_usage = getattr(chunk, "usage", None)
        if raw_usage is not None:
            prompt, completion = _count(raw_usage.prompt_tokens), _count(raw_usage.completion_tokens)
            if prompt or completion:
                usage = Usage(prompt, completion)
        choices = getattr(chunk, "choices", None) or []
        if not isinstance(choices, list):
            raise ValueError("choices is not a list")
        out: list[tuple[str | None, str, str]] = []
        for choice in choices:
            finish = getattr(choice, "finish_reason", None)
            delta = getattr(choice, "delta", None)
            content = _text(getattr(delta, "content", None)) if delta is not None else ""
            reasoning = extra_str(delta, "reasoning_content") if delta is not None else ""
            out.append((finish if isinstance(finish, str) and finish else None, reasoning, content))
        return ChunkParts(usage, out)
    except (AttributeError, TypeError) as exc:
        raise ValueError(f"chunk has the wrong shape: {exc}") from exc


def mend_text(text: str) -> str:
    """``text`` with surrogate pairs joined and lone surrogates replaced by U+FFFD."""
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class SurrogateMender:
    """Mends a text arriving in pieces: a high surrogate at a piece's end waits for the next piece."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        """The mendable part of ``self._held + piece`` (a trailing high surrogate is held back)."""
        text = self._held + piece
        self._held = ""
        if text and "\ud800" <= text[-1] <= "\udbff":
            self._held, text = text[-1], text[:-1]
        return mend_text(text)

    def finish(self) -> str:
        """What is still held, mended (a lone high surrogate becomes U+FFFD)."""
        text, self._held = self._held, ""
        return mend_text(text)

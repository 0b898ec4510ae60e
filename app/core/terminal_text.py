"""Text from a server or a model made safe to print on a terminal (no Qt).

A hostile server can name a model ``\\x1b]0;…\\x07`` (an OSC sequence that retitles the terminal),
``\\x1b[31m…`` (colours), ``…\\r\\n内置本地模型：已安装`` (a forged line) or ``abc\\u202eexe.txt``
(right-to-left override, which shows the name backwards). :func:`shown` writes every control
character (C0, DEL, C1), line and paragraph separator, bidirectional control and invisible
format character as a visible ``\\uXXXX`` escape — the same form JSON uses, so a JSON line stays
valid — and is the one helper the CLI prints server text through. :func:`shown_lines` keeps the
newlines and tabs the program itself writes (the CLI's output streams pass everything through it
as a last guard).
"""

from __future__ import annotations

import re
from typing import Any, Final, TextIO

#: Bidirectional controls (LRE … RLO, LRI … PDI, LRM/RLM/ALM) and invisible format characters.
_FORMAT: Final = "\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
_UNSAFE: Final = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f\u2028\u2029{_FORMAT}]")
_UNSAFE_KEEP_LINES: Final = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\u2028\u2029{_FORMAT}]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def shown(text: object) -> str:
    """``text`` on one line with every control, separator and bidi character escaped (``\\u001b``)."""
    return _UNSAFE.sub(_escape, str(text))


def shown_lines(text: str) -> str:
    """Like :func:`shown` but newlines and tabs stay (for whole messages the program wrote)."""
    return _UNSAFE_KEEP_LINES.sub(_escape, text)


class TerminalStream:
    """A text stream wrapper that writes everything through :func:`shown_lines` (the CLI's stdout/stderr)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` with control and bidi characters escaped (newlines and tabs kept)."""
        return self._stream.write(shown_lines(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

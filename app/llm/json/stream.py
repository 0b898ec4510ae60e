"""Incremental JSON reader: reports every string value the moment its closing quote arrives.

A whole-JSON answer streams in over seconds or minutes; waiting for the last brace before
showing anything leaves the user looking at an empty tree. :class:`JsonStreamReader` is
fed the text piece by piece (any chunking gives the same events) and returns one
:class:`JsonString` per completed string *value*, with its path of object keys and array
indexes (``("outline", 2, "children", 0, "title")``). Text before the first ``{``/``[``
(prose, a code fence) is skipped; everything after the root value closes is ignored.
On a syntax error the reader stops reporting (the caller's full parse of the finished
text decides what the answer is); it never raises.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

PathItem = str | int

_STRING_STOP = re.compile(r'["\\]')
_SCALAR_END = re.compile(r"[\s,\]}]")
_SPACE = frozenset(" \t\r\n")

# Reader states.
_SEEK, _VALUE, _KEY, _COLON, _AFTER, _STRING, _SCALAR, _DONE, _DEAD = range(9)


@dataclass(slots=True)
class JsonString:
    """A completed string value at ``path`` (keys and array indexes from the root)."""

    path: tuple[PathItem, ...]
    value: str


class JsonStreamReader:
    """Feed text, get the string values completed by it (see the module docstring)."""

    def __init__(self) -> None:
        self._state = _SEEK
        # One entry per open container: [key or None] for objects, [index] for arrays.
        self._stack: list[list[PathItem | None]] = []
        self._kinds: list[str] = []  # "{" or "[" per open container
        self._buf: list[str] = []
        self._escape = False
        self._is_key = False
        self._reported = 0

    @property
    def finished(self) -> bool:
        """Whether the root value has closed."""
        return self._state == _DONE

    @property
    def failed(self) -> bool:
        """Whether the text stopped being JSON (nothing more is reported)."""
        return self._state == _DEAD

    def feed(self, text: str) -> list[JsonString]:
        """Consume ``text``; the string values it completed, in order."""
        out: list[JsonString] = []
        pos, n = 0, len(text)
        while pos < n:
            state = self._state
            if state == _STRING:
                pos = self._string(text, pos, out)
                continue
            if state == _DEAD and not self._reported:
                self._restart()  # brackets in prose before the JSON: look for the real start
                continue
            if state in (_DONE, _DEAD):
                break
            ch = text[pos]
            if state == _SCALAR:
                m = _SCALAR_END.search(text, pos)
                end = m.start() if m else n
                self._buf.append(text[pos:end])
                pos = end
                if m is None:
                    break
                self._end_scalar()
                continue
            pos += 1
            if ch in _SPACE:
                continue
            if state == _SEEK:
                if ch in "{[":
                    self._open(ch)
                continue
            if state == _VALUE:
                self._value_start(ch)
            elif state == _KEY:
                if ch == '"':
                    self._state, self._is_key, self._buf = _STRING, True, []
                elif ch == "}" and self._stack[-1][0] is None:
                    self._close("}")
                else:
                    self._state = _DEAD
            elif state == _COLON:
                self._state = _VALUE if ch == ":" else _DEAD
            elif state == _AFTER:
                self._after(ch)
        return out

    def _restart(self) -> None:
        self._state = _SEEK
        self._stack.clear()
        self._kinds.clear()
        self._buf = []
        self._escape = False

    # ------------------------------------------------------------------ structure
    def _path(self) -> tuple[PathItem, ...]:
        return tuple(entry[0] for entry in self._stack)  # type: ignore[misc]

    def _open(self, ch: str) -> None:
        self._kinds.append(ch)
        if ch == "{":
            self._stack.append([None])
            self._state = _KEY
        else:
            self._stack.append([0])
            self._state = _VALUE

    def _close(self, ch: str) -> None:
        if not self._kinds or self._kinds[-1] != ("{" if ch == "}" else "["):
            self._state = _DEAD
            return
        self._kinds.pop()
        self._stack.pop()
        self._state = _AFTER if self._stack else _DONE

    def _value_start(self, ch: str) -> None:
        if ch == '"':
            self._state, self._is_key, self._buf = _STRING, False, []
        elif ch in "{[":
            self._open(ch)
        elif ch == "]" and self._kinds and self._kinds[-1] == "[" and self._stack[-1][0] == 0:
            self._close("]")  # an empty array
        elif ch in "-0123456789tfn":
            self._state, self._buf = _SCALAR, [ch]
        else:
            self._state = _DEAD

    def _after(self, ch: str) -> None:
        if ch == ",":
            top = self._stack[-1]
            if self._kinds[-1] == "[":
                top[0] = int(top[0] or 0) + 1
                self._state = _VALUE
            else:
                top[0] = None
                self._state = _KEY
        elif ch in "}]":
            self._close(ch)
        else:
            self._state = _DEAD

    def _end_scalar(self) -> None:
        self._buf = []
        self._state = _AFTER

    # ------------------------------------------------------------------ strings
    def _string(self, text: str, pos: int, out: list[JsonString]) -> int:
        n = len(text)
        while pos < n:
            if self._escape:
                self._buf.append(text[pos])
                self._escape = False
                pos += 1
                continue
            m = _STRING_STOP.search(text, pos)
            if m is None:
                self._buf.append(text[pos:])
                return n
            stop = m.start()
            self._buf.append(text[pos:stop])
            if text[stop] == "\\":
                self._buf.append("\\")
                self._escape = True
                pos = stop + 1
                continue
            self._end_string(out)
            return stop + 1
        return n

    def _end_string(self, out: list[JsonString]) -> None:
        raw = "".join(self._buf)
        self._buf = []
        try:
            value = json.loads(f'"{raw}"', strict=False) if "\\" in raw else raw
        except ValueError:
            value = raw.replace("\n", " ")
        if self._is_key:
            self._stack[-1][0] = value
            self._state = _COLON
            return
        if not isinstance(value, str):  # pragma: no cover - json.loads of a string literal
            value = str(value)
        out.append(JsonString(self._path(), value))
        self._reported += 1
        self._state = _AFTER if self._stack else _DONE

"""Incremental parser for an instruction stream: free thinking text with JSON instructions.

The model writes thoughts and, between them, instruction objects such as
``{"op":"set","path":"/outline/0/title","value":"总体设计方案"}`` — usually one per line,
sometimes several on a line, pretty-printed over several lines or inside code fences.

Every decision is taken on *complete lines* (the last, unterminated line only at
:meth:`InstructionParser.close`), so the events are the same however the text is chunked.
Only ``{`` followed by a quoted ``op``/``path`` key (or a ``{`` ending a line whose next
line starts with such a key) starts a candidate, so braces in thinking text (``{title}``,
a lone ``{``) are not instructions. A candidate that does not close is bounded: it ends
when a later line starts a new instruction, at a fence, or after :data:`MAX_CANDIDATE_LINES`
lines, and the lines it held are parsed again. A candidate still open when the stream
ends is reported as truncated and never applied.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import json_repair

from app.core.pointer import PointerError, format_pointer, parse_pointer
from app.core.stream_events import Instruction, MalformedInstruction, ParseEvent, Thinking

__all__ = ["Instruction", "InstructionParser", "MalformedInstruction", "ParseEvent", "Thinking", "parse_text"]

#: A candidate that has not closed after this many lines / characters is given up.
MAX_CANDIDATE_LINES = 60
MAX_CANDIDATE_CHARS = 20_000
#: Brackets an instruction may nest (an outline value needs a handful; 300 is an attack or a loop).
MAX_NESTING = 24

_Q = "[\"'\u201c\u201d]"
_START = re.compile(r"\{\s*" + _Q + r"(?:op|path)" + _Q + r"\s*[:：]")
_OPEN_AT_EOL = re.compile(r"\{\s*$")
_KEY_AT_START = re.compile(r"\s*" + _Q + r"(?:op|path)" + _Q + r"\s*[:：]")
_RESYNC = re.compile(r"\s*(?:`+\s*)?\{\s*" + _Q + r"op" + _Q + r"\s*[:：]")
_FENCE = re.compile(r"\s*(?:```|~~~)[\w+-]*\s*$")
_NOISE = re.compile(r"[\s\[\],;`]*(?:(?:```|~~~)[\w+-]*)?[\s\[\],;`]*")
_DECODER = json.JSONDecoder()

# Tolerant rewriting of a complete candidate that json.loads refused.
_TOLERANT = re.compile(
    r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|,(?=\s*[}\]])|\b(?:True|False|None)\b|//[^\n]*|[：，\u201c\u201d]",
    re.S,
)
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
_FIX_ZH = {
    "trailing_comma": "删除了多余的逗号",
    "single_quotes": "单引号改为双引号",
    "python_literals": "True/False/None 改为 JSON 写法",
    "newline_in_string": "字符串中的换行已转义",
    "comment": "删除了注释",
    "fullwidth_punctuation": "全角标点改为半角",
    "missing_closing_brace": "补全了缺少的右括号",
    "json_repair": "修复了不规范的 JSON",
}


def describe_fixes(fixes: tuple[str, ...]) -> str:
    """The tolerant fixes of an instruction in Chinese, for logs and warnings."""
    return "；".join(_FIX_ZH.get(f, f) for f in fixes)


@dataclass
class _Scan:
    """String-aware bracket matcher for a candidate that spans lines (the slow path)."""

    closers: list[str] = field(default_factory=list)
    quote: str = ""
    escape: bool = False
    too_deep: bool = False

    def feed(self, text: str, start: int) -> int:
        """Scan ``text[start:]``; the index after the bracket closing the candidate, or -1."""
        closers = self.closers
        i, n = start, len(text)
        while i < n:
            ch = text[i]
            if self.quote:
                if self.escape:
                    self.escape = False
                elif ch == "\\":
                    self.escape = True
                elif ch == self.quote or (self.quote == "\u201c" and ch == "\u201d"):
                    self.quote = ""
            elif ch in "\"'\u201c":
                self.quote = ch
            elif ch == "{":
                closers.append("}")
                if len(closers) > MAX_NESTING:
                    self.too_deep = True
                    return i + 1
            elif ch == "[":
                closers.append("]")
                if len(closers) > MAX_NESTING:
                    self.too_deep = True
                    return i + 1
            elif ch in "}]":
                if closers and closers[-1] == ch:
                    closers.pop()
                elif closers:  # a stray closer: treat as closing the innermost bracket
                    closers.pop()
                if not closers:
                    return i + 1
            i += 1
        return -1

    def newline(self) -> None:
        """A line break inside the candidate (ends a pending escape)."""
        self.escape = False


@dataclass
class _Pending:
    """A candidate that is still open at the end of a line."""

    lines: list[str]
    lineno: int
    scan: _Scan
    tentative: bool = False  # a lone "{" at the end of a line, not yet confirmed
    chars: int = 0


@lru_cache(maxsize=4096)
def _normalise_path(text: str) -> tuple[str, tuple[str, ...]]:
    tokens = tuple(parse_pointer(text))
    return format_pointer(list(tokens)), tokens


def _tolerant_loads(text: str, deep: bool = True) -> tuple[Any, tuple[str, ...]]:
    """Parse a complete candidate, repairing common slips; raises ValueError if hopeless.

    ``deep`` also allows json_repair's guesses (not for candidates closed by us).
    """
    try:
        return json.loads(text), ()
    except ValueError:
        pass
    fixes: list[str] = []

    def note(fix: str) -> None:
        if fix not in fixes:
            fixes.append(fix)

    def sub(m: re.Match[str]) -> str:
        tok = m.group(0)
        first = tok[0]
        if first == '"' and len(tok) > 1:
            if "\n" in tok or "\t" in tok or "\r" in tok:
                note("newline_in_string")
                tok = tok.replace("\r", "").replace("\n", "\\n").replace("\t", "\\t")
            return tok
        if first == "'" and len(tok) > 1:
            note("single_quotes")
            inner = tok[1:-1].replace("\\'", "'")
            inner = re.sub(r'(?<!\\)"', '\\"', inner)
            if "\n" in inner:
                note("newline_in_string")
                inner = inner.replace("\r", "").replace("\n", "\\n")
            return '"' + inner + '"'
        if tok == ",":
            note("trailing_comma")
            return ""
        if tok in _PY_LITERALS:
            note("python_literals")
            return _PY_LITERALS[tok]
        if tok.startswith("//"):
            note("comment")
            return ""
        note("fullwidth_punctuation")
        return {"：": ":", "，": ",", "\u201c": '"', "\u201d": '"'}[tok]

    fixed = _TOLERANT.sub(sub, text)
    try:
        return json.loads(fixed), tuple(fixes)
    except ValueError:
        if not deep:
            raise
    try:
        repaired = json_repair.loads(fixed)
    except Exception as e:  # a third-party guesser: any failure just means "not JSON"
        raise ValueError("not JSON") from e
    if isinstance(repaired, dict) and repaired.get("op"):
        return repaired, (*fixes, "json_repair")
    raise ValueError("not JSON")


class InstructionParser:
    """Turn streamed text into :class:`Thinking`, :class:`Instruction` and :class:`MalformedInstruction`.

    ``feed`` returns the events completed by that chunk; ``close`` the rest (a candidate
    still open at the end is reported as truncated). Fed whole or in any chunks, the
    events are identical.
    """

    def __init__(self) -> None:
        self._tail: list[str] = []
        self._lineno = 0
        self._pending: _Pending | None = None
        self._events: list[ParseEvent] = []
        self._closed = False

    def feed(self, text: str) -> list[ParseEvent]:
        """Consume one chunk and return the events it completed."""
        if self._closed:
            raise RuntimeError("parser already closed")
        if "\n" not in text:
            if text:
                self._tail.append(text)
            return []
        self._tail.append(text)
        lines = "".join(self._tail).split("\n")
        last = lines.pop()
        self._tail = [last] if last else []
        for line in lines:
            self._lineno += 1
            self._process(line, self._lineno)
        out, self._events = self._events, []
        return out

    def close(self) -> list[ParseEvent]:
        """End of stream: parse the last line and report an unfinished candidate as truncated."""
        if self._closed:
            return []
        self._closed = True
        if self._tail:
            self._lineno += 1
            self._process("".join(self._tail), self._lineno)
            self._tail = []
        p = self._pending
        if p is not None:
            self._pending = None
            if p.tentative:
                self._thinking(p.lines[0], p.lineno)
            else:
                self._events.append(MalformedInstruction(
                    "\n".join(p.lines), "输出在这条指令中途结束（被截断），该指令未执行", truncated=True, line=p.lineno))
        out, self._events = self._events, []
        return out

    @property
    def in_instruction(self) -> bool:
        """Whether an instruction candidate is open (the stream stopped inside it if it ends now)."""
        return self._pending is not None and not self._pending.tentative

    # ------------------------------------------------------------------ lines
    def _process(self, line: str, lineno: int) -> None:
        if line.endswith("\r"):
            line = line[:-1]
        p = self._pending
        if p is None:
            if line[:1] != "{" and _FENCE.match(line):  # an instruction line is never a fence
                return
            self._scan_line(line, 0, lineno)
            return
        if p.tentative:
            self._pending = None
            if not _KEY_AT_START.match(line):
                self._thinking(p.lines[0], p.lineno)
                self._process(line, lineno)
                return
            scan = _Scan()
            scan.feed(p.lines[0], 0)
            p = self._pending = _Pending([p.lines[0]], p.lineno, scan, chars=len(p.lines[0]))
        if _RESYNC.match(line) or _FENCE.match(line):
            self._pending = None
            self._abandon(p, "指令的括号或引号未闭合，下一条指令已经开始")
            self._process(line, lineno)
            return
        p.scan.newline()
        p.lines.append(line)
        p.chars += len(line) + 1
        end = p.scan.feed(line, 0)
        if p.scan.too_deep:
            self._pending = None
            self._events.append(MalformedInstruction(p.lines[0][:200], _TOO_DEEP, line=p.lineno))
            return
        if end >= 0:
            self._pending = None
            self._candidate("\n".join([*p.lines[:-1], line[:end]]), p.lineno)
            self._scan_line(line, end, lineno)
        elif len(p.lines) > MAX_CANDIDATE_LINES or p.chars > MAX_CANDIDATE_CHARS:
            self._pending = None
            self._give_up(p, f"指令超过 {MAX_CANDIDATE_LINES} 行或 {MAX_CANDIDATE_CHARS} 字仍未闭合，已放弃")

    def _scan_line(self, line: str, pos: int, lineno: int) -> None:
        """Find candidates in ``line[pos:]``; thinking text between them becomes events."""
        if pos == 0 and line.startswith('{"op":'):  # fast path: the whole line is one instruction
            try:
                obj, end = _DECODER.raw_decode(line, 0)
            except (ValueError, RecursionError):
                end = -1
            if end == len(line):
                self._instruction(obj, line, (), lineno)
                return
        while True:
            m = _START.search(line, pos)
            if m is None:
                eol = _OPEN_AT_EOL.search(line, pos)
                if eol is not None:
                    self._thinking(line[pos:eol.start()], lineno)
                    self._pending = _Pending([line[eol.start():]], lineno, _Scan(), tentative=True)
                else:
                    self._thinking(line[pos:], lineno)
                return
            start = m.start()
            self._thinking(line[pos:start], lineno)
            try:
                obj, end = _DECODER.raw_decode(line, start)
            except (ValueError, RecursionError):
                end = -1
            if end > 0:
                self._instruction(obj, line[start:end], (), lineno)
                pos = end
                continue
            scan = _Scan()
            end = scan.feed(line, start)
            if scan.too_deep:
                self._events.append(MalformedInstruction(line[start:start + 200], _TOO_DEEP, line=lineno))
                return
            if end < 0:
                self._pending = _Pending([line[start:]], lineno, scan, chars=len(line) - start)
                return
            self._candidate(line[start:end], lineno)
            pos = end

    # ------------------------------------------------------------------ results
    def _thinking(self, text: str, lineno: int) -> None:
        if text and not _NOISE.fullmatch(text):
            self._events.append(Thinking(text, lineno))

    def _candidate(self, raw: str, lineno: int) -> None:
        try:
            obj, fixes = _tolerant_loads(raw)
        except (ValueError, RecursionError):
            self._events.append(MalformedInstruction(raw, "指令不是有效的 JSON，无法解析", line=lineno))
            return
        self._instruction(obj, raw, fixes, lineno)

    def _abandon(self, p: _Pending, issue: str) -> None:
        """A later instruction started while ``p`` was open: close it if only brackets are missing."""
        if not p.scan.quote and p.scan.closers:
            raw = "\n".join(p.lines)
            try:
                obj, fixes = _tolerant_loads(raw + "".join(reversed(p.scan.closers)), deep=False)
            except (ValueError, RecursionError):
                obj = None
            if isinstance(obj, dict) and obj.get("op"):
                self._instruction(obj, raw, (*fixes, "missing_closing_brace"), p.lineno)
                return
        self._give_up(p, issue)

    def _give_up(self, p: _Pending, issue: str) -> None:
        """Report the candidate's first line as malformed and parse its other lines again."""
        self._events.append(MalformedInstruction(p.lines[0], issue, line=p.lineno))
        for offset, line in enumerate(p.lines[1:], start=1):
            self._process(line, p.lineno + offset)

    def _instruction(self, obj: Any, raw: str, fixes: tuple[str, ...], lineno: int) -> None:
        events = self._events
        if not isinstance(obj, dict):
            events.append(MalformedInstruction(raw, "指令必须是一个 JSON 对象", line=lineno))
            return
        if (raw.count("{") + raw.count("[") >= MAX_NESTING  # fewer brackets than the limit cannot nest past it
                and _depth_over(obj, MAX_NESTING)):
            events.append(MalformedInstruction(raw[:200], _TOO_DEEP, line=lineno))
            return
        op = obj.get("op")
        if not isinstance(op, str) or not op.strip():
            events.append(MalformedInstruction(raw, "指令缺少 op 字段（应为 set、append、insert、remove、move 或 done）", line=lineno))
            return
        op = op.strip().lower()
        if op == "done":
            events.append(Instruction("done", raw=raw, fixes=fixes, line=lineno))
            return
        path = obj.get("path")
        if not isinstance(path, str):
            events.append(MalformedInstruction(raw, f"{op} 指令缺少 path 字段（JSON 指针，如 /outline/0/title）", line=lineno))
            return
        try:
            norm, tokens = _normalise_path(path)
            from_norm = ""
            from_tokens: tuple[str, ...] = ()
            src = obj.get("from")
            if isinstance(src, str):
                from_norm, from_tokens = _normalise_path(src)
        except PointerError as e:
            events.append(MalformedInstruction(raw, str(e), line=lineno))
            return
        events.append(Instruction(
            op, norm, tokens, obj.get("value"), "value" in obj, from_norm, from_tokens, raw, fixes, lineno))


_TOO_DEEP = f"指令嵌套超过 {MAX_NESTING} 层，不是有效的目录指令，已拒绝"


def _depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists/dicts deeper than ``limit`` (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return False


def parse_text(text: str) -> list[ParseEvent]:
    """All events of a complete text (feed + close), for tests and one-shot use."""
    parser = InstructionParser()
    return [*parser.feed(text), *parser.close()]

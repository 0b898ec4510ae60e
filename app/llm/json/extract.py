"""Find, parse and locally repair the JSON inside a model's answer.

Weak models wrap JSON in code fences, put prose before and after it, think aloud,
leave trailing commas, comments or single quotes, or stop mid-string at the token limit.
This module turns such text into a Python value when it can, and says precisely (in
Chinese, with line and column) what was wrong when it cannot. A local repair that
changed or invented string contents is marked *uncertain* so it is never trusted blindly.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import json_repair

from app.llm.json.think_blocks import split_think

_FULLWIDTH = {"：": ":", "，": ","}
#: A full-width colon or comma used as JSON syntax: right after a closing quote/bracket.
_FULLWIDTH_SYNTAX = re.compile(r'(["\]}]\s*)([：，])')
_FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\r?\n?(.*?)(?:```|$)", re.DOTALL)


@dataclass
class Extracted:
    """The JSON-looking part of an answer and how it was cut out."""

    text: str
    notes: list[str] = field(default_factory=list)


@dataclass
class Parsed:
    """Outcome of parsing: ``value`` (or ``ok`` False), the syntax issue and any local repair."""

    ok: bool
    value: Any = None
    syntax_issue: str | None = None
    repair: str | None = None
    uncertain: bool = False
    notes: list[str] = field(default_factory=list)


def extract_json(text: str) -> Extracted:
    """Cut the JSON out of fences, surrounding prose and think blocks."""
    notes: list[str] = []
    answer, think = split_think(text)
    if think:
        notes.append("去掉了思考过程（think 块）")
    stripped = answer.strip()
    fences = [m for m in _FENCE_RE.finditer(stripped) if m.group(2).strip()[:1] in ("{", "[")]
    if fences:
        best = max(fences, key=lambda m: len(m.group(2)))
        notes.append("去掉了代码围栏 ```")
        stripped = best.group(2).strip()
    start = _first_bracket(stripped)
    if start < 0:
        return Extracted(stripped, notes)
    candidates = _candidates(stripped)
    parseable = [c for c in candidates if _loads_ok(c)]
    chosen = max(parseable, key=len) if parseable else None
    if chosen is None:
        chosen = max(candidates, key=len) if candidates else stripped[start:]
    if chosen.strip() != stripped:
        notes.append("去掉了 JSON 前后的说明文字")
    return Extracted(chosen.strip(), notes)


def _first_bracket(text: str) -> int:
    positions = [p for p in (text.find("{"), text.find("[")) if p >= 0]
    return min(positions) if positions else -1


def _candidates(text: str, limit: int = 8) -> list[str]:
    """Balanced segments starting at successive opening brackets (an unclosed one runs to the end)."""
    out: list[str] = []
    i = 0
    while len(out) < limit:
        starts = [p for p in (text.find("{", i), text.find("[", i)) if p >= 0]
        if not starts:
            break
        s = min(starts)
        end = _balanced_end(text, s)
        out.append(text[s:end])
        i = s + 1
        if end >= len(text):  # unclosed: later starts are inside it
            break
    return out


def _balanced_end(text: str, start: int) -> int:
    """Index after the bracket closing the one at ``start``; ``len(text)`` when never closed."""
    depth = 0
    in_str: str | None = None
    escape = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == in_str:
                in_str = None
            continue
        if ch == '"':
            in_str = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _loads_ok(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def syntax_issue(exc: json.JSONDecodeError) -> str:
    """``JSON 语法错误：第 3 行第 17 列附近 Expecting ','``."""
    msg = exc.msg.removesuffix(" delimiter").removesuffix(" at")
    return f"JSON 语法错误：第 {exc.lineno} 行第 {exc.colno} 列附近 {msg}"


def parse_json(text: str, truncated: bool = False) -> Parsed:
    """Strict parse, then a local repair with json-repair when the syntax is broken.

    A repair is *uncertain* when a string in the result does not occur in the source
    (contents changed or invented) or the answer was cut by the token limit.
    """
    if not text.strip():
        return Parsed(False, syntax_issue="没有找到 JSON 内容（输出为空或只有说明文字）")
    try:
        return Parsed(True, json.loads(text))
    except json.JSONDecodeError as exc:
        issue = syntax_issue(exc)
    notes: list[str] = []
    source = text
    if _FULLWIDTH_SYNTAX.search(text):
        text = _FULLWIDTH_SYNTAX.sub(lambda m: m.group(1) + _FULLWIDTH[m.group(2)], text)
        notes.append("全角标点：，改为 JSON 的 : ,")
    try:
        value = json_repair.loads(text)
    except Exception:  # json-repair gives up in its own ways; any of them means "no repair"
        value = None
    if not isinstance(value, (dict, list)) or not value:
        return Parsed(False, syntax_issue=issue if _first_bracket(text) >= 0 else "没有找到 JSON 内容（输出中没有 { 或 [）")
    strings = _strings(value)
    changed = sorted(s for s in strings if not _occurs(s, source))
    lost = _lost_literals(source, strings)
    if lost:
        notes.append("本地修复丢掉了文字：" + "、".join(f"“{s[:20]}”" for s in lost[:5]))
    uncertain = bool(changed) or bool(lost) or truncated
    if changed:
        notes.append("本地修复改动了文字内容：" + "、".join(f"“{s[:20]}”" for s in changed[:5]))
    if truncated:
        notes.append("输出被截断，本地补全了括号，最后一项可能不完整")
    return Parsed(True, value, syntax_issue=issue, repair=f"json-repair 修复了语法（{issue}）", uncertain=uncertain,
                  notes=notes)


_LITERAL_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_WORDY_RE = re.compile(r"[\w\u4e00-\u9fff]")


def _lost_literals(source: str, strings: list[str]) -> list[str]:
    """Double-quoted literals of the source whose text is in no string of the result."""
    haystack = "\n".join(strings + [json.dumps(s, ensure_ascii=False)[1:-1] for s in strings])
    lost = []
    for m in _LITERAL_RE.finditer(source):
        lit = m.group(1).strip()
        if lit and _WORDY_RE.search(lit) and lit not in haystack:
            lost.append(lit)
    return lost


def _strings(value: Any) -> list[str]:
    """Every string (keys and values) inside a parsed JSON value."""
    out: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            out.extend(str(k) for k in v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str):
            out.append(v)
    return [s for s in out if s]


def _occurs(s: str, source: str) -> bool:
    if s in source:
        return True
    escaped = json.dumps(s, ensure_ascii=False)[1:-1]
    if escaped in source:
        return True
    return json.dumps(s)[1:-1] in source

"""Which paths an instruction may change: locked pointer patterns and code-owned fields.

In one-to-one mode the top-level chapters mirror the scoring groups, so their titles and
requirement ids are locked; ``id`` is always code-owned (numbering is code's job). A lock
on a pattern such as ``/outline/*/title`` also refuses list operations that would add,
remove or reorder the items holding such a path, and a replacement of a subtree that
changes a locked value inside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from app.core.stream_events import Instruction

#: A caller's own lock: returns the Chinese reason when the instruction must be refused.
LockPredicate = Callable[[Instruction], "str | None"]

_INDEX = re.compile(r"0|[1-9]\d*")


def _matches(pattern: tuple[str, ...], tokens: tuple[str, ...]) -> bool:
    return len(pattern) == len(tokens) and all(p in ("*", t) for p, t in zip(pattern, tokens, strict=True))


def _extract(value: Any, rest: tuple[str, ...]) -> list[Any]:
    """Every value found under ``rest`` (``*`` = every key/index) inside a plain JSON value."""
    if not rest:
        return [value]
    head, tail = rest[0], rest[1:]
    if isinstance(value, list):
        if head == "*":
            return [v for item in value for v in _extract(item, tail)]
        return _extract(value[int(head)], tail) if _INDEX.fullmatch(head) and int(head) < len(value) else [None]
    if isinstance(value, dict):
        if head == "*":
            return [v for item in value.values() for v in _extract(item, tail)]
        return _extract(value.get(head), tail)
    return [None]


class PathLocks:
    """Locked pointer patterns (``*`` = any one token), a predicate, and code-owned field names."""

    def __init__(self, patterns: Sequence[str] = (), reason: str = "", predicate: LockPredicate | None = None,
                 code_owned: Sequence[str] = ("id",)) -> None:
        self.patterns = [tuple(p.strip("/").split("/")) for p in patterns if p.strip("/")]
        self.reason = reason
        self.predicate = predicate
        self.code_owned = frozenset(code_owned)

    def issue(self, ins: Instruction, tokens: tuple[str, ...], *, structural: bool,
              new_value: Any = None, old_value: Any = None, replaces: bool = False) -> str | None:
        """Why changing ``tokens`` is refused (Chinese), or None.

        ``structural``: items of the list at ``tokens`` are added, removed or moved;
        ``replaces``: the value at ``tokens`` is replaced by ``new_value`` (was ``old_value``).
        """
        if tokens[-1] in self.code_owned:
            return f"“{tokens[-1]}”（编号）由程序自动生成，不能修改：{ins.path}"
        suffix = f"（{self.reason}）" if self.reason else ""
        n = len(tokens)
        for pat in self.patterns:
            if len(pat) <= n and _matches(pat, tokens[: len(pat)]):
                return f"路径 {ins.path} 已锁定，不能修改{suffix}"
            if len(pat) > n and _matches(pat[:n], tokens):
                rest = pat[n:]
                if structural:
                    return f"不能在 {ins.path} 中增加、删除或移动项目：其中的 /{'/'.join(pat)} 已锁定{suffix}"
                if replaces and _extract(new_value, rest) != _extract(old_value, rest):
                    return f"{ins.path} 的新值改动了已锁定的 /{'/'.join(pat)}，不能修改{suffix}"
        if self.predicate is not None:
            return self.predicate(ins) or None
        return None

"""JSON pointers (RFC 6901) and the one mapping from a pointer to a tree position.

Models write paths in many dialects; :func:`parse_pointer` accepts RFC 6901
(``/outline/0/title`` with ``~0``/``~1`` escapes), JSONPath-like ``$.outline[0].title``
and dotted ``outline.0.title`` and returns the same token list for all of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.outline import Path

_BRACKET = re.compile(r"\[\s*(?:'([^']*)'|\"([^\"]*)\"|(-?[0-9]+))\s*\]")


class PointerError(ValueError):
    """A path that cannot be parsed or does not address the outline."""


def parse_pointer(text: str) -> list[str]:
    """Split a pointer in any accepted dialect into unescaped reference tokens."""
    s = text.strip()
    if s in ("", "/", "$"):
        return []
    if s.startswith("/"):
        return [t.replace("~1", "/").replace("~0", "~") for t in s[1:].split("/")]
    if s.startswith("$"):
        s = s[1:].lstrip(".")
    tokens: list[str] = []
    for part in s.split("."):
        if part == "":
            if tokens or s.startswith("["):
                continue
            raise PointerError(f"路径格式无效：{text}")
        head, _, rest = part.partition("[")
        if head:
            tokens.append(head)
        if rest:
            for m in _BRACKET.finditer("[" + rest):
                tokens.append(next(g for g in m.groups() if g is not None))
    if not tokens:
        raise PointerError(f"路径格式无效：{text}")
    return tokens


def format_pointer(tokens: list[str] | tuple[str, ...]) -> str:
    """The RFC 6901 form of ``tokens``."""
    if not tokens:
        return ""
    return "/" + "/".join(t.replace("~", "~0").replace("/", "~1") for t in tokens)


@dataclass(frozen=True)
class Target:
    """Where a pointer lands in the outline.

    ``field is None``: the node at ``path`` itself; ``field == "children"``: that node's
    child list (``path == ()`` is the chapter list); any other field: that attribute.
    """

    path: Path
    field: str | None


def pointer_to_target(tokens: list[str], root_key: str = "outline") -> Target:
    """Map pointer tokens (``["outline", "2", "children", "0"]``) to a :class:`Target`."""
    if not tokens or tokens[0] != root_key:
        raise PointerError(f"路径必须以 /{root_key} 开头")
    path: list[int] = []
    rest = tokens[1:]
    expect_index = True  # after /outline or /children an index (or nothing) follows
    i = 0
    while i < len(rest):
        tok = rest[i]
        if expect_index:
            if not re.fullmatch(r"0|[1-9][0-9]*", tok):
                raise PointerError(f"“{tok}”不是有效的数组下标")
            path.append(int(tok))
            expect_index = False
        elif tok == "children":
            expect_index = True
            if i == len(rest) - 1:
                return Target(tuple(path), "children")
        else:
            if i != len(rest) - 1:
                raise PointerError(f"字段“{tok}”之后不能再有路径")
            return Target(tuple(path), tok)
        i += 1
    if expect_index:
        return Target(tuple(path), "children")
    return Target(tuple(path), None)


def path_to_pointer(path: Path, field: str | None = None, root_key: str = "outline") -> str:
    """Inverse of :func:`pointer_to_target`: ``(2, 0)`` -> ``/outline/2/children/0``."""
    tokens = [root_key]
    if not path and field == "children":
        return format_pointer(tokens)
    for n, i in enumerate(path):
        if n:
            tokens.append("children")
        tokens.append(str(i))
    if field is not None:
        tokens.append(field)
    return format_pointer(tokens)

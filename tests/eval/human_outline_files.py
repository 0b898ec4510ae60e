"""Reading the human-written outlines of ``../shared/outlines`` (format in that folder's README).

Each file has ``#id``/``#name``/``#source``/``#kind``/``#levels`` header lines, then one heading
a line, two spaces of indent per level, with the document's own numbering left in place.
:func:`read_outline` returns the raw tree (titles as written) and :func:`cleaned` the tree
after the app's own :func:`~app.core.rules.outline.clean_title`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.core.outline import OutlineNode
from app.core.rules.outline import clean_title


@dataclass
class HumanOutline:
    """One human outline: its header fields and its chapters (raw titles, numbering in place)."""

    id: str
    name: str
    kind: str
    levels: int
    chapters: list[OutlineNode] = field(default_factory=list)
    path: Path | None = None

    def headings(self) -> int:
        """How many headings the outline has."""
        return sum(1 for ch in self.chapters for _ in ch.walk()) + len(self.chapters)


def parse_outline(text: str, path: Path | None = None) -> HumanOutline:
    """The outline written in ``text`` (header lines, then indented headings)."""
    head: dict[str, str] = {}
    roots: list[OutlineNode] = []
    stack: list[tuple[int, OutlineNode]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            head[key.strip()] = value.strip()
            continue
        indent = (len(line) - len(line.lstrip(" "))) // 2
        node = OutlineNode(title=line.strip()[:60])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if stack:
            stack[-1][1].children.append(node)
        else:
            roots.append(node)
        stack.append((indent, node))
    levels = int(head.get("levels", "0") or 0) if head.get("levels", "").isdigit() else 0
    return HumanOutline(id=head.get("id", path.stem if path else "?"), name=head.get("name", ""),
                        kind=head.get("kind", ""), levels=levels, chapters=roots, path=path)


def read_outline(path: Path) -> HumanOutline:
    """The outline in file ``path``."""
    return parse_outline(path.read_text(encoding="utf-8"), path)


def read_all(folder: Path) -> list[HumanOutline]:
    """Every outline (``*.txt``) in ``folder``, by file name."""
    return [read_outline(p) for p in sorted(folder.glob("*.txt"))]


def cleaned(nodes: list[OutlineNode]) -> list[OutlineNode]:
    """Copies of ``nodes`` with every title put through the app's ``clean_title``."""
    return [n.model_copy(update={"title": clean_title(n.title, 60) or n.title, "children": cleaned(n.children)})
            for n in nodes]

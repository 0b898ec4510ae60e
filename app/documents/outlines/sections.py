"""A document's heading tree: sections with their number, verbatim title, body text and tables.

One shape for everything the user brings in — a pasted outline, a .docx or .pdf outline,
a past bid for the library: :func:`build_tree` nests a flat run of headings (each with its
level) and the body between them; :func:`parse_outline_text` reads pasted text, nesting by
numbering (:mod:`app.documents.outlines.numbering`) or, when nothing is numbered, by indentation.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from app.documents.outlines.numbering import looks_like_body, nest_levels, parse_numbering, strip_leader

TableRows = list[list[str]]


@dataclass
class Section:
    """One heading of a document and what stands under it until the next heading."""

    title: str
    number: str = ""
    level: int = 1
    paragraphs: list[str] = field(default_factory=list)
    tables: list[TableRows] = field(default_factory=list)
    children: list[Section] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The section's own body text (paragraphs joined by newlines; tables not included)."""
        return "\n".join(self.paragraphs)

    def walk(self, depth: int = 1) -> Iterator[tuple[int, Section]]:
        """This section and its descendants with their depth in the tree, depth first."""
        yield depth, self
        for child in self.children:
            yield from child.walk(depth + 1)


@dataclass
class FlatEntry:
    """A heading as read, before nesting: its level, number, title, and the body after it."""

    level: int
    title: str
    number: str = ""
    paragraphs: list[str] = field(default_factory=list)
    tables: list[TableRows] = field(default_factory=list)


def build_tree(entries: Sequence[FlatEntry]) -> list[Section]:
    """Nest headings by level; a level that skips (1 → 3) hangs under the nearest shallower heading."""
    roots: list[Section] = []
    stack: list[Section] = []
    for e in entries:
        node = Section(title=e.title, number=e.number, level=e.level, paragraphs=list(e.paragraphs),
                       tables=list(e.tables))
        while stack and stack[-1].level >= e.level:
            stack.pop()
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)
    return roots


def iter_sections(roots: Sequence[Section]) -> Iterator[tuple[int, Section]]:
    """Every section of a forest with its depth, in document order."""
    for root in roots:
        yield from root.walk()


def _indent(line: str) -> int:
    expanded = line.replace("\t", "    ").replace("\u3000", "  ")
    return len(expanded) - len(expanded.lstrip(" "))


def parse_outline_text(text: str) -> list[Section]:
    """A pasted outline as a heading tree: indentation gives depth when the text has it, else numbering.

    Titles are kept verbatim (number and table-of-contents leader removed). A line that reads
    as a sentence is body text of the heading before it (kept in its ``paragraphs``).
    """
    rows: list[tuple[int, str, str | None, str]] = []  # indent, title, style, number
    body: dict[int, list[str]] = {}
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        numbered = parse_numbering(raw)
        if numbered is None and looks_like_body(raw):
            if rows:
                body.setdefault(len(rows) - 1, []).append(raw.strip())
            continue
        if numbered is not None:
            rows.append((_indent(raw), numbered.title, numbered.style, numbered.number))
        else:
            rows.append((_indent(raw), strip_leader(raw.strip()), None, ""))
    if not rows:
        return []
    widths = sorted({r[0] for r in rows})
    by_indent = [widths.index(r[0]) + 1 for r in rows]
    if all(r[2] is None for r in rows) or (len(widths) > 1 and rows[0][0] == widths[0]):
        levels = by_indent  # the writer laid the levels out by indentation: that is their depth
    else:
        levels = nest_levels([r[2] for r in rows], _relative_indent(rows, by_indent))
    entries = [FlatEntry(level=lv, title=t, number=n, paragraphs=body.get(i, []))
               for i, ((_, t, _, n), lv) in enumerate(zip(rows, levels, strict=True))]
    return build_tree(entries)


def _relative_indent(rows: Sequence[tuple[int, str, str | None, str]], by_indent: list[int]) -> list[int]:
    """For unnumbered rows: one below the last numbered heading unless indented less, then beside it."""
    out: list[int] = []
    last_indent, last_level = 0, 0
    styles = [r[2] for r in rows]
    numbered_levels = nest_levels(styles)
    for i, (indent, _, style, _) in enumerate(rows):
        if style is not None:
            last_indent, last_level = indent, numbered_levels[i]
            out.append(numbered_levels[i])
        else:
            out.append(last_level + 1 if indent >= last_indent and last_level else max(1, last_level or by_indent[i]))
    return out

"""Light markdown (what models and users type into a section) parsed into typed blocks.

Understood: one paragraph per line, ``- ``/``* `` bullets, ``1. ``/``1、``/``（1）`` numbered
items (two-space indent nests one level), pipe tables with an optional ``|---|`` rule under
the header, ``#`` sub-headings, ``> `` quotes and inline ``**bold**``. The writer renders the
blocks as real Word paragraphs, lists and tables, never as the raw markers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BULLET = re.compile(r"^(?P<indent>\s*)[-*+•·●▪]\s+(?P<text>.+)$")
_ORDERED = re.compile(
    r"^(?P<indent>\s*)(?:\d{1,3}[.．)]\s+|\d{1,3}、\s*|[（(]\d{1,3}[)）]\s*|[①②③④⑤⑥⑦⑧⑨⑩]\s*)(?P<text>.+)$"
)
_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<text>.+?)\s*#*\s*$")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_TABLE_SEPARATOR_CELL = re.compile(r"^\s*:?-+:?\s*$")
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
#: Characters XML 1.0 cannot hold (models sometimes emit them); lxml would refuse the text.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_safe(text: str) -> str:
    """``text`` without control characters that a .docx cannot store."""
    return _XML_ILLEGAL.sub("", text)


@dataclass(frozen=True)
class Inline:
    """A run of text, bold or not."""

    text: str
    bold: bool = False


Runs = tuple[Inline, ...]


@dataclass(frozen=True)
class ParagraphBlock:
    """A body paragraph; ``subheading`` for ``#`` lines (bold, but not a Word heading)."""

    runs: Runs
    subheading: bool = False


@dataclass(frozen=True)
class ListItem:
    """One list entry at nesting ``level`` (0 or 1)."""

    runs: Runs
    level: int = 0


@dataclass(frozen=True)
class ListBlock:
    """Consecutive list items of one kind; numbered lists restart at 1 per block."""

    ordered: bool
    items: tuple[ListItem, ...]


@dataclass(frozen=True)
class TableBlock:
    """A pipe table: rows of cells (each cell its runs); ``header`` if row 0 is a header row."""

    rows: tuple[tuple[Runs, ...], ...]
    header: bool

    @property
    def column_count(self) -> int:
        """Widest row's cell count (short rows are padded when rendered)."""
        return max((len(r) for r in self.rows), default=0)


Block = ParagraphBlock | ListBlock | TableBlock


def parse_inline(text: str) -> Runs:
    """Split ``text`` into runs at ``**bold**`` markers; unmatched markers stay literal."""
    runs: list[Inline] = []
    pos = 0
    for match in _BOLD.finditer(text):
        if match.start() > pos:
            runs.append(Inline(text[pos : match.start()]))
        runs.append(Inline(match.group(1) or match.group(2), bold=True))
        pos = match.end()
    if pos < len(text):
        runs.append(Inline(text[pos:]))
    return tuple(r for r in runs if r.text)


def _is_table_line(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("|") and stripped.count("|") >= 2


def _split_cells(line: str) -> list[str]:
    stripped = line.strip()
    if stripped.startswith("|"):
        stripped = stripped[1:]
    if stripped.endswith("|") and not stripped.endswith("\\|"):
        stripped = stripped[:-1]
    cells = re.split(r"(?<!\\)\|", stripped)
    return [c.strip().replace("\\|", "|") for c in cells]


def _parse_table(lines: list[str]) -> TableBlock | None:
    rows = [_split_cells(line) for line in lines]
    header = len(rows) >= 2 and all(_TABLE_SEPARATOR_CELL.match(c) for c in rows[1] if c) and any(rows[1])
    if header:
        rows = [rows[0], *rows[2:]]
    rows = [r for r in rows if not all(_TABLE_SEPARATOR_CELL.match(c) or not c for c in r)]
    if not rows:
        return None
    return TableBlock(rows=tuple(tuple(parse_inline(c) for c in r) for r in rows), header=header)


def _list_match(line: str) -> tuple[bool, int, str] | None:
    for ordered, pattern in ((False, _BULLET), (True, _ORDERED)):
        m = pattern.match(line)
        if m:
            indent = len(m.group("indent").replace("\t", "    "))
            return ordered, min(indent // 2, 1), m.group("text").strip()
    return None


def parse_blocks(text: str) -> list[Block]:
    """Parse section text into blocks, in order."""
    blocks: list[Block] = []
    lines = xml_safe(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    i = 0
    list_kind: bool | None = None
    items: list[ListItem] = []

    def flush_list() -> None:
        nonlocal list_kind, items
        if items and list_kind is not None:
            blocks.append(ListBlock(ordered=list_kind, items=tuple(items)))
        list_kind, items = None, []

    while i < len(lines):
        line = lines[i]
        if not line.strip() or _RULE.match(line):
            flush_list()
            i += 1
            continue
        if _is_table_line(line):
            flush_list()
            start = i
            while i < len(lines) and _is_table_line(lines[i]):
                i += 1
            table = _parse_table(lines[start:i])
            if table is not None:
                blocks.append(table)
            continue
        heading = _HEADING.match(line)
        if heading:
            flush_list()
            blocks.append(ParagraphBlock(parse_inline(heading.group("text")), subheading=True))
            i += 1
            continue
        listed = _list_match(line)
        if listed is not None:
            ordered, level, body = listed
            if list_kind is not None and ordered != list_kind and level == 0:
                flush_list()
            if list_kind is None:
                list_kind = ordered
            items.append(ListItem(parse_inline(body), level))
            i += 1
            continue
        if items and line.startswith((" ", "\t")):
            # An indented continuation of the previous list item.
            last = items[-1]
            items[-1] = ListItem((*last.runs, *parse_inline(line.strip())), last.level)
            i += 1
            continue
        flush_list()
        body = line.strip()
        if body.startswith(">"):
            body = body.lstrip(">").strip()
        if body:
            blocks.append(ParagraphBlock(parse_inline(body)))
        i += 1
    flush_list()
    return blocks

"""The pipe tables of section text (Markdown): find the one around a line, read it, write it back.

Section text is Markdown because the Word export reads it; a writer should not have to type
``| --- |`` rows by hand. The section editor's table dialog uses these functions: find the
table block a line belongs to, read its cells into rows, and write rows back as a table with
its header separator (cells cannot hold a bar or a line break, so those are replaced).
"""

from __future__ import annotations

import re

_SEPARATOR_CELL = re.compile(r"^:?-{3,}:?$")


def is_table_line(line: str) -> bool:
    """Whether ``line`` is a row of a pipe table (it starts with a bar)."""
    return line.lstrip().startswith("|")


def table_span(lines: list[str], at: int) -> tuple[int, int] | None:
    """The first and one-past-last line of the table holding line ``at``, or None outside a table."""
    if not 0 <= at < len(lines) or not is_table_line(lines[at]):
        return None
    start = at
    while start > 0 and is_table_line(lines[start - 1]):
        start -= 1
    end = at + 1
    while end < len(lines) and is_table_line(lines[end]):
        end += 1
    return start, end


def _cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


def _is_separator(cells: list[str]) -> bool:
    return bool(cells) and all(_SEPARATOR_CELL.match(c.replace(" ", "")) for c in cells)


def read_table(lines: list[str]) -> list[list[str]]:
    """The cells of a table's lines, header first; the separator row is dropped, rows padded to one width."""
    rows = [cells for cells in (_cells(line) for line in lines) if not _is_separator(cells)]
    width = max((len(r) for r in rows), default=0)
    return [r + [""] * (width - len(r)) for r in rows]


def _cell_text(text: str) -> str:
    return " ".join(text.replace("|", "｜").split())


def write_table(rows: list[list[str]]) -> list[str]:
    """Table lines for ``rows`` (the first is the header), with the ``| --- |`` separator after it."""
    width = max((len(r) for r in rows), default=0)
    if width == 0:
        return []
    padded = [[_cell_text(c) for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(padded[0]) + " |", "| " + " | ".join(["---"] * width) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in padded[1:]]
    return lines

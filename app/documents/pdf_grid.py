"""Tidy the cell grid PyMuPDF's line finder returns for one table fragment.

The line finder builds its grid from every ruling line it sees, so lines that are not the
table's own cut its columns: an empty grid drawn right under the table (a blank form) adds its
column lines to the whole table, and a running header's rule that reaches past the table's
right edge adds a thin column. What is left out here holds no text at all:

- trailing rows without any text (the blank grid under the table);
- columns in which no kept row has a cell of its own (each row's cell there is the one merged
  from the left), so they fold into the column on their left;
- a narrow column at either edge without any text.

The fragment then has the columns of the table itself, and a fragment on the next page lines
up with it.
"""

from __future__ import annotations

from dataclasses import dataclass

Rect = tuple[float, float, float, float]
EDGE_COLUMN = 30.0  # points: an empty edge column narrower than this is a stray rule, not a column


@dataclass
class Grid:
    """Cell rectangles (None: merged from the left or above) and their text, row by row."""

    rects: list[list[Rect | None]]
    texts: list[list[str | None]]

    @property
    def edges(self) -> list[float]:
        """The columns' left edges and the last column's right edge ([] when a column has no cell)."""
        width = max((len(r) for r in self.rects), default=0)
        lefts = [min((cell[0] for row in self.rects if j < len(row) and (cell := row[j]) is not None), default=None)
                 for j in range(width)]
        rights = [cell[2] for row in self.rects if row and (cell := row[-1]) is not None]
        if not width or any(x is None for x in lefts) or not rights:
            return []
        return [float(x) for x in lefts if x is not None] + [max(rights)]

    def spans(self, edges: list[float]) -> list[list[int]]:
        """How many columns each cell covers, row by row (0 for a merged cell), by its right edge."""
        out: list[list[int]] = []
        for row in self.rects:
            line: list[int] = []
            for j, r in enumerate(row):
                if r is None or not edges:
                    line.append(0 if r is None else 1)
                    continue
                right = next((k for k in range(j + 1, len(edges)) if edges[k] >= r[2] - 2.0), len(edges) - 1)
                line.append(max(1, right - j))
            out.append(line)
        return out

    @property
    def bbox(self) -> Rect | None:
        """The rectangle around every cell, None for an empty grid."""
        cells = [r for row in self.rects for r in row if r is not None]
        if not cells:
            return None
        return (min(r[0] for r in cells), min(r[1] for r in cells), max(r[2] for r in cells), max(r[3] for r in cells))


def _has_text(texts: list[str | None]) -> bool:
    return any(t is not None and t.strip() for t in texts)


def _keep_columns(grid: Grid, keep: list[int]) -> Grid:
    return Grid(rects=[[row[j] for j in keep] for row in grid.rects], texts=[[row[j] for j in keep] for row in grid.texts])


def tidy(grid: Grid) -> Grid:
    """The grid without trailing empty rows, columns no row starts a cell in, and empty edge slivers."""
    rows = len(grid.texts)
    while rows > 1 and not _has_text(grid.texts[rows - 1]):
        rows -= 1
    grid = Grid(rects=grid.rects[:rows], texts=grid.texts[:rows])
    width = max((len(r) for r in grid.rects), default=0)
    if width <= 1:
        return grid
    starts = [j for j in range(width) if any(j < len(row) and row[j] is not None for row in grid.rects)]
    if 0 not in starts:
        starts.insert(0, 0)
    grid = _keep_columns(grid, starts)
    keep = list(range(len(starts)))
    for j in (len(starts) - 1, 0):
        if len(keep) <= 2 or j not in keep:
            continue
        column = [row[j] for row in grid.texts]
        widths = [r[2] - r[0] for row in grid.rects if (r := row[j]) is not None]
        if not _has_text(column) and widths and max(widths) < EDGE_COLUMN:
            keep.remove(j)
    return grid if len(keep) == len(starts) else _keep_columns(grid, keep)

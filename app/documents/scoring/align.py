"""Line up the columns of a PDF table's page fragments before they are read as one grid.

A table continued over pages does not keep its grid: where no row of a page needs a column (a
factor without sub-factors, say) the line finder finds one column fewer there, and a cell index
no longer means the same column. With the columns' edges the reader keeps for PDF tables, every
fragment is laid on one grid made of all the fragments' edges (edges a few points apart are one
edge: the same rule drawn a little off on another page). Each column of a fragment goes to the
grid column it overlaps most, a cell to the column of its first own column, and the grid columns a
fragment has no column for stay None (merged into a neighbour).
"""

from __future__ import annotations

from app.documents.model import Table

Cells = list[str | None]
SAME_EDGE = 8.0  # points: edges this close are one edge (a rule drawn a little off, a sliver column)


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def _targets(own: list[float], edges: list[float]) -> list[int]:
    """For each of a fragment's columns, the grid column it overlaps most."""
    out: list[int] = []
    for k in range(len(own) - 1):
        spans = [_overlap(own[k], own[k + 1], edges[t], edges[t + 1]) for t in range(len(edges) - 1)]
        out.append(max(range(len(spans)), key=lambda t: (spans[t], -t)))
    return out


def aligned_rows(table: Table, edges: list[float]) -> list[Cells]:
    """``table``'s rows on the columns between ``edges`` (unchanged when it lacks edges or they agree)."""
    own = table.col_x
    if len(edges) < 2 or len(own) < 2 or _agree(own, edges):
        return [list(r) for r in table.rows]
    targets = _targets(own, edges)
    out: list[Cells] = []
    for row in table.rows:
        cells: Cells = [None] * (len(edges) - 1)
        for k, value in enumerate(row[: len(targets)]):
            if value is not None:
                t = targets[k]
                cells[t] = value if cells[t] is None else f"{cells[t]}\n{value}".strip()
        out.append(cells)
    return out


def _agree(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= SAME_EDGE for x, y in zip(a, b, strict=True))


def run_edges(run: list[Table]) -> list[float]:
    """Every column edge of a run's fragments, close ones as one; [] unless every fragment has edges
    and they disagree (one fragment, or fragments that agree, are read as they are)."""
    if len(run) < 2 or any(len(t.col_x) < 2 for t in run):
        return []
    if all(_agree(t.col_x, run[0].col_x) for t in run[1:]):
        return []
    out: list[float] = []
    for x in sorted(x for t in run for x in t.col_x):
        if not out or x - out[-1] > SAME_EDGE:
            out.append(x)
    return out

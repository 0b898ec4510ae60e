"""An outline judged the way an evaluator reads a bid: which criteria points its headings answer.

Before any text is written, the 评审模拟 engine's point matching (:mod:`.terms`, :mod:`.matching`)
is applied to the outline itself: for each technical scoring item, each point its criteria name
counts as covered when a heading below the item's chapter (or the description under it) shows it
as a sentence would. The chapter's own title covers a point only when the point is the item
itself (培训方案 for an item 培训方案 whose criteria name nothing more) and the chapter has
sections; its own description (the criteria, copied by code) never does. An item with no chapter
of its own (free mode) is looked for in the whole outline.

Used by code fill (a point no heading answers gets one) and by ``tests/eval/outline_quality.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.core.analysis import Analysis, ScoringGroup
from app.core.outline import OutlineNode, Path
from app.core.response_map import index_entries
from app.pipeline.evaluation.terms import PointTerms, item_points

__all__ = ["ItemCoverage", "PointCover", "covering_heading", "item_coverage", "outline_coverage"]


@dataclass(frozen=True)
class PointCover:
    """One criteria point and the heading that answers it (None: no heading does)."""

    label: str
    path: Path | None = None
    title: str = ""


@dataclass
class ItemCoverage:
    """The points of one scoring item and where the outline answers each."""

    group: ScoringGroup
    points: list[PointCover] = field(default_factory=list)

    @property
    def covered(self) -> int:
        """Points a heading answers."""
        return sum(1 for p in self.points if p.path is not None)

    @property
    def share(self) -> float:
        """Share of the item's points a heading answers (1.0 for an item without points)."""
        return self.covered / len(self.points) if self.points else 1.0

    @property
    def missing(self) -> list[str]:
        """Labels of the points no heading answers."""
        return [p.label for p in self.points if p.path is None]


def _shows(terms: PointTerms, text: str) -> bool:
    from app.pipeline.evaluation.matching import coverage

    return bool(text) and coverage(terms, text) >= 1.0


def covering_heading(terms: PointTerms, nodes: Sequence[tuple[Path, OutlineNode]]) -> tuple[Path, str] | None:
    """The first of ``nodes`` whose title or description shows the point (path and title), or None."""
    for path, node in nodes:
        if _shows(terms, node.title) or _shows(terms, node.description):
            return path, node.title
    return None


def _below(root: Path, node: OutlineNode) -> list[tuple[Path, OutlineNode]]:
    return [((*root, *p), n) for p, n in node.walk()]


def item_coverage(group: ScoringGroup, chapters: Sequence[OutlineNode], roots: Sequence[Path]) -> ItemCoverage:
    """Where the headings below ``roots`` (the item's sections; the whole outline when none) answer the
    points of ``group``."""
    out = ItemCoverage(group)
    nodes: list[tuple[Path, OutlineNode]] = []
    heads: list[tuple[Path, OutlineNode]] = []
    for root in roots:
        node = _node(chapters, root)
        if node is not None:
            heads.append((root, node))
            nodes += _below(root, node)
    if not roots:
        for i, ch in enumerate(chapters):
            nodes.append(((i,), ch))
            nodes += _below((i,), ch)
    points = item_points(group)
    for terms in points:
        hit = covering_heading(terms, nodes)
        if hit is None and len(points) == 1:  # the point is the item itself: its chapter, once divided, answers it
            hit = next(((p, n.title) for p, n in heads if n.children and _shows(terms, n.title)), None)
        out.points.append(PointCover(terms.label, *hit) if hit else PointCover(terms.label))
    return out


def _node(chapters: Sequence[OutlineNode], path: Path) -> OutlineNode | None:
    nodes: Sequence[OutlineNode] = chapters
    node: OutlineNode | None = None
    for i in path:
        if i >= len(nodes):
            return None
        node = nodes[i]
        nodes = node.children
    return node


def outline_coverage(analysis: Analysis, chapters: Sequence[OutlineNode]) -> list[ItemCoverage]:
    """Every technical scoring item of ``analysis`` with the outline headings that answer its points."""
    entries = {e.group.id: e.paths for e in index_entries(analysis, chapters)}
    return [item_coverage(g, chapters, entries.get(g.id, ())) for g in analysis.technical_groups]

"""Which outline sections answer which scoring items and ★/▲ clauses (评分索引表, 技术偏离表).

A scoring item is answered by the chapter the one-to-one mode built for it (its
``source_requirement_id``) and by every section the user mapped to it (the section's
``scoring_refs``), so the mapping moves with the sections when the outline is edited and is
saved with the outline. A ★/▲ clause is answered by the section whose number the user gave
(``RiskItem.answered_in``). These functions compute both tables' rows for the app (warnings
before export) and for the Word writer alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from app.core.analysis import Analysis, ScoringGroup
from app.core.breakdown import Breakdown, RiskItem
from app.core.outline import OutlineNode, Path

#: Categories never listed in the index (price is scored by formula, not by a chapter).
_NEVER_INDEXED = frozenset({"price"})
SUMMARY_CHARS = 60


@dataclass(frozen=True)
class IndexEntry:
    """One scoring item and the sections answering it, in outline order."""

    group: ScoringGroup
    paths: tuple[Path, ...] = ()
    #: Paths that come from the one-to-one mode (``source_requirement_id``), not from a user mapping.
    automatic: frozenset[Path] = field(default_factory=frozenset)

    @property
    def answered(self) -> bool:
        """Whether any section answers the item."""
        return bool(self.paths)


def _walk(chapters: Sequence[OutlineNode]) -> Iterator[tuple[Path, OutlineNode]]:
    for i, chapter in enumerate(chapters):
        yield (i,), chapter
        yield from chapter.walk((i,))


def node_at(chapters: Sequence[OutlineNode], path: Path) -> OutlineNode | None:
    """The node at ``path`` in ``chapters``, or None."""
    nodes: Sequence[OutlineNode] = chapters
    node: OutlineNode | None = None
    for i in path:
        if not 0 <= i < len(nodes):
            return None
        node = nodes[i]
        nodes = node.children
    return node


def section_number(path: Path) -> str:
    """The outline number of a path: ``(2, 0)`` -> ``"3.1"``."""
    return ".".join(str(i + 1) for i in path)


def find_section(chapters: Sequence[OutlineNode], number: str) -> Path | None:
    """The path of the section numbered ``number`` ("3.2", "第3章" or "3"), or None."""
    text = number.strip()
    m = re.fullmatch(r"第\s*(\d+)\s*章", text)
    if m:
        text = m.group(1)
    text = text.rstrip(".．")
    if not re.fullmatch(r"\d+(?:[.．]\d+)*", text):
        return None
    path = tuple(int(x) - 1 for x in re.split(r"[.．]", text))
    if any(i < 0 for i in path) or node_at(chapters, path) is None:
        return None
    return path


def indexable_groups(analysis: Analysis, chapters: Sequence[OutlineNode] = ()) -> list[ScoringGroup]:
    """The items of the 评分索引表: every technical item, plus other non-price items some section maps."""
    mapped = {ref for _, node in _walk(chapters) for ref in node.scoring_refs}
    return [g for g in analysis.groups
            if g.category not in _NEVER_INDEXED and (g.category == "technical" or g.id in mapped)]


def mappable_groups(analysis: Analysis) -> list[ScoringGroup]:
    """The items a user may map sections to (all but price)."""
    return [g for g in analysis.groups if g.category not in _NEVER_INDEXED]


def index_entries(analysis: Analysis, chapters: Sequence[OutlineNode]) -> list[IndexEntry]:
    """The rows of the 评分索引表, one per item, with the sections that answer it.

    A section whose ancestor already answers the same item through the one-to-one mode is
    not listed again (the chapter covers it).
    """
    entries = []
    for group in indexable_groups(analysis, chapters):
        auto: list[Path] = []
        mapped: list[Path] = []
        for path, node in _walk(chapters):
            if node.source_requirement_id == group.id and not any(path[: len(a)] == a for a in auto):
                auto.append(path)
            elif group.id in node.scoring_refs:
                mapped.append(path)
        paths = sorted({*auto, *mapped})
        entries.append(IndexEntry(group, tuple(paths), frozenset(auto)))
    return entries


def unanswered_groups(analysis: Analysis, chapters: Sequence[OutlineNode]) -> list[ScoringGroup]:
    """Technical scoring items no section answers (warned about before export)."""
    return [e.group for e in index_entries(analysis, chapters) if not e.answered]


def criteria_summary(group: ScoringGroup, limit: int = SUMMARY_CHARS) -> str:
    """A short criteria text for the index: the detail points, else the named sub-items with their
    points, else the criteria up to its notes (注：…), cut at a sentence end."""
    named = [f"{s.name}（{s.points:g}分）" if s.points is not None else s.name for s in group.sub_items if s.name]
    if group.detail_points:
        text = "；".join(p.strip() for p in group.detail_points if p.strip())
    elif named:
        text = "；".join(named)
    else:
        text = re.sub(r"\s+", "", group.description)
        note = re.search(r"(?:备注|说明|注)[:：]", text)
        if note and note.start() >= 8:  # the scale, not the notes on evidence to attach
            text = text[: note.start()]
    if len(text) <= limit:
        return text
    cut = text[:limit]
    stop = max(cut.rfind(ch) for ch in "。；;")
    return cut[: stop + 1] if stop >= limit // 2 else cut[: limit - 1] + "…"


def points_text(points: float | None) -> str:
    """``12.0`` -> ``"12"``, ``5.5`` -> ``"5.5"``, None -> ``""``."""
    if points is None:
        return ""
    return f"{points:g}"


@dataclass(frozen=True)
class DeviationEntry:
    """One ★/▲ clause with the section answering it (None when not marked or not found)."""

    risk_index: int
    risk: RiskItem
    path: Path | None


def deviation_entries(breakdown: Breakdown | None, chapters: Sequence[OutlineNode]) -> list[DeviationEntry]:
    """The rows of the 技术偏离表: every ★/▲ clause in document order."""
    if breakdown is None:
        return []
    out = []
    for index, risk in breakdown.marked():
        path = find_section(chapters, risk.answered_in) if risk.answered_in else None
        out.append(DeviationEntry(index, risk, path))
    return out


def default_response(heading: str | None) -> str:
    """The 投标响应 shown when the writer typed none: 待确认 (compliance is never assumed), with the section."""
    return f"待确认（相关章节：“{heading}”）" if heading else "待确认"


def section_heading(chapters: Sequence[OutlineNode], path: Path | None) -> str | None:
    """The heading text ("3.2 标题") of the node at ``path``, numbered as in the outline; None if absent."""
    node = node_at(chapters, path) if path is not None else None
    if node is None or path is None:
        return None
    return f"{section_number(path)} {node.title}"

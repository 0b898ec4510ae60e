"""Heading candidates from the user's own past bids (历史标书) for one chapter.

The query is the chapter's scoring item: its name, with its criteria as context, searched in
the user's library (:func:`app.library.search.search_sections`). A past section is taken only
when it is about the item — a real search score and a title that names what the item names
(the caller's test) — and only when it has sub-headings: its sub-headings become level-2
candidates and theirs the level-3 ones. Each heading is checked by the same defect rules as the
heading library's (writer ``library`` in :mod:`app.core.rules.registry`), kept verbatim
otherwise (rule 16), and marked with origin ``history`` and its source (bid › section).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.rules import registry
from app.core.rules.heading_checks import HeadingContext
from app.core.rules.outline import clean_title, normalize_title
from app.library.search import search_sections

if TYPE_CHECKING:
    from app.library.store import LibraryStore, StoredSection

log = logging.getLogger(__name__)
#: The lowest search score of a past section taken as a chapter's structure (search.py scores 0–1).
MIN_SCORE = 0.35
#: Past sections looked at per chapter (the best first).
SEARCHED = 8
#: Past structures kept per chapter.
KEPT = 2
SOURCE_PREFIX = "历史标书"


@dataclass(frozen=True)
class PastSection:
    """A level-2 candidate from a past bid: title, level-3 titles, and where it came from."""

    title: str
    children: tuple[str, ...]
    source: str  # 历史标书“bid” › section (the nodes' ``origin_source``)


@dataclass(frozen=True)
class PastStructure:
    """One matching past section (≈ the chapter) and its usable sub-headings, best score first."""

    bid_name: str
    title: str
    score: float
    sections: tuple[PastSection, ...]


def source_note(bid_name: str, section_title: str) -> str:
    """The source kept on a node taken from a past bid (its ``origin_source``)."""
    return f"{SOURCE_PREFIX}“{bid_name}” › {section_title}"


def _usable(title: str, level: int, parent: str, chapter: str, criteria: str) -> str | None:
    """The heading cleaned (numbering off), or None when a defect rule refuses it."""
    t = clean_title(title)
    if not t:
        return None
    ctx = HeadingContext(title=t, level=level, writer="library", parent=parent, chapter=chapter, criteria=criteria)
    return None if registry.first_problem(ctx) else t


def _sections(subtree: list[StoredSection], chapter: str, criteria: str, note: str) -> tuple[PastSection, ...]:
    """The sub-headings of ``subtree[0]`` (one level down) with their own sub-headings (two levels down)."""
    head = subtree[0]
    out: list[PastSection] = []
    current: tuple[str, list[str]] | None = None

    def close() -> None:
        if current is not None:
            out.append(PastSection(current[0], tuple(dict.fromkeys(current[1])), note))

    for s in subtree[1:]:
        if s.level == head.level + 1:
            close()
            t = _usable(s.title, 2, chapter, chapter, criteria)
            current = (t, []) if t else None
        elif s.level == head.level + 2 and current is not None:
            kid = _usable(s.title, 3, current[0], chapter, criteria)
            if kid and normalize_title(kid) != normalize_title(current[0]):
                current[1].append(kid)
    close()
    return tuple(out)


def past_structures(store: LibraryStore, name: str, criteria: str = "", chapter: str = "", *,
                    about: Callable[[str], bool], min_sections: int = 2, kept: int = KEPT) -> list[PastStructure]:
    """The past sections about this scoring item (``name``, ``criteria``) with at least ``min_sections``
    usable sub-headings, best first; [] when nothing in the library is about it.

    ``about(past_title)`` says whether a past section's title names what the item names (the
    caller's word matching); a search score below :data:`MIN_SCORE` is never enough either.
    """
    if not name.strip():
        return []
    from app.library.store import LibraryError

    try:
        hits = search_sections(store, name, SEARCHED, context=criteria)
        subtrees = {h.section.id: store.subtree(h.section.id) for h in hits
                    if h.score >= MIN_SCORE and about(h.section.title)}
    except LibraryError as exc:  # an office library whose server went away: the chapter is planned without it
        log.warning("past bids skipped for %r: %s", name, exc.message_zh)
        return []
    out: list[PastStructure] = []
    seen: set[frozenset[str]] = set()
    for hit in hits:
        s = hit.section
        if s.id not in subtrees:
            continue
        sections = _sections(subtrees[s.id], chapter or name, criteria, source_note(s.bid_name, s.title))
        key = frozenset(normalize_title(p.title) for p in sections)
        if len(sections) < min_sections or key in seen:
            continue
        seen.add(key)
        out.append(PastStructure(s.bid_name, s.title, hit.score, sections))
        if len(out) >= kept:
            break
    return out

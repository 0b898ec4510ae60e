"""Bring part of the live tree to a wanted state with the fewest tree operations.

A run works on node lists (what a model returned, what local repair made of it) while the
user watches the live tree. :func:`sync_children` edits the tree until the children of one
node equal the wanted list: nodes whose title already matches stay (their subtrees are
synced in turn), changed fields are set in place, dropped nodes are removed and missing
ones inserted. A repair after streaming therefore shows as a few edits, never as the whole
tree being replaced (no model reset, selection and scroll position survive).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.outline import Outline, OutlineNode, Path

#: Fields a sync makes equal; ``id`` is renumbered by code and ``content`` (drafted text) is kept.
SYNC_FIELDS = ("title", "description", "source_requirement_id", "source_requirement_title", "origin", "origin_source",
               "locked")


def sync_children(outline: Outline, parent: Path, wanted: Sequence[OutlineNode]) -> int:
    """Edit the children of ``parent`` (and their subtrees) to equal ``wanted``; returns the edits made."""
    edits = 0
    i = 0
    for k, want in enumerate(wanted):
        current = outline.node(parent).children
        if i < len(current) and current[i].title != want.title:
            still_wanted = {w.title for w in wanted[k + 1:]}
            later = _find(current, want.title, i + 1)
            if later >= 0 and not any(c.title in still_wanted for c in current[i:later]):
                outline.remove_range(parent, i, later - i)  # nodes the wanted list dropped
                edits += 1
            elif current[i].title in still_wanted:
                outline.insert_many(parent, i, [want.model_copy(deep=True)])  # a node the wanted list added
                edits += 1
                i += 1
                continue
        current = outline.node(parent).children
        if i >= len(current):
            outline.insert_many(parent, i, [want.model_copy(deep=True)])
            edits += 1
            i += 1
            continue
        node = current[i]
        changed = {f: getattr(want, f) for f in SYNC_FIELDS if getattr(node, f) != getattr(want, f)}
        if changed:
            outline.update((*parent, i), **changed)
            edits += 1
        edits += sync_children(outline, (*parent, i), want.children)
        i += 1
    extra = len(outline.node(parent).children) - i
    if extra > 0:
        outline.remove_range(parent, i, extra)
        edits += 1
    return edits


def sync_outline(outline: Outline, chapters: Sequence[OutlineNode]) -> int:
    """Edit the whole tree to equal ``chapters`` (see :func:`sync_children`)."""
    return sync_children(outline, (), chapters)


def _find(nodes: list[OutlineNode], title: str, start: int) -> int:
    for k in range(start, len(nodes)):
        if nodes[k].title == title:
            return k
    return -1

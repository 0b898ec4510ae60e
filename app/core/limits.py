"""The bounds of an outline, in one object every layer reads (rules, wire schemas, Qt model, view).

:class:`OutlineLimits` says what a *generated* outline must satisfy (depth, children per
node, chapters, title length); variants for one step of a run are made with
:func:`dataclasses.replace` through the small helpers below, never by copying fields.
:data:`STORED` is the same type describing what a stored node can hold at all (a project
file, a user's edit): the rules are stricter than storage, so a long title a user typed is
flagged by the rules instead of being lost.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class OutlineLimits:
    """Bounds the rules enforce and generation asks for; ``depth`` is configurable 2–4."""

    depth: int = 3
    min_children: int = 2
    max_children: int = 10
    min_chapters: int = 2
    max_chapters: int = 12
    max_title_len: int = 40
    max_description_len: int = 400

    def solo(self) -> OutlineLimits:
        """The same bounds for checking one chapter as if it were a whole outline."""
        return replace(self, min_chapters=1)

    def flat(self) -> OutlineLimits:
        """The same bounds for checking a top level alone (depth 1)."""
        return replace(self, depth=1)

    def below(self, levels: int) -> OutlineLimits:
        """Bounds for a node's subtree of ``levels`` levels, checked as a one-chapter outline."""
        return replace(self, depth=levels + 1, min_chapters=1)

    @property
    def wire_title_len(self) -> int:
        """Title length asked of a model in a schema (shorter than the rule, so near misses still pass)."""
        return max(8, self.max_title_len * 3 // 4)

    def allows_child_at(self, parent_level: int) -> bool:
        """Whether a node at ``parent_level`` (0 = the root) may have children."""
        return parent_level < self.depth


#: What a stored outline can hold at all (node model bounds, user edits, project files). One-to-one
#: mode makes one chapter per technical scoring item, and a tender may list hundreds: the bound
#: only stops a hostile file, never a run's result.
STORED = OutlineLimits(depth=4, min_children=0, max_children=12, min_chapters=0, max_chapters=2000,
                       max_title_len=60, max_description_len=400)

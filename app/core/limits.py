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
    """Bounds the rules enforce and generation asks for.

    ``depth`` (2–4) is how many levels generation asks for; a branch may stop earlier (a section
    left undivided, a two-level outline) and may go down to ``max_depth``. ``min_children`` is what
    prompts ask for and code plans under a node; validation accepts a single child (only a chapter
    needs at least one). Lists of up to ``max_children`` and up to ``max_chapters`` chapters (one per
    tender item in one-to-one mode) are accepted whole; beyond them the rules say so, nothing is cut.
    """

    depth: int = 3
    min_children: int = 2
    max_children: int = 20
    min_chapters: int = 2
    max_chapters: int = 20
    max_title_len: int = 40
    max_description_len: int = 400
    max_depth: int = 4

    def solo(self) -> OutlineLimits:
        """The same bounds for checking one chapter as if it were a whole outline."""
        return replace(self, min_chapters=1)

    def flat(self) -> OutlineLimits:
        """The same bounds for checking a top level alone (depth 1)."""
        return replace(self, depth=1, max_depth=1)

    def below(self, levels: int) -> OutlineLimits:
        """Bounds for a node's subtree of ``levels`` levels, checked as a one-chapter outline."""
        return replace(self, depth=levels + 1, min_chapters=1, max_depth=levels + 1 + self.extra_levels)

    @property
    def extra_levels(self) -> int:
        """Levels a branch may go below ``depth`` (a strong model's or a person's fourth level)."""
        return max(0, self.max_depth - self.depth)

    @property
    def deepest(self) -> int:
        """The deepest level validation accepts."""
        return max(self.depth, self.max_depth)

    @property
    def wire_title_len(self) -> int:
        """Title length asked of a model in a schema (shorter than the rule, so near misses still pass)."""
        return max(8, self.max_title_len * 3 // 4)

    def allows_child_at(self, parent_level: int) -> bool:
        """Whether a node at ``parent_level`` (0 = the root) may have children."""
        return parent_level < self.deepest


#: What a stored outline can hold at all (node model bounds, user edits, project files). One-to-one
#: mode makes one chapter per technical scoring item, and a tender may list hundreds: the chapter
#: bound only stops a hostile file, never a run's result. A user's own outline (imported verbatim)
#: may list a few dozen items under one heading.
STORED = OutlineLimits(depth=4, min_children=0, max_children=40, min_chapters=0, max_chapters=2000,
                       max_title_len=60, max_description_len=400, max_depth=4)

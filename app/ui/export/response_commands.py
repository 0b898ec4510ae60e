"""Undo commands for the 评分索引表 mapping (which sections answer a scoring item).

The mapping lives on the outline nodes (``scoring_refs``), so a mapping edit is an outline
command: one ``Outline.update`` per node that gains or loses the item, recorded and replayed
like any other tree edit, one undo step for the whole choice.
"""

from __future__ import annotations

from collections.abc import Iterable

from typing_extensions import override

from app.core.outline import Outline, Path
from app.ui.outline.commands import OutlineCommand


class MapSectionsCommand(OutlineCommand):
    """Make exactly ``paths`` carry ``group_id`` in their ``scoring_refs`` (others lose it)."""

    def __init__(self, outline: Outline, group_id: str, paths: Iterable[Path], title: str = "") -> None:
        super().__init__(outline, f"对应评分项“{title or group_id}”的章节", renumber=False)
        self.group_id = group_id
        self.paths = {tuple(p) for p in paths}

    @override
    def perform(self) -> None:
        """Add the item to the chosen sections and remove it from the others."""
        for path, node in list(self.outline.walk()):
            refs = list(node.scoring_refs)
            has = self.group_id in refs
            if path in self.paths and not has:
                self.outline.update(path, scoring_refs=[*refs, self.group_id])
            elif path not in self.paths and has:
                self.outline.update(path, scoring_refs=[r for r in refs if r != self.group_id])


def mapped_paths(outline: Outline, group_id: str) -> list[Path]:
    """Sections whose ``scoring_refs`` name ``group_id`` (the user's mapping, not one-to-one)."""
    return [path for path, node in outline.walk() if group_id in node.scoring_refs]

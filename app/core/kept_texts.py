"""Section text carried across a regeneration: sections whose headings survive keep their text.

Regenerating an outline (or one chapter) rebuilds its headings. Before the run the UI
takes :func:`drafted_texts`; afterwards :func:`restore_texts` puts each text back on a
new leaf with the same heading (numbering and spacing ignored), preferring one in the
chapter of the same name. Texts whose heading did not survive are returned to the caller,
who says how many were left out (and the run's undo step still brings them back).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.outline import Outline, Path
from app.core.rules.outline import normalize_title


@dataclass(frozen=True)
class KeptText:
    """One section's text and where it stood (normalised chapter and heading titles)."""

    chapter: str
    title: str
    content: str


def _under(path: Path, root: Path) -> bool:
    return path[: len(root)] == root


def drafted_texts(outline: Outline, under: Path = ()) -> list[KeptText]:
    """The sections with text, in outline order (only below ``under`` when given)."""
    out: list[KeptText] = []
    for path, node in outline.walk():
        if _under(path, under) and node.content.strip():
            chapter = outline.node(path[:1]).title
            out.append(KeptText(normalize_title(chapter), normalize_title(node.title), node.content))
    return out


def restore_texts(outline: Outline, kept: list[KeptText], under: Path = ()) -> tuple[int, list[KeptText]]:
    """Give kept texts back to empty leaves with the same heading; returns (restored, left over).

    Every change is an ordinary tree update, so an :class:`~app.ui.outline.commands.OpRecorder`
    around a run records it in the run's undo step.
    """
    left = list(kept)
    restored = 0
    for same_chapter in (True, False):
        for path, node in list(outline.walk()):
            if not left or not _under(path, under) or node.children or node.content.strip():
                continue
            title = normalize_title(node.title)
            chapter = normalize_title(outline.node(path[:1]).title)
            match = next((k for k in left if k.title == title and (not same_chapter or k.chapter == chapter)), None)
            if match is not None:
                outline.update(path, content=match.content)
                left.remove(match)
                restored += 1
    return restored, left

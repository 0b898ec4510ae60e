"""Section text and figures carried across a regeneration: sections whose headings survive keep them.

Regenerating an outline (or one chapter) rebuilds its headings. Before the run the UI
takes :func:`drafted_texts`; afterwards :func:`restore_texts` puts each text back on a
new leaf with the same heading (numbering and spacing ignored), preferring one in the
chapter of the same name. Texts whose heading did not survive are returned to the caller,
who says how many were left out (and the run's undo step still brings them back).
Figures (:func:`section_figures`, :func:`restore_figures`) go back the same way, to a section
of any level with the same heading.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.figures import Figure
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


@dataclass(frozen=True)
class KeptFigures:
    """One section's figures and where they stood (normalised chapter and heading titles)."""

    chapter: str
    title: str
    figures: tuple[Figure, ...]


def section_figures(outline: Outline, under: Path = ()) -> list[KeptFigures]:
    """The sections (any level) that hold figures, in outline order (only below ``under`` when given)."""
    out: list[KeptFigures] = []
    for path, node in outline.walk():
        if _under(path, under) and node.figures:
            chapter = outline.node(path[:1]).title
            out.append(KeptFigures(normalize_title(chapter), normalize_title(node.title), tuple(node.figures)))
    return out


def restore_figures(outline: Outline, kept: list[KeptFigures], under: Path = ()) -> tuple[int, list[KeptFigures]]:
    """Give kept figures back to sections with the same heading and no figures; returns (kept, left over).

    Figures still in the tree (a run that kept their section) count as kept where they are.
    """
    present = {f.id for _, n in outline.walk() for f in n.figures}
    left = [k for k in kept if not all(f.id in present for f in k.figures)]
    restored = sum(len(k.figures) for k in kept if k not in left)
    for same_chapter in (True, False):
        for path, node in list(outline.walk()):
            if not left or not _under(path, under) or node.figures:
                continue
            title = normalize_title(node.title)
            chapter = normalize_title(outline.node(path[:1]).title)
            match = next((k for k in left if k.title == title and (not same_chapter or k.chapter == chapter)), None)
            if match is not None:
                outline.update(path, figures=list(match.figures))
                left.remove(match)
                restored += sum(1 for _ in match.figures)
    return restored, left

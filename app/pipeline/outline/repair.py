"""Local, model-free repairs of an outline, tried before any model call is spent on a fix.

Weak models number their own titles ("1.2 设计原则"), wrap them in markdown, echo the prompt
("二级目录"), repeat a sibling, title a child like its parent, or write one level too many.
Code fixes what code can: strip numbering and decoration, drop unusable children (echoes,
copies of the parent standing alone or one character off it, copies of a sibling) as long as one
good child remains, and renumber. A copy of the parent beside sections of its own is a writer's
overview part and stays.
Nothing else is dropped: a list longer than the limit or a level below the deepest one is
kept and reported by the rules, so the model (or the user) is told instead of losing it.
"""

from __future__ import annotations

from app.core.limits import STORED
from app.core.outline import OutlineNode
from app.core.rules.outline import (
    OutlineLimits,
    check_outline,
    clean_title,
    normalize_title,
    one_char_apart,
    title_problem,
)

__all__ = ["clean_title", "fold_below", "fold_to_depth", "merge_uncle_copies", "repair_chapter", "repair_children", "repair_outline"]


def _node_ok(node: OutlineNode, parent_key: str | None, seen: set[str], avoid: frozenset[str],
             overview_ok: bool = False) -> bool:
    key = normalize_title(node.title)
    if title_problem(node.title) is not None:
        return False
    if parent_key is not None and ((key == parent_key and not overview_ok) or one_char_apart(key, parent_key)):
        return False
    return key not in seen and key not in avoid


def fold_below(node: OutlineNode) -> OutlineNode:
    """``node`` without children, their titles said in its description ("下级要点：甲、乙"): a level deeper than
    the depth asked for is a limit (issue 38), and nothing a model wrote is dropped silently."""
    titles = [n.title for _, n in node.walk()]
    note = "下级要点：" + "、".join(titles)
    desc = f"{node.description}（{note}）" if node.description else note
    return node.model_copy(update={"children": [], "description": desc[:STORED.max_description_len]})


def fold_to_depth(nodes: list[OutlineNode], levels: int) -> list[OutlineNode]:
    """``nodes`` (a node's children) with nothing deeper than ``levels`` levels: what lies below is said in the
    description of the node at the last level (:func:`fold_below`)."""
    if levels <= 1:
        return [fold_below(n) if n.children else n for n in nodes]
    return [n.model_copy(update={"children": fold_to_depth(n.children, levels - 1)}) for n in nodes]


def repair_children(children: list[OutlineNode], parent_title: str | None, level: int,
                    limits: OutlineLimits, avoid: frozenset[str] = frozenset(), fold: bool = False) -> list[OutlineNode]:
    """Repaired copies of ``children`` (at ``level``, 1-based) and of their subtrees.

    ``avoid`` holds the normalised titles of the parent's own siblings: a child copying one
    of them is as unusable as an echo title.
    Unusable children (echo titles, same as the parent or its siblings, duplicate siblings) are dropped
    as long as one good child remains (a single child is an outline's style; no child at all would
    change the shape, so then they stay and the rules name them). With ``fold`` (a model's answer),
    a node at the depth asked for keeps no children: their titles go into its description.
    """
    cleaned: list[OutlineNode] = []
    for child in children:
        title = clean_title(child.title, limits.max_title_len) or child.title.strip() or "?"
        cleaned.append(child.model_copy(update={"title": title[:STORED.max_title_len], "id": child.id}, deep=True))
    parent_key = normalize_title(parent_title) if parent_title else None
    # A child titled exactly like its parent beside children of its own is the section's overview part
    # (工程概况 › 工程概况、工程参数), as people write it: kept (the rules say so as a warning).
    overview_ok = parent_key is not None and any(
        normalize_title(n.title) != parent_key and title_problem(n.title) is None for n in cleaned)
    good: list[OutlineNode] = []
    seen: set[str] = set()
    for node in cleaned:
        if _node_ok(node, parent_key, seen, avoid, overview_ok):
            good.append(node)
            seen.add(normalize_title(node.title))
    kept = good if len(good) >= min(1, len(cleaned)) else cleaned  # a single child is fine; none is not
    keys = [normalize_title(n.title) for n in kept]
    out: list[OutlineNode] = []
    for i, node in enumerate(kept):
        uncles = frozenset(keys[:i] + keys[i + 1:])
        sub = repair_children(node.children, node.title, level + 1, limits, uncles, fold)
        repaired = node.model_copy(update={"children": sub})
        out.append(fold_below(repaired) if fold and sub and level >= limits.depth else repaired)
    return out


def repair_outline(chapters: list[OutlineNode], limits: OutlineLimits | None = None,
                   lock_top: bool = False, fold: bool = False) -> list[OutlineNode]:
    """A locally repaired, renumbered copy of the whole outline.

    With ``lock_top`` the chapters themselves (one-to-one mode) keep their titles, order and
    number; only their subtrees are repaired. ``fold``: a model's answer, held to the depth asked for.
    """
    lim = limits or OutlineLimits()
    if lock_top:
        keys = [normalize_title(ch.title) for ch in chapters]
        out = [ch.model_copy(update={"children": repair_children(ch.children, ch.title, 2, lim,
                                                                    frozenset(keys[:i] + keys[i + 1:]), fold)},
                             deep=True)
               for i, ch in enumerate(chapters)]
    else:
        out = repair_children(chapters, None, 1, lim, fold=fold)
    renumber_nodes(out)
    return out


def repair_chapter(chapter: OutlineNode, limits: OutlineLimits | None = None,
                   siblings: tuple[str, ...] = (), fold: bool = False) -> OutlineNode:
    """A copy of one chapter with its subtree repaired (its own title untouched).

    ``siblings`` are the titles of the nodes beside it, which its children must not copy.
    """
    lim = limits or OutlineLimits()
    avoid = frozenset(normalize_title(s) for s in siblings) - {normalize_title(chapter.title)}
    return chapter.model_copy(update={"children": repair_children(chapter.children, chapter.title, 2, lim, avoid,
                                                                  fold)}, deep=True)


def merge_uncle_copies(chapters: list[OutlineNode]) -> list[OutlineNode]:
    """Copies of ``chapters`` where a heading titled like a sibling of its parent is merged into that sibling.

    A weak model nests a scored part under another section while code or the model also put it beside
    that section (服务目标 › 服务质量控制方案 next to 服务质量控制方案): the final check refuses the copy
    (与上级的同级章节同名), so the repair before it moves the copy's own headings to the section of that
    name (those it lacks) and removes the copy. What the final check refuses, this repair fixes.
    """
    def fix(nodes: list[OutlineNode]) -> list[OutlineNode]:
        keys = [normalize_title(n.title) for n in nodes]
        moved: dict[int, list[OutlineNode]] = {}
        out: list[OutlineNode] = []
        for node in nodes:
            kept: list[OutlineNode] = []
            for child in node.children:
                key = normalize_title(child.title)
                target = next((j for j, k in enumerate(keys) if k == key and nodes[j] is not node), None)
                if target is None:
                    kept.append(child)
                else:
                    moved.setdefault(target, []).extend(child.children)
            out.append(node.model_copy(update={"children": kept}))
        for j, extra in moved.items():
            have = {normalize_title(c.title) for c in out[j].children}
            add = [c for c in extra if normalize_title(c.title) not in have]
            out[j] = out[j].model_copy(update={"children": [*out[j].children, *add]})
        return [n.model_copy(update={"children": fix(n.children)}) for n in out]

    return fix(chapters)


def renumber_nodes(chapters: list[OutlineNode], prefix: str = "") -> None:
    """Set positional ids in place (1, 1.1, 1.1.1): code owns numbering, never the model."""
    for i, node in enumerate(chapters):
        node.id = f"{prefix}{i + 1}"
        renumber_nodes(node.children, node.id + ".")


def chapter_issues(chapter: OutlineNode, index: int, limits: OutlineLimits | None = None) -> list[str]:
    """Rule violations inside one chapter, as messages for a model (chapter-level only)."""
    issues = check_outline([chapter], (limits or OutlineLimits()).solo())
    prefix = f"/outline/{index}"
    return [str(i).replace("/outline/0", prefix, 1) for i in issues]


def is_valid(chapters: list[OutlineNode], limits: OutlineLimits | None = None) -> bool:
    """Whether the outline breaks no structure rule."""
    return not check_outline(chapters, limits)

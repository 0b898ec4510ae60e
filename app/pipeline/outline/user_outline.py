"""The user's own outline in a model run: what is locked stays, the model fills only what is open.

A heading the user locked keeps its title and the children it has (their subtrees as they
are); a locked heading without children is open for the model to fill below it. A chapter
that is locked and already has children is not sent to the model at all. After the model
writes an open chapter, :func:`keep_locked` puts back every locked heading the model dropped
or changed — code guarantees the lock, whatever the model answered.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.core.outline import OutlineNode
from app.core.rules.outline import normalize_title


def has_locks(chapters: Iterable[OutlineNode]) -> bool:
    """Whether any heading of ``chapters`` (at any depth) is locked by the user."""
    stack = list(chapters)
    while stack:
        node = stack.pop()
        if node.locked:
            return True
        stack.extend(node.children)
    return False


def is_closed(chapter: OutlineNode) -> bool:
    """A locked chapter with children: the user wrote it whole; the model does not touch it."""
    return chapter.locked and bool(chapter.children)


def open_chapters(chapters: list[OutlineNode]) -> list[int]:
    """Indexes of the chapters the model may write below (not locked, or locked without children)."""
    return [i for i, ch in enumerate(chapters) if not is_closed(ch)]


def keep_locked(before: OutlineNode, after: OutlineNode) -> OutlineNode:
    """``after`` with every locked heading of ``before`` back in place (title and existing children).

    A locked child the model kept (same title) is replaced by the user's subtree when it had
    children; a locked child the model dropped is inserted again at its old position; an
    unlocked child keeps what the model wrote, with its own locked descendants restored.
    """
    if is_closed(before):
        return before.model_copy(deep=True)
    wanted = list(after.children)
    keys = [normalize_title(c.title) for c in wanted]
    for index, old in enumerate(before.children):
        key = normalize_title(old.title)
        pos = keys.index(key) if key in keys else -1
        if pos >= 0:
            new = wanted[pos]
            if old.locked and old.children:
                wanted[pos] = old.model_copy(deep=True)
            elif old.locked:
                wanted[pos] = new.model_copy(update={"title": old.title, "locked": True, "origin": old.origin,
                                                     "description": old.description or new.description})
            else:
                wanted[pos] = keep_locked(old, new)
        elif old.locked or has_locks(old.children):
            at = min(index, len(wanted))
            wanted.insert(at, old.model_copy(deep=True))
            keys.insert(at, key)
    return after.model_copy(update={"children": wanted, "title": before.title, "locked": before.locked,
                                    "origin": before.origin})

"""The live tree: model output becomes validated instructions on the draft while it streams.

Both strategies write through an :class:`~app.llm.instructions.apply.InstructionApplier`
(same schema checks, locks and code-owned fields). The instruction stream brings its own
instructions; for whole-JSON answers :class:`JsonOutlineFeed` makes them: an ``append``
the moment a heading's title string closes and a ``set`` for its description. One node's
children are written into a one-chapter scratch tree whose chapter title is locked (the
model cannot rename a one-to-one chapter or add chapters); :class:`SubtreeMirror` replays
every change into the draft at the node's real position, so the user sees each heading as
it is written. Whatever local repair changes afterwards reaches the draft as a few edits
(:func:`~app.core.outline_sync.sync_children`), never as a reset of the tree.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.core.limits import STORED, OutlineLimits
from app.core.outline import (
    Changed,
    Inserted,
    Moved,
    Outline,
    OutlineNode,
    Path,
    Phase,
    Removed,
    Reset,
    TreeEvent,
)
from app.core.outline_sync import sync_children
from app.core.pointer import path_to_pointer
from app.core.rules.outline import clean_description, clean_title
from app.core.stream_events import Instruction, InstructionApplied
from app.llm.instructions.apply import InstructionApplier
from app.llm.json.stream import JsonStreamReader, JsonString

if TYPE_CHECKING:
    from types import TracebackType

CHAPTER_LOCKS = ("/outline/0/title", "/outline/0/source_requirement_id")
CHAPTER_LOCK_REASON = "本章标题由程序确定，只能编写下级目录"


class SubtreeMirror:
    """Replays changes of a one-chapter scratch tree into the draft under ``base``."""

    def __init__(self, scratch: Outline, draft: Outline, base: Path) -> None:
        self.scratch, self.draft, self.base = scratch, draft, base

    def _map(self, path: Path) -> Path | None:
        if not path or path[0] != 0:
            return None
        return (*self.base, *path[1:])

    def __call__(self, phase: Phase, event: TreeEvent) -> None:
        if phase != "after":
            return
        d = self.draft
        if isinstance(event, Inserted):
            parent = self._map(event.parent)
            if parent is not None:
                nodes = self.scratch.node(event.parent).children[event.index: event.index + event.count]
                d.insert_many(parent, event.index, [n.model_copy(deep=True) for n in nodes])
        elif isinstance(event, Removed):
            parent = self._map(event.parent)
            if parent is not None:
                d.remove_range(parent, event.index, event.count)
        elif isinstance(event, Changed):
            target = self._map(event.path)
            fields = {f: getattr(self.scratch.node(event.path), f) for f in event.fields if f != "id"}
            if target is not None and target != self.base and fields:
                d.update(target, **fields)
        elif isinstance(event, (Moved, Reset)) and self.scratch.chapters:
            sync_children(d, self.base, self.scratch.chapters[0].children)


class LiveSubtree:
    """A scratch tree for the children of the draft node at ``path``, mirrored live into the draft.

    Entering clears the node's children in the draft (the model writes them anew); the
    scratch's chapter title is locked. Without a draft (the CLI) the scratch is all there is.
    """

    def __init__(self, title: str, draft: Outline | None, path: Path) -> None:
        self.scratch = Outline([OutlineNode(title=title)])
        self.applier = InstructionApplier(self.scratch, locked=CHAPTER_LOCKS, lock_reason=CHAPTER_LOCK_REASON)
        self.draft = draft if draft is not None and path and draft.exists(path) else None
        self.path = path
        self._unsubscribe: Callable[[], None] | None = None

    def __enter__(self) -> LiveSubtree:
        if self.draft is not None:
            self.draft.set_children(self.path, [])
            self._unsubscribe = self.scratch.subscribe(SubtreeMirror(self.scratch, self.draft, self.path))
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    @property
    def children(self) -> list[OutlineNode]:
        """What the model has written so far."""
        return list(self.scratch.chapters[0].children)


class JsonOutlineFeed:
    """A ``collect_json`` stream sink: a streamed JSON outline answer becomes live instructions.

    ``root_key`` names the answer's top array (``outline``, ``chapters`` or ``children``);
    its items become children of ``base`` in the applier's tree, down to ``levels`` levels.
    Titles are cleaned as the wire schema cleans them; a heading whose title is unusable,
    or whose parent was, is left out (the finished answer's validation decides anyway).
    A description written before its title, or children written before their parent's
    title, wait until the title arrives.
    """

    def __init__(self, applier: InstructionApplier, base: Path, root_key: str, levels: int,
                 limits: OutlineLimits) -> None:
        self.applier = applier
        self.outline = applier.outline
        self.base = base
        self.root_key = root_key
        self.levels = levels
        self.title_len = STORED.max_title_len  # shown whole; the rules say when a title is too long
        self.applied = 0
        self.rejected = 0
        self._reader = JsonStreamReader()
        self._nodes: dict[tuple[object, ...], Path | None] = {}
        self._pending: dict[tuple[object, ...], str] = {}
        self._waiting: list[JsonString] = []

    def begin(self, attempt: int) -> None:
        """A new answer: forget the last one's headings (a repair rewrites the whole JSON)."""
        self._reader = JsonStreamReader()
        self._nodes = {(): self.base}
        self._pending = {}
        self._waiting = []
        if self.outline.node(self.base).children:
            self.outline.set_children(self.base, [])

    def feed(self, text: str) -> None:
        """The next piece of the answer."""
        for item in self._reader.feed(text):
            self._on_string(item)

    def _on_string(self, item: JsonString) -> None:
        path = item.path
        field = path[-1] if path else None
        if field not in ("title", "description") or len(path) < 3 or path[0] != self.root_key:
            return
        key = path[:-1]
        if not _heading_path(key) or len(key) // 2 > self.levels:
            return
        if key[:-2] not in self._nodes:  # written before its parent's title: wait for it
            self._waiting.append(item)
            return
        if self._take(key, str(field), item.value) and self._waiting:
            self._drain()

    def _take(self, key: tuple[object, ...], field: str, text: str) -> bool:
        """Apply one string of a heading whose parent is known; True when the heading got its place."""
        if key in self._nodes:
            node = self._nodes[key]
            if node is not None and field == "description":
                self._apply("set", path_to_pointer(node, "description"),
                            clean_description(text, STORED.max_description_len))
            return False
        if field == "description":
            self._pending[key] = text
            return False
        parent = self._nodes[key[:-2]]
        title = clean_title(text, self.title_len)
        if parent is None or not title:
            self._nodes[key] = None
            return True
        value: dict[str, str] = {"title": title}
        desc = self._pending.pop(key, "")
        if desc:
            value["description"] = clean_description(desc, STORED.max_description_len)
        index = len(self.outline.node(parent).children)
        ok = self._apply("append", path_to_pointer(parent, "children"), value)
        self._nodes[key] = (*parent, index) if ok else None
        return True

    def _drain(self) -> None:
        """Apply waiting strings whose parent now has its place (in the order they were written)."""
        progress = True
        while progress and self._waiting:
            progress = False
            waiting, self._waiting = self._waiting, []
            for item in waiting:
                key = item.path[:-1]
                if key[:-2] in self._nodes:
                    progress = self._take(key, str(item.path[-1]), item.value) or progress
                else:
                    self._waiting.append(item)

    def _apply(self, op: str, pointer: str, value: object) -> bool:
        tokens = tuple(pointer.strip("/").split("/"))
        raw = json.dumps({"op": op, "path": pointer, "value": value}, ensure_ascii=False)
        result = self.applier.apply(Instruction(op, pointer, tokens, value, True, raw=raw))
        if isinstance(result, InstructionApplied):
            self.applied += 1
            return True
        self.rejected += 1
        return False


def _heading_path(key: tuple[object, ...]) -> bool:
    """``(root, i)``, ``(root, i, "children", j)``, …: keys and indexes alternate."""
    return all(isinstance(k, int) if n % 2 else (n == 0 or k == "children") for n, k in enumerate(key))

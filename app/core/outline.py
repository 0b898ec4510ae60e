"""The outline domain: pydantic items and one evented tree that every layer shares.

The tree is addressed by *paths*: tuples of child indexes from the invisible root, so
``(2, 0)`` is the first child of the third chapter and ``()`` is the root itself.
Every mutation goes through :class:`Outline` methods, which emit an "about to" event
before the change and a "done" event after it, so a Qt adapter can call
``beginInsertRows``/``endInsertRows`` around the real change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from app.core.figures import Figure
from app.core.limits import STORED

Path = tuple[int, ...]

#: Fields of an item that the model (or the user) may write; ``id`` is owned by code.
EDITABLE_FIELDS = ("title", "description", "source_requirement_id", "source_requirement_title", "content",
                   "scoring_refs", "origin")
#: ``locked`` is the user's: a model never writes it (it is not in the wire schemas either).
#: ``figures`` is edited by the user only (never in the schema a model sees); ``origin_source`` is
#: set by code that copies a heading from elsewhere (never in the schema a model sees).
_UPDATABLE = frozenset((*EDITABLE_FIELDS, "id", "locked", "figures", "origin_source"))
#: Who wrote a heading: the model, code from the tender's own text, code from the heading
#: library, code from a generic template, or the user; ``history``: code from the user's own past
#: bids (历史标书, the bid and section in ``origin_source``). None: not recorded (older projects).
Origin = Literal["model", "tender", "library", "template", "user", "history"]


class OutlineNode(BaseModel):
    """One heading of the outline; ``id`` is renumbered by code (1, 1.1, 1.1.1)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(default="", description="编号，由程序生成，如 1.2.3")
    title: str = Field(min_length=1, max_length=STORED.max_title_len, description="标题")
    description: str = Field(default="", max_length=STORED.max_description_len, description="本节应写的内容要点")
    source_requirement_id: str | None = Field(default=None, description="对应评分项编号，如 R1")
    source_requirement_title: str | None = Field(default=None, description="对应评分项标题")
    scoring_refs: list[str] = Field(default_factory=list, description="用户标注本节响应的评分项编号（评分索引表）")
    children: list[OutlineNode] = Field(default_factory=list, max_length=STORED.max_children)
    origin: Origin | None = Field(default=None, description="标题来源（模型/招标文件/标题库/模板/用户/历史标书）")
    content: str = Field(default="", description="正文")
    locked: bool = Field(default=False, description="用户锁定：生成目录时保留本标题及其已有下级，只补全其余部分")
    #: Figures drawn from data (org chart, flowchart, Gantt); user-edited, left out of model schemas.
    figures: SkipJsonSchema[list[Figure]] = Field(default_factory=list, max_length=50, exclude_if=lambda v: not v)
    #: Where a copied heading came from, e.g. 历史标书“某标书” › 质量保证措施 (``origin`` history);
    #: written by code, shown as a marker and tooltip, left out of model schemas and of files when empty.
    origin_source: SkipJsonSchema[str] = Field(default="", max_length=STORED.max_description_len,
                                               exclude_if=lambda v: not v)

    @classmethod
    def from_checked(cls, data: dict[str, Any]) -> OutlineNode:
        """A node from plain data already checked against this model's JSON schema, without validating again.

        The instruction applier checks every value against the schema (types, lengths, unknown
        fields) before building nodes; pydantic repeating that work costs more than the rest
        of applying an instruction.
        """
        values: dict[str, Any] = {**_NODE_DEFAULTS, **data}
        values["children"] = [cls.from_checked(k) for k in data.get("children") or ()]
        values["scoring_refs"] = list(data.get("scoring_refs") or ())  # never share a list between nodes
        values["figures"] = []  # not in the checked schema: a model never writes figures
        values["origin_source"] = ""  # nor where a heading was copied from
        node = cls.__new__(cls)
        object.__setattr__(node, "__dict__", values)
        object.__setattr__(node, "__pydantic_fields_set__", set(data))
        object.__setattr__(node, "__pydantic_extra__", None)
        object.__setattr__(node, "__pydantic_private__", None)
        return node

    def walk(self, path: Path = ()) -> Iterator[tuple[Path, OutlineNode]]:
        """Yield ``(path, node)`` for this node's descendants, depth first."""
        for i, child in enumerate(self.children):
            child_path = (*path, i)
            yield child_path, child
            yield from child.walk(child_path)

    def depth(self) -> int:
        """Levels below and including this node (a leaf has depth 1)."""
        return 1 + max((c.depth() for c in self.children), default=0)


_NODE_DEFAULTS: dict[str, Any] = {"id": "", "description": "", "source_requirement_id": None,
                                  "source_requirement_title": None, "origin": None, "content": "",
                                  "locked": False}


#: How format ≤ 3 files noted a past bid's source inside a node's description.
LEGACY_SOURCE_MARK = "来源：历史标书"


def split_legacy_source(description: str) -> tuple[str, str]:
    """``(description, origin_source)`` from a description that carries the old source note.

    The note was either the whole description (``来源：历史标书“bid” › section``) or appended
    by a model's description in full-width brackets (``要点……（来源：历史标书“bid” › section）``);
    anything else (a note cut by the length limit, no note) is left as it is.
    """
    mark = LEGACY_SOURCE_MARK
    if description.startswith(mark) and "（" not in description:
        return "", description[len("来源："):].strip()
    start = description.rfind("（" + mark)
    if start >= 0 and description.endswith("）"):
        return description[:start].rstrip(), description[start + len("（来源："):-1].strip()
    return description, ""


class OutlineDocument(BaseModel):
    """What a structured model call returns and what a project stores: the chapters."""

    model_config = ConfigDict(extra="forbid")

    outline: list[OutlineNode] = Field(default_factory=list, max_length=STORED.max_chapters)


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Inserted:
    """``count`` nodes were (or are about to be) inserted under ``parent`` at ``index``."""

    parent: Path
    index: int
    count: int = 1


@dataclass(frozen=True)
class Removed:
    """``count`` nodes under ``parent`` starting at ``index`` were (or are about to be) removed."""

    parent: Path
    index: int
    count: int = 1


@dataclass(frozen=True)
class Moved:
    """A node moved from ``src_parent[src_index]``; ``dst_index`` is Qt-style (before removal)."""

    src_parent: Path
    src_index: int
    dst_parent: Path
    dst_index: int


@dataclass(frozen=True)
class Changed:
    """Fields of the node at ``path`` changed."""

    path: Path
    fields: tuple[str, ...]


@dataclass(frozen=True)
class Reset:
    """The whole tree was replaced."""


TreeEvent = Inserted | Removed | Moved | Changed | Reset
Phase = Literal["before", "after"]
Listener = Callable[[Phase, TreeEvent], None]


@dataclass
class _Listeners:
    items: list[Listener] = field(default_factory=list)


class OutlineError(ValueError):
    """A tree operation was given a path or index that does not exist."""


class Outline:
    """The single evented outline tree (rule 1 of the architecture).

    Listeners are called ``listener("before", event)`` then ``listener("after", event)``.
    The root is a virtual :class:`OutlineNode` whose children are the chapters.
    """

    def __init__(self, chapters: list[OutlineNode] | None = None) -> None:
        self._root = OutlineNode(title="root")
        self._root.children.extend(chapters or [])  # the root holds chapters, not a node's bounded children
        self._listeners = _Listeners()

    # ---- listening
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` around every change; returns a function that unsubscribes."""
        self._listeners.items.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners.items:
                self._listeners.items.remove(listener)

        return unsubscribe

    def _emit(self, phase: Phase, event: TreeEvent) -> None:
        for listener in list(self._listeners.items):
            listener(phase, event)

    # ---- reading
    @property
    def root(self) -> OutlineNode:
        """The invisible root node; its children are the chapters."""
        return self._root

    @property
    def chapters(self) -> list[OutlineNode]:
        """Top-level chapters (read-only use: mutate through methods)."""
        return self._root.children

    def node(self, path: Path) -> OutlineNode:
        """The node at ``path`` (``()`` is the root)."""
        node = self._root
        for depth, i in enumerate(path):
            if not 0 <= i < len(node.children):
                raise OutlineError(f"no node at {path!r} (index {i} at depth {depth})")
            node = node.children[i]
        return node

    def exists(self, path: Path) -> bool:
        """Whether ``path`` names a node."""
        try:
            self.node(path)
        except OutlineError:
            return False
        return True

    def walk(self) -> Iterator[tuple[Path, OutlineNode]]:
        """All nodes depth first with their paths."""
        return self._root.walk()

    def __len__(self) -> int:
        return sum(1 for _ in self.walk())

    def depth(self) -> int:
        """Levels of the deepest branch (0 for an empty outline)."""
        return self._root.depth() - 1

    def to_document(self) -> OutlineDocument:
        """A deep copy as the serialisable document model."""
        return OutlineDocument(outline=[c.model_copy(deep=True) for c in self._root.children])

    def to_data(self) -> dict[str, Any]:
        """Plain JSON-able dict ``{"outline": [...]}``."""
        return self.to_document().model_dump(mode="json")

    # ---- writing
    def replace(self, chapters: list[OutlineNode]) -> None:
        """Replace the whole tree (one ``Reset`` event)."""
        self._emit("before", Reset())
        self._root.children[:] = list(chapters)
        self._emit("after", Reset())

    def insert(self, parent: Path, index: int, node: OutlineNode) -> Path:
        """Insert ``node`` as child ``index`` of ``parent``; ``index == len`` appends.

        The node (and its subtree) is numbered for its position as it enters the tree.
        """
        return self._insert(self.node(parent).children, parent, index, node)

    def _insert(self, siblings: list[OutlineNode], parent: Path, index: int, node: OutlineNode) -> Path:
        if not 0 <= index <= len(siblings):
            raise OutlineError(f"index {index} out of range for {parent!r}")
        path = (*parent, index)
        _number(node, path)
        event = Inserted(parent, index, 1)
        self._emit("before", event)
        siblings.insert(index, node)
        self._emit("after", event)
        return path

    def insert_many(self, parent: Path, index: int, nodes: list[OutlineNode]) -> None:
        """Insert ``nodes`` as children ``index``… of ``parent`` with one ``Inserted`` event."""
        if not nodes:
            return
        siblings = self.node(parent).children
        if not 0 <= index <= len(siblings):
            raise OutlineError(f"index {index} out of range for {parent!r}")
        for offset, node in enumerate(nodes):
            _number(node, (*parent, index + offset))
        event = Inserted(parent, index, len(nodes))
        self._emit("before", event)
        siblings[index:index] = nodes
        self._emit("after", event)

    def remove_range(self, parent: Path, index: int, count: int) -> list[OutlineNode]:
        """Remove ``count`` children of ``parent`` from ``index`` on with one ``Removed`` event."""
        siblings = self.node(parent).children
        if count <= 0:
            return []
        if not 0 <= index or index + count > len(siblings):
            raise OutlineError(f"no nodes {index}..{index + count - 1} under {parent!r}")
        event = Removed(parent, index, count)
        self._emit("before", event)
        removed = siblings[index:index + count]
        del siblings[index:index + count]
        self._emit("after", event)
        return removed

    def set_children(self, parent: Path, nodes: list[OutlineNode]) -> None:
        """Replace the children of ``parent``: one ``Removed`` and one ``Inserted`` event, never a reset."""
        self.remove_range(parent, 0, len(self.node(parent).children))
        self.insert_many(parent, 0, list(nodes))

    def append(self, parent: Path, node: OutlineNode) -> Path:
        """Append ``node`` under ``parent`` and return its path."""
        siblings = self.node(parent).children
        return self._insert(siblings, parent, len(siblings), node)

    def remove(self, path: Path) -> OutlineNode:
        """Remove and return the node at ``path``."""
        if not path:
            raise OutlineError("cannot remove the root")
        parent, index = path[:-1], path[-1]
        siblings = self.node(parent).children
        if not 0 <= index < len(siblings):
            raise OutlineError(f"no node at {path!r}")
        event = Removed(parent, index, 1)
        self._emit("before", event)
        node = siblings.pop(index)
        self._emit("after", event)
        return node

    def move(self, path: Path, dst_parent: Path, dst_index: int) -> Path:
        """Move the node at ``path`` to be child ``dst_index`` of ``dst_parent``.

        ``dst_index`` counts positions *before* the node is taken out (as Qt's
        ``beginMoveRows`` does); the returned path is where the node ends up.
        """
        if not path:
            raise OutlineError("cannot move the root")
        if dst_parent[: len(path)] == path:
            raise OutlineError("cannot move a node into itself")
        src_parent, src_index = path[:-1], path[-1]
        src_siblings = self.node(src_parent).children
        dst_siblings = self.node(dst_parent).children
        if not 0 <= src_index < len(src_siblings) or not 0 <= dst_index <= len(dst_siblings):
            raise OutlineError(f"bad move {path!r} -> {dst_parent!r}[{dst_index}]")
        if src_parent == dst_parent and dst_index in (src_index, src_index + 1):
            return path
        # The destination parent's own path may shift when the source is taken out.
        event = Moved(src_parent, src_index, dst_parent, dst_index)
        self._emit("before", event)
        node = src_siblings.pop(src_index)
        final_index = dst_index - 1 if src_parent == dst_parent and dst_index > src_index else dst_index
        dst_siblings.insert(final_index, node)
        self._emit("after", event)
        return self._path_of(node)

    def update(self, path: Path, *, checked: bool = False, **fields: Any) -> None:
        """Set editable fields of the node at ``path``.

        Values are validated by pydantic (before anything changes) unless ``checked`` says the
        caller already checked them against the node schema (the instruction applier does).
        """
        unknown = set(fields) - _UPDATABLE
        if unknown:
            raise OutlineError(f"unknown fields {sorted(unknown)}")
        node = self.node(path)
        current = node.__dict__
        changed = tuple(k for k, v in fields.items() if current[k] != v)
        if not changed:
            return
        values = {k: fields[k] for k in changed}
        if not checked:  # validate on a copy first, so a bad value changes nothing and emits nothing
            probe = node.model_copy()
            for key, value in values.items():
                setattr(probe, key, value)
            values = {k: probe.__dict__[k] for k in changed}
        event = Changed(path, changed)
        self._emit("before", event)
        current.update(values)
        self._emit("after", event)

    def renumber(self) -> None:
        """Give every node its positional id (1, 1.1, 1.1.1); code owns ids."""
        for path, node in list(self.walk()):
            wanted = number_for(path)
            if node.id != wanted:
                self.update(path, id=wanted, checked=True)

    def _path_of(self, target: OutlineNode) -> Path:
        for path, node in self.walk():
            if node is target:
                return path
        raise OutlineError("node not in tree")


def _number(node: OutlineNode, path: Path) -> None:
    """Give a node entering the tree (and its subtree) the number of its position, before anyone sees it.

    Later siblings keep their numbers until the next :meth:`Outline.renumber`.
    """
    wanted = number_for(path)
    if node.id != wanted:
        node.__dict__["id"] = wanted  # a code-made number: no validation needed
    for i, child in enumerate(node.children):
        _number(child, (*path, i))


@lru_cache(maxsize=8192)
def number_for(path: Path) -> str:
    """The display number of a path: ``(0, 1)`` -> ``"1.2"``."""
    return ".".join([str(i + 1) for i in path])

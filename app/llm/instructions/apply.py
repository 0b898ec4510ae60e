"""Validate each streamed instruction against the target schema, then apply it to the tree.

An instruction is checked completely before anything changes: the operation, the path
(it must exist in the schema of :class:`~app.core.outline.OutlineDocument`; array
indexes must exist — ``append`` is the way to add), the value (type, lengths, array
bounds, required and unknown fields), code-owned fields (``id``) and the paths the caller
has locked (e.g. top-level titles in one-to-one mode). A valid instruction is applied
through :class:`~app.core.outline.Outline` methods, so the tree emits its change events;
a rejected one changes nothing and comes back as :class:`InstructionRejected` with a
precise Chinese issue that a repair prompt can hand back to the model.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from app.core.outline import Outline, OutlineDocument, OutlineNode, Path
from app.core.pointer import path_to_pointer
from app.core.rules.outline import strip_numbering
from app.core.stream_events import (
    OPS,
    Instruction,
    InstructionApplied,
    InstructionRejected,
    MalformedInstruction,
)
from app.llm.instructions.fast import FastInstructions
from app.llm.instructions.locks import LockPredicate, PathLocks
from app.llm.json.schema_check import TYPE_ZH, SchemaNode, compile_model_schema, json_type

log = logging.getLogger(__name__)
_NUMBER_START = frozenset("0123456789第一二三四五六七八九十（( \u3000")
_NUMBER_NOTE = "去掉了标题前的编号（编号由程序生成）"
_ID_NOTE = "忽略了模型给出的编号（id 由程序生成）"
_INDEX_TOKEN = re.compile(r"/[0-9]+(?=/|$)")


def _is_index(token: str) -> bool:
    """An array index: ASCII digits only (``²`` or ``٢`` are not indices)."""
    return token.isascii() and token.isdigit()


class InstructionRefused(Exception):
    """Internal: an instruction failed validation; ``issue`` is the Chinese reason."""

    def __init__(self, issue: str) -> None:
        super().__init__(issue)
        self.issue = issue


@dataclass(frozen=True)
class _Shape:
    """What a path pattern (indexes as ``#``) addresses in the schema; cached per schema.

    ``kind`` is ``node`` (an array item), ``list`` (an array) or ``field`` (a scalar field);
    ``parent`` is the array schema holding a ``node``.
    """

    kind: str
    schema: SchemaNode
    parent: SchemaNode | None
    field: str


@dataclass(slots=True)
class _Loc:
    """A concrete path: its shape, its indexes (the tree path) and the tree node it reaches."""

    shape: _Shape
    path: Path
    node: OutlineNode | None  # the item (node), the owner of the list/field, None if one past the end
    parent: OutlineNode


class InstructionApplier:
    """Checks instructions against ``model``'s JSON Schema and applies valid ones to ``outline``.

    ``locked`` holds pointer patterns (``*`` matches one token, e.g. ``/outline/*/title``):
    a locked path, anything below it, and list operations that would add, remove or
    reorder items containing a locked path are refused; replacing a subtree is allowed
    only if its locked values stay the same. ``code_owned`` fields (``id``) may not be
    set and are dropped from objects. ``lock_reason`` is added to lock messages.
    With ``strip_title_numbers`` numbering a model puts in front of a title ("1.2 设计原则")
    is removed (numbering is code's job), with a note on the applied event.
    """

    def __init__(
        self,
        outline: Outline,
        *,
        model: type[BaseModel] = OutlineDocument,
        root_key: str = "outline",
        locked: Sequence[str] = (),
        lock_reason: str = "",
        is_locked: LockPredicate | None = None,
        code_owned: Sequence[str] = ("id", "locked"),  # the user locks headings, never a model
        strip_title_numbers: bool = True,
    ) -> None:
        self.outline = outline
        self.root_key = root_key
        self.schema = compile_model_schema(model)
        self._checked_nodes = model is OutlineDocument
        self._seen_tokens: dict[tuple[str, ...], tuple[_Shape, Path]] = {}
        self.locks = PathLocks(locked, lock_reason, is_locked, code_owned)
        self.code_owned = self.locks.code_owned
        self.strip_title_numbers = strip_title_numbers
        plain = self._checked_nodes and not self.locks.patterns and is_locked is None
        #: Plain appends and sets skip the general machinery (same checks, same result).
        self.fast: FastInstructions | None = (
            FastInstructions(outline, self.schema, root_key, self.code_owned) if plain else None)

    # ------------------------------------------------------------------ public
    def apply(self, ins: Instruction, round_no: int = 0) -> InstructionApplied | InstructionRejected:
        """Validate ``ins`` and, if valid, apply it; ``done`` is accepted without change."""
        if self.fast is not None and self.fast.apply(ins):
            return InstructionApplied(ins, round_no, ())
        try:
            change = self._plan(ins)
        except InstructionRefused as e:
            return InstructionRejected(ins.raw, e.issue, ins, round_no)
        except (ValueError, TypeError, KeyError, IndexError) as e:  # a gap in the checks: refuse, never crash
            log.exception("instruction check failed unexpectedly: %s", ins.raw)
            return InstructionRejected(ins.raw, f"指令无法执行：{e}", ins, round_no)
        try:
            notes = change()
        except (ValueError, TypeError, KeyError, IndexError) as e:
            log.exception("instruction failed while applying: %s", ins.raw)
            return InstructionRejected(ins.raw, f"指令执行失败：{e}", ins, round_no)
        return InstructionApplied(ins, round_no, notes)

    def check(self, ins: Instruction) -> str | None:
        """The Chinese issue that would reject ``ins``, or None if it is valid (changes nothing)."""
        try:
            self._plan(ins)
        except InstructionRefused as e:
            return e.issue
        return None

    @staticmethod
    def reject_malformed(m: MalformedInstruction, round_no: int = 0) -> InstructionRejected:
        """The rejection event for text the parser could not turn into an instruction."""
        return InstructionRejected(m.raw, m.issue, None, round_no, m.truncated)

    # ------------------------------------------------------------------ planning
    def _plan(self, ins: Instruction) -> Callable[[], tuple[str, ...]]:
        """Validate completely and return the function that performs the change."""
        op = ins.op
        if op not in OPS:
            raise InstructionRefused(f"未知操作“{op}”，只能使用 set、append、insert、remove、move 或 done")
        if op == "done":
            return lambda: ()
        tokens = ins.tokens
        if tokens and tokens[-1] == "-" and op in ("append", "insert"):
            tokens, op = tokens[:-1], "append"
        if not tokens or tokens[0] != self.root_key:
            raise InstructionRefused(f"路径“{ins.path or '/'}”无效：必须以 /{self.root_key} 开头")
        if op == "set":
            return self._plan_set(ins, tokens)
        if op == "append":
            return self._plan_append(ins, tokens)
        if op == "insert":
            return self._plan_insert(ins, tokens)
        if op == "remove":
            return self._plan_remove(ins, tokens)
        return self._plan_move(ins, tokens)

    def _shape(self, tokens: tuple[str, ...], path_text: str) -> tuple[_Shape, Path]:
        """The cached schema shape of ``tokens`` and the indexes it contains.

        A stream addresses the same list many times in a row (appending sections to one
        chapter), so the exact tokens are looked up first; the pattern cache (indexes as
        ``#``) serves the first sight of a path.
        """
        seen = self._seen_tokens.get(tokens)
        if seen is not None:
            return seen
        indexes = [t for t in tokens if _is_index(t)]
        key = "/" + "/".join(tokens)  # only a cache key: "/" inside a token never names a valid field
        if indexes:
            key = _INDEX_TOKEN.sub("/#", key)
        shapes = self.schema.shapes
        shape = shapes.get(key)
        if shape is None:
            shape = self._build_shape(tokens, path_text)
            if len(shapes) < 10_000:
                shapes[key] = shape
        found = shape, tuple(map(int, indexes))
        if len(self._seen_tokens) >= 4096:
            self._seen_tokens.clear()
        self._seen_tokens[tokens] = found
        return found

    def _build_shape(self, tokens: tuple[str, ...], path_text: str) -> _Shape:
        schema = self.schema
        parent: SchemaNode | None = None
        last_index = False
        for n, tok in enumerate(tokens):
            arr = schema.resolve("array")
            if arr is not None and arr.items is not None:
                if not _is_index(tok):
                    raise InstructionRefused(f"路径“{path_text}”无效：“{tok}”不是数组下标")
                parent, schema, last_index = arr, arr.items, True
                continue
            obj = schema.resolve("object")
            if obj is None or not obj.properties:
                raise InstructionRefused(f"路径“{path_text}”无效：“/{'/'.join(tokens[:n])}”下不能再有“{tok}”")
            prop = obj.properties.get(tok)
            if prop is None:
                fields = "、".join(obj.properties)
                raise InstructionRefused(f"路径“{path_text}”不存在：{obj.name or '对象'} 没有字段“{tok}”（可用字段：{fields}）")
            parent, schema, last_index = obj, prop, False
        if last_index:
            return _Shape("node", schema, parent, "")
        arr = schema.resolve("array")
        if arr is not None and arr.items is not None:
            return _Shape("list", schema, parent, "")
        return _Shape("field", schema, parent, tokens[-1])

    def _locate(self, tokens: tuple[str, ...], path_text: str, allow_end: bool = False) -> _Loc:
        """Resolve ``tokens`` in schema and tree; every index must exist (or be ``len`` if allow_end)."""
        shape, path = self._shape(tokens, path_text)
        node = parent = self.outline.root
        last = len(path) - 1
        for depth, i in enumerate(path):
            kids = node.children
            if i >= len(kids):
                if allow_end and depth == last and i == len(kids):
                    return _Loc(shape, path, None, node)
                here = path_to_pointer(path[:depth], "children", self.root_key)
                raise InstructionRefused(
                    f"路径“{path_text}”中的下标 {i} 超出范围：{here} 当前只有 {len(kids)} 项"
                    f"（下标从 0 开始；新增请用 append）")
            parent, node = node, kids[i]
        return _Loc(shape, path, node, parent)

    def _check_locks(self, ins: Instruction, tokens: tuple[str, ...], *, structural: bool,
                     new_value: Any = None, old_value: Any = None, replaces: bool = False) -> None:
        """Refuse changes to code-owned fields and locked paths (see the class docstring)."""
        issue = self.locks.issue(ins, tokens, structural=structural, new_value=new_value,
                                 old_value=old_value, replaces=replaces)
        if issue:
            raise InstructionRefused(issue)

    def _node_value(self, schema: SchemaNode, value: Any, where: str, notes: list[str]) -> dict[str, Any]:
        """Validate an object value for a node (code-owned keys dropped; pydantic fills defaults)."""
        obj = schema.resolve("object")
        if obj is None or not isinstance(value, dict):
            kind = json_type(value)
            raise InstructionRefused(f"{where} 的 value 应为{schema.expected()}，实际是{TYPE_ZH.get(kind, kind)}")
        clean = self._drop_code_owned(value, notes)
        issues: list[str] = []
        obj.check_object(clean, where, issues)
        if issues:
            raise InstructionRefused("；".join(issues[:5]))
        return clean

    def _title(self, title: str, notes: list[str]) -> str:
        """``title`` without leading numbering (when enabled), noting the change."""
        if self.strip_title_numbers and title[:1] in _NUMBER_START:
            stripped = strip_numbering(title)
            if stripped != title:
                if _NUMBER_NOTE not in notes:
                    notes.append(_NUMBER_NOTE)
                return stripped
        return title

    def _drop_code_owned(self, value: dict[str, Any], notes: list[str]) -> dict[str, Any]:
        """A copy of an object value without code-owned keys and numbered titles (recursively)."""
        kids = value.get("children")
        title = value.get("title")
        retitle = type(title) is str and title[:1] in _NUMBER_START and self.strip_title_numbers
        if self.code_owned.isdisjoint(value) and not (type(kids) is list and kids) and not retitle:
            return value
        out = {k: v for k, v in value.items() if k not in self.code_owned}
        if len(out) != len(value) and _ID_NOTE not in notes:
            notes.append(_ID_NOTE)
        if retitle and isinstance(title, str):
            out["title"] = self._title(title, notes)
        if type(kids) is list:
            out["children"] = [self._drop_code_owned(k, notes) if type(k) is dict else k for k in kids]
        return out

    def _build(self, value: dict[str, Any], where: str) -> OutlineNode:
        if self._checked_nodes:  # the value passed the node schema: building need not validate again
            return OutlineNode.from_checked(value)
        try:
            return OutlineNode.model_validate(value)
        except ValidationError as e:  # the schema check should have caught it; stay safe
            first = e.errors()[0]
            raise InstructionRefused(f"{where} 的内容无效：{first['msg']}") from e

    def _require_value(self, ins: Instruction) -> None:
        if not ins.has_value:
            raise InstructionRefused(f"{ins.op} 指令缺少 value：{ins.path}")

    def _plan_set(self, ins: Instruction, tokens: tuple[str, ...]) -> Callable[[], tuple[str, ...]]:
        self._require_value(ins)
        loc = self._locate(tokens, ins.path)
        shape, path, value = loc.shape, loc.path, ins.value
        notes: list[str] = []
        if shape.kind == "node":  # replace one item
            old = loc.node
            assert old is not None
            self._check_locks(ins, tokens, structural=False, replaces=True, new_value=value,
                              old_value=old.model_dump(mode="json") if self.locks.patterns else None)
            clean = self._node_value(shape.schema, value, ins.path, notes)
            keep_children = "children" not in value
            node = self._build(clean, ins.path)
            if keep_children and old.children:
                notes.append("value 未给出 children，保留了原有的下级标题")

            def replace_node() -> tuple[str, ...]:
                if keep_children:
                    node.children = self.outline.node(path).children
                self.outline.remove(path)
                self.outline.insert(path[:-1], path[-1], node)
                return tuple(notes)
            return replace_node
        if shape.kind == "list":  # replace a whole list
            self._check_locks(ins, tokens, structural=True)
            if type(value) is not list:
                raise InstructionRefused(f"{ins.path} 应为数组，实际是{TYPE_ZH.get(json_type(value), json_type(value))}")
            arr = shape.schema.resolve("array")
            assert arr is not None and arr.items is not None
            if arr.max_items is not None and len(value) > arr.max_items:
                raise InstructionRefused(f"{ins.path} 有 {len(value)} 项，最多允许 {arr.max_items} 项")
            nodes = [self._build(self._node_value(arr.items, v, f"{ins.path}/{i}", notes), f"{ins.path}/{i}")
                     for i, v in enumerate(value)]

            def replace_list() -> tuple[str, ...]:
                self.outline.set_children(path, nodes)  # two events, never a reset of the whole tree
                return tuple(notes)
            return replace_list
        self._check_locks(ins, tokens, structural=False)
        issues: list[str] = []
        shape.schema.check(value, ins.path, issues)
        if issues:
            raise InstructionRefused("；".join(issues[:5]))
        field_name = shape.field
        if field_name == "title" and type(value) is str:
            value = self._title(value, notes)

        def set_field() -> tuple[str, ...]:
            self.outline.update(path, checked=self._checked_nodes, **{field_name: value})
            return tuple(notes)
        return set_field

    def _list_loc(self, ins: Instruction, tokens: tuple[str, ...]) -> tuple[_Loc, SchemaNode]:
        loc = self._locate(tokens, ins.path)
        arr = loc.shape.schema.resolve("array") if loc.shape.kind == "list" else None
        if arr is None or arr.items is None:
            raise InstructionRefused(
                f"{ins.op} 的 path 必须指向数组（如 /{self.root_key} 或 /{self.root_key}/0/children），“{ins.path}”不是数组")
        return loc, arr

    def _plan_append(self, ins: Instruction, tokens: tuple[str, ...]) -> Callable[[], tuple[str, ...]]:
        self._require_value(ins)
        loc, arr = self._list_loc(ins, tokens)
        assert arr.items is not None and loc.node is not None
        self._check_locks(ins, tokens, structural=True)
        values = ins.value if type(ins.value) is list else [ins.value]
        size = len(loc.node.children)
        if arr.max_items is not None and size + len(values) > arr.max_items:
            raise InstructionRefused(f"{ins.path} 已有 {size} 项，最多允许 {arr.max_items} 项，不能再追加")
        notes: list[str] = []
        nodes = [self._build(self._node_value(arr.items, v, f"{ins.path}/{size + i}", notes), ins.path)
                 for i, v in enumerate(values)]
        parent = loc.path
        if len(values) > 1:
            notes.append(f"一次追加了 {len(values)} 项")

        def append() -> tuple[str, ...]:
            for node in nodes:
                self.outline.append(parent, node)
            return tuple(notes)
        return append

    def _item_loc(self, ins: Instruction, tokens: tuple[str, ...], path_text: str, allow_end: bool = False) -> _Loc:
        loc = self._locate(tokens, path_text, allow_end)
        if loc.shape.kind != "node" or loc.shape.parent is None:
            raise InstructionRefused(f"{ins.op} 只能作用于数组中的一项（如 /{self.root_key}/0/children/1）：{path_text}")
        return loc

    def _plan_insert(self, ins: Instruction, tokens: tuple[str, ...]) -> Callable[[], tuple[str, ...]]:
        self._require_value(ins)
        loc = self._item_loc(ins, tokens, ins.path, allow_end=True)
        self._check_locks(ins, tokens[:-1], structural=True)
        arr = loc.shape.parent
        assert arr is not None
        size = len(loc.parent.children)
        if arr.max_items is not None and size + 1 > arr.max_items:
            raise InstructionRefused(f"{'/'.join(('', *tokens[:-1]))} 已有 {size} 项，最多允许 {arr.max_items} 项，不能再插入")
        notes: list[str] = []
        node = self._build(self._node_value(loc.shape.schema, ins.value, ins.path, notes), ins.path)
        target = loc.path

        def insert() -> tuple[str, ...]:
            self.outline.insert(target[:-1], target[-1], node)
            return tuple(notes)
        return insert

    def _plan_remove(self, ins: Instruction, tokens: tuple[str, ...]) -> Callable[[], tuple[str, ...]]:
        path = self._item_loc(ins, tokens, ins.path).path
        self._check_locks(ins, tokens[:-1], structural=True)
        self._check_locks(ins, tokens, structural=False)

        def remove() -> tuple[str, ...]:
            self.outline.remove(path)
            return ()
        return remove

    def _plan_move(self, ins: Instruction, tokens: tuple[str, ...]) -> Callable[[], tuple[str, ...]]:
        """RFC 6902 move: ``from`` is removed, then inserted at ``path`` (read after the removal)."""
        if not ins.from_tokens:
            raise InstructionRefused(f"move 指令缺少 from（要移动的项的路径）：{ins.path}")
        src = self._item_loc(ins, ins.from_tokens, ins.from_path).path
        if len(tokens) > len(ins.from_tokens) and tokens[: len(ins.from_tokens)] == ins.from_tokens:  # RFC 6902
            raise InstructionRefused(f"不能把 {ins.from_path} 移动到它自己的下级中")
        self._check_locks(ins, ins.from_tokens[:-1], structural=True)
        shape, dst_after = self._shape(tokens, ins.path)
        if shape.kind != "node" or shape.parent is None or not dst_after:
            raise InstructionRefused(f"move 的 path 必须是数组中的位置（如 /{self.root_key}/1/children/0）：{ins.path}")
        self._check_locks(ins, tokens[:-1], structural=True)
        parent_after, index_after = list(dst_after[:-1]), dst_after[-1]
        sp, si = src[:-1], src[-1]
        if len(parent_after) > len(sp) and tuple(parent_after[: len(sp)]) == sp and parent_after[len(sp)] >= si:
            parent_after[len(sp)] += 1
        parent = tuple(parent_after)
        if parent[: len(src)] == src:
            raise InstructionRefused(f"不能把 {ins.from_path} 移动到它自己的下级中")
        if not self.outline.exists(parent):
            raise InstructionRefused(f"move 的目标 {ins.path} 不存在")
        size = len(self.outline.node(parent).children) - (1 if parent == sp else 0)
        if index_after > size:
            raise InstructionRefused(f"move 的目标下标 {index_after} 超出范围：目标处只有 {size} 项")
        limit = shape.parent.max_items
        if parent != sp and limit is not None and size + 1 > limit:
            raise InstructionRefused(f"move 的目标处已有 {size} 项，最多允许 {limit} 项")
        index = index_after + 1 if parent == sp and index_after >= si else index_after

        def move() -> tuple[str, ...]:
            self.outline.move(src, parent, index)
            return ()
        return move


"""A compiled validator for the JSON Schema subset pydantic emits, with Chinese messages.

Instructions are checked against the schema of the target pydantic model *before* they
touch the tree. The schema (``model_json_schema()``) is compiled once per model into
:class:`SchemaNode` objects (``$ref``/``$defs`` resolved, recursive models included), so
checking an instruction costs a few dictionary lookups, not a schema walk from scratch.
Supported: type, anyOf/oneOf, enum, const, min/maxLength, min/maxItems,
minimum/maximum, properties, required, additionalProperties, items, default.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import BaseModel

_Checker = Callable[[Any, str, "list[str]"], None]

TYPE_ZH = {
    "string": "字符串", "integer": "整数", "number": "数字", "boolean": "布尔值（true/false）",
    "array": "数组", "object": "对象", "null": "null",
}


def json_type(value: Any) -> str:
    """The JSON Schema type name of a Python value (a bool is never an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _short(value: Any, limit: int = 30) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass(eq=False)
class SchemaNode:
    """One compiled schema; ``options`` holds the alternatives of an anyOf/oneOf."""

    name: str = ""
    types: frozenset[str] = frozenset()
    options: list[SchemaNode] = field(default_factory=list)
    properties: dict[str, SchemaNode] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    additional: bool = True
    items: SchemaNode | None = None
    enum: tuple[Any, ...] | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    defaults: dict[str, Any] = field(default_factory=dict)
    _table: dict[type, _Checker] | None = field(default=None, repr=False)
    #: Path shapes already resolved against this (root) schema, filled by the applier.
    shapes: dict[str, Any] = field(default_factory=dict, repr=False)

    def resolve(self, kind: str) -> SchemaNode | None:
        """This node, or the anyOf option, that accepts JSON values of type ``kind``."""
        if not self.options:
            return self if (not self.types or kind in self.types) else None
        for opt in self.options:
            found = opt.resolve(kind)
            if found is not None:
                return found
        return None

    def expected(self) -> str:
        """The allowed types in Chinese, e.g. ``字符串或 null``."""
        kinds: list[str] = []
        for node in self.options or [self]:
            kinds.extend(sorted(node.types) if node.types else ["任意值"])
        return "或".join(dict.fromkeys(TYPE_ZH.get(k, k) for k in kinds))

    def check(self, value: Any, where: str, issues: list[str]) -> None:
        """Append a Chinese issue to ``issues`` for each way ``value`` breaks this schema."""
        table = self._table
        if table is None:
            table = self._table = self._compile()
        checker = table.get(type(value))
        if checker is None:
            kind = json_type(value)
            issues.append(f"{where} 应为{self.expected()}，实际是{TYPE_ZH.get(kind, kind)} {_short(value)}")
            return
        checker(value, where, issues)

    def _compile(self) -> dict[type, _Checker]:
        """Python type -> checker, built once; a bool is its own type, so never an integer."""
        table: dict[type, _Checker] = {}
        for kind, py_types in (("string", (str,)), ("integer", (int,)), ("number", (float, int)),
                               ("boolean", (bool,)), ("null", (type(None),)), ("array", (list,)),
                               ("object", (dict,))):
            node = self.resolve(kind)
            if node is None:
                continue
            for t in py_types:
                table.setdefault(t, node._checker(kind))
        return table

    def _checker(self, kind: str) -> _Checker:
        enum = self.enum

        def check_enum(value: Any, where: str, issues: list[str]) -> bool:
            if enum is not None and value not in enum:
                allowed = "、".join(_short(e) for e in enum)
                issues.append(f"{where} 的值 {_short(value)} 不在允许范围内，只能是：{allowed}")
                return False
            return True

        if kind == "string":
            lo, hi = self.min_length, self.max_length

            def check_string(value: Any, where: str, issues: list[str]) -> None:
                if not check_enum(value, where, issues):
                    return
                n = len(value)
                if lo is not None and n < lo:
                    issues.append(f"{where} 长度为 {n}，至少需要 {lo} 个字符" if n else f"{where} 不能为空")
                if hi is not None and n > hi:
                    issues.append(f"{where} 长度为 {n}，超过上限 {hi} 个字符：“{_short(value)}”")
            return check_string
        if kind in ("integer", "number"):
            minimum, maximum = self.minimum, self.maximum

            def check_number(value: Any, where: str, issues: list[str]) -> None:
                if not check_enum(value, where, issues):
                    return
                if minimum is not None and value < minimum:
                    issues.append(f"{where} 为 {value}，不能小于 {minimum:g}")
                if maximum is not None and value > maximum:
                    issues.append(f"{where} 为 {value}，不能大于 {maximum:g}")
            return check_number
        if kind == "array":
            lo, hi, items = self.min_items, self.max_items, self.items

            def check_array(value: Any, where: str, issues: list[str]) -> None:
                n = len(value)
                if lo is not None and n < lo:
                    issues.append(f"{where} 有 {n} 项，至少需要 {lo} 项")
                if hi is not None and n > hi:
                    issues.append(f"{where} 有 {n} 项，最多允许 {hi} 项")
                if items is not None:
                    for i, item in enumerate(value):
                        items.check(item, f"{where}/{i}", issues)
            return check_array
        if kind == "object":
            def check_obj(value: Any, where: str, issues: list[str]) -> None:
                if check_enum(value, where, issues):
                    self.check_object(value, where, issues)
            return check_obj

        def check_other(value: Any, where: str, issues: list[str]) -> None:
            check_enum(value, where, issues)
        return check_other

    def check_object(self, value: dict[str, Any], where: str, issues: list[str]) -> None:
        """Required fields, unknown fields and each property of an object value."""
        for k in self.required:
            if k not in value:
                issues.append(f"{where} 缺少必填字段“{k}”")
        props = self.properties
        for key, item in value.items():
            prop = props.get(key)
            if prop is None:
                if not self.additional:
                    issues.append(f"{where} 不允许有字段“{key}”（{self.name or '对象'}的字段只有：{'、'.join(props)}）")
                continue
            prop.check(item, f"{where}/{key}", issues)

    def fill_defaults(self, value: dict[str, Any]) -> dict[str, Any]:
        """A copy of an object value with this schema's defaults for absent fields."""
        out = dict(self.defaults)
        out.update(value)
        return out


class _Compiler:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = schema.get("$defs", {}) or schema.get("definitions", {})
        self.by_ref: dict[str, SchemaNode] = {}

    def compile(self, s: dict[str, Any]) -> SchemaNode:
        ref = s.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            if name not in self.by_ref:
                node = self.by_ref[name] = SchemaNode(name=name)
                self._fill(node, self.defs[name])
            return self.by_ref[name]
        node = SchemaNode(name=str(s.get("title", "")))
        self._fill(node, s)
        return node

    def _fill(self, node: SchemaNode, s: dict[str, Any]) -> None:
        node.name = str(s.get("title", node.name))
        alts = s.get("anyOf") or s.get("oneOf")
        if alts:
            node.options = [self.compile(a) for a in alts]
            return
        if "$ref" in s:
            target = self.compile(s)
            node.options = [target]
            return
        t = s.get("type")
        if isinstance(t, list):
            node.types = frozenset(t)
        elif isinstance(t, str):
            node.types = frozenset([t])
        if "const" in s:
            node.enum = (s["const"],)
        elif "enum" in s:
            node.enum = tuple(s["enum"])
        node.min_length = s.get("minLength")
        node.max_length = s.get("maxLength")
        node.min_items = s.get("minItems")
        node.max_items = s.get("maxItems")
        node.minimum = s.get("minimum")
        node.maximum = s.get("maximum")
        if "items" in s and isinstance(s["items"], dict):
            node.items = self.compile(s["items"])
        props = s.get("properties") or {}
        if props:
            node.types = node.types or frozenset(["object"])
        node.properties = {k: self.compile(v) for k, v in props.items()}
        node.required = frozenset(s.get("required", ()))
        node.additional = s.get("additionalProperties", True) is not False
        node.defaults = {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


@cache
def compile_model_schema(model: type[BaseModel]) -> SchemaNode:
    """The compiled schema of a pydantic model (computed once per model class)."""
    schema = model.model_json_schema()
    return _Compiler(schema).compile(schema)

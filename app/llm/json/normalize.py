"""Tolerant, schema-driven clean-up of parsed JSON before validation (a *local repair*).

Weak models use near-miss field names (``child`` for ``children``, ``name`` for
``title``), wrap or unwrap the top level, write numbers where strings are expected,
give a list of plain strings where a list of nodes is expected, or add fields nobody
asked for. Guided by the target pydantic model, :func:`normalize_for_model` fixes these
and returns a note for each change so the result records what was repaired locally.
It never invents text: it only renames, wraps, converts scalars and drops unknown keys.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel

from app.core.rules.outline import strip_numbering, title_problem

#: Near-miss key -> field names it may stand for (first that exists in the model wins).
ALIASES: dict[str, tuple[str, ...]] = {
    "child": ("children",), "childs": ("children",), "childrens": ("children",), "subsections": ("children",),
    "sub_sections": ("children",), "subsection": ("children",), "sub": ("children",), "subs": ("children",),
    "subitems": ("children",), "sub_items": ("children",), "nodes": ("children",), "items": ("children", "outline"),
    "sections": ("children", "outline"), "subchapters": ("children",), "子目录": ("children",),
    "子章节": ("children",), "子项": ("children",), "children_nodes": ("children",),
    "name": ("title",), "heading": ("title",), "header": ("title",), "label": ("title",), "text": ("title",),
    "标题": ("title",), "名称": ("title",), "章节": ("title",), "title_text": ("title",),
    "desc": ("description",), "descr": ("description",), "summary": ("description",), "details": ("description",),
    "detail": ("description",), "说明": ("description",), "描述": ("description",), "要点": ("description",),
    "内容": ("description",), "explanation": ("description",), "note": ("description",),
    "chapters": ("outline",), "toc": ("outline",), "目录": ("outline",), "table_of_contents": ("outline",),
    "outlines": ("outline",), "catalog": ("outline",), "structure": ("outline",),
    "number": ("id",), "no": ("id",), "num": ("id",), "编号": ("id",), "index": ("id",), "序号": ("id",),
    "requirement_id": ("source_requirement_id",), "source_id": ("source_requirement_id",),
    "requirement_title": ("source_requirement_title",), "source_title": ("source_requirement_title",),
}


def normalize_for_model(data: Any, model: type[BaseModel]) -> tuple[Any, list[str]]:
    """Return ``(data, notes)`` with known near-misses fixed for ``model``."""
    notes: list[str] = []
    fixed = _fit_model(data, model, "", notes)
    return fixed, notes


def _fit_model(data: Any, model: type[BaseModel], where: str, notes: list[str]) -> Any:
    fields = model.model_fields
    list_fields = [n for n, f in fields.items() if _list_item_model(f.annotation) is not None or _is_list(f.annotation)]
    if isinstance(data, list) and len(list_fields) == 1 and not where:
        notes.append(f"顶层是数组，已放入字段 {list_fields[0]}")
        data = {list_fields[0]: data}
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in data.items():
        if key in fields:
            out[key] = value
            continue
        target = next((c for c in ALIASES.get(str(key).strip().lower(), ()) if c in fields and c not in data), None)
        if target is not None and target not in out:
            notes.append(f"{_loc(where, str(key))}: 字段名 {key} 改为 {target}")
            out[target] = value
        else:
            unknown.append(str(key))
    if unknown and not where and len(unknown) == 1 and len(list_fields) == 1 and list_fields[0] not in out \
            and isinstance(data[unknown[0]], list):
        notes.append(f"字段名 {unknown[0]} 改为 {list_fields[0]}")
        out[list_fields[0]] = data[unknown.pop()]
    if unknown and model.model_config.get("extra") == "forbid":
        notes.append(f"{where or '(顶层)'}: 删除了多余字段 {', '.join(unknown)}")
    elif unknown:
        for key in unknown:
            out[key] = data[key]
    for name, value in list(out.items()):
        if name not in fields:
            continue
        out[name] = _fit_value(value, fields[name].annotation, _loc(where, name), notes)
    return out


def _fit_value(value: Any, annotation: Any, where: str, notes: list[str]) -> Any:
    item_model = _list_item_model(annotation)
    if item_model is not None:
        if isinstance(value, dict):
            notes.append(f"{where}: 单个对象已放入数组")
            value = [value]
        if isinstance(value, list):
            return [_fit_item(v, item_model, f"{where}.{i}", notes) for i, v in enumerate(value)]
        return value
    sub = _model_of(annotation)
    if sub is not None:
        return _fit_model(value, sub, where, notes)
    if _accepts_str(annotation) and isinstance(value, (int, float)) and not isinstance(value, bool):
        notes.append(f"{where}: 数字 {value} 转为字符串")
        return str(value)
    if _accepts_str(annotation) and value is None and not _accepts_none(annotation):
        notes.append(f"{where}: null 改为空字符串")
        return ""
    return value


def _fit_item(value: Any, model: type[BaseModel], where: str, notes: list[str]) -> Any:
    if isinstance(value, str):
        required = [n for n, f in model.model_fields.items() if f.is_required()]
        if len(required) == 1 and _accepts_str(model.model_fields[required[0]].annotation):
            notes.append(f"{where}: 字符串“{value[:20]}”转为 {{{required[0]}: ...}} 对象")
            return {required[0]: value}
    return _fit_model(value, model, where, notes)


def _loc(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _args(annotation: Any) -> tuple[Any, ...]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return typing.get_args(annotation)
    return (annotation,)


def _model_of(annotation: Any) -> type[BaseModel] | None:
    for arg in _args(annotation):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return None


def _is_list(annotation: Any) -> bool:
    return any(typing.get_origin(a) is list for a in _args(annotation))


def _list_item_model(annotation: Any) -> type[BaseModel] | None:
    for arg in _args(annotation):
        if typing.get_origin(arg) is list:
            inner = typing.get_args(arg)
            if inner and isinstance(inner[0], type) and issubclass(inner[0], BaseModel):
                return inner[0]
    return None


def _accepts_str(annotation: Any) -> bool:
    return any(a is str for a in _args(annotation))


def _accepts_none(annotation: Any) -> bool:
    return any(a is type(None) for a in _args(annotation))


def strip_title_numbering(data: Any) -> tuple[Any, list[str]]:
    """Remove numbering a model put in front of ``title`` values ("1.2 设计原则" -> "设计原则").

    Numbering is owned by code (rule 2 of the architecture); a pure number is left alone
    so the business rules can still flag it.
    """
    notes: list[str] = []

    def visit(value: Any, where: str) -> Any:
        if isinstance(value, list):
            return [visit(v, f"{where}.{i}" if where else str(i)) for i, v in enumerate(value)]
        if not isinstance(value, dict):
            return value
        out = {}
        for key, item in value.items():
            loc = f"{where}.{key}" if where else str(key)
            if key == "title" and isinstance(item, str):
                stripped = strip_numbering(item)
                if stripped != item.strip() and stripped and title_problem(stripped) is None:
                    notes.append(f"{loc}: 去掉了标题编号“{item[: len(item) - len(stripped)].strip()}”")
                    item = stripped
                out[key] = item
            else:
                out[key] = visit(item, loc)
        return out

    return visit(data, ""), notes

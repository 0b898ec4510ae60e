"""Small bounded pydantic models for whole-JSON outline calls (constrained decoding).

A weak model under grammar-constrained decoding keeps appending array items until the
token limit unless the schema bounds them, and writes "1", "3", "4" as titles unless the
schema asks for real text. These models carry ``minItems``/``maxItems`` and
``minLength``/``maxLength`` (:mod:`app.llm.json.wire_schema` makes the wire smaller still),
while their validators stay lenient where code can fix things (numbering is stripped).
The bounds are the rules' (:class:`~app.core.limits.OutlineLimits`): a section may be left
undivided, a list may hold up to ``max_children`` items and a title up to ``max_title_len``
characters; beyond them the answer is refused with the reason, never cut.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, create_model

from app.core.limits import STORED, OutlineLimits
from app.core.outline import OutlineNode
from app.core.rules.outline import clean_description, clean_title

#: Title length a heading may have (the rule's; a longer title is refused with the reason, never cut mid-word).
TITLE_MAX = OutlineLimits().max_title_len
#: Description length kept (a description is a note for the writer: a longer one is cut at a sentence end).
DESC_MAX = 200


def _title(v: Any) -> Any:
    return clean_title(v, STORED.max_title_len) if isinstance(v, str) else v


def _desc(v: Any) -> Any:
    if v is None:
        return ""
    if not isinstance(v, str):
        return v
    text = clean_description(v, len(v))
    if len(text) <= DESC_MAX:
        return text
    cut = text[:DESC_MAX]
    end = max(cut.rfind(p) for p in "。；;！？")
    return cut[:end + 1] if end >= DESC_MAX // 2 else cut


def _bounded_list(item: type[BaseModel], min_items: int, max_items: int) -> Any:
    """``list[item]`` carrying minItems/maxItems; a longer answer is refused with the reason (never cut)."""
    return Annotated[list[item], Field(min_length=min_items, max_length=max_items)]  # type: ignore[valid-type]


Title = Annotated[str, BeforeValidator(_title), Field(min_length=2, max_length=TITLE_MAX)]
Description = Annotated[str, BeforeValidator(_desc), Field(default="", max_length=DESC_MAX)]


class LeafItem(BaseModel):
    """A heading without children."""

    model_config = ConfigDict(extra="ignore")
    title: Title
    description: Description = ""


class TitleLeaf(BaseModel):
    """A heading without children or description (compact schemas for weak models)."""

    model_config = ConfigDict(extra="ignore")
    title: Title


@cache
def node_model(levels: int, min_items: int = 0, max_items: int = 20, descriptions: bool = True) -> type[BaseModel]:
    """A heading model with up to ``levels`` levels including itself (1 = leaf); its children may be
    absent (a section left undivided) or as few as one."""
    if levels <= 1:
        return LeafItem if descriptions else TitleLeaf
    child = node_model(levels - 1, min_items, max_items, descriptions)
    fields: dict[str, Any] = {"title": (Title, ...)}
    if descriptions:
        fields["description"] = (Description, "")
    model: type[BaseModel] = create_model(
        f"Heading{levels}{'' if descriptions else 'T'}",
        __config__=ConfigDict(extra="ignore"),
        **fields,
        children=(_bounded_list(child, 0, max_items), []),
    )
    return model


@cache
def children_model(levels: int, min_items: int = 1, max_items: int = 20, descriptions: bool = True) -> type[BaseModel]:
    """``{"children": [...]}`` for one chapter's subtree of up to ``levels`` levels (at least ``min_items``)."""
    child = node_model(levels, 0, max_items, descriptions)
    model: type[BaseModel] = create_model(
        f"ChapterChildren{levels}{'' if descriptions else 'T'}",
        __config__=ConfigDict(extra="ignore"),
        children=(_bounded_list(child, min_items, max_items), ...),
    )
    return model


@cache
def chapters_model(min_items: int = 2, max_items: int = 20) -> type[BaseModel]:
    """``{"chapters": [{title, description}]}`` for the top level of free mode."""
    model: type[BaseModel] = create_model(
        "TopLevel",
        __config__=ConfigDict(extra="ignore"),
        chapters=(_bounded_list(LeafItem, min_items, max_items), ...),
    )
    return model


@cache
def full_outline_model(depth: int = 3, max_chapters: int = 20, max_children: int = 20) -> type[BaseModel]:
    """``{"outline": [...]}`` for a whole outline in one call (bounded at every level, branches of any depth)."""
    chapter = node_model(depth, 0, max_children)
    model: type[BaseModel] = create_model(
        "WholeOutline",
        __config__=ConfigDict(extra="ignore"),
        outline=(_bounded_list(chapter, 1, max_chapters), ...),  # one chapter with all below it: a writer's choice
    )
    return model


def to_nodes(items: list[Any]) -> list[OutlineNode]:
    """Convert validated heading models (or dicts) into core outline nodes."""
    out: list[OutlineNode] = []
    for item in items:
        data = item.model_dump() if isinstance(item, BaseModel) else dict(item)
        out.append(OutlineNode(
            title=str(data.get("title") or "?")[:STORED.max_title_len],
            description=str(data.get("description") or "")[:STORED.max_description_len],
            children=to_nodes(list(data.get("children") or [])),
        ))
    return out


def from_nodes(nodes: list[OutlineNode]) -> list[dict[str, Any]]:
    """Plain ``{title, description, children}`` dicts of nodes, for prompts."""
    return [{"title": n.title, "description": n.description, **({"children": from_nodes(n.children)} if n.children else {})}
            for n in nodes]

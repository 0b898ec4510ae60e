"""The heading library: level-2/3 structures an experienced bid writer gives recurring scoring items.

The data lives in ``resources/headings/*.json`` (one file per item family, see the README
there); this module loads and validates it. An :class:`LibraryEntry` is one item family
(应急预案, 售后服务…) with the words that identify it and several :class:`LibraryVariant`
structures; a variant is a list of level-2 :class:`LibrarySection` s, each with its level-3
titles. Code never invents headings: what it fills in comes from here or from the tender.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from app.core.outline import OutlineNode
from app.core.resources import resource_path

LIBRARY_DIR = ("headings",)
KindTag = Literal["works", "goods", "services"]
#: The domains a structure may be written for (see :mod:`app.pipeline.headings.domain`).
DomainTag = Literal["it", "facility", "catering", "works", "goods", "logistics", "staffing", "consulting", "ops"]


class LibrarySection(BaseModel):
    """A level-2 heading with its level-3 headings; ``slot`` marks where the tender's own points go."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(min_length=3, max_length=20)
    description: str = Field(default="", max_length=80)
    children: tuple[str, ...] = Field(min_length=2, max_length=6)
    slot: bool = False
    #: What the section is written for, when narrower than its variant (安全员配置: a site's; 质保期: a supply's).
    kinds: tuple[KindTag, ...] = ()
    domains: tuple[DomainTag, ...] = ()

    @field_validator("children")
    @classmethod
    def _child_length(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for c in v:
            if not 3 <= len(c) <= 20:
                raise ValueError(f"三级标题“{c}”应为 3–20 个字")
        return v


class LibraryVariant(BaseModel):
    """One way to structure the item (e.g. 按应急体系组织 / 按事件类型组织)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    label: str = Field(min_length=2, max_length=24)
    sections: tuple[LibrarySection, ...] = Field(min_length=3, max_length=8)
    #: Words of the item that call for this variant (面向使用方的培训: 系统, 用户…); empty: any item. A variant
    #: written for one audience or trade is ranked last when the item's text has none of them.
    requires: tuple[str, ...] = ()
    #: The kinds and domains of tender the variant is written for (empty: any; narrower than the entry's).
    kinds: tuple[KindTag, ...] = ()
    domains: tuple[DomainTag, ...] = ()


class LibraryEntry(BaseModel):
    """One recurring scoring item and the structures a bid writer uses for it.

    ``aliases`` are names of the item as tenders write it; ``keywords`` are words that
    identify it inside a longer item name; ``context`` words in the criteria or the project
    add confidence. ``generic`` entries (服务方案, 实施方案) only win when nothing specific
    matches. ``point_suffix`` turns a bare point of this item's criteria ("火灾") into a
    heading ("火灾应急处置").
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    name: str = Field(min_length=2, max_length=16)
    aliases: tuple[str, ...] = ()
    keywords: tuple[str, ...] = Field(min_length=1)
    context: tuple[str, ...] = ()
    generic: bool = False
    point_suffix: str = Field(default="", max_length=8)
    #: The kinds of tender the entry is written for (works / goods / services); empty: any kind.
    kinds: tuple[KindTag, ...] = ()
    #: The domains (trades) the entry is written for; empty: any. Variants and sections may narrow it.
    domains: tuple[DomainTag, ...] = ()
    variants: tuple[LibraryVariant, ...] = Field(min_length=2)

    def variant(self, variant_id: str) -> LibraryVariant:
        """The variant with ``variant_id`` (the first one when there is no such id)."""
        return next((v for v in self.variants if v.id == variant_id), self.variants[0])

    def headings(self) -> Iterator[str]:
        """Every level-2 and level-3 title of every variant."""
        for v in self.variants:
            for s in v.sections:
                yield s.title
                yield from s.children


class LibraryError(ValueError):
    """A library file is missing or malformed (the message names the file, in Chinese)."""


def section_nodes(variant: LibraryVariant) -> list[OutlineNode]:
    """A variant as outline nodes (level 2 with level-3 children), marked as coming from the library."""
    return [
        OutlineNode(title=s.title, description=s.description, origin="library",
                    children=[OutlineNode(title=c, origin="library") for c in s.children])
        for s in variant.sections
    ]


def load_entry(path: Path) -> LibraryEntry:
    """One library file, validated."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return LibraryEntry.model_validate(data)
    except (OSError, json.JSONDecodeError, ValidationError) as exc:
        raise LibraryError(f"标题库文件 {path.name} 无法读取：{exc}") from exc


class HeadingLibrary:
    """All library entries, by id and in file order."""

    def __init__(self, entries: list[LibraryEntry]) -> None:
        ids = [e.id for e in entries]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise LibraryError("标题库中有重复的条目编号：" + "、".join(dupes))
        self.entries = list(entries)
        self._by_id = {e.id: e for e in entries}

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[LibraryEntry]:
        return iter(self.entries)

    def get(self, entry_id: str) -> LibraryEntry | None:
        """The entry with ``entry_id``, or None."""
        return self._by_id.get(entry_id)

    @classmethod
    def from_dir(cls, folder: Path) -> HeadingLibrary:
        """Every ``*.json`` in ``folder`` (sorted by name)."""
        files = sorted(folder.glob("*.json"))
        if not files:
            raise LibraryError(f"标题库目录 {folder} 中没有条目文件")
        return cls([load_entry(f) for f in files])


@cache
def default_library() -> HeadingLibrary:
    """The library shipped in ``resources/headings`` (loaded once)."""
    return HeadingLibrary.from_dir(resource_path(*LIBRARY_DIR))

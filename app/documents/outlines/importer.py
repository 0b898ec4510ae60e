"""The user's own outline as outline nodes: pasted text, a .docx/.pdf, or the tender's prescribed order.

Titles are kept verbatim (the user's number is stripped; code numbers the tree), depth is
as the user wrote it (uneven depth allowed), every node is marked ``origin="user"`` and,
when asked, ``locked`` (a model run keeps it and only fills what is left open). Chapters
are mapped to the tender's technical scoring items where their titles match.
The tender's own prescribed structure is found by :mod:`app.documents.outlines.prescribed`. Anything
that does not fit what a project stores is said in ``notes`` — nothing is cut silently.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.core.analysis import ScoringGroup
from app.core.limits import STORED
from app.core.outline import OutlineNode
from app.documents.errors import DocumentError, UnsupportedFormatError
from app.documents.outlines.chapter_mapping import propose_mapping
from app.documents.outlines.sections import Section, parse_outline_text

MAX_IMPORT_CHARS = 2_000_000


class OutlineImportError(DocumentError):
    """The text or file holds no outline (a clear Chinese message for the user)."""

    code = "outline_import"


@dataclass
class ImportedOutline:
    """Chapters built from the user's outline, with how many matched scoring items and notes."""

    chapters: list[OutlineNode]
    mapped: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def heading_count(self) -> int:
        """All headings, at every level."""
        return sum(1 for ch in self.chapters for _ in _walk(ch))


def _walk(node: OutlineNode) -> list[OutlineNode]:
    out = [node]
    for c in node.children:
        out.extend(_walk(c))
    return out


def sections_to_nodes(sections: Sequence[Section], *, lock: bool, notes: list[str]) -> list[OutlineNode]:
    """Outline nodes from a heading tree: verbatim titles, the user's depth, origin ``user``."""
    out: list[OutlineNode] = []
    for s in sections:
        title = re.sub(r"\s+", " ", s.title).strip() or "（无标题）"
        body = [p.strip() for p in s.paragraphs if p.strip()]
        description = " ".join(body) if sum(map(len, body)) <= STORED.max_description_len else ""
        content = "" if description or not body else "\n\n".join(body)  # a long body is the section's text
        if len(title) > STORED.max_title_len:
            notes.append(f"标题“{title[:20]}…”超过 {STORED.max_title_len} 字，完整标题已放入该节的说明中")
            description = (title + " " + description).strip()[: STORED.max_description_len]
            title = title[: STORED.max_title_len]
        kids = list(s.children)
        if len(kids) > STORED.max_children:
            notes.append(f"“{title}”下有 {len(kids)} 个子标题，超过可保存的 {STORED.max_children} 个，"
                         f"第 {STORED.max_children + 1} 个起未导入：{'、'.join(k.title for k in kids[STORED.max_children:][:5])}")
            kids = kids[: STORED.max_children]
        node = OutlineNode(title=title, description=description, content=content, origin="user", locked=lock)
        node.children.extend(sections_to_nodes(kids, lock=lock, notes=notes))
        out.append(node)
    return out


def map_to_groups(chapters: list[OutlineNode], groups: Sequence[ScoringGroup]) -> int:
    """Give each chapter the scoring item it answers, when its subject says so surely (one item per chapter).

    The proposal (:func:`app.documents.outlines.chapter_mapping.propose_mapping`) prefers no mapping
    to a wrong one; the import dialog shows it and lets the user change it. Returns how many matched.
    """
    proposal = propose_mapping([ch.title for ch in chapters], groups)
    for ch, j in zip(chapters, proposal, strict=True):
        ch.source_requirement_id = groups[j].id if j is not None else None
        ch.source_requirement_title = groups[j].title[:200] if j is not None else None
    return sum(j is not None for j in proposal)


def build_import(sections: Sequence[Section], groups: Sequence[ScoringGroup], *, lock: bool) -> ImportedOutline:
    """The imported outline from a heading tree: nodes, scoring items mapped, notes."""
    if not sections:
        raise OutlineImportError("没有找到目录标题：请确认每行一个标题（可带 第一章 / 一、 / 1.1 / （一） 等编号）")
    notes: list[str] = []
    top = list(sections)
    if len(top) > STORED.max_chapters:
        notes.append(f"一级标题有 {len(top)} 个，超过可保存的 {STORED.max_chapters} 个，"
                     f"第 {STORED.max_chapters + 1} 个起未导入")
        top = top[: STORED.max_chapters]
    chapters = sections_to_nodes(top, lock=lock, notes=notes)
    mapped = map_to_groups(chapters, groups)
    return ImportedOutline(chapters=chapters, mapped=mapped, notes=notes)


def import_outline_text(text: str, groups: Sequence[ScoringGroup] = (), *, lock: bool = True) -> ImportedOutline:
    """Pasted outline text (one heading a line, any Chinese numbering) as chapters."""
    if len(text) > MAX_IMPORT_CHARS:
        raise OutlineImportError(f"粘贴的文字过长（{len(text)} 字），目录不应超过 {MAX_IMPORT_CHARS} 字")
    return build_import(parse_outline_text(text), groups, lock=lock)


def import_outline_file(path: Path, groups: Sequence[ScoringGroup] = (), *, lock: bool = True) -> ImportedOutline:
    """A .docx / .pdf (its headings) or a .txt / .md (its lines) as chapters; DocumentError for bad files."""
    suffix = path.suffix.lower()
    if suffix in (".txt", ".md"):
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise OutlineImportError(f"无法读取文件：{path.name}", path=str(path), detail=str(exc)) from exc
        for enc in ("utf-8-sig", "gb18030"):
            try:
                return import_outline_text(raw.decode(enc), groups, lock=lock)
            except UnicodeDecodeError:
                continue
        raise UnsupportedFormatError("无法识别该文本文件的编码，请另存为 UTF-8 后再导入", path=str(path))
    from app.documents.outlines.bid_reader import read_bid

    bid = read_bid(path)
    if not bid.sections:
        raise OutlineImportError(f"在“{path.name}”中没有找到标题：文件既没有使用标题样式，也没有带编号的标题行",
                                 path=str(path))
    return build_import(bid.sections, groups, lock=lock)

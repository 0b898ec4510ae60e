"""The user's own outline as outline nodes: pasted text, a .docx/.pdf, or the tender's prescribed order.

Titles are kept verbatim (the user's number is stripped; code numbers the tree), depth is
as the user wrote it (uneven depth allowed), every node is marked ``origin="user"`` and,
when asked, ``locked`` (a model run keeps it and only fills what is left open). Chapters
are mapped to the tender's technical scoring items where their titles match. Anything
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
from app.core.similarity import containment, normalize_text, similarity
from app.documents.errors import DocumentError, UnsupportedFormatError
from app.documents.outlines.sections import Section, parse_outline_text

#: A chapter title and a scoring item's name this similar (3-gram Jaccard or containment) are the same item.
MATCH_THRESHOLD = 0.5
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
    """Give each chapter the scoring item its title matches (one item per chapter); returns how many matched."""
    pairs: list[tuple[float, int, int]] = []
    for i, ch in enumerate(chapters):
        a = normalize_text(ch.title)
        for j, g in enumerate(groups):
            b = normalize_text(g.title)
            if not a or not b:
                continue
            score = max(similarity(a, b), containment(b, a) if len(b) >= 3 else 0.0,
                        containment(a, b) if len(a) >= 3 else 0.0, 1.0 if a == b else 0.0)
            if score >= MATCH_THRESHOLD:
                pairs.append((score, i, j))
    used_ch: set[int] = set()
    used_g: set[int] = set()
    for _score, i, j in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
        if i in used_ch or j in used_g:
            continue
        used_ch.add(i)
        used_g.add(j)
        chapters[i].source_requirement_id = groups[j].id
        chapters[i].source_requirement_title = groups[j].title[:200]
    return len(used_ch)


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


_PRESCRIBE_ANCHOR = re.compile(r"(?:按|依|按照)(?:以下|下列|如下)[^\n。]{0,8}?(?:顺序|格式|目录|结构|章节)[^\n]{0,30}")


def prescribed_outline(text: str) -> list[Section]:
    """The outline a tender prescribes for the technical part ("技术部分须按以下顺序编写：…"), or [].

    Takes the numbered lines after the first such sentence until the numbering stops (a few
    lines of prose, or a new chapter of the tender after the list began).
    """
    from app.documents.outlines.numbering import looks_like_body, parse_numbering

    for m in _PRESCRIBE_ANCHOR.finditer(text):
        if "技术" not in text[max(0, m.start() - 80):m.end()]:
            continue
        lines = text[m.end():].split("\n")
        kept: list[str] = []
        styles: set[str] = set()
        prose = 0
        for raw in lines[:400]:
            line = raw.strip()
            if not line:
                continue
            numbered = parse_numbering(line)
            if numbered is None or looks_like_body(line):
                prose += 1
                if kept and prose > 2:
                    break
                continue
            if kept and numbered.style == "chapter" and "chapter" not in styles:
                break  # the tender's next chapter, not an item of the list
            prose = 0
            kept.append(line)
            styles.add(numbered.style)
        if len(kept) >= 2:
            return parse_outline_text("\n".join(kept))
    return []

"""A user's own document (.docx, .pdf) as a heading tree with each section's text and tables.

Used for importing the user's outline and their past bids. Headings come from Word heading
styles ("Heading 2", "标题 2") when the document uses them, else from numbering (第一章 / 一、 /
1.1 / （一） …, see :mod:`app.documents.outlines.numbering`); a PDF's bookmarks give its
headings, else numbered lines do. Table-of-contents entries are skipped, tables stay tables.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.documents.errors import CorruptedFileError, UnsupportedFormatError, corrupted_or_gone
from app.documents.outlines.numbering import looks_like_body, nest_levels, parse_numbering, strip_leader
from app.documents.outlines.sections import FlatEntry, Section, TableRows, build_tree
from app.documents.zip_guard import check_zip_container

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_TOC_LINE = re.compile(r"(?:\.{3,}|…{2,}|·{3,}|\t)\s*\d{1,4}\s*$")
MAX_HEADING_CHARS = 40


@dataclass
class BidDocument:
    """What a user's document holds: its sections, the text before the first heading, metadata."""

    path: Path
    sections: list[Section]
    preamble: list[str] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)  # title, author, created, … (document properties)
    heading_source: str = "numbering"  # "styles", "numbering", "bookmarks" or "none"

    def full_text(self) -> str:
        """Preamble and every section's title and body, in order (for hashing and searching)."""
        parts = list(self.preamble)
        stack = list(reversed(self.sections))
        while stack:
            s = stack.pop()
            parts.append(s.title)
            parts.extend(s.paragraphs)
            parts.extend("\t".join(r) for t in s.tables for r in t)
            stack.extend(reversed(s.children))
        return "\n".join(parts)


def read_bid(path: Path) -> BidDocument:
    """Read a .docx or .pdf into a :class:`BidDocument`; a clear Chinese error for anything else."""
    suffix = path.suffix.lower()
    if suffix == ".docx":
        return read_docx_sections(path)
    if suffix == ".pdf":
        return read_pdf_sections(path)
    if suffix == ".doc":
        raise UnsupportedFormatError("不支持旧版 .doc 文件，请在 Word 中另存为 .docx 后再导入", path=str(path))
    raise UnsupportedFormatError(f"不支持的文件类型“{path.suffix or path.name}”：请选择 .docx 或 .pdf 文件",
                                 path=str(path))


# ---------------------------------------------------------------------------- docx


def _style_levels(document: Any) -> dict[str, int]:
    """styleId → heading level (1–9) for heading styles, 0 for table-of-contents styles."""
    out: dict[str, int] = {}
    for st in document.styles.element.findall(f"{_W}style"):
        sid = st.get(f"{_W}styleId") or ""
        name_el = st.find(f"{_W}name")
        name = (name_el.get(f"{_W}val") if name_el is not None else "") or sid
        low = name.lower()
        if low.startswith("toc") or low.startswith("目录"):
            out[sid] = 0
            continue
        for prefix in ("heading ", "heading", "标题 ", "标题"):
            rest = low[len(prefix):].strip() if low.startswith(prefix) else ""
            if rest.isdigit() and 1 <= int(rest) <= 9:
                out[sid] = int(rest)
                break
        else:
            lvl = st.find(f"{_W}pPr/{_W}outlineLvl")
            if lvl is not None and (lvl.get(f"{_W}val") or "").isdigit() and int(lvl.get(f"{_W}val") or 9) < 9:
                out[sid] = int(lvl.get(f"{_W}val") or 0) + 1
    return out


def _para_level(p: Any, levels: dict[str, int]) -> int | None:
    ppr = p.find(f"{_W}pPr")
    if ppr is None:
        return None
    lvl = ppr.find(f"{_W}outlineLvl")
    if lvl is not None and (lvl.get(f"{_W}val") or "").isdigit() and int(lvl.get(f"{_W}val") or 9) < 9:
        return int(lvl.get(f"{_W}val") or 0) + 1
    style = ppr.find(f"{_W}pStyle")
    return levels.get(style.get(f"{_W}val") or "") if style is not None else None


def _para_text(p: Any) -> str:
    """A paragraph's text (runs joined, tabs kept)."""
    return "".join((t.text or "") if t.tag == f"{_W}t" else "\t" for t in p.iter(f"{_W}t", f"{_W}tab"))


def _table_rows(tbl: Any) -> TableRows:
    rows: TableRows = []
    for tr in tbl.iter(f"{_W}tr"):
        cells = ["\n".join(_para_text(p) for p in tc.iter(f"{_W}p")).strip() for tc in tr.findall(f"{_W}tc")]
        rows.append(cells)
    return rows


def read_docx_sections(path: Path) -> BidDocument:
    """A .docx's heading tree (styles when it uses them, else numbering) with text and tables."""
    from docx import Document

    check_zip_container(path)
    try:
        document = Document(str(path))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, Exception) as exc:
        raise corrupted_or_gone(path, "无法打开该 Word 文件：文件已损坏或不是有效的 .docx", exc) from exc
    try:
        levels = _style_levels(document)
        items: list[tuple[str, Any]] = []  # ("p", (level, text)) or ("t", rows)
        for el in document.element.body.iterchildren():
            if el.tag == f"{_W}p":
                items.append(("p", (_para_level(el, levels), _para_text(el).strip())))
            elif el.tag == f"{_W}tbl":
                items.append(("t", _table_rows(el)))
        meta = _core_properties(document)
    except Exception as exc:  # a malformed part: the file, not the app, is broken
        raise CorruptedFileError("该 Word 文件的内容结构已损坏，无法读取", path=str(path),
                                 detail=f"{type(exc).__name__}: {exc}") from exc
    styled = sum(1 for kind, v in items if kind == "p" and v[0] and v[1])
    sections, preamble, source = _sections_from_items(items, use_styles=styled >= 2)
    return BidDocument(path=path, sections=sections, preamble=preamble, metadata=meta, heading_source=source)


def _core_properties(document: Any) -> dict[str, str]:
    cp = document.core_properties
    out = {"title": cp.title or "", "author": cp.author or "", "last_modified_by": cp.last_modified_by or "",
           "company": "", "created": cp.created.isoformat() if cp.created else "",
           "modified": cp.modified.isoformat() if cp.modified else ""}
    return {k: v for k, v in out.items() if v}


def _sections_from_items(items: list[tuple[str, Any]], *, use_styles: bool) -> tuple[list[Section], list[str], str]:
    """Headings and bodies from paragraphs (``(level, text)``) and tables in document order."""
    flat: list[FlatEntry] = []
    styles: list[str | None] = []
    preamble: list[str] = []
    for kind, value in items:
        if kind == "t":
            if flat:
                flat[-1].tables.append(value)
            else:
                preamble.extend("\t".join(r) for r in value)
            continue
        level, text = value
        if not text or level == 0 or _TOC_LINE.search(text):
            continue
        numbered = parse_numbering(text)
        if use_styles and level:
            title = numbered.title if numbered is not None else strip_leader(text)
            flat.append(FlatEntry(level=level, title=title, number=numbered.number if numbered else ""))
            continue
        if not use_styles and numbered is not None and len(text) <= MAX_HEADING_CHARS and not looks_like_body(text):
            flat.append(FlatEntry(level=0, title=numbered.title, number=numbered.number))
            styles.append(numbered.style)
            continue
        (flat[-1].paragraphs if flat else preamble).append(text)
    if not use_styles and flat:
        for entry, lv in zip(flat, nest_levels(styles), strict=True):
            entry.level = lv
    source = "styles" if use_styles else "numbering" if flat else "none"
    return build_tree(flat), preamble, source


# ---------------------------------------------------------------------------- pdf


def read_pdf_sections(path: Path) -> BidDocument:
    """A PDF's heading tree from its bookmarks, else from numbered lines; ruled tables kept as tables.

    Only pages whose drawings hold a ruled grid are searched for tables (see
    :mod:`app.documents.outlines.pdf_items`); a table's cell text is not repeated as prose.
    """
    from app.documents.outlines.pdf_items import PageItem, TableBudget, page_items
    from app.documents.pdf_reader import open_pdf

    try:
        doc = open_pdf(path)
    except Exception as exc:
        raise corrupted_or_gone(path, "无法打开该 PDF 文件：文件已损坏或不是有效的 PDF", exc) from exc
    try:
        if doc.needs_pass:
            raise CorruptedFileError("该 PDF 文件有密码保护，请先去除密码再导入", path=str(path))
        budget = TableBudget()
        pages: list[list[PageItem]] = [page_items(page, budget) for page in doc]
        toc = doc.get_toc(simple=True)
        meta = {k: str(v) for k, v in (doc.metadata or {}).items() if v and k in
                ("title", "author", "creator", "producer", "creationDate", "modDate")}
    finally:
        doc.close()
    if toc:
        sections, preamble = _sections_from_bookmarks(pages, toc)
        source = "bookmarks"
    else:
        items: list[tuple[str, Any]] = [("p", (None, v)) if k == "p" else (k, v) for lines in pages for k, v in lines]
        sections, preamble, source = _sections_from_items(items, use_styles=False)
    for root in sections:
        for _, s in root.walk():
            s.paragraphs = join_wrapped_lines(s.paragraphs)
    return BidDocument(path=path, sections=sections, preamble=preamble, metadata=meta, heading_source=source)


_PARAGRAPH_END = re.compile(r"[。！？；：:!?;」”’）)】]$")


def join_wrapped_lines(lines: list[str]) -> list[str]:
    """A PDF's lines joined back into paragraphs: a line that does not end a sentence continues."""
    out: list[str] = []
    for line in lines:
        if out and not _PARAGRAPH_END.search(out[-1]):
            out[-1] += line
        else:
            out.append(line)
    return out


def _sections_from_bookmarks(pages: list[list[tuple[str, Any]]], toc: list[Any]) -> tuple[list[Section], list[str]]:
    """Bookmarks as headings; each one's body is the lines and tables from its title to the next bookmark's."""
    items = [it for page in pages for it in page]
    starts = [0]
    for items_of_page in pages:
        starts.append(starts[-1] + len(items_of_page))
    positions: list[int] = []
    found: list[bool] = []  # the bookmark's title line was found (it is not part of the body)
    for _level, title, page, *_ in toc:
        first = starts[max(0, min(len(pages) - 1, int(page) - 1))] if pages else 0
        key = re.sub(r"\s+", "", str(title))
        pos, hit = first, False
        for i in range(first, min(len(items), first + 400)):
            kind, value = items[i]
            if kind == "p" and key and key[:12] in re.sub(r"\s+", "", value):
                pos, hit = i, True
                break
        floor = positions[-1] + (1 if found[-1] else 0) if positions else 0
        positions.append(max(pos, floor))
        found.append(hit and pos >= floor)
    flat: list[FlatEntry] = []
    for j, (level, title, *_rest) in enumerate(toc):
        numbered = parse_numbering(str(title))
        end = positions[j + 1] if j + 1 < len(positions) else len(items)
        body = items[positions[j] + (1 if found[j] else 0):end]
        flat.append(FlatEntry(level=max(1, int(level)), title=numbered.title if numbered else str(title).strip(),
                              number=numbered.number if numbered else "",
                              paragraphs=[v for k, v in body if k == "p"], tables=[v for k, v in body if k == "t"]))
    head = items[: positions[0]] if positions else items
    preamble: list[str] = []
    for kind, value in head:
        preamble.extend([value] if kind == "p" else ["\t".join(r) for r in value])
    return build_tree(flat), preamble

"""One file for the whole bid: the 商务 volume, then the technical part, each still a volume of its own.

Each volume keeps its cover, its table of contents and its page numbering (第 1 页 after its own
cover, 共 N 页 its own body). Appending one Word file to another (docxcompose) copies the body but
drops the appended file's headers and footers and merges its section properties, so the technical
part's cover would show the 商务 footer and its pages would go on from the 商务 numbers. Here the
technical part's sections get back their own properties, headers and footers; each TOC is scoped to
its own volume (``TOC \\b``, so a field update in Word keeps it to that volume) and titled with the
volume's name; and one LibreOffice layout pass over the merged file writes every page number —
the TOC lines, the PAGEREF cells of the index and deviation tables, and the footers' totals —
counted the way each volume prints them.
"""

from __future__ import annotations

import io
import re
from copy import deepcopy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from app.export.options import ExportError

#: Bookmarks the merge adds: the first paragraph of the technical part, and the span of each volume.
TECHNICAL_COVER: Final = "_BidTechnicalCover"
FORMS_PART: Final = "_BidFormsPart"
TECHNICAL_PART: Final = "_BidTechnicalPart"
_HDRFTR: Final = ("header", "first_page_header", "even_page_header", "footer", "first_page_footer", "even_page_footer")
_R_NS: Final = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


@dataclass(frozen=True)
class MergeReport:
    """The merged file, whether its page numbers were laid out, each volume's body pages, notes."""

    path: Path
    laid_out: bool
    forms_pages: int | None = None
    technical_pages: int | None = None
    notes: tuple[str, ...] = ()


@dataclass
class _Field:
    """One complex field: its instruction and the ``w:t`` elements of its cached result."""

    instruction: str
    results: list[Any]

    def write(self, text: str) -> None:
        """Put ``text`` in the first result element and empty the others."""
        if not self.results:
            return
        self.results[0].text = text
        for extra in self.results[1:]:
            extra.text = ""


def fields_in(root: Any) -> list[_Field]:
    """Every complex field under ``root`` (a body, header or footer element), nested ones included."""
    out: list[_Field] = []
    stack: list[tuple[list[str], list[Any], list[bool]]] = []
    for el in root.iter(qn("w:fldChar"), qn("w:instrText"), qn("w:t")):
        if el.tag == qn("w:fldChar"):
            kind = el.get(qn("w:fldCharType"))
            if kind == "begin":
                stack.append(([], [], [False]))
            elif kind == "separate" and stack:
                stack[-1][2][0] = True
            elif kind == "end" and stack:
                instr, results, _ = stack.pop()
                out.append(_Field("".join(instr).strip(), results))
        elif stack:
            instr, results, separated = stack[-1]
            if el.tag == qn("w:instrText") and not separated[0]:
                instr.append(el.text or "")
            elif el.tag == qn("w:t") and separated[0]:
                results.append(el)
    return out


def _paragraph_with_bookmark(body: Any, name: str) -> Any | None:
    for start in body.iter(qn("w:bookmarkStart")):
        if start.get(qn("w:name")) == name:
            parent = start.getparent()
            while parent is not None and parent.tag != qn("w:p"):
                parent = parent.getparent()
            return parent
    return None


def _text(p: Any) -> str:
    """A paragraph's visible text (its ``w:t`` elements; lxml's itertext repeats python-docx's text)."""
    return "".join(t.text or "" for t in p.iter(qn("w:t")))


def _top_paragraphs(body: Any) -> list[Any]:
    return [el for el in body if el.tag == qn("w:p")]


def _mark_paragraph(p: Any, name: str, bookmark_id: int) -> None:
    """A bookmark around a paragraph's content (the part's first paragraph)."""
    _span(p, p, name, bookmark_id)


def _span(first: Any, last: Any, name: str, bookmark_id: int) -> None:
    """A bookmark from the start of paragraph ``first`` to the end of paragraph ``last``."""
    start = OxmlElement("w:bookmarkStart")
    start.set(qn("w:id"), str(bookmark_id))
    start.set(qn("w:name"), name)
    end = OxmlElement("w:bookmarkEnd")
    end.set(qn("w:id"), str(bookmark_id))
    ppr = first.find(qn("w:pPr"))
    if ppr is not None:
        ppr.addnext(start)
    else:
        first.insert(0, start)
    last.append(end)


def _scope_toc(root: Any, part: str, title: str) -> None:
    """The first TOC field under ``root`` lists only headings inside bookmark ``part``; its title names the volume."""
    for instr in root.iter(qn("w:instrText")):
        text = instr.text or ""
        if text.strip().startswith("TOC") and "\\b" not in text:
            instr.text = f" {text.strip()} \\b {part} "
            p = instr.getparent()
            while p is not None and p.tag != qn("w:p"):
                p = p.getparent()
            heading = p.getprevious() if p is not None else None
            if heading is not None and heading.tag == qn("w:p") and _text(heading).replace(" ", "") == "目录":
                texts = list(heading.iter(qn("w:t")))
                if texts:
                    texts[0].text = f"目  录（{title}）"
                    for extra in texts[1:]:
                        extra.text = ""
            return


def _close_last_section(doc: Any) -> None:
    """Make the document's last section end at its last paragraph (its properties in that paragraph), so
    what is appended after it starts a section of its own."""
    body = doc.element.body
    sect = body.find(qn("w:sectPr"))
    if sect is None:
        return
    last = body[body.index(sect) - 1] if body.index(sect) > 0 else None
    if last is None or last.tag != qn("w:p") or last.find(f"{qn('w:pPr')}/{qn('w:sectPr')}") is not None:
        last = OxmlElement("w:p")
        sect.addprevious(last)
    ppr = last.find(qn("w:pPr"))
    if ppr is None:
        ppr = OxmlElement("w:pPr")
        last.insert(0, ppr)
    ppr.append(deepcopy(sect))


def _copy_relations(element: Any, source_part: Any, target_part: Any) -> None:
    """Point every relationship id in a copied header/footer at the same target from ``target_part``."""
    for el in element.iter():
        for attr, value in list(el.attrib.items()):
            if not attr.startswith(f"{{{_R_NS}}}") or value not in source_part.rels:
                continue
            rel = source_part.rels[value]
            if rel.is_external:
                el.set(attr, target_part.relate_to(rel.target_ref, rel.reltype, is_external=True))
            elif rel.reltype == RT.IMAGE:
                new_id, _image = target_part.get_or_add_image(io.BytesIO(rel.target_part.blob))
                el.set(attr, new_id)
            else:
                el.set(attr, target_part.relate_to(rel.target_part, rel.reltype))


def _restore_sections(merged: Any, appended: Any, first: int) -> None:
    """Give sections ``first``… of ``merged`` the properties, headers and footers of ``appended``'s sections."""
    sections = list(merged.sections)
    for k, source in enumerate(appended.sections):
        if first + k >= len(sections):
            break
        target = sections[first + k]
        sect = target._sectPr
        for child in list(sect):
            sect.remove(child)
        for child in source._sectPr:
            if child.tag not in (qn("w:headerReference"), qn("w:footerReference")):
                sect.append(deepcopy(child))
        for name in _HDRFTR:
            src = getattr(source, name)
            defined = src._has_definition
            if not defined and not (k == 0 and name in ("header", "footer")):
                continue  # the default header and footer of the part's first section are written, even empty
            dst = getattr(target, name)
            dst.is_linked_to_previous = False
            root = dst._element
            for child in list(root):
                root.remove(child)
            if defined:
                for child in src._element:
                    copied = deepcopy(child)
                    root.append(copied)
                    _copy_relations(copied, src.part, dst.part)
            else:
                root.append(OxmlElement("w:p"))


def merge_documents(forms_volume: str | Path, technical: str | Path, *, forms_start: str,
                    technical_start: str) -> tuple[Any, int]:
    """The two volumes as one document in memory, and the index of the technical part's first section.

    ``forms_start`` and ``technical_start`` are the bookmarks where each volume's numbering starts.
    """
    from docxcompose.composer import Composer

    try:
        first = docx.Document(str(forms_volume))
        second = docx.Document(str(technical))
    except Exception as exc:  # a file that is not a Word document
        raise ExportError(f"无法合并商务部分和技术部分：{exc}") from None
    _scope_toc(first.element.body, FORMS_PART, "商务部分")
    _scope_toc(second.element.body, TECHNICAL_PART, "技术部分")
    opening = _top_paragraphs(second.element.body)
    if opening:
        _mark_paragraph(opening[0], TECHNICAL_COVER, 1)
    _close_last_section(first)
    sections_before = len(first.sections) - 1  # the last one is the placeholder the appended part's last becomes
    Composer(first).append(second)
    _restore_sections(first, second, sections_before)
    body = first.element.body
    top = _top_paragraphs(body)
    start_a = _paragraph_with_bookmark(body, forms_start)
    cover_b = _paragraph_with_bookmark(body, TECHNICAL_COVER)
    start_b = _paragraph_with_bookmark(body, technical_start)
    next_id = 1 + max((int(b.get(qn("w:id")) or 0) for b in body.iter(qn("w:bookmarkStart"))), default=0)
    if start_a is not None and cover_b is not None and cover_b in top and top.index(cover_b) > 0:
        _span(start_a, top[top.index(cover_b) - 1], FORMS_PART, next_id)
    if start_b is not None and top:
        _span(start_b, top[-1], TECHNICAL_PART, next_id + 1)
    for name in ("footer", "first_page_footer", "even_page_footer"):  # each volume counts its own pages
        for section in first.sections:
            part = getattr(section, name)
            if part._has_definition:
                for instr in part._element.iter(qn("w:instrText")):
                    if (instr.text or "").strip() == "NUMPAGES":
                        instr.text = " SECTIONPAGES "
    return first, sections_before


def _page_of(bookmark: str, pages: dict[str, int], technical_from: int) -> str:
    page = pages.get(bookmark)
    if page is None:
        return ""
    return str(page - technical_from + 1 if page >= technical_from else page)


def place_before(forms_volume: str | Path, technical: str | Path, path: str | Path, *, forms_start: str,
                 technical_start: str, layout_pass: bool = True, soffice: str | None = None) -> MergeReport:
    """Write one file: the 商务 volume, then the technical part, each with its own cover, TOC and page numbers.

    With ``layout_pass`` and LibreOffice every page number in the file is written as that volume prints it;
    without, the fields stay for Word/WPS to update and the report says so.
    """
    from app.export.docx_writer import save_atomically
    from app.export.layout_pass import HeadingMark, LayoutError, find_soffice, lay_out

    doc, technical_section = merge_documents(forms_volume, technical, forms_start=forms_start,
                                             technical_start=technical_start)
    target = Path(path)
    if target.suffix.lower() != ".docx":
        target = target.with_name(target.name + ".docx")
    body = doc.element.body
    refs = [(m.group(1), f) for f in fields_in(body) if (m := re.match(r"PAGEREF\s+(\S+)", f.instruction))]
    totals: list[tuple[bool, _Field]] = []  # (in the technical part, field)
    seen: set[int] = set()
    for k, section in enumerate(doc.sections):
        for name in ("footer", "first_page_footer", "even_page_footer"):
            part = getattr(section, name)
            if not part._has_definition or id(part.part) in seen:
                continue
            seen.add(id(part.part))
            totals += [(k >= technical_section, f) for f in fields_in(part._element)
                       if f.instruction in ("SECTIONPAGES", "NUMPAGES")]
    notes: list[str] = []
    exe = (soffice or find_soffice()) if layout_pass else None
    if layout_pass and exe is None:
        notes.append("本机未安装 LibreOffice，页码以域保存：在 Word/WPS 中打开时选择更新域即可显示")
    if exe is None:
        save_atomically(doc, target)
        return MergeReport(target, False, notes=tuple(notes))
    for _name, f in refs:
        f.write("00")
    for _tech, f in totals:
        f.write("00")
    texts = {name: _text(p) for name in {n for n, _ in refs} | {technical_start, TECHNICAL_COVER}
             if (p := _paragraph_with_bookmark(body, name)) is not None}
    marks = [HeadingMark(name, 1, text) for name, text in texts.items()]
    first_text = _text(p) if (p := _paragraph_with_bookmark(body, forms_start)) is not None else ""
    try:
        layout = lay_out(lambda p: doc.save(str(p)), marks, forms_start, first_text, soffice=exe)
    except LayoutError as exc:
        for _name, f in refs:
            f.write("")
        notes.append(f"页码排版未完成（{exc.message_zh}），页码以域保存，打开时请更新域")
        save_atomically(doc, target)
        return MergeReport(target, False, notes=tuple(notes))
    technical_from = layout.pages.get(technical_start)
    cover = layout.pages.get(TECHNICAL_COVER)
    if technical_from is None or cover is None:
        for _name, f in refs:
            f.write("")
        notes.append("未能在排版结果中找到技术部分的起始页，页码以域保存，打开时请更新域")
        save_atomically(doc, target)
        return MergeReport(target, False, notes=tuple(notes))
    forms_pages = cover - 1
    technical_pages = layout.body_pages - technical_from + 1
    missing = 0
    for name, f in refs:
        text = _page_of(name, layout.pages, technical_from)
        missing += not text
        f.write(text)
    for in_technical, f in totals:
        f.write(str(technical_pages if in_technical else forms_pages))
    if missing:
        notes.append(f"有 {missing} 处页码未能定位，打开时请更新域")
    save_atomically(doc, target)
    return MergeReport(target, True, forms_pages, technical_pages, tuple(notes))

"""What an office template must not carry into an exported bid (no Qt).

**Links Word follows by itself.** A template may point outside the file: its attached template
(``settings.xml`` → ``http://…/x.dotm`` or ``\\\\server\\share\\x.dotm``: opening the bid sends the
reader's NTLM hash to that server), linked pictures, linked OLE objects, frames, subdocuments,
and fields that fetch a file (INCLUDEPICTURE, INCLUDETEXT, LINK, DDE, IMPORT).
:func:`drop_external_links` removes every external relationship but hyperlinks (followed only
when clicked) together with what referred to it, and reduces fetching fields to the result they
show. It runs on every export from a template.

**暗标.** The template's header and footer (the office's name, a logo), its coloured headings,
its cover and its custom properties identify the bidder. :func:`make_anonymous` empties every
header and footer, makes every colour black and drops custom properties; the writer then uses
the preset's anonymous cover instead of the template's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml.ns import qn

if TYPE_CHECKING:
    from docx.document import Document

#: Fields that make Word (or WPS) read another file or program when the document is updated.
_FETCHING_FIELDS: Final = re.compile(r"^\s*(INCLUDEPICTURE|INCLUDETEXT|LINK|DDE|DDEAUTO|IMPORT|INCLUDE|RD)\b", re.I)
_R_NS: Final = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_W_NS: Final = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
#: Colour attributes that name a theme colour instead of a value.
_THEME_ATTRS: Final = ("themeColor", "themeTint", "themeShade")


def _xml_parts(doc: Document) -> list[Any]:
    """Every part of the package that python-docx holds as an XML tree."""
    return [p for p in doc.part.package.iter_parts() if hasattr(p, "element")]


def drop_external_links(doc: Document) -> list[str]:
    """Remove links Word would follow when the file is opened; returns notes saying what went."""
    removed: list[str] = []
    for part in doc.part.package.iter_parts():
        element = getattr(part, "element", None)
        for r_id, rel in list(part.rels.items()):
            if not rel.is_external or rel.reltype == RT.HYPERLINK:
                continue
            removed.append(rel.reltype.rsplit("/", 1)[-1])
            del part.rels[r_id]
            if element is not None:
                _drop_references(element, r_id)
    fields = sum(_neutralise_fields(part.element) for part in _xml_parts(doc))
    notes: list[str] = []
    if removed:
        kinds = "、".join(sorted(set(removed)))
        notes.append(f"已移除模板中指向外部文件或网址的链接 {len(removed)} 处（{kinds}），打开标书时不会再访问它们")
    if fields:
        notes.append(f"已移除模板中会读取外部文件的域 {fields} 处（如 INCLUDEPICTURE、LINK），保留其显示的内容")
    return notes


def _drop_references(root: Any, r_id: str) -> None:
    """Remove what refers to the relationship ``r_id``: the attached-template element, or the attribute."""
    for el in list(root.iter()):
        for attr, value in list(el.attrib.items()):
            if value != r_id or not attr.startswith(f"{{{_R_NS}}}"):
                continue
            if el.tag == qn("w:attachedTemplate") and el.getparent() is not None:
                el.getparent().remove(el)
                break
            del el.attrib[attr]


def _neutralise_fields(root: Any) -> int:
    """Fields that fetch a file become their shown result; returns how many."""
    count = 0
    for simple in list(root.iter(qn("w:fldSimple"))):
        if _FETCHING_FIELDS.match(simple.get(qn("w:instr")) or "") and simple.getparent() is not None:
            parent = simple.getparent()
            index = parent.index(simple)
            for child in list(simple):
                parent.insert(index, child)
                index += 1
            parent.remove(simple)
            count += 1
    for paragraph in list(root.iter(qn("w:p"))):
        count += _neutralise_complex_fields(paragraph)
    return count


def _neutralise_complex_fields(paragraph: Any) -> int:
    """In one paragraph: begin … instruction … separate … result … end becomes the result runs."""
    runs = [r for r in paragraph if r.tag == qn("w:r")]
    count = 0
    i = 0
    while i < len(runs):
        char = runs[i].find(qn("w:fldChar"))
        if char is None or char.get(qn("w:fldCharType")) != "begin":
            i += 1
            continue
        j, instr, separate = i + 1, "", None
        while j < len(runs):
            c = runs[j].find(qn("w:fldChar"))
            kind = c.get(qn("w:fldCharType")) if c is not None else None
            if kind == "separate" and separate is None:
                separate = j
            if kind == "end":
                break
            if separate is None:
                instr += "".join(t.text or "" for t in runs[j].iter(qn("w:instrText")))
            j += 1
        if j >= len(runs) or not _FETCHING_FIELDS.match(instr):
            i = j + 1
            continue
        drop = [*runs[i:(separate if separate is not None else j) + 1], runs[j]]
        for run in drop:
            if run.getparent() is paragraph:
                paragraph.remove(run)
        count += 1
        i = j + 1
    return count


def make_anonymous(doc: Document) -> None:
    """暗标 over a template: no header or footer of the template's, every colour black, no custom properties."""
    _drop_headers_and_footers(doc)
    for part in _xml_parts(doc):
        _black(part.element)
    package = doc.part.package
    for r_id, rel in list(package.rels.items()):
        if rel.reltype == RT.CUSTOM_PROPERTIES:
            del package.rels[r_id]


def _drop_headers_and_footers(doc: Document) -> None:
    body = doc.element.body
    for sect in body.iter(qn("w:sectPr")):
        for ref in list(sect):
            if ref.tag in (qn("w:headerReference"), qn("w:footerReference")):
                sect.remove(ref)
    for r_id, rel in list(doc.part.rels.items()):
        if rel.reltype in (RT.HEADER, RT.FOOTER):
            del doc.part.rels[r_id]


def _black(root: Any) -> None:
    """Every text colour in ``root`` becomes black (theme colours too)."""
    for color in root.iter(qn("w:color")):
        color.set(qn("w:val"), "000000")
        for attr in _THEME_ATTRS:
            color.attrib.pop(f"{{{_W_NS}}}{attr}", None)


def drop_unused_custom_styles(doc: Document) -> int:
    """暗标: remove the template's own styles nothing in the document uses (a style named after the
    office, 华安正文, would still show in Word's style list); returns how many went.

    A style is used when a paragraph, run, table or numbering of any part names it, or a used
    style is based on it, links to it or is followed by it. Built-in styles stay.
    """
    styles_root = doc.styles.element
    by_id = {s.get(qn("w:styleId")): s for s in styles_root.findall(qn("w:style"))}
    used: set[str] = set()
    refs = (qn("w:pStyle"), qn("w:rStyle"), qn("w:tblStyle"), qn("w:numStyleLink"), qn("w:styleLink"))
    for part in _xml_parts(doc):
        if part.element is styles_root:
            continue
        for el in part.element.iter(*refs):
            value = el.get(qn("w:val"))
            if value:
                used.add(value)
    for style_id, style in by_id.items():
        if style.get(qn("w:default")) in ("1", "true"):
            used.add(style_id)
    queue = list(used)
    while queue:
        style = by_id.get(queue.pop())
        if style is None:
            continue
        for tag in ("w:basedOn", "w:link", "w:next"):
            el = style.find(qn(tag))
            value = el.get(qn("w:val")) if el is not None else None
            if value and value not in used:
                used.add(value)
                queue.append(value)
    removed = 0
    for style_id, style in by_id.items():
        if style_id not in used and style.get(qn("w:customStyle")) in ("1", "true"):
            styles_root.remove(style)
            removed += 1
    return removed

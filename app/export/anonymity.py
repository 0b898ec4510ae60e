"""暗标: find the bidder's name anywhere in the finished document, and strip what identifies the file.

An anonymous (暗标) technical bid must not reveal who wrote it. The name can slip in through
the project name on the cover, a header, the document properties, a drafted paragraph or a
table cell, and rarely in its registered form: writers say 恒信配送 or 恒信公司 for
广州市恒信配送服务有限公司, and a name typed with spaces (恒 信 配 送) reads the same.

:func:`name_forms` (:mod:`app.export.bidder_names`) derives the forms to look for from the
registered name — region, organisation form and industry words taken off, the 字号 alone and with
公司 or its industry — plus any short forms the user adds; :func:`find_mentions` searches every
paragraph of the built document (cover, body, tables, headers, footers) and the properties,
ignoring spaces, zero-width characters, full-width forms, case, combining marks and the
difference between traditional and simplified characters (OpenCC's ``t2s``). A two-character
字号 that is also an everyday word (阳光) only warns — unless it is spaced out (阳 光), which no
one does to an ordinary word. :func:`strip_identifying_metadata` removes the revision
count, the template's rsids and its custom XML item.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from docx.oxml.ns import qn
from lxml import etree

from app.export.bidder_names import NameForms, find_form, name_forms, normalise

__all__ = ["COVER", "FOOTER", "HEADER", "PROPERTIES", "Mention", "NameForms", "find_mentions", "mentions_message",
           "name_forms", "normalise", "strip_identifying_metadata", "weak_message"]

if TYPE_CHECKING:
    from docx.document import Document
    from docx.oxml.xmlchemy import BaseOxmlElement

#: Where a mention was found, for the message.
COVER, HEADER, FOOTER, PROPERTIES = "封面", "页眉", "页脚", "文档属性"

@dataclass(frozen=True)
class Mention:
    """The bidder's name (in ``form``) found in ``place`` (a heading's text, 封面, 页眉 …)."""

    place: str
    form: str
    text: str


def _paragraph_text(p: BaseOxmlElement) -> str:
    return "".join(t.text or "" for t in p.iter(qn("w:t")))


def _body_paragraphs(doc: Document) -> Iterator[tuple[str, str]]:
    """``(place, text)`` of every body paragraph, tables included; the place is the last heading."""
    front = "目录或评分索引表、偏离表"  # what precedes the first chapter after the cover
    place = COVER if _has_cover(doc) else front
    heading_ids = {s.style_id for s in doc.styles if (s.name or "").startswith("Heading ")}
    p_tag, style_tag, val = qn("w:p"), qn("w:pStyle"), qn("w:val")
    for p in doc.element.body.iter(p_tag):
        text = _paragraph_text(p)
        ppr = p.find(qn("w:pPr"))
        style = ppr.find(style_tag) if ppr is not None else None
        if style is not None and style.get(val) in heading_ids:
            place = f"“{text.strip()}”"
        yield place, text
        if ppr is not None and ppr.find(qn("w:sectPr")) is not None and place == COVER:
            place = front


def _has_cover(doc: Document) -> bool:
    return len(doc.sections) > 1


#: Where a part of the package is, by its name (the body is placed by its headings instead).
_PART_PLACES: Final = (
    ("/word/header", HEADER), ("/word/footer", FOOTER), ("/docProps/", PROPERTIES), ("/word/styles", "样式名称"),
    ("/word/comments", "批注"), ("/word/footnotes", "脚注"), ("/word/endnotes", "尾注"),
    ("/word/settings", "文档设置"), ("/word/glossary", "文档部件（构建基块）"), ("/word/numbering", "编号样式"),
    ("/customXml/", "自定义 XML 数据"),
)


_W: Final = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
#: Text outside the runs' ``w:t`` (field codes, drawing text, property values).
_LOOSE_TEXT: Final = etree.XPath("//text()[not(parent::w:t)]", namespaces={"w": _W})
#: Attributes that hold words a reader sees: alt text, a watermark's text, titles, and the ``w:val`` of a
#: style's name or a content control's title or tag.
_WORD_ATTRS: Final = etree.XPath(
    "//@*[local-name()='descr' or local-name()='title' or local-name()='name' or local-name()='string'"
    " or local-name()='alt'] | //w:name/@w:val | //w:alias/@w:val | //w:tag/@w:val | //w:aliases/@w:val",
    namespaces={"w": _W})


def _part_place(partname: str) -> str:
    return next((place for prefix, place in _PART_PLACES if partname.startswith(prefix)), f"文件部件 {partname}")


def _parts_text(doc: Document) -> Iterator[tuple[str, str]]:
    """The text of every part of the package but the body: headers and footers (also those no section
    uses), properties (core, app, custom), styles' names, comments, notes, settings, a template's
    building blocks — paragraph by paragraph, plus every attribute value and loose text (a watermark's
    ``v:textpath string``, a picture's alt text, a property value)."""
    body = doc.part
    for text in _texts(body.element, paragraphs=False):  # alt text, field codes: the paragraphs come with places
        yield "正文中的图片说明、域代码或属性", text
    for part in body.package.iter_parts():
        if part is body:
            continue
        root = getattr(part, "element", None)
        if root is None:
            content_type = str(getattr(part, "content_type", ""))
            if not content_type.endswith("xml"):
                continue
            try:
                root = etree.fromstring(part.blob, etree.XMLParser(resolve_entities=False, huge_tree=False))
            except (etree.XMLSyntaxError, ValueError):
                continue
        place = _part_place(str(part.partname))
        for text in _texts(root):
            yield place, text


def _texts(root: BaseOxmlElement, paragraphs: bool = True) -> Iterator[str]:
    """Each paragraph's text (unless ``paragraphs`` is off), the text outside paragraphs' runs, and the
    attributes that hold words (alt text, a watermark's text, style and property names)."""
    if paragraphs:
        for p in root.iter(qn("w:p")):
            yield _paragraph_text(p)
    yield from (str(t) for t in _LOOSE_TEXT(root) if str(t).strip())
    yield from (str(v) for v in _WORD_ATTRS(root) if len(str(v)) >= 2)


def find_mentions(doc: Document, forms: NameForms) -> tuple[list[Mention], list[Mention]]:
    """Every paragraph or property holding a form that refuses (first list) or only warns (second)."""
    strong: list[Mention] = []
    weak: list[Mention] = []
    if not forms.forms and not forms.weak and not forms.alone:
        return strong, weak
    for place, text in (*_body_paragraphs(doc), *_parts_text(doc)):
        found = find_form(text, forms)
        if found is not None:
            (strong if found[1] else weak).append(Mention(place, found[0], text.strip()))
    return strong, weak


def mentions_message(bidder: str, mentions: Sequence[Mention]) -> str:
    """The Chinese refusal naming up to three places."""
    places: list[str] = []
    for m in mentions:
        if m.place not in places:
            places.append(m.place)
    more = f"等 {len(places)} 处" if len(places) > 3 else ""
    forms = sorted({m.form for m in mentions if m.form != normalise(bidder)})
    variant = f"（含简称或变体“{'”“'.join(forms[:3])}”）" if forms else ""
    return (f"暗标文件中不得出现投标人名称“{bidder.strip()}”{variant}，但在 {'、'.join(places[:3])}{more}中出现了。"
            "请删除后再导出。")


def weak_message(mentions: Sequence[Mention]) -> str:
    """A warning about a two-character trade name that may be the bidder's short name."""
    forms = sorted({m.form for m in mentions})
    places: list[str] = []
    for m in mentions:
        if m.place not in places:
            places.append(m.place)
    return (f"文中出现“{'”“'.join(forms)}”（可能是投标人简称），位置：{'、'.join(places[:3])}"
            f"{'等' if len(places) > 3 else ''}，请确认。")


def strip_identifying_metadata(doc: Document) -> None:
    """Remove the revision count, every rsid (settings and attributes) and the template's custom XML."""
    props = doc.core_properties._element
    for el in props.findall(qn("cp:revision")):
        props.remove(el)
    settings = doc.settings.element
    for el in settings.findall(qn("w:rsids")):
        settings.remove(el)
    rsid_attrs = [qn(a) for a in ("w:rsidR", "w:rsidRPr", "w:rsidRDefault", "w:rsidP", "w:rsidDel", "w:rsidSect",
                                  "w:rsidTr")]
    rsid_tag = qn("w:rsid")
    for root in (doc.element, doc.styles.element, settings, doc.part.numbering_part.element):
        for el in list(root.iter()):
            for attr in rsid_attrs:
                el.attrib.pop(attr, None)
            if el.tag == rsid_tag and el.getparent() is not None:
                el.getparent().remove(el)
    for r_id, rel in list(doc.part.rels.items()):
        if rel.reltype.endswith("/customXml"):
            del doc.part.rels[r_id]

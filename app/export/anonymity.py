"""暗标: find the bidder's name anywhere in the finished document, and strip what identifies the file.

An anonymous (暗标) technical bid must not reveal who wrote it. The name can slip in through
the project name on the cover, a header, the document properties, a drafted paragraph or a
table cell, and rarely in its registered form: writers say 恒信配送 or 恒信公司 for
广州市恒信配送服务有限公司, and a name typed with spaces (恒 信 配 送) reads the same.

:func:`name_forms` derives the forms to look for from the registered name (region, legal form
and trade words removed step by step) plus any short forms the user adds;
:func:`find_mentions` searches every paragraph of the built document (cover, body, tables,
headers, footers) and the properties, ignoring spaces, zero-width characters, full-width
forms, case, combining marks and the difference between traditional and simplified characters
(OpenCC's ``t2s``). A trade name of two characters alone (恒信) is too common a word to refuse
on, so it is reported as a warning. :func:`strip_identifying_metadata` removes the revision
count, the template's rsids and its custom XML item.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from docx.oxml.ns import qn

if TYPE_CHECKING:
    from docx.document import Document
    from docx.oxml.xmlchemy import BaseOxmlElement

#: Legal forms at the end of a registered name, longest first.
_LEGAL_FORMS: Final = (
    "集团股份有限公司", "集团有限责任公司", "集团有限公司", "股份有限公司", "有限责任公司", "有限公司",
    "股份公司", "集团公司", "分公司", "事务所", "合作社", "工作室", "公司", "集团", "股份",
    "corporationlimited", "companylimited", "coltd", "colimited", "limited", "ltd", "inc", "corp",
    "corporation", "company", "co", "llc", "gmbh",
)
#: Trade words between the trade name and the legal form (科技、配送、物业 …).
_TRADE_WORDS: Final = (
    "供应链管理", "信息技术", "网络技术", "智能科技", "科技发展", "工程技术", "环境科技", "物业管理", "餐饮管理",
    "企业管理", "项目管理", "工程管理", "建设工程", "技术服务", "咨询服务", "安全技术", "系统集成",
    "科技", "技术", "信息", "网络", "软件", "电子", "智能", "数据", "数字", "工程", "建设", "建筑", "设计",
    "咨询", "管理", "服务", "物业", "配送", "贸易", "商贸", "实业", "发展", "投资", "环境", "环保", "水务",
    "能源", "电力", "通信", "传媒", "文化", "教育", "医疗", "餐饮", "食品", "物流", "供应链", "保安", "安防",
    "系统", "集成", "控股", "国际", "产业", "后勤", "保洁", "绿化", "园林", "检测", "监理", "测绘", "规划",
    "印务", "广告", "农业", "商务", "资产", "运营", "人力资源", "劳务", "家政", "设备", "机电", "消防",
    "technology", "technologies", "tech", "information", "network", "software", "engineering", "consulting",
    "services", "service", "group", "holdings", "international", "trading", "management",
)
#: Provinces, autonomous regions and large cities that open many registered names without 省/市.
_PLACES: Final = (
    "北京", "上海", "天津", "重庆", "河北", "山西", "辽宁", "吉林", "黑龙江", "江苏", "浙江", "安徽", "福建",
    "江西", "山东", "河南", "湖北", "湖南", "广东", "海南", "四川", "贵州", "云南", "陕西", "甘肃", "青海",
    "台湾", "内蒙古", "广西", "西藏", "宁夏", "新疆", "香港", "澳门", "广州", "深圳", "杭州",
    "南京", "武汉", "成都", "西安", "苏州", "厦门", "青岛", "大连", "宁波", "沈阳", "长沙", "郑州", "济南",
    "合肥", "福州", "昆明", "南宁", "贵阳", "南昌", "石家庄", "太原", "哈尔滨", "长春", "兰州", "银川",
    "西宁", "乌鲁木齐", "拉萨", "海口", "呼和浩特", "佛山", "东莞", "珠海", "无锡", "温州", "阳江",
)
_REGION_PREFIX: Final = re.compile(r"^[\u4e00-\u9fff]{2,4}?(?:省|市|自治区|特别行政区|自治州|地区|盟|区|县|旗)")
_BRACKETED: Final = re.compile(r"[（(][^（）()]{1,12}[）)]")
#: Characters ignored when comparing: spaces of every width, zero-width marks, dots and dashes.
_IGNORED: Final = re.compile(r"[\s\u200b-\u200f\u2060\ufeff·•・.,，、_\-—–'\"“”‘’()（）\[\]【】]+")
#: Where a mention was found, for the message.
COVER, HEADER, FOOTER, PROPERTIES = "封面", "页眉", "页脚", "文档属性"


#: Marks that change how a character looks but not which name it spells (accents, variation selectors,
#: enclosing circles) and format characters; removed before comparing.
_MARK_CATEGORIES: Final = frozenset({"Mn", "Me", "Cf"})


@functools.lru_cache(maxsize=1)
def _simplifier() -> Callable[[str], str]:
    """Traditional → simplified Chinese (OpenCC's ``t2s``); identity when OpenCC cannot load."""
    try:
        import opencc

        converter = opencc.OpenCC("t2s")
    except Exception:  # a broken install must not stop an export; the other foldings still apply
        return lambda text: text
    return lambda text: str(converter.convert(text))


def normalise(text: str) -> str:
    """``text`` as compared: compatibility forms folded (full-width → half-width, radicals), combining
    marks dropped, traditional characters made simplified, lower case, separators removed."""
    decomposed = unicodedata.normalize("NFKD", text)
    if any(unicodedata.category(ch) in _MARK_CATEGORIES for ch in decomposed):
        decomposed = "".join(ch for ch in decomposed if unicodedata.category(ch) not in _MARK_CATEGORIES)
    folded = unicodedata.normalize("NFKC", decomposed).casefold()
    if any("\u3400" <= ch <= "\u9fff" for ch in folded):
        folded = _simplifier()(folded)
    return _IGNORED.sub("", folded)


def _strip_legal_form(name: str) -> str:
    changed = True
    while changed:
        changed = False
        for form in _LEGAL_FORMS:
            if name.endswith(form) and len(name) - len(form) >= 2:
                name = name[: -len(form)]
                changed = True
                break
    return name


def _strip_region(name: str) -> str:
    for _ in range(3):
        place = next((p for p in _PLACES if name.startswith(p) and len(name) - len(p) >= 2), None)
        if place:
            name = name[len(place):]
            name = name[1:] if name[:1] in "省市" and len(name) > 3 else name
            continue
        m = _REGION_PREFIX.match(name)
        if m and len(name) - m.end() >= 2:
            name = name[m.end():]
            continue
        break
    return name


def _distinctive(key: str) -> bool:
    """Long enough to refuse on: three CJK characters, or five Latin letters or digits."""
    cjk = sum(1 for ch in key if "\u3400" <= ch <= "\u9fff")
    return cjk >= 3 or (cjk == 0 and len(key) >= 5) or (cjk >= 2 and len(key) - cjk >= 2)


@dataclass(frozen=True)
class NameForms:
    """What to look for: ``forms`` refuse the export, ``weak`` (a bare two-character trade name) warn."""

    forms: tuple[str, ...]
    weak: tuple[str, ...] = ()


def name_forms(bidder: str, aliases: Sequence[str] = ()) -> NameForms:
    """The normalised forms of the bidder's name to search for, longest first.

    From ``广州市恒信配送服务有限公司``: the full name, 广州市恒信配送服务, 恒信配送服务,
    恒信配送, 恒信公司 / 恒信集团 (and 恒信 as a weak form). Every alias the user gives is a
    full form of its own. Forms shorter than two characters are never used.
    """
    forms: list[str] = []
    weak: list[str] = []

    def add(text: str, into: list[str], always: bool = False) -> None:
        key = normalise(text)
        if len(key) < 2 or key in forms:
            return
        target = into if always or _distinctive(key) else weak
        if key not in target:
            target.append(key)

    for source in (bidder, *aliases):
        raw = unicodedata.normalize("NFKC", source).strip()
        if not raw:
            continue
        add(raw, forms, always=True)
        if source is not bidder:
            continue
        compact = normalise(_BRACKETED.sub("", raw))
        add(compact, forms)
        no_form = _strip_legal_form(compact)
        add(no_form, forms)
        core = _strip_region(no_form)
        add(core, forms)
        # Trade words off one at a time: 恒信配送服务 -> 恒信配送 -> 恒信.
        trade = core
        industry: list[str] = []
        while True:
            word = next((w for w in _TRADE_WORDS if trade.endswith(w) and len(trade) - len(w) >= 2), None)
            if word is None:
                break
            trade = trade[: -len(word)]
            industry.insert(0, word)
            add(trade, forms)
        # Between a place and the industry words, the trade name proper is most often the first
        # two characters of what is left (宏图 of 广州市宏图智慧科技): writers say 宏图公司, 宏图科技,
        # or just 宏图. A name that opens with no place (中国电信) is a brand as a whole.
        names = [trade]
        if core != no_form and len(trade) >= 4 and all("\u3400" <= ch <= "\u9fff" for ch in trade[:2]):
            names.append(trade[:2])
        for name in names:
            add(name, forms)
            for suffix in ("公司", "集团", "股份", *industry[:2], "".join(industry[:2])):
                if suffix:
                    add(name + suffix, forms)
    weak = [w for w in weak if w not in forms]
    return NameForms(tuple(sorted(forms, key=len, reverse=True)), tuple(weak))


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


def _parts_text(doc: Document) -> Iterator[tuple[str, str]]:
    seen: set[int] = set()
    for section in doc.sections:
        for kind, label in ((section.header, HEADER), (section.first_page_header, HEADER),
                            (section.even_page_header, HEADER), (section.footer, FOOTER),
                            (section.first_page_footer, FOOTER), (section.even_page_footer, FOOTER)):
            if kind.is_linked_to_previous:
                continue
            element = kind._element
            if id(element) in seen:
                continue
            seen.add(id(element))
            for p in element.iter(qn("w:p")):
                yield label, _paragraph_text(p)
    props = doc.core_properties
    for value in (props.title, props.subject, props.author, props.last_modified_by, props.keywords,
                  props.comments, props.category, props.content_status, props.identifier):
        if value:
            yield PROPERTIES, value


def find_mentions(doc: Document, forms: NameForms) -> tuple[list[Mention], list[Mention]]:
    """Every paragraph or property holding one of ``forms.forms`` (first list) or only a weak form."""
    strong: list[Mention] = []
    weak: list[Mention] = []
    if not forms.forms and not forms.weak:
        return strong, weak
    for place, text in (*_body_paragraphs(doc), *_parts_text(doc)):
        key = normalise(text)
        if not key:
            continue
        hit = next((f for f in forms.forms if f in key), None)
        if hit is not None:
            strong.append(Mention(place, hit, text.strip()))
            continue
        soft = next((f for f in forms.weak if f in key), None)
        if soft is not None:
            weak.append(Mention(place, soft, text.strip()))
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

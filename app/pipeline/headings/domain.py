"""The trades a tender is in — finer than works / goods / services — read from the tender itself.

An IT, software or data service is neither a cleaning contract nor a building site: a heading
library structure written for one (安全员配置, 劳动防护用品配备; 日常服务内容, 重点时段服务安排;
安装指导, 投运保障) is foreign to the others. :func:`tender_profile` reads a tender's kind (works /
goods / services, :mod:`.tender_kind`) and its domains from its project name, its items, its
采购需求 headings and its requirements text, weighted by where a word stands (the name counts most);
:meth:`TenderProfile.fits` says whether a library entry, variant or section tagged with kinds and
domains may be used for it. A tender whose words say nothing has no domains, and then every
structure of its kind fits.

Domains: ``it`` (software, information systems, data, networks and their security), ``facility``
(property, cleaning, guarding, landscaping, front desk and logistics of a building), ``catering``
(canteens, food and its supply), ``works`` (construction and installation works), ``goods``
(supply of equipment, materials and products), ``logistics`` (delivery, transport, storage),
``staffing`` (labour outsourcing and dispatch), ``consulting`` (design, supervision, audit,
assessment and advice), ``ops`` (operation and maintenance on site: 运维, 维保, 驻场, 值守).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from app.pipeline.headings.tender_kind import Kind, tender_kind

if TYPE_CHECKING:
    from app.core.analysis import Analysis
    from app.pipeline.headings.library import LibraryEntry, LibrarySection, LibraryVariant

Domain = Literal["it", "facility", "catering", "works", "goods", "logistics", "staffing", "consulting", "ops"]
DOMAINS: tuple[Domain, ...] = get_args(Domain)
DOMAIN_ZH: dict[str, str] = {"it": "信息化/软件/数据", "facility": "物业/保洁/安保", "catering": "餐饮/食材",
                             "works": "工程施工", "goods": "货物/设备供应", "logistics": "配送/物流/仓储",
                             "staffing": "劳务外包/派遣", "consulting": "咨询/设计/评估", "ops": "运行维护/驻场"}

#: Words that put a tender in a domain. Each pattern is one word family; a family counts once per text.
_WORDS: dict[Domain, tuple[str, ...]] = {
    "it": (r"软件", r"信息系统|信息化|数字化|智慧|智能化", r"数据(?!线)", r"网络(?!货运)|网站|云平台|APP|小程序",
           r"渗透|漏洞|等级保护|等保|安全测评|安全评估|网络安全|信息安全", r"系统(?:开发|集成|建设|平台|运维|功能)|平台(?:建设|开发|采购)",
           r"RPA|IPTV|元数据|短信|机房|服务器|计算机|信创|数据库|编目"),
    "facility": (r"物业", r"保洁|清洁|清扫|环卫", r"保安|安保|特保|门卫|秩序维护|巡逻", r"绿化|园林",
                 r"后勤|会务|前台|行政辅助", r"楼宇|大楼|公共区域|宿舍"),
    "catering": (r"食堂|餐厅|餐饮|伙食|膳食|配餐|就餐", r"食材|食品|菜品|肉|粮油|蔬菜|营养"),
    "works": (r"施工", r"工程(?!师|部|化)", r"修缮|装修|改造(?!升级服务)|土建|管网|道路|桥梁|管廊", r"市政(?!府)|养护工程|安装工程|总承包"),
    "goods": (r"货物|供货|到货|交货", r"设备(?:采购|购置|供应)|采购及安装|供应及安装", r"仪器|开关柜|泵|电缆|变压器|家具|车辆采购|软硬件|硬件",
              r"产品|型号|技术参数|出厂", r"期刊|图书|教材|种子|化肥",
              r"摄像机|录像机|交换机|显示屏|一体机|终端|主机|传感器|控制器|UPS|电源|机柜|打印机|服务器"),
    "logistics": (r"配送", r"物流|快递", r"仓储|冷库|冷藏库", r"运输|收运|装卸"),
    "staffing": (r"劳务", r"派遣", r"外包(?:服务)?人员|人员外包|业务外包|用工", r"船员|船管员|辅助人员|辅助服务|护工"),
    "consulting": (r"咨询", r"设计服务|深化设计|勘察|测绘", r"监理|审计|评估|造价", r"管家|专家|策划|代理"),
    "ops": (r"运维|运行维护|维保", r"(?<!数据)维护|维修|保养|养护|检修", r"驻场|值守|值班|巡检|点检|巡查"),
}
_COMPILED = {d: tuple(re.compile(p) for p in pats) for d, pats in _WORDS.items()}
#: Families that name where the work is done, not what is bought: a canteen (食堂, 餐厅) or a building
#: (大楼, 宿舍). In a name or a heading such a family counts for its domain only when it names no other
#: domain's work:
#: 餐厅洗碗业务外包 buys dishwashing labour at a canteen, not a canteen's cooking (菜谱, 烹饪), while
#: 食堂劳务派遣 staffs the canteen's own work.
_PLACES: dict[tuple[Domain, int], re.Pattern[str]] = {
    ("catering", 0): re.compile(r"食堂|餐厅|就餐"), ("facility", 5): re.compile(r"楼宇|大楼|公共区域|宿舍"),
}


_NAME_LENGTH = 60  # a text this short names something (a project, an item, a heading)
#: Washing named at a canteen is other work than the canteen's cooking, though no property service either.
_WASHING = re.compile(r"洗碗|洗涤|餐具清洗|清洗消毒")


def _place_only(domain: Domain, family: int, flat: str) -> bool:
    """Whether the family's words in ``flat`` all name a place (食堂, 大楼), none the work bought (餐饮, 配餐)."""
    place = _PLACES.get((domain, family))
    return place is not None and not _COMPILED[domain][family].search(place.sub("", flat))


@dataclass(frozen=True)
class TenderProfile:
    """A tender's kind and domains, and what library structures fit it."""

    kind: Kind | None = None
    domains: frozenset[Domain] = frozenset()
    #: The domains, the one the tender's words say most first.
    ranked: tuple[Domain, ...] = ()

    def fits(self, kinds: Iterable[str] = (), domains: Iterable[str] = (), strict: bool = False) -> bool:
        """Whether a structure written for ``kinds`` and ``domains`` (empty: any) may be used for this tender.

        ``strict``: a structure written for some domains needs a tender known to be in one of them (a
        heading looked up by its words alone, not by the item's name, must not bring a canteen's
        菜品质量控制 to a tender whose domain the words do not say).
        """
        k, d = tuple(kinds), frozenset(domains)
        if self.kind is not None and k and self.kind not in k and not (set(k) & self.domains):
            return False  # a services tender whose items are products (goods among its domains) takes goods' structures
        if self.kind is None and k and self.domains and not (set(k) & self.domains) and "services" not in k:
            return False  # kind unknown: a supply's or a site's structure needs goods or works among its domains
        if not d:
            return True
        return bool(d & self.domains) if (self.domains or strict) else True

    def fits_entry(self, entry: LibraryEntry) -> bool:
        """Whether the entry, and at least one of its variants, may be used for this tender."""
        return self.fits(entry.kinds, entry.domains) and any(self.fits(v.kinds, v.domains) for v in entry.variants)

    def fits_section(self, entry: LibraryEntry, variant: LibraryVariant, section: LibrarySection,
                     strict: bool = False) -> bool:
        """Whether a library section may be used: its entry, its variant and itself are written for this tender."""
        return (self.fits(entry.kinds, entry.domains, strict) and self.fits(variant.kinds, variant.domains, strict)
                and self.fits(section.kinds, section.domains, strict))

    def describe(self) -> str:
        """The domains in Chinese, for messages and reports."""
        return "、".join(DOMAIN_ZH[d] for d in DOMAINS if d in self.domains) or "未能判断"


def domain_scores(weighted: Iterable[tuple[str, float]]) -> dict[Domain, float]:
    """Each domain's score: for every text, the number of its word families found there times the text's weight
    (a family naming a place only where the text names no other domain's work, see ``_PLACES``)."""
    scores: dict[Domain, float] = dict.fromkeys(DOMAINS, 0.0)
    for text, weight in weighted:
        flat = re.sub(r"\s+", "", text or "")
        if not flat:
            continue
        found = {d: [(i, _place_only(d, i, flat)) for i, p in enumerate(pats) if p.search(flat)]
                 for d, pats in _COMPILED.items()}
        # in a name or a heading the place qualifies the work named beside it (staffing is how the work is
        # bought, not other work: 食堂劳务派遣 staffs the canteen's cooking); a long text says everything
        work = set()
        if len(flat) <= _NAME_LENGTH:
            work = {d for d, hits in found.items() if d != "staffing" and any(not place for _, place in hits)}
            work |= {"facility"} if _WASHING.search(flat) else set()
        for d, hits in found.items():
            scores[d] += weight * sum(1 for _, place in hits if not place or not (work - {d}))
    return scores


def read_domains(weighted: Iterable[tuple[str, float]], named: Iterable[tuple[str, float]] = ()) -> tuple[Domain, ...]:
    """The domains whose score is at least 3 and at least a third of the best one, best first (none when
    nothing says).

    ``named`` are the texts among ``weighted`` that name the purchase (project, items). When some domain
    is named there, a domain only the long requirements text mentions needs half the best score: a
    database-access service whose 采购需求 mention 期刊, 产品 and a mirror 服务器 in passing buys no goods.
    """
    scores = domain_scores(weighted)
    top = max(scores.values(), default=0.0)
    if top < 3:
        return ()
    heads = domain_scores(named)
    some_named = any(heads.values())
    kept = [d for d in DOMAINS if scores[d] >= 3 and scores[d] * 3 >= top
            and (heads[d] or not some_named or scores[d] * 2 >= top)]
    return tuple(sorted(kept, key=lambda d: -scores[d]))


def profile_from_text(project: str, items: Iterable[str] = (), requirements: Iterable[str] = (),
                      criteria: Iterable[str] = ()) -> TenderProfile:
    """A profile from the project's words (name, summary, scope: weight 3), its items' names (2), its
    requirements headings and text (1) and its criteria (0.5 each, the criteria of every item together at most 3)."""
    crit, items = list(criteria), list(items)
    weighted = [(project, 3.0), *((t, 2.0) for t in items), *((t, 1.0) for t in requirements),
                *((t, min(0.5, 3.0 / max(1, len(crit)))) for t in crit)]
    ranked = read_domains(weighted, [(project, 3.0), *((t, 2.0) for t in items)])
    return TenderProfile(tender_kind(project), frozenset(ranked), ranked)


def tender_profile(analysis: Analysis) -> TenderProfile:
    """The profile of the analysed tender (project, items, 采购需求 headings and text, criteria)."""
    ov = analysis.overview
    project = " ".join([ov.project_name, ov.summary, ov.scope])
    groups = analysis.technical_groups or [g for g in analysis.groups if g.category == "technical"]
    requirements = [h.text for h in analysis.requirement_headings] + [analysis.technical_requirements,
                                                                      *ov.technical_requirements]
    return profile_from_text(project, [g.title for g in groups], requirements, [g.description for g in groups])

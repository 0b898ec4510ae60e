"""Grounded heading candidates for one chapter, and the chapter code writes when the model cannot.

Three sources, in order of trust: the tender's own words (the scoring item's criteria points,
the matching headings of its requirements chapter), then the user's own past bids (历史标书:
past sections about the item, when a library store is given; rule 16), then the heading
library (the entries matched to the item). :func:`plan_chapter` gathers them into a :class:`ChapterPlan`:

- ``options``: level-2 candidates for the model to choose and order, and for a capable
  model's prompt as guidance;
- ``nodes``: the default children, built by code from those candidates only. When the
  criteria name the parts of the answer (①…方案 ②…计划), those parts are the sections and
  each gets level-3 headings from its own sub-points, the requirements, or the library
  entry that fits it; otherwise the best library structure is used and the tender's points
  become the level-3 headings of its "slot" section. Every node is marked with its origin.

A :class:`TitleRegistry` shared by the chapters of one outline keeps every chapter's headings
distinct from every other chapter's: code never repeats one pattern under every chapter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from app.core.outline import Origin, OutlineNode
from app.core.rules import registry as rules
from app.core.rules.heading_checks import HeadingContext
from app.core.rules.heading_form import evidence_items
from app.core.rules.outline import normalize_title
from app.pipeline.headings.criteria_points import CriteriaPoint, point_heading, split_criteria
from app.pipeline.headings.domain import TenderProfile, tender_profile
from app.pipeline.headings.library import HeadingLibrary, LibraryEntry, LibrarySection, default_library
from app.pipeline.headings.match import EntryMatch, distinct_parts, match_item, rank_variants
from app.pipeline.headings.past_bids import past_structures
from app.pipeline.headings.tender_kind import tender_kind

if TYPE_CHECKING:
    from app.core.analysis import Analysis, RequirementHeading, ScoringGroup
    from app.library.store import LibraryStore

#: Level-2 headings that stand as sections of an answer on their own.
_SECTION_END = ("方案", "计划", "机制", "措施", "制度", "体系", "预案", "办法", "管理", "服务", "培训", "分析", "承诺", "保障",
                "配置", "配备", "建设", "设计", "流程", "标准", "规范", "控制", "安排")
#: Words too common in tenders to say that two headings are about the same thing.
_COMMON = ("项目", "服务", "要求", "需求", "方案", "管理", "内容", "情况", "措施", "工作", "相关", "其他", "保障", "标准",
           "实施", "具体", "整体", "总体", "基本", "投标", "采购", "技术", "计划", "制度", "体系", "机制", "能力", "安排",
           "处理", "方面", "本项目", "的", "与", "及", "和")
_COMMON_LONGEST_FIRST = tuple(sorted(_COMMON, key=len, reverse=True))
_NOT_HAN = re.compile(r"[^\u4e00-\u9fff]")
_DOMAIN_FALLBACK = ("property", "canteen", "cleaning", "security_guard", "landscaping", "delivery", "data_processing",
                    "software_dev", "construction_org", "driving", "office_support")
#: The structure for an item nothing matched in a tender of one domain (the domain its words say most first).
_FALLBACK_FOR_DOMAIN = (("works", "construction_org"), ("catering", "canteen"), ("facility", "property"),
                        ("it", "service_plan"), ("logistics", "delivery"), ("staffing", "personnel_management"),
                        ("goods", "technical_solution"))
#: What an item nothing matched is, read from its name: a piece of software or a system, a device or product.
_ITEM_IS = ((re.compile(r"软件|系统|平台|APP|App|客户端|小程序|模块|数据库"), "software_dev"),
            (re.compile(r"摄像机|录像机|交换机|显示屏|一体机|终端|主机|传感器|控制器|UPS|电源|机柜|打印机|服务器|设备|仪器|"
                        r"产品|材料|器材|装置|机组|柜$|机$"), "product_design"))
#: Criteria that score the product offered (所投…, 投标设备…, 技术参数/指标): the item is answered by its technical response.
_OFFERED = re.compile(r"所投|投标(?:设备|产品|货物)|拟投(?:设备|产品)|技术参数|技术指标|产品参数")
_OFFERED_REASON = "评分标准评所投产品"
#: The generic structure for an item nothing matched, by the tender's kind.
GENERIC_FOR = {"works": "construction_org", "goods": "technical_solution", "services": "service_plan"}
_BACKGROUND = re.compile(r"概况|概述|背景|简介|基本情况|项目情况|项目说明|总则")
_GOODS = re.compile(r"设备|货物|供货|产品|采购及安装|开关柜|材料")


@lru_cache(maxsize=16384)
def grams(text: str) -> frozenset[str]:
    """Character bigrams of the specific words of ``text`` (common tender words cut out first)."""
    t = _NOT_HAN.sub("|", text)
    for w in _COMMON_LONGEST_FIRST:
        t = t.replace(w, "|")
    return frozenset(seg[i:i + 2] for seg in t.split("|") for i in range(len(seg) - 1))


def heading_defect(title: str, level: int = 2, parent: str = "", chapter: str = "", criteria: str = "",
                   project: str = "") -> str | None:
    """What the app's heading rules say of a heading code offers, as they would of a model's whole answer
    (fragments, connectives, open brackets, judging words, document instructions, the bidder's voice, echoes…):
    code is held to the bar a model's heading meets."""
    ctx = HeadingContext(title=title, level=level, writer="model", parent=parent, chapter=chapter if level > 2 else "",
                         project=project, criteria=criteria, context=project + criteria)
    return rules.first_problem(ctx)


def _related(title: str, *texts: str) -> bool:
    """Whether ``texts`` share a specific word with ``title`` (always, when ``title`` has none)."""
    words = grams(title)
    return not words or any(words & grams(t) for t in texts)


@lru_cache(maxsize=16384)
def _all_grams(text: str) -> frozenset[str]:
    t = _NOT_HAN.sub("", normalize_title(text))
    return frozenset(t[i:i + 2] for i in range(len(t) - 1))



def same_heading(a: str, b: str, threshold: float = 0.8) -> bool:
    """Whether two headings are the same heading (equal, or nearly all bigrams shared: Dice)."""
    x, y = normalize_title(a), normalize_title(b)
    if not x or not y:
        return False
    if x == y:
        return True
    ga, gb = _all_grams(x), _all_grams(y)
    return bool(ga and gb) and 2 * len(ga & gb) / (len(ga) + len(gb)) >= threshold


def covers(general: str, specific: str, threshold: float = 0.8) -> bool:
    """Whether heading ``general`` is about what ``specific`` names: the specific words of
    ``general`` (at least two bigrams) are mostly found in ``specific``."""
    if same_heading(general, specific):
        return True
    g, s = grams(general), grams(specific)
    shared = len(g & s)
    return len(g) >= 2 and shared >= 2 and shared / len(g) >= threshold


def restates(candidate: str, chapter: str) -> bool:
    """Whether ``candidate`` only restates the chapter (its specific words are all the chapter's)."""
    if same_heading(candidate, chapter, 0.85):
        return True
    g = grams(candidate)
    return g <= grams(chapter)


#: A caller's last step on each chapter plan (plan, its scoring item, the outline's registry; levels, max_children
#: and project by keyword).
CompletePlan = Callable[..., None]


@dataclass(frozen=True)
class Candidate:
    """A heading suggested for a chapter: its text, where it comes from, and level-3 suggestions."""

    title: str
    source: Origin
    note: str = ""
    children: tuple[tuple[str, Origin], ...] = ()


class TitleRegistry:
    """Headings already used in the outline: no heading and no set of children is used twice."""

    def __init__(self, reserved: list[str] | None = None) -> None:
        self._titles: set[str] = {normalize_title(t) for t in reserved or []}
        self._sets: set[frozenset[str]] = set()

    def free(self, title: str) -> bool:
        """Whether ``title`` is not used yet (nor anything that says the same)."""
        key = normalize_title(title)
        return bool(key) and key not in self._titles

    def take(self, title: str) -> None:
        """Mark ``title`` as used."""
        self._titles.add(normalize_title(title))

    def take_set(self, titles: list[str]) -> bool:
        """Mark a set of sibling titles as used; False (and nothing marked) when the set exists."""
        sig = frozenset(normalize_title(t) for t in titles)
        if sig in self._sets:
            return False
        self._sets.add(sig)
        return True


@dataclass
class ChapterPlan:
    """What code knows for one chapter: matched entries, grounded candidates and default children."""

    chapter: str
    entries: list[EntryMatch] = field(default_factory=list)
    points: list[Candidate] = field(default_factory=list)
    requirements: list[Candidate] = field(default_factory=list)
    sections: list[Candidate] = field(default_factory=list)
    history: list[Candidate] = field(default_factory=list)  # sections of the user's past bids about this item
    nodes: list[OutlineNode] = field(default_factory=list)
    structured: bool = False  # the criteria (or requirements) name the chapter's sections
    attachments: list[str] = field(default_factory=list)  # documents the criteria ask to attach (never headings)

    def children_for(self, title: str) -> list[OutlineNode]:
        """Level-3 headings code planned (or was offered) for a section titled ``title``; [] when none."""
        for n in self.nodes:
            if same_heading(n.title, title, 0.9):
                return [c.model_copy(deep=True) for c in n.children]
        for c in [*self.points, *self.requirements, *self.history, *self.sections]:
            if same_heading(c.title, title, 0.9) and c.children:
                return [OutlineNode(title=t, origin=s) for t, s in c.children]
        return []

    def options(self, limit: int = 12) -> list[Candidate]:
        """Level-2 candidates, the default ones first, then alternatives from every source."""
        out: list[Candidate] = []
        for c in [*self._node_candidates(), *self.points, *self.requirements, *self.history, *self.sections]:
            if not any(same_heading(c.title, o.title, 0.8) for o in out):
                out.append(c)
        return out[:limit]

    def _node_candidates(self) -> list[Candidate]:
        return [Candidate(n.title, n.origin or "library", "", tuple((c.title, c.origin or "library") for c in n.children))
                for n in self.nodes]

    def guidance(self, limit: int = 10) -> str:
        """The candidates as a prompt paragraph (for a model that can write its own headings)."""
        opts = self.options(limit)
        if not opts:
            return ""
        label = {"tender": "招标文件", "library": "常用结构", "history": "历史标书"}
        whence = "招标文件、本公司历史标书和常用标书结构" if any(c.source == "history" for c in opts) else "招标文件和常用标书结构"
        lines = [f"可参考的二级标题（来自{whence}，可选用、调整顺序或改写）："]
        for c in opts:
            subs = "、".join(t for t, _ in c.children[:4])
            lines.append(f"- {c.title}（{label.get(c.source, c.source)}）" + (f"：{subs}" if subs else ""))
        return "\n".join(lines)


def _clean_candidates(items: list[Candidate], chapter: str, siblings: list[str], verbatim: bool = False,
                      criteria: str = "", project: str = "") -> list[Candidate]:
    """Candidates without defects, repeats of the chapter or of other chapters.

    ``verbatim``: the user's own headings — only one that says the chapter's title again is a repeat
    (one that names part of it, 质量管理体系 under 质量保证措施, is a section of it).
    """
    out: list[Candidate] = []
    for c in items:
        repeat = same_heading(c.title, chapter, 0.85) if verbatim else restates(c.title, chapter)
        if repeat or any(same_heading(c.title, s, 0.85) for s in siblings):
            continue
        if heading_defect(c.title, 2, chapter, chapter, criteria, project):
            continue
        c = Candidate(c.title, c.source, c.note, tuple((t, src) for t, src in c.children
                                                        if not heading_defect(t, 3, c.title, chapter, criteria, project)))
        if any(same_heading(c.title, o.title, 0.9) for o in out):
            continue
        out.append(c)
    return out


def _fallback_entries(title: str, project: str, library: HeadingLibrary,
                      profile: TenderProfile | None = None, criteria: str = "") -> list[EntryMatch]:
    """Entries for an item nothing matched: what the item scores when its criteria score the product offered
    (a device, a system: its technical response, never a service plan or a site's organisation), else the
    project's domain, else a generic plan that fits the tender."""
    prof = profile or TenderProfile(tender_kind(project))
    if _OFFERED.search(criteria) and (prof.kind == "goods" or "goods" in prof.domains):
        for pattern, entry_id in (*_ITEM_IS, (re.compile(""), GENERIC_FOR["goods"])):
            entry = library.get(entry_id)
            if pattern.search(title) and entry is not None and prof.fits_entry(entry):
                return [EntryMatch(entry, 0.9, None, (_OFFERED_REASON,))]
    for entry_id in _DOMAIN_FALLBACK:
        entry = library.get(entry_id)
        if (entry and prof.fits_entry(entry) and prof.fits(entry.kinds, entry.domains, strict=True)
                and any(k in project for k in entry.keywords)):
            return [EntryMatch(entry, 1.0, None, ("项目领域",))]
    for pattern, entry_id in _ITEM_IS:  # the item's own name says what it is: a system, a product
        entry = library.get(entry_id)
        if pattern.search(title) and entry is not None and prof.fits_entry(entry):
            return [EntryMatch(entry, 0.9, None, ("评分项名称",))]
    fallback = dict(_FALLBACK_FOR_DOMAIN)
    for domain in prof.ranked:  # the domain the tender's words say most first
        entry = library.get(fallback.get(domain, ""))
        if entry is not None and prof.fits_entry(entry):
            return [EntryMatch(entry, 0.8, None, ("项目领域",))]
    kind = prof.kind or ("goods" if _GOODS.search(project + title) else "services")
    generic = library.get(GENERIC_FOR[kind])
    return [EntryMatch(generic, 0.5, None, ("通用结构",))] if generic and prof.fits_entry(generic) else []


def chapter_entries(name: str, criteria: str = "", project: str = "",
                    library: HeadingLibrary | None = None, profile: TenderProfile | None = None) -> list[EntryMatch]:
    """The library entries a chapter for this item is built from: the distinct matches of its
    name, or (nothing matched) the project's domain or a generic plan — only structures written for
    the tender's kind and domains (``profile``)."""
    lib = library or default_library()
    return (distinct_parts(match_item(name, criteria, project, library=lib, profile=profile))
            or _fallback_entries(name, project, lib, profile, criteria))


def _requirement_candidates(headings: list[RequirementHeading], title: str, points: list[str],
                            entries: list[EntryMatch]) -> list[Candidate]:
    """Requirement headings about this item, each with its own sub-headings as children."""
    words = set(grams(title))
    for p in points:
        words |= grams(p)
    keys = {k for m in entries for k in (*m.entry.keywords, *m.entry.aliases) if len(k) >= 2}
    out: list[Candidate] = []
    for i, h in enumerate(headings):
        if _BACKGROUND.search(h.text):  # the project's background belongs to no scoring item
            continue
        shared = grams(h.text) & words
        keyword = any(k in h.text for k in keys)
        if not (len(shared) >= 2 or (shared and keyword) or (keyword and len(h.text) <= 8)):
            continue
        heading = point_heading(h.text)
        if heading is None:
            continue
        kids: list[tuple[str, Origin]] = []
        for sub in headings[i + 1:]:
            if sub.level <= h.level:
                break
            if sub.level == h.level + 1:
                s = point_heading(sub.text)
                if s and s != heading:
                    kids.append((s, "tender"))
        out.append(Candidate(heading, "tender", f"采购需求：{h.text}", tuple(kids[:6])))
    return out


@dataclass(frozen=True)
class _Point:
    candidate: Candidate
    bare: bool  # the criteria named an aspect, not a part of the answer (a suffix was needed, or no heading noun)


def _point_candidates(criteria: str, suffix: str, detail_points: list[str] | None = None) -> list[_Point]:
    """The item's points as heading candidates: the analysis's detail points, then what the criteria list."""
    out: list[_Point] = []
    listed = [CriteriaPoint(text=d, kind="detail") for d in detail_points or []]
    for p in [*listed, *split_criteria(criteria)]:
        h = point_heading(p.text, suffix, criteria)
        if h is None:
            continue
        plain = point_heading(p.text, "", criteria)
        subs = [s for s in dict.fromkeys(point_heading(x, "", criteria) for x in p.items) if s and s != h]
        note = "评分标准要求：" + p.text[:60]
        cand = Candidate(h, "tender", note, tuple((s, "tender") for s in subs if s))
        out.append(_Point(cand, bare=plain != h or not h.endswith(_SECTION_END)))
    return out


def _library_sections(entries: list[EntryMatch], text: str, want_slot: bool = False,
                      context: str = "", profile: TenderProfile | None = None) -> list[tuple[LibraryEntry, LibrarySection]]:
    """Sections of the matched entries, best variant of each first; compound items interleave.

    ``want_slot``: the tender has points to place, so variants with a slot section go first.
    ``context`` (the item's name, the project) may call for a variant but does not rank by wording.
    Variants and sections written for another kind or domain of tender than ``profile``'s are left
    out: fewer headings that fit beat a full count of foreign ones.
    """
    prof = profile or TenderProfile()
    ranked = [(m.entry, sorted(rank_variants(m.entry, text, context, prof),
                               key=lambda v: want_slot and not any(s.slot for s in v.sections)))
              for m in entries]
    out: list[tuple[LibraryEntry, LibrarySection]] = []
    for entry, variants in ranked:
        for v in variants:
            out += [(entry, s) for s in v.sections if prof.fits(s.kinds, s.domains)]
    if len(ranked) > 1:  # compound item: alternate the entries' best variants
        firsts = [[(e, s) for s in vs[0].sections if prof.fits(s.kinds, s.domains)] for e, vs in ranked if vs]
        mixed = [x for group in zip(*firsts, strict=False) for x in group]
        out = mixed + [x for x in out if x not in mixed]
    return out


class _Builder:
    """Builds one chapter's default children under the outline-wide registry."""

    def __init__(self, registry: TitleRegistry, library: HeadingLibrary,
                 lib_sections: list[tuple[LibraryEntry, LibrarySection]], leaves: bool,
                 max_leaves: int, min_children: int, max_children: int) -> None:
        self.registry, self.library = registry, library
        self.lib_sections = lib_sections
        self.own_entries = {e.id for e, _ in lib_sections}
        self.leaves, self.max_leaves = leaves, max_leaves
        self.min_children, self.max_children = min_children, max_children
        self.used_sections: set[str] = set()
        self.history: list[Candidate] = []  # the user's past sections about this item (preferred to the library's)
        self.context = ""  # the item's name and the project: words that may call for a library variant
        self.project = ""  # the project's words
        self.profile = TenderProfile()  # the tender's kind and domains: a library structure is used only where it fits
        self.criteria = ""  # the item's criteria: a heading that copies a clause of it whole is no heading
        self.nodes: list[OutlineNode] = []
        #: The tender's points that found no level-3 headings about them (placed by :meth:`house`).
        self.homeless: list[str] = []

    def house(self) -> None:
        """Put each homeless point of the tender under a section, as a level-3 heading in its own words.

        The section most about it is chosen; a point about none of them becomes a section of its own
        (a leaf): a scoring point must stay in the outline, where an evaluator looks for it.
        """
        for title in self.homeless:
            if not self.registry.free(title) or any(same_heading(title, n.title) for n in self.nodes):
                continue
            if heading_defect(title, 3, criteria=self.criteria, project=self.project):
                continue
            best, score = None, (-1, 0)
            for node in self.nodes:
                if len(node.children) > self.max_leaves or any(same_heading(title, c.title) for c in node.children):
                    continue
                shared = len(grams(title) & set().union(grams(node.title), *(grams(c.title) for c in node.children)))
                if (shared, -len(node.children)) > score:
                    best, score = node, (shared, -len(node.children))
            if best is not None and score[0] == 0 and len(self.nodes) < self.max_children:
                # about none of the sections: a section of its own beats a heading hidden under another's
                self.nodes.append(OutlineNode(title=title, origin="tender"))
                self.registry.take(title)
            elif best is not None:
                best.children.append(OutlineNode(title=title, origin="tender"))
                self.registry.take(title)

    def _free_kids(self, kids: list[tuple[str, Origin]], parent: str, limit: int) -> list[tuple[str, Origin]]:
        out: list[tuple[str, Origin]] = []
        for t, src in kids:
            if same_heading(t, parent, 0.9) or not self.registry.free(t):
                continue
            if heading_defect(t, 3, parent, criteria=self.criteria, project=self.project) or any(
                    same_heading(t, o) for o, _ in out):
                continue
            out.append((t, src))
        return out[:limit]

    def _section_children(self, sections: list[LibrarySection], title: str,
                          related: bool = False) -> list[tuple[str, Origin]]:
        """The free children of the first unused section; ``related``: of a section about ``title``."""
        for s in sections:
            if s.title in self.used_sections or (related and not _related(title, s.title, *s.children)):
                continue
            kids = self._free_kids([(c, "library") for c in s.children], title, self.max_leaves)
            if len(kids) >= self.min_children:
                self.used_sections.add(s.title)
                return kids
        return []

    def library_kids(self, title: str) -> list[tuple[str, Origin]]:
        """Level-3 headings from the library for a level-2 heading that has none of its own.

        In order: a library section about the same thing (its children); the sections of the
        chapter's own entry when the heading belongs to it; the section titles of the entry
        that fits the heading; any unused section of the chapter's entries.
        """
        past = self._history_kids(title)
        if past:
            return past
        matches = [m for m in match_item(title, project=self.project, library=self.library, limit=2, min_score=4,
                                         profile=self.profile)
                   if m.entry.id in self.own_entries or self.profile.fits(m.entry.kinds, m.entry.domains, strict=True)]
        near = self.own_entries | {m.entry.id for m in matches}
        same = [s for e in self.library if e.id in near for v in e.variants for s in v.sections
                if covers(s.title, title) and self.profile.fits_section(e, v, s, strict=e.id not in self.own_entries)]
        kids = self._section_children(same, title)
        if kids:
            return kids
        own = [s for e, s in self.lib_sections]
        if matches and matches[0].entry.id in self.own_entries:
            kids = self._section_children(own, title, related=True)
            if kids:
                return kids
        for m in matches[:1]:
            if m.entry.id in self.own_entries:
                continue
            for v in rank_variants(m.entry, title, self.context, self.profile):
                fitting = [s for s in v.sections if self.profile.fits(s.kinds, s.domains)]
                if not _related(title, *(t for s in fitting for t in (s.title, *s.children))):
                    continue
                kids = self._free_kids([(s.title, "library") for s in fitting], title, self.max_leaves)
                if len(kids) >= max(self.min_children, 3):
                    return kids
        kids = self._section_children(own, title, related=True)
        return kids or self._nearest_section(title)

    def _history_kids(self, title: str) -> list[tuple[str, Origin]]:
        """The children of an unused past section about the same thing as ``title`` (the user's own first)."""
        for c in self.history:
            if c.title in self.used_sections or not (covers(c.title, title) or covers(title, c.title)):
                continue
            kids = self._free_kids(list(c.children), title, self.max_leaves)
            if len(kids) >= self.min_children:
                self.used_sections.add(c.title)
                return kids
        return []

    def add_history(self, count: int) -> None:
        """The past sections about this item, verbatim, up to ``count`` nodes; each keeps its source."""
        for c in self.history:
            if len(self.nodes) >= count:
                return
            if c.title in self.used_sections:
                continue
            self.used_sections.add(c.title)
            if self.add(c.title, "history", list(c.children), origin_source=c.note):
                for kid in self.nodes[-1].children:
                    if kid.origin == "history":
                        kid.origin_source = c.note

    def _nearest_section(self, title: str) -> list[tuple[str, Origin]]:
        """The children of the library section, from any entry written for this kind and domain of tender, whose
        title names most of what ``title`` names (a service contract's 服务质量保证措施 never gets 关键工序质量控制)."""
        words = grams(title)
        if not words:
            return []
        scored: list[tuple[int, int, LibrarySection]] = []
        for e in self.library:
            for v in e.variants:
                for s in v.sections:
                    if not self.profile.fits_section(e, v, s, strict=e.id not in self.own_entries):
                        continue
                    shared = len(words & grams(s.title))
                    if 2 * shared >= len(words) and s.title not in self.used_sections:  # most of what it names
                        scored.append((shared, -len(s.title), s))
        scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
        return self._section_children([s for _, _, s in scored], title)

    def add(self, title: str, source: Origin, kids: list[tuple[str, Origin]], description: str = "",
            leaf_limit: int | None = None, origin_source: str = "") -> bool:
        """Add a level-2 node (library level-3 headings when the given ones are too few)."""
        if len(self.nodes) >= self.max_children or not self.registry.free(title):
            return False
        if any(same_heading(title, n.title) for n in self.nodes):
            return False
        children: list[tuple[str, Origin]] = []
        if self.leaves:
            children = self._free_kids(kids, title, leaf_limit or self.max_leaves)
            if len(children) < self.min_children:
                children = self.library_kids(title)
            if len(children) < self.min_children or not self.registry.take_set([t for t, _ in children]):
                if source == "tender":
                    self.homeless.append(title)
                return False
            for t, _ in children:
                self.registry.take(t)
        self.registry.take(title)
        self.nodes.append(OutlineNode(title=title, description=description, origin=source, origin_source=origin_source,
                                      children=[OutlineNode(title=t, origin=s) for t, s in children]))
        return True

    def add_candidates(self, cands: list[Candidate], limit: int) -> None:
        for c in cands:
            if len(self.nodes) >= limit:
                return
            self.add(c.title, c.source, list(c.children), c.note if c.note.startswith("评分标准") else "",
                     origin_source=c.note if c.source == "history" else "")

    def add_library(self, count: int, fill: list[Candidate]) -> None:
        """Library sections up to ``count`` nodes; ``fill`` (the tender's points) goes under the slot section.

        A point that a library section is about takes that section's place, in the tender's words.
        """
        pending = list(fill)
        slot_done = False
        for _, s in self.lib_sections:
            if len(self.nodes) >= count:
                break
            if s.title in self.used_sections or any(
                    n.origin == "history" and same_heading(s.title, n.title, 0.6) for n in self.nodes):
                continue  # the user's own section about the same thing is there already
            named = next((f for f in pending if covers(s.title, f.title) or covers(f.title, s.title)), None)
            if named is not None:
                if self.add(named.title, named.source, [(c, "library") for c in s.children], named.note):
                    self.used_sections.add(s.title)
                    pending.remove(named)
                continue
            kids: list[tuple[str, Origin]] = [(c, "library") for c in s.children]
            limit = None
            if not slot_done and s.slot and len(pending) >= self.min_children:
                grounded = self._free_kids([(f.title, f.source) for f in pending], s.title, self.max_children)
                if len(grounded) >= self.min_children:
                    kids, slot_done, limit = grounded, True, self.max_children
                    pending = []
            if self.add(s.title, "library", kids, s.description, limit):
                self.used_sections.add(s.title)
        if pending:
            self.add_candidates(pending, max(count, len(self.nodes) + len(pending)))


def about_item(item: str, past_title: str) -> bool:
    """Whether a past section titled ``past_title`` is about the scoring item (or chapter) ``item``.

    Each names mostly what the other names: at least half of the specific words (bigrams, common
    tender words such as 管理/方案/措施 cut out) of each are the other's. A broader past section
    (保证措施 for 质量保证措施) or a narrower one is about something else. When neither has a
    specific word (实施计划), the two headings must be nearly the same.
    """
    a, b = grams(item), grams(past_title)
    if not a and not b:
        return same_heading(item, past_title, 0.75)
    shared = len(a & b)
    return shared > 0 and 2 * shared >= max(len(a), len(b))


def history_candidates(past: LibraryStore, name: str, criteria: str, chapter: str,
                       min_children: int = 2) -> list[Candidate]:
    """Level-2 candidates from the user's past sections about this item (best match first), marked 历史标书."""
    structures = past_structures(past, name, criteria, chapter, min_sections=min_children,
                                 about=lambda t: about_item(name, t) or about_item(chapter, t))
    return [Candidate(s.title, "history", s.source, tuple((k, "history") for k in s.children))
            for st in structures for s in st.sections]


def plan_chapter(title: str, group: ScoringGroup | None, analysis: Analysis, registry: TitleRegistry, *,
                 siblings: list[str] | None = None, levels: int = 2, max_sections: int = 5, max_leaves: int = 4,
                 min_children: int = 2, max_children: int = 10, library: HeadingLibrary | None = None,
                 past: LibraryStore | None = None, profile: TenderProfile | None = None,
                 complete: CompletePlan | None = None) -> ChapterPlan:
    """Candidates and default children for one chapter (``levels`` 1 or 2 below it).

    ``registry`` is shared by the chapters of one outline (headings already used elsewhere
    are skipped); ``siblings`` are the other chapters' titles (never used as headings here).
    ``past``: the user's library; its past sections about the item come before the heading
    library's (rule 16), marked ``history`` with their source. ``profile``: the tender's kind and
    domains (read from ``analysis`` when not given); only library structures written for them are used.
    ``complete`` finishes the plan (the outline run answers every criteria point with it).
    """
    lib = library or default_library()
    ov = analysis.overview
    project = " ".join([ov.project_name, ov.summary, ov.scope])
    prof = profile or tender_profile(analysis)
    criteria = "\n".join([group.description, *group.detail_points]) if group is not None else ""
    details = list(group.detail_points) if group is not None else []
    name = group.title if group is not None else title
    matches = chapter_entries(name, criteria, project, lib, prof)
    suffix = matches[0].entry.point_suffix if matches else ""
    plan = ChapterPlan(chapter=title, entries=matches, attachments=evidence_items(criteria))
    others = list(siblings or [])
    raw_points = _point_candidates(group.description if group is not None else "", suffix, details)
    plan.points = _clean_candidates([p.candidate for p in raw_points], title, others, criteria=criteria,
                                    project=ov.project_name)
    bare = {p.candidate.title for p in raw_points if p.bare}
    point_titles = [c.title for c in plan.points]
    plan.requirements = _clean_candidates(
        _requirement_candidates(analysis.requirement_headings, name, point_titles, matches), title, others,
        criteria=criteria, project=ov.project_name)
    lib_sections = _library_sections(matches, " ".join([criteria, *point_titles]), len(plan.points) >= min_children,
                                     " ".join([name, title, project]), prof)
    plan.sections = _clean_candidates([Candidate(s.title, "library", f"标题库：{e.name}",
                                                 tuple((c, "library") for c in s.children)) for e, s in lib_sections],
                                      title, others)
    if past is not None:
        plan.history = _clean_candidates(history_candidates(past, name, criteria, title, min_children), title, others,
                                         verbatim=True)
    builder = _Builder(registry, lib, lib_sections, levels >= 2, max_leaves, min_children, max_children)
    builder.history = plan.history
    builder.context = " ".join([name, title, project])
    builder.project = project
    builder.profile = prof
    builder.criteria = criteria
    own = {m.entry.id for m in matches}

    def stands_alone(c: Candidate) -> bool:
        if c.title not in bare or c.children:
            return True
        return any(m.entry.id not in own for m in match_item(c.title, project=project, library=lib, limit=1,
                                                             min_score=4, profile=prof))

    alone = [c for c in plan.points if stands_alone(c)]
    req_parts = [c for c in plan.requirements if len(c.children) >= min_children]
    target = max(min_children, min(max_sections, 5))
    if len(plan.points) >= 2 and len(alone) * 5 >= len(plan.points) * 3:
        plan.structured = True
        builder.add_candidates(plan.points, max_children)
        builder.add_candidates(req_parts, max_children)
    else:
        if req_parts:
            plan.structured = not plan.points
            builder.add_candidates(req_parts, 2 if plan.points else target)
        fill = plan.points or [c for c in plan.requirements if not c.children]
        builder.add_history(max(min_children, target - len(fill)) if fill else target)  # room for the tender's points
        builder.add_library(target, fill)
    if len(builder.nodes) < min(3, target) or len(builder.nodes) < min_children:
        builder.add_library(target, [])
    if levels >= 2:
        builder.house()
    plan.nodes = builder.nodes
    if complete is not None:  # the caller's last step: e.g. every criteria point answered (evaluation.point_fill)
        complete(plan, group, registry, levels=levels, max_children=max_children, project=ov.project_name)
    return plan


def plan_outline(chapters: list[tuple[str, ScoringGroup | None]], analysis: Analysis, *, levels: int = 2,
                 max_sections: int = 5, max_leaves: int = 4, min_children: int = 2, max_children: int = 10,
                 library: HeadingLibrary | None = None, reserved: list[str] | None = None,
                 past: LibraryStore | None = None, complete: CompletePlan | None = None) -> list[ChapterPlan]:
    """Plans for every chapter of an outline, distinct from each other (one shared registry).

    ``reserved`` headings (already in the outline) are never planned again.
    """
    return list(iter_plan_outline(chapters, analysis, levels=levels, max_sections=max_sections,
                                  max_leaves=max_leaves, min_children=min_children, max_children=max_children,
                                  library=library, reserved=reserved, past=past, complete=complete))


def iter_plan_outline(chapters: list[tuple[str, ScoringGroup | None]], analysis: Analysis, *, levels: int = 2,
                      max_sections: int = 5, max_leaves: int = 4, min_children: int = 2, max_children: int = 10,
                      library: HeadingLibrary | None = None, reserved: list[str] | None = None,
                      past: LibraryStore | None = None, complete: CompletePlan | None = None) -> Iterator[ChapterPlan]:
    """:func:`plan_outline` one chapter at a time, so a caller on an event loop can yield between chapters."""
    titles = [t for t, _ in chapters]
    registry = TitleRegistry([*titles, *(reserved or [])])
    profile = tender_profile(analysis)
    for t, g in chapters:
        yield plan_chapter(t, g, analysis, registry, siblings=[x for x in titles if x != t], levels=levels,
                           max_sections=max_sections, max_leaves=max_leaves, min_children=min_children,
                           max_children=max_children, library=library, past=past, profile=profile,
                           complete=complete)


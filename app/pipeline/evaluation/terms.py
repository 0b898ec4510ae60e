"""The points a scoring item asks for, each with the terms code looks for in the bid's text.

A criteria point as written ("根据投标人为本项目制订的应急服务方案进行评审") carries words
every criteria cell has (根据, 投标人, 进行评审, 内容); the evaluator looks for the specific
words (应急服务). :func:`point_terms` keeps those as character bigrams, adds the aliases of a
heading-library entry the point names (应急预案 ↔ 应急处置方案), and the units of any
number the point asks for (2 小时内到场 → a number in 小时). :func:`item_points` lists an
item's points: its criteria's points (sub-items of 包括 甲、乙、丙 become points of their
own), else the detail points, the named sub-items, or the item's title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from app.pipeline.headings.candidates import grams
from app.pipeline.headings.criteria_points import point_heading, split_criteria
from app.pipeline.headings.library import default_library

if TYPE_CHECKING:
    from app.core.analysis import ScoringGroup

#: Words of the criteria's own voice, never evidence of an answer.
_VOICE = re.compile(
    r"根据|依据|按照|投标人|投标单位|供应商|响应人|磋商|本次|本项目|项目的|进行|评审|评分|打分|评价|综合|内容|情况|"
    r"提供|制订|制定|编制|拟派|拟投入|投入的?|服务方案中|方案中|是否|要求|针对|对于|所有|相关|具体|"
    r"合理性|完整性|可行性|科学性|针对性|充分性|完善性|全面性|有效性|先进性|"
    r"[\d.]+\s*[-~～—至]?\s*[\d.]*\s*分"
)
UNIT_NUMBER = re.compile(r"(\d+(?:\.\d+)?)\s*(小时|分钟|工作日|天|日|周|个月|月|年|人次|人|名|次|%|％|℃|米|公里|台|辆|套|万元|元|h|min)")
MAX_POINTS = 12


@dataclass(frozen=True)
class PointTerms:
    """One criteria point: its label, the bigram sets that show it (any one), the units it asks.

    ``specific`` are the bigrams of its uncommon words: a sentence showing the point holds
    at least one of them (服务/方案/措施 alone show nothing).
    """

    label: str
    grams: tuple[frozenset[str], ...]
    units: tuple[str, ...] = ()
    points: float | None = None
    specific: frozenset[str] = frozenset()
    #: Bigrams no sibling point of the same item has: what tells this point from its siblings.
    distinct: frozenset[str] = frozenset()
    #: For a sub-item (包括 甲、乙): its parent point's distinctive bigrams, looked for around it.
    context: frozenset[str] = frozenset()
    #: A point that joins several things (安全测试方案和渗透测试流程): for each, the bigrams only it has;
    #: a text shows the point only when it names every one of them.
    parts: tuple[frozenset[str], ...] = ()

    @property
    def main(self) -> frozenset[str]:
        """The point's own bigrams (the first set; the others are library aliases)."""
        return self.grams[0] if self.grams else frozenset()


_LIMIT = re.compile(r"(?:不超过|不少于|不低于|不高于|不大于|不小于|不多于|至少|最多|小于|大于|超过|低于|高于|达到)?\s*"
                    r"\d+(?:\.\d+)?\s*[^\u4e00-\u9fff\s]{0,3}(?:小时|分钟|工作日|天|日|周|个月|月|年|人次|人|名|次|台|辆|套|万元|元)?"
                    r"(?:以内|以上|以下|之内|内)?")


def _unvoiced(text: str) -> str:
    """``text`` without the criteria's voice and the limits it states (不超过 2 小时)."""
    return _VOICE.sub("|", _LIMIT.sub("|", text))


def specific_grams(text: str) -> frozenset[str]:
    """Bigrams of the specific words of ``text`` (the criteria's voice and common tender words cut out)."""
    return grams(_unvoiced(text))


_NOT_WORD = re.compile(r"[^\u4e00-\u9fffA-Za-z0-9]+|[的及和与或等之]")


def _words(text: str) -> frozenset[str]:
    """All bigrams of ``text`` within its words, the criteria's voice cut out."""
    segments = _NOT_WORD.split(_unvoiced(text).replace("|", " "))
    return frozenset(seg[i:i + 2] for seg in segments for i in range(len(seg) - 1))


@lru_cache(maxsize=1)
def _aliases() -> tuple[tuple[str, ...], ...]:
    """Alias groups of the heading library (name and aliases of each entry)."""
    out = []
    for entry in default_library():
        names = tuple(dict.fromkeys((entry.name, *entry.aliases)))
        if len(names) > 1:
            out.append(names)
    return tuple(out)


def _variant_names(label: str) -> list[str]:
    """The library aliases of the entry ``label`` names ("应急预案" → 应急处置方案, …)."""
    out: list[str] = []
    own = label.split("：")[-1]
    for names in _aliases():
        if any(n == own or (own.endswith(n) and len(n) * 4 >= len(own) * 3) for n in names):
            out += [n for n in names if n not in out]
    return out


#: A point's own number in front (①, 2., （3）): no word of what it asks.
_NUMBER_LEAD = re.compile(r"^(?:[①-⑳]|\d+[、.．](?!\d)|[（(]\d+[)）])")
#: The grade a point states after what it asks (…方案合理得 5 分, …的，得 2 分): no word of it either.
_GRADE_TAIL = re.compile(r"[，,；;]?(?:(?:合理|科学|完善|可行|详细|全面|完整|清晰|明确|具体|周密|齐全|详实|详尽|细致|充分)[的、，,]?)*"
                         r"(?:的)?[，,]?(?:得|加|扣)\s*[\d.]+\s*分.*$")


@lru_cache(maxsize=4096)
def point_terms(text: str, points: float | None = None, parent: str = "") -> PointTerms | None:
    """The terms of one point, or None when it has no specific word to look for.

    ``parent`` is the point a sub-item belongs to: shown in the label, not looked for.
    """
    raw = re.sub(r"\s+", "", text).strip(" ，,。；;：:、")
    raw = _GRADE_TAIL.sub("", _NUMBER_LEAD.sub("", raw)) or raw
    heading = point_heading(raw)
    label = heading or re.sub(r"^[对中]", "", _VOICE.sub("", raw).strip(" ，,。；;：:、的"))[:24] or raw[:24]
    if parent:
        label = f"{point_heading(parent) or parent[:16]}：{label}"
    if not (specific_grams(raw) or (specific_grams(heading) if heading else frozenset())):
        return None
    # the criteria's preposition in front (对本采购服务涉及的重点) is no word the heading must repeat
    base = heading if heading and len(_words(heading)) >= 2 else re.sub(r"^(?:要求|并|需|须|应)?对(?![外内接口标比策象话])", "", raw)
    own = _words(base)
    specific = specific_grams(base) & own
    variants = [g for g in (_words(n) for n in _variant_names(label)) if g and g != own]
    units = tuple(dict.fromkeys(m.group(2) for m in UNIT_NUMBER.finditer(raw)))
    return PointTerms(label, (own, *variants), units, points, specific, parts=_parts(base))


#: Where a point joins the things it asks for.
_JOINS = re.compile(r"以及|及|和|与|并|或|、|，|,|；|;")
#: The kind of text a thing is asked as, not the thing: cut from the end of each part (渗透测试流程 → 渗透测试).
_KIND_TAIL = re.compile(r"(?:方案|措施|计划|流程|制度|机制|体系|办法|要求|情况|内容|管理|服务|工作|安排|能力)+$")


def _parts(text: str) -> tuple[frozenset[str], ...]:
    """For each thing a point joins, the bigrams of its core no other part has (() for a single thing)."""
    bare = re.sub(r"[（(][^（()）]*[)）]?", "", text)  # examples in brackets (消防、电梯等) are not each required
    cores = [_KIND_TAIL.sub("", p) or p for p in (x.strip() for x in _JOINS.split(_unvoiced(bare).replace("|", "")))]
    sets = [_words(c) for c in cores if len(c) >= 2]
    sets = [g for g in sets if g]
    if len(sets) < 2:
        return ()
    out = []
    for i, g in enumerate(sets):
        others = frozenset().union(*(h for j, h in enumerate(sets) if j != i))
        own = g - others
        if own:
            out.append(frozenset(own))
    return tuple(out) if len(out) >= 2 else ()


def item_points(group: ScoringGroup) -> list[PointTerms]:
    """The points of a scoring item, in order, without duplicates (at most :data:`MAX_POINTS`)."""
    texts: list[tuple[str, float | None, str]] = []
    for p in split_criteria(group.description):
        if p.items:
            texts += [(i, None, p.text) for i in p.items]
        else:
            texts.append((p.text, p.points, ""))
    if not texts:
        texts = [(d, None, "") for d in group.detail_points]
    if not texts:
        texts = [(s.name, s.points, "") for s in group.sub_items if s.name]
    if not texts:
        texts = [(group.title, group.points, "")]
    parents = {parent: specific_grams(parent) for _, _, parent in texts if parent}
    out: list[PointTerms] = []
    seen: set[frozenset[str]] = set()
    for text, pts, parent in texts:
        terms = point_terms(text, pts, parent)
        if terms is None or terms.main in seen:
            continue
        seen.add(terms.main)
        if parent and len(parents) > 1:
            others = frozenset().union(*(g for p, g in parents.items() if p != parent))
            terms = replace(terms, context=parents[parent] - others)
        out.append(terms)
    if not out:
        title = point_terms(group.title, group.points) or _plain_terms(group.title, group.points)
        out = [title] if title is not None else []
    return _with_distinct(out[:MAX_POINTS])


def _with_distinct(points: list[PointTerms]) -> list[PointTerms]:
    """Each point with the bigrams none of its siblings has (so 食堂…预案 is not read from 驾驶…预案)."""
    out = []
    for i, p in enumerate(points):
        others: set[str] = set()
        for j, q in enumerate(points):
            if j != i:
                others |= q.main
        out.append(replace(p, distinct=frozenset(p.main - others)) if len(points) > 1 else p)
    return out


def _plain_terms(text: str, points: float | None) -> PointTerms | None:
    """Terms of a title made of common words only ("服务方案"): all its bigrams."""
    t = re.sub(r"[^\u4e00-\u9fff]", "", text)
    found = frozenset(t[i:i + 2] for i in range(len(t) - 1))
    return PointTerms(text[:24], (found,), (), points, found) if found else None

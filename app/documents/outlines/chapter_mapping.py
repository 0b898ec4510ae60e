"""Which scoring item an imported chapter answers, proposed by its subject — or none.

A chapter title and an item's name say *what* they are about in a few specific words (售后,
质量, 应急, 培训, 人员) and *what kind of text* in generic ones (方案, 措施, 服务, 项目, 管理 …).
Two titles are about the same item when their specific words are essentially the same
(售后服务体系 ↔ 售后服务方案; 质量保证措施 ↔ 质量保障措施, 保证 and 保障 being one word here).
A title with no specific word (服务方案, 项目服务方案, 实施方案) matches only a name that says the
same thing; a title with specific words never matches one without (售后服务方案 is not 项目服务方案).
A chapter whose best match is shared by another item equally well is left unmapped: a proposal
the user has to undo is worse than none, and the import dialog lets them choose.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.analysis import ScoringGroup

#: Least Dice overlap of two titles' specific bigrams for the same subject.
MIN_OVERLAP = 0.6
#: Words that say what kind of text a heading is, or whose it is, not what it is about (longest first).
_GENERIC = tuple(sorted((
    "针对本项目", "本项目", "项目", "服务", "方案", "措施", "计划", "预案", "办法", "体系", "机制", "制度", "安排",
    "情况", "说明", "介绍", "简介", "概述", "内容", "要求", "能力", "水平", "管理", "实施", "整体", "总体", "具体", "详细", "相关",
    "其他", "其它", "主要", "拟投入", "投入", "拟派", "投标人", "供应商", "投标单位", "投标", "企业", "公司", "保障",
    "工作", "组织", "处置", "处理", "应对", "程度", "合理性", "可行性", "完整性", "针对", "提供", "拟", "的", "与", "及", "和", "并", "对",
    "等", "之", "为"), key=len, reverse=True))
#: Words that mean the same in a heading (the first is kept).
_SAME = (("保障", ("保证",)), ("配置", ("配备",)), ("其他", ("其它",)))
_POINTS = re.compile(r"[（(]?\s*\d+(?:\.\d+)?\s*(?:分|%|％)\s*[)）]?")
_PAREN = re.compile(r"[（(][^（()）]*[)）]")
_NOT_HAN = re.compile(r"[^\u4e00-\u9fff]+")
#: Where a compound title joins its parts.
_PARTS = re.compile(r"[|及和与]")
#: Whose a heading is, and fillers: not part of its wording.
_OWNER = ("针对本项目", "本项目", "项目", "针对", "拟投入", "拟派", "拟", "投标人", "供应商", "的", "等")


@dataclass(frozen=True)
class Subject:
    """A title reduced to what it is about: its specific bigrams, its whole wording (canonical) and the
    wording of each part of a compound title (服务方案、服务计划 → 服务方案, 服务计划)."""

    grams: frozenset[str]
    words: str
    parts: frozenset[str] = frozenset()


def subject(title: str) -> Subject:
    """The subject of a chapter title or a scoring item's name (see the module docstring)."""
    t = _POINTS.sub("", title)
    bare = _PAREN.sub("", t)
    t = bare if _NOT_HAN.sub("", bare) else t  # a name that is all parenthesis keeps it
    t = _NOT_HAN.sub("|", t)
    for kept, others in _SAME:
        for other in others:
            t = t.replace(other, kept)
    words = t
    for w in _GENERIC:
        t = t.replace(w, "|")
    grams = frozenset(seg[i:i + 2] for seg in t.split("|") for i in range(len(seg) - 1))
    parts = frozenset(p for p in (_plain(x) for x in _PARTS.split(words)) if len(p) >= 2)
    words = _plain(words)
    return Subject(grams, words, parts if len(parts) > 1 else frozenset())


def _plain(words: str) -> str:
    for w in _OWNER:
        words = words.replace(w, "")
    return words


def match_score(a: Subject, b: Subject) -> float:
    """How surely two titles are about the same item: 0 (no) to 2 (the same words).

    1.5: one part of a compound title says what the other says (服务方案、服务计划 ↔ 服务方案).
    """
    if a.words and _joined(a.words) == _joined(b.words):
        return 2.0
    if _part_of(b, a) or _part_of(a, b):
        return 1.5
    if not a.grams or not b.grams:
        return 0.0  # a generic title matches only the same wording; specific never matches generic
    shared = len(a.grams & b.grams)
    overlap = 2 * shared / (len(a.grams) + len(b.grams))
    if overlap >= MIN_OVERLAP:
        return overlap
    return 0.0


def _part_of(small: Subject, compound: Subject) -> bool:
    """``small`` (not compound) is one part of ``compound``; a part made of generic words only
    counts when the compound has no specific word either (保证措施 is not the 保证措施 of
    服务期、质量管理保证体系及保证措施, whose subject is 质量)."""
    if small.parts or small.words not in compound.parts:
        return False
    return bool(small.grams) or not compound.grams


def _joined(words: str) -> str:
    return words.replace("|", "")


def propose_mapping(titles: Sequence[str], groups: Sequence[ScoringGroup]) -> list[int | None]:
    """For each chapter title, the index of the scoring item it answers, or None (one chapter per item).

    Pairs are taken best first; a chapter whose best score is shared by two items, or an item
    whose best score is shared by two chapters, is left for the user to decide.
    """
    subjects = [subject(t) for t in titles]
    names = [subject(g.title) for g in groups]
    scores = [[match_score(a, b) for b in names] for a in subjects]
    out: list[int | None] = [None] * len(titles)
    pairs = sorted(((s, i, j) for i, row in enumerate(scores) for j, s in enumerate(row) if s > 0),
                   key=lambda p: (-p[0], p[1], p[2]))
    used_ch: set[int] = set()
    used_g: set[int] = set()
    for s, i, j in pairs:
        if i in used_ch or j in used_g:
            continue
        rivals_g = [k for k, x in enumerate(scores[i]) if x == s and k != j and k not in used_g]
        rivals_ch = [k for k in range(len(titles)) if scores[k][j] == s and k != i and k not in used_ch]
        used_ch.add(i)
        if rivals_ch:
            used_ch.update(rivals_ch)
        if rivals_g or rivals_ch:
            continue  # as good a match elsewhere: ambiguous, and nothing weaker is proposed instead
        used_g.add(j)
        out[i] = j
    return out

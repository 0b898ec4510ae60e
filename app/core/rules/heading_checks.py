"""The checks behind the heading rules: what is known of one heading, and why it is refused.

:class:`HeadingContext` describes one heading (its title, level, who wrote it, what is around
it); each ``_check`` function returns the Chinese message of one defect or None. The rules
that name, scope and test these checks live in :mod:`app.core.rules.registry`; the checks of
a weak model's answer to the one-section question (``_sub_form`` … ``_taken``) are here too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from app.core.rules import heading_form as hf
from app.core.rules import outline as ol

Writer = Literal["model", "tender", "library", "user"]
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class HeadingContext:
    """What is known about one heading when a rule looks at it (only ``title`` is required)."""

    title: str
    level: int = 2
    writer: Writer = "model"
    parent: str = ""  # the heading above (the section of a level-3 heading)
    chapter: str = ""  # the level-1 heading it sits under
    project: str = ""  # the project's name
    criteria: str = ""  # the scoring text the heading answers
    context: str = ""  # the tender's words for this chapter (project, criteria, planned headings)
    section_words: str = ""  # what is known of the parent section (description, planned headings)
    siblings: tuple[str, ...] = ()  # headings beside it kept so far
    beside: tuple[str, ...] = ()  # every other heading under the same parent (a whole answer or outline)
    taken: tuple[str, ...] = ()  # headings elsewhere in the outline
    examples: frozenset[str] = frozenset()  # normalised headings of the prompt's worked examples
    vocabulary: str = ""  # words bid writers use (the heading library), for the grounding rule
    small_question: bool = False  # the heading answers the one-section question asked of a weak model


# --------------------------------------------------------------------------- checks


def _title_form(ctx: HeadingContext) -> str | None:
    return ol.title_problem(ctx.title)


def _long(ctx: HeadingContext) -> str | None:
    n = len(ctx.title.strip())
    limit = ol.OutlineLimits().max_title_len
    return f"标题过长（{n} 字），应不超过 {limit} 字" if n > limit else None


def _leading_number(ctx: HeadingContext) -> str | None:
    t = ctx.title.strip()
    return f"标题“{t}”带有编号，编号由程序生成" if ol.strip_numbering(t) != t and ol.title_problem(t) is None else None


def _fragment(ctx: HeadingContext) -> str | None:
    return hf.fragment_problem(ctx.title, ctx.criteria)


def _evidence(ctx: HeadingContext) -> str | None:
    return hf.evidence_problem(ctx.title)


def _connective(ctx: HeadingContext) -> str | None:
    return hf.connective_problem(ctx.title)


def _bracket(ctx: HeadingContext) -> str | None:
    return hf.bracket_problem(ctx.title)


def _judging(ctx: HeadingContext) -> str | None:
    return hf.judging_problem(ctx.title)


def _document(ctx: HeadingContext) -> str | None:
    return hf.document_problem(ctx.title)


def _bidder(ctx: HeadingContext) -> str | None:
    return hf.bidder_problem(ctx.title)


def _requirement(ctx: HeadingContext) -> str | None:
    return hf.requirement_problem(ctx.title)


def _clause(ctx: HeadingContext) -> str | None:
    return hf.clause_problem(ctx.title)


def _vague(ctx: HeadingContext) -> str | None:
    return hf.vague_problem(ctx.title)


def _vague_filler(ctx: HeadingContext) -> str | None:
    return hf.vague_problem(ctx.title, strict=True)


def _key(t: str) -> str:
    return ol.normalize_title(t)


def _same_as_parent(ctx: HeadingContext) -> str | None:
    """A heading titled like the heading above it. An exact copy beside headings of its own (工程概况 ›
    工程概况、工程参数) is the section's overview part, as people write it: not a defect (a warning of
    ``outline_warnings``). One character off the parent is a copying slip wherever it stands."""
    key = _key(ctx.title)
    uppers = [_key(u) for u in (ctx.parent, ctx.chapter) if u]
    if not key:
        return None
    if any(ol.one_char_apart(key, u) for u in uppers):
        return f"标题“{ctx.title}”与上级标题相同"
    if key in uppers and not any(_key(b) and _key(b) not in uppers for b in ctx.beside):
        return f"标题“{ctx.title}”与上级标题相同"
    return None


def _grams(text: str) -> list[str]:
    t = "".join(_CJK.findall(text))
    return [t[i:i + 2] for i in range(len(t) - 1)]


def similar(a: str, b: str, threshold: float = 0.8) -> bool:
    """Whether two headings are the same heading: equal, or nearly all two-character words shared (Dice)."""
    x, y = _key(a), _key(b)
    if not x or not y:
        return False
    if x == y:
        return True
    ga, gb = set(_grams(x)), set(_grams(y))
    return bool(ga and gb) and 2 * len(ga & gb) / (len(ga) + len(gb)) >= threshold


# ---- the one-section question asked of a weak model (subsections.py)

SUB_MIN, SUB_MAX = 2, 40
_CONJUNCTIONS = re.compile(r"[与和及、]")
_PROMPT_WORDS = re.compile(r"标题|小节|节点|下级|名词|短语|输出|示例|例如|json", re.IGNORECASE)
#: Words of the tendering procedure (采购, 招标…): in a heading they echo the prompt unless the section is about them.
WRAPPER_GRAMS = frozenset({"采购", "招标", "投标", "磋商", "询价", "比选", "竞标", "标书"})


def _sub_form(ctx: HeadingContext) -> str | None:
    t = re.sub(r"\s+", "", ctx.title)
    cjk = len(_CJK.findall(t))
    if not SUB_MIN <= len(t) <= SUB_MAX or ((cjk < 2 or cjk * 2 < len(t)) and not ol.is_acronym(t)):
        return f"不是 {SUB_MIN}–{SUB_MAX} 个字的中文标题"
    return None


def _prompt_words(ctx: HeadingContext) -> str | None:
    return "复述了提问的用词" if _PROMPT_WORDS.search(ctx.title) else None


def _example_copy(ctx: HeadingContext) -> str | None:
    return "照抄了示例" if _key(ctx.title) in ctx.examples else None


def _repeats_upper(ctx: HeadingContext) -> str | None:
    key = _CONJUNCTIONS.sub("", _key(ctx.title))
    for upper in (ctx.parent, ctx.chapter):
        if not upper:
            continue
        u = _CONJUNCTIONS.sub("", _key(upper))  # "运输和交付" under 运输与交付 repeats it
        shared = next((i for i, (a, b) in enumerate(zip(key, u, strict=False)) if a != b), min(len(key), len(u)))
        if key == u or (shared >= 6 and shared < len(u) and not _one_conjunct(key[:shared], _key(upper))):
            return "只是重复了上级标题"  # a cut copy: "饮食需求六个方面阐述对该"
        if key in u:
            return "只是重复了上级标题"
    return None


def _one_conjunct(prefix: str, upper: str) -> bool:
    """Whether ``prefix`` is the first of the parts ``upper`` joins ("质量管理组织机构" of 质量管理组织机构及主要职责)."""
    return upper.startswith(prefix) and upper[len(prefix):len(prefix) + 1] in ("及", "与", "和", "、")


def copies_project(title: str, project: str) -> bool:
    """Whether ``title`` copies the project's name (contains it, or nearly is it; names under 6 characters say too little)."""
    p, t = "".join(_CJK.findall(project)), "".join(_CJK.findall(title))
    return len(p) >= 6 and (p in t or similar(t, p, 0.7))


def _project_echo(ctx: HeadingContext) -> str | None:
    t = re.sub(r"\s+", "", ctx.title)
    p = "".join(_CJK.findall(ctx.project))
    if copies_project(t, ctx.project) or (len(t) >= 5 and len(p) >= 6 and t in p):
        return "照抄了项目名称"
    return None


def _self_repeat(ctx: HeadingContext) -> str | None:
    grams = _grams(ctx.title)
    return "标题在重复自己" if len(set(grams)) < len(grams) else None


def _procedure_word(ctx: HeadingContext) -> str | None:
    own = ctx.parent + ctx.chapter + ctx.section_words
    wrapper = next((g for g in _grams(ctx.title) if g in WRAPPER_GRAMS and g not in own), None)
    return f"用了招标程序的用语“{wrapper}”，不是本节的内容" if wrapper else None


def grounded_share(title: str, vocabulary: str) -> float:
    """Share of ``title``'s characters inside a two-character word that also occurs in ``vocabulary``."""
    t = "".join(_CJK.findall(title))
    if len(t) < 2:
        return 0.0
    covered = [False] * len(t)
    for i in range(len(t) - 1):
        if t[i:i + 2] in vocabulary:
            covered[i] = covered[i + 1] = True
    return sum(covered) / len(t)


#: Share of a heading's characters a weak model's heading must take from words of the tender, the section or
#: the heading library.
GROUNDED_SHARE = 0.8


def _ungrounded(ctx: HeadingContext) -> str | None:
    if ol.is_acronym(ctx.title):
        return None if ctx.title.strip() in ctx.context + ctx.vocabulary else "用了招标文件和本节都没有的词"
    vocab = ctx.context + ctx.parent + ctx.section_words + ctx.vocabulary
    return "用了招标文件和本节都没有的词" if grounded_share(ctx.title, vocab) < GROUNDED_SHARE else None


#: Bigrams too common in headings to tie one to a section ("方案", "管理" …).
GENERIC_GRAMS = frozenset({"方案", "管理", "服务", "计划", "措施", "保障", "工作", "项目", "体系", "制度", "机制",
                           "要求", "内容", "情况", "实施", "相关", "安排", "建设", "系统"})


def _unrelated(ctx: HeadingContext) -> str | None:
    """No specific word shared with the section, and the heading's words are not the chapter's either: a heading
    from another section or another trade. A list of roles, areas or steps (平整场地 under 各施工工序专项施工方案)
    uses the chapter's words, so it passes."""
    own = set(_grams(ctx.parent + ctx.section_words)) - GENERIC_GRAMS
    if not ctx.section_words or (set(_grams(ctx.title)) - GENERIC_GRAMS) & own:
        return None
    if grounded_share(ctx.title, ctx.context + ctx.chapter) >= 0.5:
        return None
    return "与本节内容无关"


_FILLER_CHARS = re.compile(r"[的之与和及、]")


def _restates_project(ctx: HeadingContext) -> str | None:
    """A weak model's sub-heading made only of the project's and the chapter's words, sharing nothing with its
    section (劳务外包计划 under 非管理人员中25-46岁人员数量, 服务团队管理 under 重大节假日服务方案, in
    chapter 服务团队 of a 保洁员劳务外包 tender): the question's context said again, not a part of the section."""
    t = "".join(_CJK.findall(ctx.title))
    own = set(_grams(ctx.parent + ctx.section_words)) - GENERIC_GRAMS
    if not t or (set(_grams(t)) - GENERIC_GRAMS) & own:
        return None
    rest = t
    for source in (ctx.project, ctx.chapter):
        src = "".join(_CJK.findall(source))
        for size in range(len(src), 1, -1):  # the longest pieces first
            for i in range(len(src) - size + 1):
                piece = src[i:i + size]
                if piece in rest:
                    rest = rest.replace(piece, "")
    rest = _FILLER_CHARS.sub("", rest)
    left = [g for g in (rest[i:i + 2] for i in range(0, len(rest), 2)) if g not in GENERIC_GRAMS]
    if rest != t and (len(rest) < 2 or not left):
        return "只是复述了项目名称或本章标题，与本节无关"
    return None


def _sibling_repeat(ctx: HeadingContext) -> str | None:
    if any(similar(ctx.title, x, 0.8) for x in ctx.siblings):
        return "与同一节的另一个小标题重复"
    return None


def _taken(ctx: HeadingContext) -> str | None:
    return "与目录中已有的标题重复" if any(similar(ctx.title, x, 0.8) for x in ctx.taken) else None

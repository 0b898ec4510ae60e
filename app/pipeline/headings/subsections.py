"""The model writes the level-3 headings of a section code planned — one small question per section.

A weak model that cannot write a whole chapter can often still name the parts of one section
when the question is tiny and it has seen how: the prompt is two worked examples (user and
assistant turns, from ``resources/prompts/outline_subsections.examples.json``, domains far
from the tender) and then this tender's project, chapter and section. The wire schema asks
for a few short Chinese strings; each answer is checked on its own (heading form, not a
repeat of the section, chapter or project, not an example copied, not a heading used
elsewhere in the outline, about this section) and what passes replaces planned headings;
planned ones fill the rest, marked with their origin.
"""

from __future__ import annotations

import json
import logging
import re
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from app.core.outline import OutlineNode
from app.core.outline_sync import sync_children
from app.core.resources import resource_path
from app.core.rules.heading_form import fragment_problem, vague_problem
from app.core.rules.outline import normalize_title, title_problem
from app.pipeline.headings.candidates import same_heading
from app.pipeline.headings.fill import ask_once, copies_project, mark_origins
from app.pipeline.headings.library import default_library
from app.pipeline.outline.budget import BudgetExhausted

if TYPE_CHECKING:
    from app.pipeline.outline.job import OutlineJob, SubtreeTarget

log = logging.getLogger(__name__)

#: Characters of a level-3 heading the model may write (the wire pattern asks for this range).
SUB_MIN, SUB_MAX = 4, 12
#: Headings asked per section.
SUB_COUNT = 3
#: Calls kept in reserve for the rest of the run: below it, sections keep their planned headings.
CALL_RESERVE = 12
_CJK = re.compile(r"[\u4e00-\u9fff]")
_CONJUNCTIONS = re.compile(r"[与和及、]")
_PROMPT_WORDS = re.compile(r"标题|小节|节点|下级|名词|短语|输出|示例|例如|json", re.IGNORECASE)


class SubsectionTitles(BaseModel):
    """``{"titles": [...]}``: a few short headings; each is checked on its own in code."""

    model_config = ConfigDict(extra="ignore")
    titles: Annotated[list[Annotated[str, Field(json_schema_extra={
        "pattern": f"^[\\u4e00-\\u9fa5]{{{SUB_MIN},{SUB_MAX}}}$"})]], Field(min_length=1, max_length=SUB_COUNT + 1)]


@cache
def _examples() -> list[dict[str, Any]]:
    data = json.loads(resource_path("prompts", "outline_subsections.examples.json").read_text(encoding="utf-8"))
    return list(data["examples"])


def _grams(text: str) -> set[str]:
    t = "".join(_CJK.findall(text))
    return {t[i:i + 2] for i in range(len(t) - 1)}


def example_titles() -> set[str]:
    """Every heading the worked examples show (a model answer equal to one was copied, not written)."""
    return {normalize_title(t) for e in _examples() for t in [e["section_title"], e["chapter_title"], *e["titles"]]}


#: Bigrams too common in headings to tie one to a section ("方案", "管理" …).
GENERIC_GRAMS = frozenset({"方案", "管理", "服务", "计划", "措施", "保障", "工作", "项目", "体系", "制度", "机制",
                           "要求", "内容", "情况", "实施", "相关", "安排", "建设", "系统"})
#: Words of the tendering procedure that every project name and prompt carries (采购项目, 招标): in a
#: heading they are the model echoing its prompt unless the section itself is about them (原料采购).
WRAPPER_GRAMS = frozenset({"采购", "招标", "投标", "磋商", "询价", "比选", "竞标", "标书"})
#: Share of a heading's characters that must be covered by words found in the tender or the plan.
GROUNDED_SHARE = 0.8


@cache
def _library_words() -> str:
    """Every heading of the heading library: the words bid writers use for such sections."""
    return "|".join(t for e in default_library() for t in e.headings())


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


def subsection_problem(title: str, section: str, chapter: str, context: str, taken: list[str],
                       project: str = "", section_words: str = "", siblings: tuple[str, ...] = ()) -> str | None:
    """Why a model's level-3 heading ``title`` under ``section`` cannot be kept (Chinese), or None.

    ``context`` is this chapter's own text (project, chapter, criteria, the plan's headings):
    a heading must be made of words found there. ``section_words`` is what is known of the
    section (its title, description and planned headings): the heading must share a specific
    word with it, or it is about another section. ``taken`` are headings already in the
    outline, ``siblings`` the ones kept for this section so far.
    """
    t = re.sub(r"\s+", "", title)
    if not SUB_MIN <= len(t) <= SUB_MAX or len(_CJK.findall(t)) < len(t):
        return "不是 4–12 个汉字的标题"
    problem = title_problem(t) or fragment_problem(t) or vague_problem(t)
    if problem:
        return problem
    if _PROMPT_WORDS.search(t):
        return "复述了提问的用词"
    key = _CONJUNCTIONS.sub("", normalize_title(t))
    if normalize_title(t) in example_titles():
        return "照抄了示例"
    for upper in (section, chapter):
        u = _CONJUNCTIONS.sub("", normalize_title(upper))  # "运输和交付" under 运输与交付 repeats it
        shared = next((i for i, (a, b) in enumerate(zip(key, u, strict=False)) if a != b), min(len(key), len(u)))
        if key == u or key in u or (shared >= 6 and shared < len(u)):  # a cut copy: "饮食需求六个方面阐述对该"
            return "只是重复了上级标题"
    if copies_project(t, project) or (len(t) >= 5 and t in "".join(_CJK.findall(project))):
        return "照抄了项目名称"
    grams = [t[i:i + 2] for i in range(len(t) - 1)]
    if len(set(grams)) < len(grams):
        return "标题在重复自己"
    own_text = section + chapter + section_words
    wrapper = next((g for g in grams if g in WRAPPER_GRAMS and g not in own_text), None)
    if wrapper:  # "采购需求分析" under 项目背景分析: the tender's procedure, not the bidder's work
        return f"用了招标程序的用语“{wrapper}”，不是本节的内容"
    if grounded_share(t, context + section + section_words + _library_words()) < GROUNDED_SHARE:
        return "用了招标文件和本节都没有的词"
    own = _grams(section + section_words) - GENERIC_GRAMS
    if section_words and not (set(grams) - GENERIC_GRAMS) & own:
        return "与本节内容无关"
    if any(k in t or t in k for k in (normalize_title(x) for x in siblings)):
        return "与同一节的另一个小标题重复"
    if any(same_heading(t, x, 0.8) for x in taken):
        return "与目录中已有的标题重复"
    return None


def _messages(job: OutlineJob, chapter: str, section: str) -> list[dict[str, Any]]:
    """Two worked examples (the ones least like this chapter) as chat turns, then the question."""
    own = _grams(chapter + section + job.project_name)
    shots = sorted(_examples(), key=lambda e: len(_grams(e["chapter_title"] + e["section_title"]) & own))[:2]
    out: list[dict[str, Any]] = []
    for e in shots:
        out.append({"role": "user", "content": job.prompt("outline_subsections", count=len(e["titles"]), **{
            k: e[k] for k in ("project_name", "chapter_title", "section_title")})})
        out.append({"role": "assistant", "content": json.dumps({"titles": e["titles"]}, ensure_ascii=False)})
    out.append({"role": "user", "content": job.prompt("outline_subsections", count=SUB_COUNT, project_name=job.project_name,
                                                      chapter_title=chapter, section_title=section)})
    return out


async def _ask(job: OutlineJob, messages: list[dict[str, Any]], temperature: float) -> list[str]:
    value, _ = await ask_once(job, "chapter/sub", messages, SubsectionTitles, lambda v: [], 90, temperature)
    return list(value.titles) if value is not None else []


def _titles_outside(job: OutlineJob, target: SubtreeTarget) -> list[str]:
    """Headings of the live outline outside ``target``'s subtree."""
    if job.draft is None:
        return []
    n = len(target.path)
    return [node.title for path, node in job.draft.walk() if path[:n] != target.path]


async def write_subsections(job: OutlineJob, target: SubtreeTarget, sections: list[OutlineNode],
                            context: str) -> tuple[list[OutlineNode], int]:
    """``sections`` (a chapter's level-2 nodes, planned by code) with level-3 headings the model wrote
    where it could; planned headings fill up and stand in where it could not. Returns (nodes, calls)."""
    lim = job.limits
    if target.levels < 2 or not sections:
        return sections, 0
    taken = [*_titles_outside(job, target), *target.ancestors, target.title, *target.siblings,
             *(t for s in sections for t in (s.title, *(c.title for c in s.children if c.origin == "tender"))),
             *job.written_titles, *target.elsewhere]
    out: list[OutlineNode] = []
    calls = 0
    for k, section in enumerate(sections):
        left = job.meter.remaining_calls()
        if left is not None and left <= CALL_RESERVE:
            out.extend(sections[k:])
            break
        planned = list(section.children)
        want = max(lim.min_children, min(SUB_COUNT, len(planned) or SUB_COUNT))
        fixed = [p for p in planned if p.origin == "tender"]  # the tender's own points are never replaced
        if len(fixed) >= want:
            out.append(section)
            taken += [c.title for c in planned]
            continue
        job.meter.emit("stepwise", f"正在请模型为“{section.title}”写小标题（第 {k + 1}/{len(sections)} 节）")
        own = context + section.title + section.description
        words = section.description + "".join(c.title + c.description for c in planned)
        kept: list[str] = []
        spent = False
        try:
            for temperature in (0.3, 0.7):
                answers = await _ask(job, _messages(job, target.title, section.title), temperature)
                calls += 1
                for a in answers:
                    a = re.sub(r"\s+", "", a)
                    if len(fixed) + len(kept) < want and subsection_problem(a, section.title, target.title, own, taken,
                                                               job.project_name, words, tuple(kept)) is None:
                        kept.append(a)
                if len(fixed) + len(kept) >= lim.min_children:
                    break
        except BudgetExhausted:  # the run's budget is spent: what the model wrote stays, the rest is planned
            spent = True
        children = list(fixed)
        for t in kept:
            if not any(same_heading(t, c.title, 0.8) for c in children):
                children.append(OutlineNode(title=t))
        for p in planned:
            if len(children) >= want:
                break
            if p not in fixed and not any(same_heading(p.title, c.title, 0.8) for c in children):
                children.append(p)
        if len(children) < lim.min_children:
            children = planned
        children = mark_origins(children, target.plan)
        taken += [c.title for c in children]
        job.written_titles.extend(c.title for c in children if c.origin == "model")
        out.append(section.model_copy(update={"children": children}))
        path = (*target.path, k)
        if job.draft is not None and job.draft.exists(path) and job.draft.node(path).title == section.title:
            sync_children(job.draft, path, children)  # the tree shows each section as the model writes it
        if spent:
            out.extend(sections[k + 1:])
            break
    log.info("subsections: %d calls, %d model headings", calls,
             sum(1 for s in out for c in s.children if c.origin == "model"))
    return out, calls

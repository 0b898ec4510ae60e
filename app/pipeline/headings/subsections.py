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
from app.core.rules import heading_checks, registry
from app.core.rules.heading_checks import HeadingContext
from app.core.rules.outline import normalize_title
from app.pipeline.headings.candidates import same_heading
from app.pipeline.headings.fill import ask_once, mark_origins
from app.pipeline.headings.library import default_library
from app.pipeline.outline.budget import BudgetExhausted

if TYPE_CHECKING:
    from app.pipeline.outline.job import OutlineJob, SubtreeTarget

log = logging.getLogger(__name__)

#: Characters of a level-3 heading the model may write (the wire pattern asks for this range).
SUB_MIN, SUB_MAX = heading_checks.SUB_MIN, heading_checks.SUB_MAX
#: What the wire pattern asks of a weak model (a regular shape it can follow; validation accepts more).
WIRE_MIN, WIRE_MAX = 4, 20
#: Headings asked per section.
SUB_COUNT = 3
#: Calls kept in reserve for the rest of the run: below it, sections keep their planned headings.
CALL_RESERVE = 12
_CJK = re.compile(r"[\u4e00-\u9fff]")
#: Planned level-3 headings the model never replaces: the tender's own points, the user's past bids' headings.
_KEPT = ("tender", "history")


class SubsectionTitles(BaseModel):
    """``{"titles": [...]}``: a few short headings; each is checked on its own in code."""

    model_config = ConfigDict(extra="ignore")
    titles: Annotated[list[Annotated[str, Field(json_schema_extra={
        "pattern": f"^[\\u4e00-\\u9fa5、]{{{WIRE_MIN},{WIRE_MAX}}}$"})]], Field(min_length=1, max_length=SUB_COUNT + 1)]


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


@cache
def _library_words() -> str:
    """Every heading of the heading library: the words bid writers use for such sections."""
    return "|".join(t for e in default_library() for t in e.headings())


def _context(title: str, section: str, chapter: str, context: str, taken: list[str], project: str,
             section_words: str, siblings: tuple[str, ...]) -> HeadingContext:
    return HeadingContext(title=re.sub(r"\s+", "", title), level=3, writer="model", parent=section, chapter=chapter,
                          project=project, context=context, section_words=section_words, siblings=siblings,
                          taken=tuple(taken), examples=frozenset(example_titles()), vocabulary=_library_words(),
                          small_question=True)


def subsection_problem(title: str, section: str, chapter: str, context: str, taken: list[str],
                       project: str = "", section_words: str = "", siblings: tuple[str, ...] = ()) -> str | None:
    """Why a model's level-3 heading ``title`` under ``section`` cannot be kept (Chinese), or None.

    Only defects refuse (the rules of :mod:`app.core.rules.registry` in the scope of a weak model's
    answer to the one-section question): a repeat of the section, chapter or project, an example
    copied, a heading used elsewhere, prompt words, fragments. ``context`` is this chapter's own
    text; ``section_words`` what is known of the section; ``taken`` headings already in the
    outline, ``siblings`` the ones kept for this section so far.
    """
    return registry.first_problem(_context(title, section, chapter, context, taken, project, section_words, siblings))


def subsection_warnings(title: str, section: str, chapter: str, context: str, project: str = "",
                        section_words: str = "") -> list[str]:
    """What speaks against a model's level-3 heading without being a defect (words the tender, the section and the
    library do not use; nothing shared with the section): such a heading ranks after the headings code planned."""
    ctx = _context(title, section, chapter, context, [], project, section_words, ())
    return [msg for _, msg in registry.problems(ctx, "warning")]


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
    health = job.meter.health
    if health is not None and not job.small_question_probation and health.grant_probation():
        job.small_question_probation = True  # once a run: the chapters failed, this question is smaller
        log.info("the model failed whole chapters; it gets one try at a section's sub-headings")
    taken = [*_titles_outside(job, target), *target.ancestors, target.title, *target.siblings,
             *(t for s in sections for t in (s.title, *(c.title for c in s.children if c.origin in _KEPT))),
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
        fixed = [p for p in planned if p.origin in _KEPT]  # the tender's points and the user's past headings stay
        if len(fixed) >= want:
            out.append(section)
            taken += [c.title for c in planned]
            continue
        job.meter.emit("stepwise", f"正在请模型为“{section.title}”写小标题（第 {k + 1}/{len(sections)} 节）")
        own = context + section.title + section.description
        words = section.description + "".join(c.title + c.description for c in planned)
        kept: list[str] = []
        warned: list[str] = []
        spent = False
        try:
            for temperature in (0.3, 0.7):
                answers = await _ask(job, _messages(job, target.title, section.title), temperature)
                calls += 1
                for a in answers:
                    a = re.sub(r"\s+", "", a)
                    if len(fixed) + len(kept) >= want or subsection_problem(
                            a, section.title, target.title, own, taken, job.project_name, words, (*kept, *warned)):
                        continue
                    if subsection_warnings(a, section.title, target.title, own, job.project_name, words):
                        warned.append(a)  # no defect, but nothing ties it to the section: after the planned ones
                    else:
                        kept.append(a)
                if len(fixed) + len(kept) >= lim.min_children:
                    break
        except BudgetExhausted:  # the run's budget is spent: what the model wrote stays, the rest is planned
            spent = True
        children = compose_children(fixed, kept, planned, warned, want, lim.min_children)
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


def compose_children(fixed: list[OutlineNode], kept: list[str], planned: list[OutlineNode], warned: list[str],
                     want: int, min_children: int) -> list[OutlineNode]:
    """A section's level-3 headings: the tender's and the user's (``fixed``), then the model's that fit the
    section (``kept``), then planned ones up to ``want``. A model heading nothing ties to the section
    (``warned``: 入库管理 under 人员稳定与补充) is no defect but no evidence either: it only fills a section
    that would otherwise have fewer than ``min_children``, never rounds one up."""
    children = list(fixed)
    for t in kept:
        if not any(same_heading(t, c.title, 0.8) for c in children):
            children.append(OutlineNode(title=t))
    for p in planned:
        if len(children) >= want:
            break
        if p not in fixed and not any(same_heading(p.title, c.title, 0.8) for c in children):
            children.append(p)
    for t in warned:
        if len(children) < min_children and not any(same_heading(t, c.title, 0.8) for c in children):
            children.append(OutlineNode(title=t))
    return children

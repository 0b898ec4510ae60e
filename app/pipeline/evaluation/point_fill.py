"""Every criteria point of a chapter's item answered by a heading code planned, as an evaluator reads it.

Used by the outline run as the last step of planning each chapter (``plan_outline(..., complete=complete_plan)``)
and, through :func:`answer_chapter`, as the run's last step on the chapters as the model left them: a weak
model may answer a chapter with one leaf titled like an overview, put a section under the next chapter or pick
numbers off the list, and what it dropped is put back here (``_Run.answer_points``).

The 评审模拟 engine matches each point an item's criteria name to the bid (``app.pipeline.evaluation``);
applied to a chapter's planned headings it says which points no heading (nor the description under
it) answers. :func:`answer_points` closes those gaps in the tender's own words: a point that reads as
a heading goes under the section most about it (a level-3 heading marked ``tender``), or becomes a
section of its own when the chapter has none or only one level is asked for; a point that cannot be
a heading (it names a quality, or its words are not a noun phrase) is written into the description of
the section most about it ("评分要点：…"), so the writer sees it where it belongs. Nothing about the
point is invented: it is the criteria's text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from app.core.outline import OutlineNode
from app.core.rules.heading_form import form_problem, is_predicate, vague_problem
from app.core.rules.outline import normalize_title
from app.pipeline.evaluation.outline_points import covering_heading, item_coverage
from app.pipeline.evaluation.terms import item_points
from app.pipeline.headings.candidates import grams, heading_defect
from app.pipeline.headings.criteria_points import point_heading

if TYPE_CHECKING:
    from app.core.analysis import ScoringGroup
    from app.pipeline.headings.candidates import ChapterPlan, TitleRegistry

NOTE = "评分要点："
DESCRIPTION_MAX = 380


def _best_section(nodes: list[OutlineNode], label: str) -> OutlineNode | None:
    """The section sharing most specific words with ``label`` (the one with fewest headings on a tie), or None
    when no section shares any."""
    words = grams(label)
    best: tuple[int, int] | None = None
    out: OutlineNode | None = None
    for node in nodes:
        own = set(grams(node.title)).union(*(grams(c.title) for c in node.children))
        key = (len(words & own), -len(node.children))
        if best is None or key > best:
            best, out = key, node
    return out if best is not None and best[0] > 0 else None


_SPLIT = re.compile(r"与|和|及|、")
#: Words too general to stand as a heading alone.
_GENERIC = frozenset({"方案", "措施", "计划", "内容", "服务", "管理", "人员", "工作", "项目", "要求", "情况", "其他", "相关",
                      "评分", "得分", "分值", "材料", "资料", "业绩", "证明"})
_TAIL_NOUN = re.compile(r"(?:方案|措施|计划|管理|制度|机制|体系|服务|保障|控制)$")


def name_parts(title: str) -> list[str]:
    """The parts a compound name joins, each with the shared noun ("产物利用与末端管控方案" → 产物利用方案,
    末端管控方案); [] when the name joins nothing."""
    parts = [p for p in _SPLIT.split(re.sub(r"[（(][^）)]*[）)]", "", title)) if p]
    if len(parts) < 2:
        return []
    tail = _TAIL_NOUN.search(parts[-1])
    out = [p if _TAIL_NOUN.search(p) or tail is None else p + tail.group() for p in parts]
    return [p for p in out if len(p) >= 3 and grams(p)]


def _short_noun(text: str) -> str | None:
    """A two-character noun a criterion names on its own (色泽, 口感, 收银), when it reads as a heading."""
    t = re.sub(r"\s+", "", text)
    if len(t) != 2 or not re.fullmatch(r"[\u4e00-\u9fff]{2}", t) or is_predicate(t) or t in _GENERIC:
        return None
    return None if form_problem(t) or vague_problem(t, strict=True) else t


def _note(node: OutlineNode, label: str) -> None:
    text = f"{NOTE}{label}"
    if text in node.description:
        return
    node.description = (f"{node.description}；{text}" if node.description else text)[:DESCRIPTION_MAX]


def complete_plan(plan: ChapterPlan, group: ScoringGroup | None, registry: TitleRegistry, *, levels: int,
                  max_children: int, project: str) -> None:
    """:func:`answer_points` for one chapter plan of ``plan_outline`` (a scoring item's chapter only)."""
    if group is not None and group.id:
        plan.nodes = answer_points(plan.nodes, group, plan.chapter, registry, levels=levels, max_children=max_children,
                                   project=project)


def answer_points(nodes: list[OutlineNode], group: ScoringGroup, chapter: str, registry: TitleRegistry, *,
                  levels: int = 2, max_children: int = 10, project: str = "", thin: bool = False) -> list[OutlineNode]:
    """``nodes`` (a chapter's planned children) with every criteria point of ``group`` answered (see module).

    ``thin``: the chapter's sections are too few to hold the item's points (one leaf titled like an
    overview): each point that reads as a heading becomes a section of its own beside them."""
    criteria = "\n".join([group.description, *group.detail_points])
    points = item_points(group)
    root = OutlineNode(title=chapter, children=nodes)
    planned = bool(root.children) and not thin  # code planned sections: a point goes under one; else points are sections
    if not root.children:  # nothing planned: the chapter's own name names its parts ("产物利用与末端管控方案")
        for part in name_parts(chapter):
            if registry.free(part) and heading_defect(part, 2, chapter, chapter, criteria, project) is None:
                root.children.append(OutlineNode(title=part, origin="tender", description=f"{NOTE}{chapter}"))
                registry.take(part)
    for terms in points:
        if covering_heading(terms, list(root.walk())):
            continue
        raw = terms.label.split("：")[-1]
        heading = (point_heading(raw, "", criteria) or point_heading(terms.label.replace("：", ""), "", criteria)
                   or _short_noun(raw))
        usable = (heading is not None and registry.free(heading)
                  and normalize_title(heading) != normalize_title(chapter))
        section = _best_section(root.children, terms.label)
        if usable and heading is not None and (levels < 2 or section is None or not planned) \
                and len(root.children) < max_children:
            if heading_defect(heading, 2, chapter, chapter, criteria, project) is None:
                node = OutlineNode(title=heading, origin="tender", description=f"{NOTE}{raw}")
                root.children.append(node)
                registry.take(heading)
                continue
        if usable and heading is not None and section is not None and levels >= 2 and len(section.children) < max_children:
            if heading_defect(heading, 3, section.title, chapter, criteria, project) is None and not any(
                    normalize_title(c.title) == normalize_title(heading) for c in section.children):
                section.children.append(OutlineNode(title=heading, origin="tender"))
                registry.take(heading)
                if covering_heading(terms, list(root.walk())):
                    continue
        anywhere = section or (root.children[0] if root.children else None)
        if anywhere is not None:  # the part alone: its clause's words would answer its siblings too
            _note(anywhere, raw)
    return root.children


def answer_chapter(chapter: OutlineNode, group: ScoringGroup, registry: TitleRegistry, *, levels: int,
                   min_children: int, max_children: int, project: str = "") -> OutlineNode:
    """``chapter`` as the run finished it (whoever wrote its headings) with every criteria point of ``group``
    answered below it: :func:`answer_points` on a copy of its sections, within ``levels`` levels below the
    chapter. A chapter with fewer than ``min_children`` sections gets the points as sections of their own.
    Returns ``chapter`` itself when every point is already answered (or nothing could be added)."""
    if not item_coverage(group, [chapter], [(0,)]).missing:  # as the report and the quality script judge it
        return chapter
    before = [c.model_copy(deep=True) for c in chapter.children]
    kids = answer_points([c.model_copy(deep=True) for c in chapter.children], group, chapter.title, registry,
                         levels=levels, max_children=max_children, project=project,
                         thin=len(chapter.children) < min_children)
    if kids == before:
        return chapter
    return chapter.model_copy(update={"children": kids})

"""Where the model cannot write a chapter, code fills it from the tender and the library — and the
model still does the small part it can: choose and order the sections, write their descriptions.

Both questions are closed or nearly so (pick numbers from a list; one sentence per given
heading), asked with small bounded schemas and validated item by item; whatever fails
keeps the code's choice. Every heading keeps its origin (tender / library), so the run, the
UI and ``tests/eval/outline_quality.py`` can say who wrote what. Also here: the heading-form
rule for model output (fragments are issues; local repair drops them while enough remain)
and the marking of what a model returned (a copied candidate keeps its candidate's origin).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from app.core.outline import OutlineNode
from app.core.rules.heading_checks import copies_project
from app.core.rules.heading_form import fragment_problem, vague_problem
from app.core.rules.outline import title_problem
from app.llm.client.errors import LLMConnectionError
from app.llm.json.collect import collect_json
from app.pipeline.headings.candidates import ChapterPlan, same_heading
from app.pipeline.headings.library import default_library
from app.pipeline.outline.job import user_messages

if TYPE_CHECKING:
    from app.pipeline.outline.job import OutlineJob, SubtreeTarget

log = logging.getLogger(__name__)

DESC_MAX = 60
TITLE_MAX = 20
_ECHO = re.compile(r"请您?|填写|如下|以下|json|标题|输出|示例|说明：|……|\.\.\.|\{|\}", re.IGNORECASE)
_CJK = re.compile(r"[\u4e00-\u9fff]")


# --------------------------------------------------------------------------- heading form of model output


def fragment_issues(children: list[OutlineNode], prefix: str = "/children", criteria: str = "") -> list[str]:
    """Rule issues for headings (at any depth below) that are fragments of sentences, not headings."""
    issues: list[str] = []
    for i, node in enumerate(children):
        problem = fragment_problem(node.title, criteria)
        if problem:
            issues.append(f"{prefix}/{i}/title: {problem}")
        issues += fragment_issues(node.children, f"{prefix}/{i}/children", criteria)
    return issues


def vague_issues(children: list[OutlineNode], prefix: str = "/children") -> list[str]:
    """Issues for headings (at any depth below) a model wrote that say nothing ("相关需求")."""
    issues: list[str] = []
    for i, node in enumerate(children):
        problem = vague_problem(node.title)
        if problem:
            issues.append(f"{prefix}/{i}/title: {problem}")
        issues += vague_issues(node.children, f"{prefix}/{i}/children")
    return issues


def project_echo_issues(children: list[OutlineNode], project: str, prefix: str = "/children") -> list[str]:
    """Issues for headings (at any depth below) that copy the project's name: a model that echoes its
    prompt ("2026-2028某某服务采购" under 岗位设置) wrote no heading."""
    if len("".join(_CJK.findall(project))) < 6:
        return []
    issues: list[str] = []
    for i, node in enumerate(children):
        if copies_project(node.title, project):
            issues.append(f"{prefix}/{i}/title: 标题“{node.title}”照抄了项目名称，应写本节自己的内容")
        issues += project_echo_issues(node.children, project, f"{prefix}/{i}/children")
    return issues


def drop_fragments(children: list[OutlineNode], min_children: int, criteria: str = "") -> list[OutlineNode]:
    """Children without fragment headings, dropped only while at least ``min_children`` remain (recursively)."""
    good = [c for c in children if fragment_problem(c.title, criteria) is None]
    kept = good if len(good) >= min(min_children, len(children)) else children
    return [c.model_copy(update={"children": drop_fragments(c.children, min_children, criteria)}) for c in kept]


def mark_origins(nodes: list[OutlineNode], plan: ChapterPlan | None) -> list[OutlineNode]:
    """The model's nodes with their origin set: a heading equal to a tender, past-bid or library candidate
    keeps that source (the model copied it; a past bid's heading also gets the bid and section in
    ``origin_source``), anything else is the model's own."""
    known: dict[str, str] = {}
    notes: dict[str, str] = {}  # a past bid's heading → its source
    if plan is not None:
        for c in [*plan.points, *plan.requirements, *plan.history]:
            known.setdefault(c.title, c.source)
            for t, src in c.children:
                known.setdefault(t, src)
            if c.source == "history":
                for t in (c.title, *(t for t, _ in c.children)):
                    notes.setdefault(t, c.note)
        for n in plan.nodes:
            for _, x in OutlineNode(title="r", children=[n]).walk():
                known.setdefault(x.title, x.origin or "library")
    library = {t for e in default_library() for t in e.headings()}

    def origin_of(title: str) -> tuple[str, str]:
        for k, src in known.items():
            if same_heading(title, k, 0.9):
                return src, k
        return ("library" if title in library else "model"), ""

    def mark(node: OutlineNode) -> OutlineNode:
        origin, key = (node.origin, "") if node.origin else origin_of(node.title)
        update: dict[str, Any] = {"origin": origin, "children": [mark(c) for c in node.children]}
        if origin == "history" and not node.origin_source and notes.get(key):
            update["origin_source"] = notes[key]
        return node.model_copy(update=update)

    return [mark(n) for n in nodes]


def count_origins(nodes: list[OutlineNode]) -> Counter[str]:
    """Headings below (not including) the given nodes' parent, counted by origin."""
    out: Counter[str] = Counter()
    for n in nodes:
        out[n.origin or "model"] += 1
        out += count_origins(n.children)
    return out


# --------------------------------------------------------------------------- the model's small part


def pick_model(n: int, lo: int, hi: int) -> type[BaseModel]:
    """``{"picks": [k, …]}``: ``lo``–``hi`` numbers of ``n`` listed sections."""
    item = Annotated[int, Field(ge=1, le=n)]
    model: type[BaseModel] = create_model(
        "SectionPicks", __config__=ConfigDict(extra="ignore"),
        picks=(Annotated[list[item], Field(min_length=lo, max_length=hi)], ...),
    )
    return model


class _RefinedItem(BaseModel):
    model_config = ConfigDict(extra="ignore")
    title: Annotated[str, Field(max_length=TITLE_MAX)] = ""
    description: Annotated[str, Field(max_length=DESC_MAX)] = ""


class _RefinedTitle(BaseModel):
    model_config = ConfigDict(extra="ignore")
    title: Annotated[str, Field(max_length=TITLE_MAX)] = ""


def refine_model(n: int, descriptions: bool) -> type[BaseModel]:
    """``{"items": [{"title", "description"}, …]}``: exactly ``n`` reworded titles (and descriptions)."""
    items: Any = list[_RefinedItem] if descriptions else list[_RefinedTitle]
    fields: dict[str, Any] = {"items": (Annotated[items, Field(min_length=n, max_length=n)], ...)}
    model: type[BaseModel] = create_model("SectionRefinement", __config__=ConfigDict(extra="ignore"), **fields)
    return model


def _all_grams(text: str) -> set[str]:
    t = re.sub(r"[^\u4e00-\u9fff]", "", text)
    return {t[i:i + 2] for i in range(len(t) - 1)}


def adaptation_problem(new: str, old: str, context: str) -> str | None:
    """Why a model's rewording ``new`` of heading ``old`` cannot replace it (None: keep the rewording).

    A rewording keeps most of the original's wording and adds only words found in this tender
    (its project text, the chapter and its criteria): it adapts the heading, it does not invent one.
    """
    t = re.sub(r"\s+", "", new)
    if t == old:
        return "未改动"
    if not 3 <= len(t) <= TITLE_MAX or title_problem(t) or fragment_problem(t):
        return "不是合格的标题"
    kept = _all_grams(old)
    if kept and len(kept & _all_grams(t)) < 0.6 * len(kept):
        return "改动了原标题的意思"
    added = [ch for ch in t if ch not in old]
    if not added or any(ch not in context for ch in added):
        return "加入了招标文件中没有的词"
    return None


def description_problem(text: str, title: str, chapter: str, project: str = "") -> str | None:
    """Why a model's description of ``title`` cannot be kept (Chinese), or None."""
    t = re.sub(r"\s+", "", text or "")
    cjk = len(_CJK.findall(t))
    if cjk < 8 or cjk < len(t) * 0.6:
        return "说明太短或不是中文"
    if _ECHO.search(t):
        return "说明复述了提示词"
    rest = t.replace(title, "").replace(chapter, "").replace(project, "")
    if len(_CJK.findall(rest)) < 6:
        return "说明只是重复了标题"
    grams = {t[i:i + 2] for i in range(len(t) - 1)}
    own = {x[i:i + 2] for x in (title, chapter) for i in range(len(x) - 1)}
    if not grams & own:
        return "说明与标题无关"
    if any(t.count(t[i:i + 2]) >= 4 for i in range(len(t) - 1)) or any(
            t.count(t[i:i + 3]) >= 3 for i in range(len(t) - 2)):
        return "说明在重复自己"
    return None


async def ask_once(job: OutlineJob, stage: str, prompt: str | list[dict[str, Any]], model: type[BaseModel], rule: Any,
                   max_tokens: int, temperature: float = 0.2) -> tuple[Any, int]:
    """One small bounded question (a prompt, or chat turns): the value, or None; and the calls used."""
    job.meter.check(stage)
    messages = user_messages(prompt) if isinstance(prompt, str) else prompt
    res = await collect_json(job.client, messages, model, rules=[rule], max_attempts=1, stage=stage,
                             max_tokens=max_tokens, temperature=temperature)
    job.record(stage, max(1, res.attempts), res.prompt_tokens, res.completion_tokens,
               bool(getattr(res, "tokens_estimated", False)))
    if not res.ok and res.stopped_by == "connection":
        raise LLMConnectionError(res.issues[0] if res.issues else "模型服务连接失败")
    return (res.value if res.ok else None), max(1, res.attempts)


async def pick_sections(job: OutlineJob, target: SubtreeTarget, nodes: list[OutlineNode]) -> tuple[list[OutlineNode], int]:
    """Let the model choose and order the chapter's sections among ``nodes`` (numbers only)."""
    lim = job.limits
    n = len(nodes)
    lo = max(lim.min_children, min(n, 3))
    if n <= lo:
        return nodes, 0
    listing = "\n".join(f"{i + 1}. {node.title}" + ("（历史标书）" if node.origin == "history" else "")
                        for i, node in enumerate(nodes))
    sources = ("招标文件、常用标书结构和本公司历史标书；标“历史标书”的是本公司以往投标用过的结构，合适时优先选用"
               if any(node.origin == "history" for node in nodes) else "招标文件和常用标书结构")
    prompt = job.prompt("outline_pick", project_name=job.project_name, chapter_title=target.title,
                        chapter_brief=target.brief, candidates=listing, min_items=lo, max_items=n, sources=sources)

    def rule(value: Any) -> list[str]:
        picks = list(value.picks)
        return ["/picks: 编号不能重复"] if len(set(picks)) != len(picks) else []

    value, calls = await ask_once(job, "chapter/pick", prompt, pick_model(n, lo, n), rule, 60)
    if value is None:
        return nodes, calls
    return [nodes[k - 1] for k in value.picks], calls


async def refine_sections(job: OutlineJob, target: SubtreeTarget, nodes: list[OutlineNode],
                          context: str) -> tuple[list[OutlineNode], int]:
    """Ask the model to adapt each section title to this tender's words and describe it in a sentence.

    Each rewording and each description is checked on its own; what fails keeps the code's text.
    An accepted rewording is the model's heading (its origin becomes "model").
    """
    if not nodes:
        return nodes, 0
    describe = job.settings.descriptions
    listing = "\n".join(f"{i + 1}. {node.title}" for i, node in enumerate(nodes))
    ask = "；description：一句话（15–40 个字）说明这一节要写哪些具体内容" if describe else ""
    shape = '{{"title": "……", "description": "……"}}' if describe else '{{"title": "……"}}'
    prompt = job.prompt("outline_refine", project_name=job.project_name, chapter_title=target.title,
                        chapter_brief=target.brief, sections=listing, count=len(nodes), describe=ask,
                        item_shape=shape.replace("{{", "{").replace("}}", "}"))
    value, calls = await ask_once(job, "chapter/refine", prompt, refine_model(len(nodes), describe), lambda v: [],
                              (45 if describe else 15) * len(nodes) + 40)
    if value is None:
        return nodes, calls
    out: list[OutlineNode] = []
    titles = {n.title for n in nodes}
    seen_desc: set[str] = set()
    for node, item in zip(nodes, value.items, strict=False):
        update: dict[str, Any] = {}
        new = re.sub(r"\s+", "", item.title)
        verbatim = node.origin in ("history", "user")  # the user's own headings are kept as they are (rule 16)
        if not verbatim and adaptation_problem(new, node.title, context) is None and new not in titles:
            titles.add(new)
            update.update(title=new, origin="model")
        text = re.sub(r"\s+", "", getattr(item, "description", ""))
        if text and description_problem(text, node.title, target.title, job.project_name) is None and text not in seen_desc:
            seen_desc.add(text)
            note = node.description if node.description.startswith("评分标准") else ""
            update["description"] = (text + (f"（{note}）" if note else ""))[:380]
        out.append(node.model_copy(update=update) if update else node)
    return out + nodes[len(out):], calls


async def fill_from_plan(job: OutlineJob, target: SubtreeTarget, plan: ChapterPlan) -> tuple[list[OutlineNode], int]:
    """The plan's children (code: tender and library), ordered by the model, adapted to the tender's words
    and described by it where it can."""
    nodes = [n.model_copy(deep=True) for n in plan.nodes]
    calls = 0
    nodes, k = await pick_sections(job, target, nodes)
    calls += k
    nodes, k = await refine_sections(job, target, nodes, plan_context(job, target, plan))
    calls += k
    return nodes, calls


def plan_context(job: OutlineJob, target: SubtreeTarget, plan: ChapterPlan) -> str:
    """The words of this chapter: project text, chapter, criteria, candidates and the headings code planned."""
    ov = job.analysis.overview
    parts = [ov.project_name, ov.summary, ov.scope, target.title, target.brief,
             *(c.title for c in [*plan.points, *plan.requirements]),
             *(n.title for top in plan.nodes for _, n in top.walk())]
    return re.sub(r"\s+", "", "".join(parts))


def lift_scored_items(nodes: list[OutlineNode], plan: ChapterPlan | None) -> list[OutlineNode]:
    """A chapter's children with each separately scored part of its item back at level 2.

    The item's parts (服务方案 15 分, 应急服务方案 5 分, 服务质量保证措施 10 分) are what an evaluator looks
    for side by side. A weak model nested one under another (服务质量保证措施与服务质量承诺 under
    应急服务方案, its points at level 4): a scored part found below another scored part is moved up,
    with its own headings, to stand right after the section it was under. A scored part under a
    section that is not one (a model's own grouping) is a writer's choice and stays.
    """
    if plan is None or len(plan.points) < 2:
        return nodes

    def scored(title: str) -> bool:
        return any(same_heading(title, p.title, 0.9) for p in plan.points)

    def prune(node: OutlineNode, lifted: list[OutlineNode]) -> OutlineNode:
        kept: list[OutlineNode] = []
        for c in node.children:
            (lifted if scored(c.title) else kept).append(prune(c, lifted))
        return node.model_copy(update={"children": kept})

    out: list[OutlineNode] = []
    for top in nodes:
        if not scored(top.title):
            out.append(top)
            continue
        lifted: list[OutlineNode] = []
        out.append(prune(top, lifted))
        out.extend(lifted)
    if len(out) != len(nodes):
        log.info("lifted %d scored parts nested under another back to level 2", len(out) - len(nodes))
    return out

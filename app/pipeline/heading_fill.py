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

import re
from collections import Counter
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from app.core.heading_form import fragment_problem
from app.core.outline import OutlineNode
from app.core.rules import normalize_title
from app.llm.collect_json import collect_json
from app.llm.errors import LLMConnectionError
from app.pipeline.heading_candidates import ChapterPlan, same_heading
from app.pipeline.heading_library import default_library
from app.pipeline.outline_job import user_messages

if TYPE_CHECKING:
    from app.pipeline.outline_job import OutlineJob, SubtreeTarget

DESC_MAX = 60
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


def pattern_issues(children: list[OutlineNode], prefix: str = "/children") -> list[str]:
    """Issues for sections whose level-3 headings are only the section's title plus the same suffixes as
    under two other sections ("X目标"/"X措施" everywhere): one template, not headings about the section."""
    sets: dict[frozenset[str], list[int]] = {}
    for i, node in enumerate(children):
        base = normalize_title(node.title)
        keys = [normalize_title(c.title) for c in node.children]
        if len(base) < 2 or len(keys) < 2 or not all(k.startswith(base) and len(k) > len(base) for k in keys):
            continue
        sets.setdefault(frozenset(k[len(base):] for k in keys), []).append(i)
    issues: list[str] = []
    for suffixes, where in sets.items():
        if len(where) >= 3:
            issues += [f"{prefix}/{i}/children: 子标题只是上级标题加上“{'、'.join(sorted(suffixes))}”，"
                       "各节都用同一写法，应写出本节自己的内容" for i in where]
    return issues


def drop_fragments(children: list[OutlineNode], min_children: int, criteria: str = "") -> list[OutlineNode]:
    """Children without fragment headings, dropped only while at least ``min_children`` remain (recursively)."""
    good = [c for c in children if fragment_problem(c.title, criteria) is None]
    kept = good if len(good) >= min(min_children, len(children)) else children
    return [c.model_copy(update={"children": drop_fragments(c.children, min_children, criteria)}) for c in kept]


def mark_origins(nodes: list[OutlineNode], plan: ChapterPlan | None) -> list[OutlineNode]:
    """The model's nodes with their origin set: a heading equal to a tender or library candidate keeps
    that source (the model copied it), anything else is the model's own."""
    known: dict[str, str] = {}
    if plan is not None:
        for c in [*plan.points, *plan.requirements]:
            known.setdefault(c.title, "tender")
            for t, src in c.children:
                known.setdefault(t, src)
        for n in plan.nodes:
            for _, x in OutlineNode(title="r", children=[n]).walk():
                known.setdefault(x.title, x.origin or "library")
    library = {t for e in default_library() for t in e.headings()}

    def origin_of(title: str) -> str:
        for k, src in known.items():
            if same_heading(title, k, 0.9):
                return src
        return "library" if title in library else "model"

    def mark(node: OutlineNode) -> OutlineNode:
        origin = node.origin or origin_of(node.title)
        return node.model_copy(update={"origin": origin, "children": [mark(c) for c in node.children]})

    return [mark(n) for n in nodes]


def count_origins(nodes: list[OutlineNode]) -> Counter[str]:
    """Headings below (not including) the given nodes' parent, counted by origin."""
    out: Counter[str] = Counter()
    for n in nodes:
        out[n.origin or "model"] += 1
        out += count_origins(n.children)
    return out


# --------------------------------------------------------------------------- the model's small part


def _pick_model(n: int, lo: int, hi: int) -> type[BaseModel]:
    item = Annotated[int, Field(ge=1, le=n)]
    model: type[BaseModel] = create_model(
        "SectionPicks", __config__=ConfigDict(extra="ignore"),
        picks=(Annotated[list[item], Field(min_length=lo, max_length=hi)], ...),
    )
    return model


def _describe_model(n: int) -> type[BaseModel]:
    text = Annotated[str, Field(max_length=DESC_MAX)]
    model: type[BaseModel] = create_model(
        "SectionDescriptions", __config__=ConfigDict(extra="ignore"),
        descriptions=(Annotated[list[text], Field(min_length=n, max_length=n)], ...),
    )
    return model


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


async def _ask(job: OutlineJob, stage: str, prompt: str, model: type[BaseModel], rule: Any,
               max_tokens: int) -> tuple[Any, int]:
    job.meter.check(stage)
    res = await collect_json(job.client, user_messages(prompt), model, rules=[rule], max_attempts=1, stage=stage,
                             max_tokens=max_tokens, temperature=0.2)
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
    listing = "\n".join(f"{i + 1}. {node.title}" for i, node in enumerate(nodes))
    prompt = job.prompt("outline_pick", project_name=job.project_name, chapter_title=target.title,
                        chapter_brief=target.brief, candidates=listing, min_items=lo, max_items=n)

    def rule(value: Any) -> list[str]:
        picks = list(value.picks)
        return ["/picks: 编号不能重复"] if len(set(picks)) != len(picks) else []

    value, calls = await _ask(job, "chapter/pick", prompt, _pick_model(n, lo, n), rule, 60)
    if value is None:
        return nodes, calls
    return [nodes[k - 1] for k in value.picks], calls


async def describe_sections(job: OutlineJob, target: SubtreeTarget, nodes: list[OutlineNode]) -> tuple[list[OutlineNode], int]:
    """Ask the model for one sentence per section; keep only the sentences that pass the checks."""
    if not nodes:
        return nodes, 0
    listing = "\n".join(f"{i + 1}. {node.title}" for i, node in enumerate(nodes))
    prompt = job.prompt("outline_describe", project_name=job.project_name, chapter_title=target.title,
                        chapter_brief=target.brief, sections=listing, count=len(nodes))
    value, calls = await _ask(job, "chapter/describe", prompt, _describe_model(len(nodes)), lambda v: [],
                              40 * len(nodes) + 40)
    if value is None:
        return nodes, calls
    out: list[OutlineNode] = []
    seen: set[str] = set()
    for node, text in zip(nodes, value.descriptions, strict=False):
        clean = re.sub(r"\s+", "", text)
        if description_problem(clean, node.title, target.title, job.project_name) is None and clean not in seen:
            seen.add(clean)
            note = node.description if node.description.startswith("评分标准") else ""
            merged = clean + (f"（{note}）" if note else "")
            out.append(node.model_copy(update={"description": merged[:380]}))
        else:
            out.append(node)
    return out + nodes[len(out):], calls


async def fill_from_plan(job: OutlineJob, target: SubtreeTarget, plan: ChapterPlan) -> tuple[list[OutlineNode], int]:
    """The plan's children (code: tender and library), ordered by the model and described by it when it can."""
    nodes = [n.model_copy(deep=True) for n in plan.nodes]
    calls = 0
    nodes, k = await pick_sections(job, target, nodes)
    calls += k
    if job.settings.descriptions:
        nodes, k = await describe_sections(job, target, nodes)
        calls += k
    return nodes, calls

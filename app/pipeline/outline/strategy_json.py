"""Whole-JSON strategy: one bounded JSON object per step through ``collect_json``.

The schema sent to the endpoint (``json_schema`` or llama.cpp's ``json_object`` + schema)
bounds every array and string, so constrained decoding cannot run away. The business
rules given to ``collect_json`` are checked *after* local repair, so the model is only
asked again for what code cannot fix (too few children, repeated child sets).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from app.core.outline import Outline, OutlineNode
from app.core.outline_sync import sync_outline
from app.core.rules.outline import (
    OutlineLimits,
    check_outline,
    generation_issues,
    normalize_title,
    pattern_issues,
)
from app.llm.client.errors import LLMConnectionError
from app.llm.instructions.apply import InstructionApplier
from app.llm.json.collect import StreamSink, collect_json
from app.pipeline.headings.fill import (
    drop_fragments,
    fragment_issues,
    project_echo_issues,
    vague_issues,
)
from app.pipeline.outline.job import OutlineJob, StepResult, SubtreeTarget, user_messages
from app.pipeline.outline.live_tree import JsonOutlineFeed, LiveSubtree
from app.pipeline.outline.repair import repair_chapter, repair_outline
from app.pipeline.outline.schemas import (
    chapters_model,
    children_model,
    from_nodes,
    full_outline_model,
    to_nodes,
)


def json_format_hint(levels: int, key: str = "children", seeds: tuple[str, ...] = (),
                     descriptions: bool = True) -> str:
    """The JSON shape to ask for, written out for ``levels`` levels of headings.

    With ``seeds`` (detail points) the example's first-level titles are those points, so a
    model that copies the example still writes headings that answer the scoring items.
    """
    def shape(n: int, title: str = "……") -> dict[str, Any]:
        node: dict[str, Any] = {"title": title, "description": "……"} if descriptions else {"title": title}
        if n > 1:
            node["children"] = [shape(n - 1), "……"]
        return node

    items: list[Any] = [shape(levels, s) for s in seeds[:5]] or [shape(levels)]
    example = json.dumps({key: [*items, "……"]}, ensure_ascii=False).replace('"……"', "…")
    return f"只输出一个 JSON 对象，不要输出其他文字。格式：\n{example}"


def subtree_issues(title: str, children: list[OutlineNode], levels: int, limits: OutlineLimits,
                   siblings: tuple[str, ...] = (), project: str = "") -> tuple[list[OutlineNode], list[str]]:
    """Locally repaired children of a node and the rule issues left (pointers relative to the JSON).

    ``siblings`` are the titles beside the node: a child that copies one is an issue, as in
    the whole-outline rules. A heading that copies the ``project`` name is one too.
    """
    sub = limits.below(levels)
    node = repair_chapter(OutlineNode(title=title, children=drop_fragments(children, limits.min_children)), sub, siblings)
    issues = [str(i).replace("/outline/0", "", 1) or "/" for i in check_outline([node], sub)]
    issues = [i for i in issues if not i.startswith("/title:")]  # the node's own title is code's, not the answer's
    issues += fragment_issues(node.children) + pattern_issues(node.children) + project_echo_issues(node.children, project)
    issues += vague_issues(node.children)
    avoid = {normalize_title(s) for s in siblings} - {normalize_title(title)}
    issues += [f"/children/{'/children/'.join(map(str, path))}/title: 标题“{c.title}”与上级的同级章节同名，应写本节自己的内容"
               for path, c in node.walk() if path and normalize_title(c.title) in avoid]
    return node.children, issues


def existing_text(nodes: tuple[OutlineNode, ...]) -> str:
    """Current children as compact JSON, for rewrite prompts."""
    return json.dumps(from_nodes(list(nodes)), ensure_ascii=False)


class JsonStrategy:
    """Generation by whole JSON objects; reliable where the endpoint constrains decoding.

    Every answer is streamed: :class:`~app.pipeline.outline.live_tree.JsonOutlineFeed` turns each
    title and description into an instruction on the live tree the moment its string closes.
    """

    name = "json"

    async def _collect(self, job: OutlineJob, stage: str, prompt: str, model: type[BaseModel],
                       rule: Callable[[Any], list[str]], max_tokens: int, sink: StreamSink,
                       temperature: float | None = None) -> tuple[BaseModel | None, list[str], int]:
        job.meter.check(stage)
        res = await collect_json(job.client, user_messages(prompt), model, rules=[rule],
                                 max_attempts=job.meter.allowed_attempts(job.json_attempts()), stage=stage,
                                 max_tokens=max_tokens, stream_to=sink,
                                 temperature=temperature if temperature is not None else job.settings.temperature)
        job.record(stage, max(1, res.attempts), res.prompt_tokens, res.completion_tokens,
                   bool(getattr(res, "tokens_estimated", False)))
        if not res.ok and res.stopped_by == "connection":
            raise res.error or LLMConnectionError(res.issues[0] if res.issues else "模型服务连接失败")
        if not res.ok and res.attempts > 1:
            job.failed_repairs += 1
        value = res.value if res.ok else None
        return value, list(res.issues), max(1, res.attempts)

    async def top_level(self, job: OutlineJob, guidance: str = "") -> StepResult:
        """Chapter titles and descriptions for free mode."""
        lim = job.limits
        lo, hi = max(lim.min_chapters, 3), min(lim.max_chapters, 8)  # asked; validation takes up to max_chapters
        model = chapters_model(lim.min_chapters, lim.max_chapters)
        prompt = job.prompt("outline_top_level", project=job.project_text(), requirements=job.requirements_text(),
                            min_chapters=lo, max_chapters=hi, guidance=guidance_block(guidance),
                            output_format=json_format_hint(1, "chapters"), desc_rule=desc_rule(job, "该章"))

        flat = lim.flat()

        def rule(value: Any) -> list[str]:
            nodes = repair_outline(to_nodes(value.chapters), flat)
            return [str(i).replace("/outline", "/chapters", 1) for i in generation_issues(nodes, flat)]

        outline = job.draft if job.draft is not None else Outline()
        feed = JsonOutlineFeed(InstructionApplier(outline), (), "chapters", 1, lim)
        value, issues, calls = await self._collect(job, "outline", prompt, model, rule, job.settings.top_max_tokens, feed)
        if value is None:
            return StepResult(None, issues, calls)
        return StepResult(repair_outline(to_nodes(value.chapters), flat), [], calls)  # type: ignore[attr-defined]

    async def children(self, job: OutlineJob, target: SubtreeTarget, stage: str = "chapter") -> StepResult:
        """The levels below one node, checked as a subtree."""
        s = job.settings
        model = children_model(target.levels + job.limits.extra_levels, 1, job.limits.max_children, s.descriptions)
        prompt = chapter_prompt(job, target, json_format_hint(target.levels, seeds=target.seeds,
                                                              descriptions=s.descriptions))

        def rule(value: Any) -> list[str]:
            return subtree_issues(target.title, to_nodes(value.children), target.levels, job.limits, target.siblings,
                                   job.project_name)[1]

        with LiveSubtree(target.title, job.draft, target.path) as live:
            feed = JsonOutlineFeed(live.applier, (0,), "children", target.levels + job.limits.extra_levels, job.limits)
            value, issues, calls = await self._collect(job, stage, prompt, model, rule, s.chapter_max_tokens, feed,
                                                       target.temperature)
        if value is None:
            return StepResult(None, issues, calls)
        children = to_nodes(value.children)  # type: ignore[attr-defined]
        nodes, left = subtree_issues(target.title, children, target.levels, job.limits, target.siblings, job.project_name)
        return StepResult(None if left else nodes, left, calls)

    async def full(self, job: OutlineJob, draft: Outline | None, guidance: str = "") -> StepResult:
        """A whole outline in one bounded JSON object (free mode)."""
        lim, s = job.limits, job.settings
        model = full_outline_model(lim.deepest, lim.max_chapters, lim.max_children)
        prompt = job.prompt("outline_full", project=job.project_text(), requirements=job.requirements_text(),
                            depth=lim.depth, min_chapters=max(lim.min_chapters, 3), max_chapters=min(lim.max_chapters, 8),
                            guidance=guidance_block(guidance), output_format=json_format_hint(lim.depth, "outline"),
                            desc_rule=desc_rule(job))

        def rule(value: Any) -> list[str]:
            return [str(i) for i in generation_issues(repair_outline(to_nodes(value.outline), lim, fold=True), lim)]

        outline = draft if draft is not None else Outline()
        feed = JsonOutlineFeed(InstructionApplier(outline), (), "outline", lim.deepest, lim)
        value, issues, calls = await self._collect(job, "outline", prompt, model, rule, s.full_max_tokens, feed)
        if value is None:
            return StepResult(None, issues, calls)
        nodes = repair_outline(to_nodes(value.outline), lim, fold=True)  # type: ignore[attr-defined]
        if draft is not None:
            sync_outline(draft, nodes)  # local repairs reach the live tree as a few edits
        return StepResult(nodes, [], calls)


def guidance_block(text: str) -> str:
    """The user's guidance as a prompt paragraph (empty when there is none)."""
    return f"\n用户的额外要求（务必遵守）：{text.strip()}\n" if text.strip() else ""


def desc_rule(job: OutlineJob, what: str = "该部分") -> str:
    """The prompt line asking for descriptions (empty in compact mode, which asks for titles only)."""
    return f"- description 用一句话说明{what}应写什么。" if job.settings.descriptions else ""


def chapter_prompt(job: OutlineJob, target: SubtreeTarget, output_format: str) -> str:
    """The prompt asking for one node's children (shared by both strategies)."""
    s = job.settings
    leaf_rule = f"，每个节下面 {job.limits.min_children}–{s.max_leaves} 个小点" if target.levels >= 2 else ""
    if target.levels >= 3:
        leaf_rule += "，每个小点下面再分 2–3 条"
    others = ""
    if target.siblings:
        label = "本项目其他章" if len(target.path) <= 1 else "同一章的其他部分"
        others = f"{label}（不要写它们的内容）：" + "、".join(target.siblings[:10]) + "\n"
    brief = target.brief
    if target.ancestors:
        brief = "所属章节：" + " > ".join(target.ancestors) + "\n" + brief
    guidance = guidance_block(target.guidance)
    if target.existing:
        guidance += "\n现有内容（请在此基础上改写或扩写）：" + existing_text(target.existing)[:1500] + "\n"
    return job.prompt("outline_chapter", project_name=job.project_name, chapter_title=target.title,
                      chapter_brief=brief, other_chapters=others, min_items=job.limits.min_children,
                      max_items=s.max_sections, leaf_rule=leaf_rule, guidance=guidance, output_format=output_format,
                      desc_rule=desc_rule(job))

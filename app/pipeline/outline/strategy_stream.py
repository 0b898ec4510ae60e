"""Instruction-stream strategy: the model streams set/append/done lines applied live.

The whole outline streams straight into the draft tree the user watches. One node's
children stream into a one-chapter scratch tree whose chapter title is locked (so the
model cannot rename a one-to-one chapter or add chapters), and every change is mirrored
into the draft at the node's real position. Repair and continuation rounds are run by
``app.llm.instructions.rounds``; local repair then fixes what code can.
"""

from __future__ import annotations

from app.core.outline import Outline
from app.core.rules.outline import OutlineLimits, generation_issues, unfinished_issues
from app.llm.instructions.apply import InstructionApplier
from app.llm.instructions.rounds import RoundsResult, run_instruction_rounds
from app.pipeline.outline.job import OutlineJob, StepResult, SubtreeTarget, user_messages
from app.pipeline.outline.live_tree import LiveSubtree
from app.pipeline.outline.repair import repair_outline
from app.pipeline.outline.strategy_json import chapter_prompt, desc_rule, guidance_block, subtree_issues


def stream_format_hint(levels: int, base: str = "/outline/0/children", descriptions: bool = True) -> str:
    """How to write instructions that add ``levels`` levels below ``base``."""
    lines = ["输出方式：可以先简短思考，然后逐行输出 JSON 指令，每行一条，不要输出其它 JSON。"]
    path = base
    names = ["节", "小点", "细项"]
    for depth in range(levels):
        name = names[min(depth, len(names) - 1)]
        where = "" if depth == 0 else "（i、j 是从 0 数起的下标）"
        desc = ',"description":"一句话说明"' if descriptions else ""
        lines.append(f'- 添加{name}{where}：{{"op":"append","path":"{path}","value":{{"title":"{name}标题"{desc}}}}}')
        path = path + ("/i/children" if depth == 0 else "/j/children")
    lines.append('- 修改标题：{"op":"set","path":"/outline/0/children/i/title","value":"新标题"}')
    lines.append('- 全部写完后输出：{"op":"done"}')
    return "\n".join(lines)


def _top_hint() -> str:
    return ("输出方式：逐行输出 JSON 指令，每行一条：\n"
            '- 添加一章：{"op":"append","path":"/outline","value":{"title":"章标题","description":"一句话说明"}}\n'
            '- 全部写完后输出：{"op":"done"}')


def _full_hint(depth: int) -> str:
    lines = ["输出方式：一边思考一边逐行输出 JSON 指令，每行一条，不要输出其它 JSON。",
             '- 添加一章：{"op":"append","path":"/outline","value":{"title":"章标题","description":"本章应写的内容"}}',
             '- 给第 i 章（从 0 数起）添加一节：{"op":"append","path":"/outline/i/children","value":{"title":"节标题","description":"……"}}']
    if depth >= 3:
        lines.append('- 给第 i 章第 j 节添加小点：{"op":"append","path":"/outline/i/children/j/children","value":{"title":"小点标题"}}')
    lines.append('- 修改标题：{"op":"set","path":"/outline/i/title","value":"新标题"}')
    lines.append('- 全部写完后输出：{"op":"done"}')
    return "\n".join(lines)


class StreamStrategy:
    """Generation by streamed instructions: live in the tree, repaired in rounds."""

    name = "stream"

    async def _rounds(self, job: OutlineJob, prompt: str, outline: Outline, applier: InstructionApplier,
                      limits: OutlineLimits, stage: str, max_tokens: int,
                      temperature: float | None = None) -> RoundsResult:
        job.meter.check(stage)
        left = job.meter.remaining_calls()
        repairs = job.settings.repair_rounds if left is None else max(0, min(job.settings.repair_rounds, left - 1))
        conts = 2 if left is None else max(0, min(2, left - 1 - repairs))
        if job.weak_model or job.model_struggles:  # repairs fixed nothing so far: a fresh sample beats a repair
            repairs = 0
            conts = 0 if job.model_struggles else conts
        def unfinished(doc: Outline) -> list[str]:  # levels asked for and not written yet: said to the model
            return [str(i) for i in unfinished_issues(doc.chapters, limits)]

        res = await run_instruction_rounds(job.client, user_messages(prompt), outline, applier, limits=limits,
                                           extra_checks=[unfinished], max_rounds=repairs, max_continuations=conts, stage=stage,
                                           temperature=temperature if temperature is not None else job.settings.temperature,
                                           max_tokens=max_tokens)
        job.record(stage, max(1, res.rounds), res.prompt_tokens, res.completion_tokens)
        return res

    async def full(self, job: OutlineJob, draft: Outline | None, guidance: str = "") -> StepResult:
        """The whole outline streamed into ``draft`` (or a private tree)."""
        lim = job.limits
        outline = draft if draft is not None else Outline()
        outline.set_children((), [])
        prompt = job.prompt("outline_full", project=job.project_text(), requirements=job.requirements_text(),
                            depth=lim.depth, min_chapters=max(lim.min_chapters, 3), max_chapters=min(lim.max_chapters, 8),
                            guidance=guidance_block(guidance), output_format=_full_hint(lim.depth),
                            desc_rule=desc_rule(job))
        res = await self._rounds(job, prompt, outline, InstructionApplier(outline), lim, "outline", job.settings.full_max_tokens)
        nodes = repair_outline(list(outline.chapters), lim, fold=True)
        left = [str(i) for i in generation_issues(nodes, lim)]
        if res.error and not nodes:
            return StepResult(None, [res.error], res.rounds)
        return StepResult(None if left else nodes, left, res.rounds, partial=nodes)

    async def top_level(self, job: OutlineJob, guidance: str = "") -> StepResult:
        """Chapter titles streamed into a private tree."""
        lim = job.limits
        lo, hi = max(lim.min_chapters, 3), min(lim.max_chapters, 8)
        outline = Outline()
        prompt = job.prompt("outline_top_level", project=job.project_text(), requirements=job.requirements_text(),
                            min_chapters=lo, max_chapters=hi, guidance=guidance_block(guidance), output_format=_top_hint(),
                            desc_rule=desc_rule(job, "该章"))
        flat = lim.flat()
        res = await self._rounds(job, prompt, outline, InstructionApplier(outline), flat, "outline", job.settings.top_max_tokens)
        nodes = repair_outline([n.model_copy(update={"children": []}) for n in outline.chapters], flat)
        left = [str(i) for i in generation_issues(nodes, flat)]
        return StepResult(None if left else nodes, left or ([res.error] if res.error else []), res.rounds)

    async def children(self, job: OutlineJob, target: SubtreeTarget, stage: str = "chapter") -> StepResult:
        """One node's children streamed into a scratch tree mirrored live into the draft."""
        prompt = chapter_prompt(job, target, stream_format_hint(target.levels, descriptions=job.settings.descriptions))
        with LiveSubtree(target.title, job.draft, target.path) as live:
            res = await self._rounds(job, prompt, live.scratch, live.applier, job.limits.below(target.levels), stage,
                                     job.settings.chapter_max_tokens, target.temperature)
        nodes, left = subtree_issues(target.title, live.children, target.levels, job.limits, target.siblings,
                                     job.project_name)
        if res.error and not nodes:
            left = [res.error]
        return StepResult(None if left else nodes, left, res.rounds, partial=nodes)

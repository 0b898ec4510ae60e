"""Building blocks of a run: the strategy interface, switching, and one subtree with retries.

Both strategies (instruction stream, whole JSON) answer the same three questions: the whole
outline, the top level, and the children of one node. :class:`StrategySelector` keeps the
preferred one first and switches to the other after ``switch_after`` consecutive failures;
:func:`build_subtree` retries one node's children across strategies, feeding the last
issues back, and writes the result into the live draft tree.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import replace
from typing import Protocol

from app.core.outline import Outline, OutlineNode, Path
from app.core.outline_sync import sync_children
from app.core.rules.outline import clean_title, normalize_title, title_problem
from app.llm.client.errors import LLMConnectionError, LLMResponseError, LLMServerGone
from app.pipeline.headings.fill import (
    count_origins,
    fill_from_plan,
    lift_scored_items,
    mark_origins,
    plan_context,
)
from app.pipeline.headings.subsections import write_subsections
from app.pipeline.outline.job import OutlineJob, StepResult, SubtreeTarget
from app.pipeline.outline.repair import fold_to_depth

log = logging.getLogger(__name__)


class OutlineStrategy(Protocol):
    """One way of getting outline pieces out of a model."""

    name: str

    async def full(self, job: OutlineJob, draft: Outline | None, guidance: str = "") -> StepResult:
        """A whole outline (free mode); may fill ``draft`` live."""
        ...

    async def top_level(self, job: OutlineJob, guidance: str = "") -> StepResult:
        """Chapter titles only (free-mode stepwise fallback)."""
        ...

    async def children(self, job: OutlineJob, target: SubtreeTarget, stage: str = "chapter") -> StepResult:
        """The children (and their subtrees) of one node."""
        ...


class StrategySelector:
    """Which strategy goes first; switches after repeated failures, counts successes."""

    def __init__(self, strategies: list[OutlineStrategy], first: str, switch_after: int = 2) -> None:
        self._all = {s.name: s for s in strategies}
        self._current = first if first in self._all else strategies[0].name
        self._switch_after = max(1, switch_after)
        self._fails = 0
        self.successes: Counter[str] = Counter()
        self.switches = 0

    @property
    def current(self) -> OutlineStrategy:
        """The strategy to use next."""
        return self._all[self._current]

    def succeeded(self, name: str) -> None:
        """Record a success (resets the failure streak)."""
        self.successes[name] += 1
        if name == self._current:
            self._fails = 0

    def failed(self, name: str) -> None:
        """Record a failure; switch strategy when the streak reaches the threshold."""
        if name != self._current:
            return
        self._fails += 1
        if self._fails >= self._switch_after and len(self._all) > 1:
            others = [n for n in self._all if n != self._current]
            log.info("strategy %s failed %d times; switching to %s", self._current, self._fails, others[0])
            self._current = others[0]
            self._fails = 0
            self.switches += 1

    def summary(self) -> str:
        """Strategies that produced results, most used first (e.g. ``"json"`` or ``"json+stream"``)."""
        return "+".join(n for n, _ in self.successes.most_common()) or "none"


def set_children(draft: Outline, path: Path, nodes: list[OutlineNode]) -> None:
    """Make the children of ``path`` in the live tree equal ``nodes`` with the fewest edits (no reset)."""
    sync_children(draft, path, nodes)


async def _attempts(job: OutlineJob, selector: StrategySelector, target: SubtreeTarget, draft: Outline | None,
                    index: int | None, total: int | None, stage: str, attempts: int) -> StepResult:
    """Up to ``attempts`` tries across strategies, temperature rising, last issues fed back."""
    issues: list[str] = []
    calls = 0
    for attempt in range(1, attempts + 1):
        strategy = selector.current
        job.meter.strategy = strategy.name
        job.meter.emit("chapter" if stage == "chapter" else "regenerate",
                       f"正在生成“{target.title}”的下级目录（第 {attempt} 次，{strategy.name}）",
                       chapter=index, chapters=total, attempt=attempt)
        guidance = target.guidance
        if issues:
            guidance = (guidance + "\n上一次的结果有这些问题，请避免：" + "；".join(issues[:6])).strip()
        current = replace(target, guidance=guidance, temperature=job.temperature_for(attempt))
        try:
            res = await strategy.children(job, current, stage)
        except (LLMConnectionError, LLMResponseError) as exc:
            job.consecutive_errors += 1
            if job.consecutive_errors >= 3 or isinstance(exc, LLMServerGone):  # a dead server ends the run
                raise
            issues = [exc.message_zh]
            selector.failed(strategy.name)
            continue
        job.consecutive_errors = 0
        calls += res.calls
        if res.nodes is not None:
            selector.succeeded(strategy.name)
            if draft is not None and draft.exists(target.path):
                set_children(draft, target.path, res.nodes)
            return StepResult(res.nodes, [], calls)
        issues = res.issues or ["模型没有给出可用的结果"]
        selector.failed(strategy.name)
    return StepResult(None, issues, calls)


async def _stepwise(job: OutlineJob, selector: StrategySelector, target: SubtreeTarget, draft: Outline | None,
                    index: int | None, total: int | None, stage: str) -> StepResult:
    """Fallback for one node: its children first (from the grounded candidates when there are
    enough), then each child's own children in its own small call; a section the model cannot
    fill takes the children code planned for it (tender and library, marked)."""
    job.meter.emit("stepwise", f"“{target.title}”改为逐节生成", chapter=index, chapters=total)
    lim = job.limits
    key = normalize_title(target.title)
    seeds = [t for t in dict.fromkeys(clean_title(x, lim.max_title_len) for x in target.seeds)
             if t and title_problem(t) is None and normalize_title(t) != key]
    calls = 0
    if len(seeds) >= lim.min_children:
        sections = [OutlineNode(title=t) for t in seeds[: job.settings.max_sections]]
        if draft is not None and draft.exists(target.path):
            set_children(draft, target.path, sections)
    else:
        res = await _attempts(job, selector, replace(target, levels=1), draft, index, total, stage,
                              job.settings.chapter_attempts)
        calls += res.calls
        if res.nodes is None:
            return res
        sections = res.nodes
    built: list[OutlineNode] = []
    misses = 0
    for k, section in enumerate(sections):
        others = tuple(s.title for j, s in enumerate(sections) if j != k)
        sub = SubtreeTarget(path=(*target.path, k), title=section.title, levels=target.levels - 1,
                            brief=target.brief, ancestors=(*target.ancestors, target.title), siblings=others,
                            guidance=target.guidance)
        planned = target.plan.children_for(section.title) if target.plan is not None and job.settings.code_fill else []
        res = StepResult(None, ["模型连续两节未能写出，改用已规划的内容"])
        if misses < 2 or len(planned) < lim.min_children:  # two sections missed in a row: the plan fills the rest
            res = await _attempts(job, selector, sub, draft, index, total, stage, job.settings.chapter_attempts)
            calls += res.calls
        misses = misses + 1 if res.nodes is None else 0
        if res.nodes is None and len(planned) >= lim.min_children:
            res = StepResult(planned, [], 0)
            if draft is not None and draft.exists(sub.path):
                set_children(draft, sub.path, planned)
        if res.nodes is None:
            return StepResult(None, [f"“{section.title}”：{x}" for x in res.issues], calls)
        built.append(section.model_copy(update={"children": res.nodes}))
    from app.pipeline.outline.strategy_json import subtree_issues

    nodes, left = subtree_issues(target.title, built, target.levels, lim, target.siblings, job.project_name)
    return StepResult(None if left else nodes, left, calls)


async def build_subtree(job: OutlineJob, selector: StrategySelector, target: SubtreeTarget,
                        draft: Outline | None, index: int | None = None, total: int | None = None,
                        stage: str = "chapter") -> StepResult:
    """The children of one node, retried across strategies, then built stepwise; shown live in the draft.

    When the model cannot write a new chapter (not a rewrite of existing content), code fills
    it from the chapter's plan — the tender's points and requirements headings and the heading
    library — with the model choosing the order and writing descriptions where it can. A model
    that failed two chapters in a row gets one try per chapter before that. Every heading is
    marked with its origin. On failure the draft gets back the children it had before, and the
    issues of the last attempt are returned. Budget exhaustion and configuration errors propagate.
    """
    previous = list(draft.node(target.path).children) if draft is not None and draft.exists(target.path) else []
    struggling = job.model_struggles and target.plan is not None and job.settings.code_fill
    res = await _attempts(job, selector, target, draft, index, total, stage,
                          1 if struggling else job.settings.chapter_attempts)
    stepped = False
    if res.nodes is None and target.levels >= 2 and job.settings.stepwise and not struggling:
        step = await _stepwise(job, selector, target, draft, index, total, stage)
        res = StepResult(step.nodes, step.issues or res.issues, res.calls + step.calls)
        stepped = True
    fill = target.plan is not None and job.settings.code_fill and not target.existing and bool(target.plan.nodes)
    if res.nodes is not None:
        nodes = mark_origins(res.nodes, target.plan)
        if len(target.path) == 1:
            nodes = lift_scored_items(nodes, target.plan)
        nodes = fold_to_depth(nodes, target.levels)  # the depth asked is a limit (after the lift: a lifted part keeps its own)
        wrote = count_origins(nodes)["model"] > 0
        # A stepwise result made only of planned headings goes through the fill below; a whole answer the
        # model chose among the candidates is its own (安全施工措施、文明施工措施 kept, not replaced by the plan).
        if wrote or not fill or not stepped:
            if draft is not None and draft.exists(target.path):
                set_children(draft, target.path, nodes)
            job.chapters_failed = 0 if wrote else job.chapters_failed + (len(target.path) == 1)
            return StepResult(nodes, [], res.calls)
    if fill and target.plan is not None:
        job.meter.emit("stepwise", f"“{target.title}”由招标文件要点和标题库补全", chapter=index, chapters=total)
        nodes, calls = await fill_from_plan(job, target, target.plan)
        if draft is not None and draft.exists(target.path):
            set_children(draft, target.path, nodes)
        nodes, more = await write_subsections(job, target, nodes, plan_context(job, target, target.plan))
        calls += more
        if draft is not None and draft.exists(target.path):
            set_children(draft, target.path, nodes)
        job.chapters_failed += 1
        return StepResult(nodes, [], res.calls + calls)
    if draft is not None and draft.exists(target.path):
        set_children(draft, target.path, previous)
    return res

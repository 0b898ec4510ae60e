"""The outline pipeline's public entry points: generate, regenerate one node, review loop.

``generate_outline`` runs free mode (whole outline → validate → stepwise fallback) or
one-to-one mode (chapters built by code from the scoring groups, levels 2–3 written one
chapter at a time), then the coverage check and the bounded review loop. It writes into
an optional live ``draft`` tree as it goes (the UI listens to its events) and always
returns an :class:`OutlineResult`; a failure is a value, never an exception.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from pydantic import ValidationError

from app.core.analysis import Analysis, ScoringGroup
from app.core.limits import STORED
from app.core.outline import Outline, OutlineDocument, OutlineNode, Path
from app.core.outline_sync import sync_outline
from app.core.pipeline_events import ProgressCallback, ignore_progress
from app.core.rules.outline import (
    OutlineLimits,
    check_outline,
    clean_title,
    generation_issues,
    normalize_title,
    outline_warnings,
)
from app.core.tender_titles import display_title
from app.llm.client.errors import LLMConfigError, LLMConnectionError, LLMError
from app.pipeline.evaluation.outline_points import item_coverage
from app.pipeline.evaluation.point_fill import answer_chapter, complete_plan
from app.pipeline.headings.candidates import ChapterPlan, TitleRegistry, iter_plan_outline
from app.pipeline.headings.coverage import point_label
from app.pipeline.headings.fill import count_origins, plan_context
from app.pipeline.headings.free_chapters import free_chapters
from app.pipeline.headings.subsections import write_subsections
from app.pipeline.outline.budget import BudgetExhausted, RunMeter
from app.pipeline.outline.job import OutlineJob, OutlineSettings, StepResult, SubtreeTarget, group_brief
from app.pipeline.outline.repair import merge_uncle_copies, renumber_nodes, repair_chapter, repair_outline
from app.pipeline.outline.result import OutlineFailure, OutlineResult
from app.pipeline.outline.review import ReviewOutcome, review_outline
from app.pipeline.outline.steps import OutlineStrategy, StrategySelector, build_subtree, set_children
from app.pipeline.outline.strategies import make_strategies
from app.pipeline.outline.user_outline import has_locks, keep_locked, open_chapters

if TYPE_CHECKING:
    from app.llm.client.llm_client import LLMClient

log = logging.getLogger(__name__)


class _Run:
    """State of one run (not public): job, selector, draft and what was produced."""

    def __init__(self, client: LLMClient, analysis: Analysis, settings: OutlineSettings,
                 progress: ProgressCallback, draft: Outline | None) -> None:
        client.transport.health.reset()  # a new run judges the model afresh
        meter = RunMeter(budget=settings.budget, progress=progress, health=client.transport.health)
        self.job = OutlineJob(client=client, settings=settings, meter=meter, analysis=analysis)
        self.selector = StrategySelector(make_strategies(), settings.strategy, settings.switch_after)
        self.draft = draft if draft is not None else Outline()
        self.job.draft = self.draft
        self.mode: str = settings.mode  # "user": the user's locked outline is filled in
        self.chapters: list[OutlineNode] = []
        self.warnings: list[str] = []
        self.notes: list[str] = []
        self.review_passed: bool | None = None
        self.failed_chapters: dict[int, list[str]] = {}
        self.plans: dict[int, ChapterPlan] = {}
        self.undivided: set[int] = set()  # chapters left whole: the model wrote nothing and nothing of the library fits
        self.code_filled: list[int] = []  # chapters fill_after_budget gave their plan

    async def plan_chapters_async(self) -> None:
        """:meth:`plan_chapters`, yielding to the event loop after each chapter.

        Matching every chapter against the heading library is pure computation (about 7 ms a
        chapter) and the loop is the GUI thread in the app. A worker thread would not help: it
        holds the GIL, and each of the GUI thread's returns from Qt into Python then waits a
        switch interval, which stalled the first chapter's painting by 100 ms and more.
        """
        plans: dict[int, ChapterPlan] = {}
        for i, plan in enumerate(self._iter_plans()):
            plans[i] = plan
            await asyncio.sleep(0)
        self.plans = plans

    def plan_chapters(self) -> None:
        """Grounded candidates for every chapter (one registry: chapters never share headings).

        Headings the chapters already have are reserved, so what code plans never repeats them.
        """
        self.plans = dict(enumerate(self._iter_plans()))

    def _iter_plans(self) -> Iterator[ChapterPlan]:
        s = self.job.settings
        pairs: list[tuple[str, ScoringGroup | None]] = []
        for ch in self.chapters:
            group = self.group_of(ch) or ScoringGroup(id="", title=ch.title[:60], description=ch.description)
            pairs.append((ch.title, group))
        taken = [n.title for ch in self.chapters for _, n in ch.walk()]
        return iter_plan_outline(pairs, self.job.analysis, levels=min(2, self.job.limits.depth - 1),
                                 max_sections=s.max_sections, max_leaves=s.max_leaves,
                                 min_children=self.job.limits.min_children,
                                 max_children=self.job.limits.max_children, reserved=taken, past=s.library,
                                 complete=complete_plan)

    @property
    def limits(self) -> OutlineLimits:
        lim = self.job.limits
        if self.mode == "aligned":
            return replace(lim, max_chapters=max(lim.max_chapters, len(self.chapters)),
                           max_title_len=max(lim.max_title_len, STORED.max_title_len), min_chapters=1)
        return lim

    def sync_draft(self) -> None:
        """Bring the live tree to the run's chapters with a few edits (never a reset)."""
        sync_outline(self.draft, self.chapters)
        self.draft.renumber()

    def target(self, index: int, guidance: str = "", existing: bool = False) -> SubtreeTarget:
        ch = self.chapters[index]
        group = self.group_of(ch)
        brief = group_brief(group) if group is not None else (f"本章说明：{ch.description}" if ch.description else "")
        siblings = tuple(c.title for j, c in enumerate(self.chapters) if j != index)
        seeds = tuple(point_label(p) for p in group.detail_points) if group is not None else ()
        plan = self.plans.get(index)
        if plan is not None and plan.chapter == ch.title:
            planned = tuple(n.title for n in plan.nodes[: self.job.settings.max_sections])
            seeds = planned if len(planned) >= self.job.limits.min_children else (
                tuple(c.title for c in plan.options(self.job.settings.max_sections)) or seeds)
            brief = (brief + "\n" + plan.guidance(8)).strip()
        else:
            plan = None
        elsewhere = tuple(n.title for j, other in self.plans.items() if j != index
                          for section in other.nodes for n in (section, *section.children))
        return SubtreeTarget(path=(index,), title=ch.title, levels=self.job.limits.depth - 1, brief=brief,
                             siblings=siblings, guidance=guidance or self.job.settings.guidance,
                             existing=tuple(ch.children) if existing else (), seeds=seeds, plan=plan,
                             elsewhere=elsewhere)

    def group_of(self, chapter: OutlineNode) -> ScoringGroup | None:
        for g in self.job.analysis.technical_groups:
            if g.id == chapter.source_requirement_id:
                return g
        return None

    async def chapter(self, index: int, guidance: str = "", existing: bool = False, stage: str = "chapter") -> bool:
        res = await build_subtree(self.job, self.selector, self.target(index, guidance, existing), self.draft,
                                  index + 1, len(self.chapters), stage)
        if res.nodes is None:
            plan = self.plans.get(index)
            nothing_fits = (self.job.settings.code_fill and not existing and plan is not None
                            and plan.chapter == self.chapters[index].title and not plan.nodes)
            if nothing_fits and not self.chapters[index].children:
                self.leave_undivided(index)  # the tender's own item as a whole chapter rather than foreign headings
                return True
            self.failed_chapters[index] = res.issues
            return False
        elsewhere = {normalize_title(n.title) for i, ch in enumerate(self.chapters) if i != index for _, n in ch.walk()}
        nodes = drop_repeats(res.nodes, elsewhere, self.job.limits.min_children)
        if nodes != res.nodes and self.draft is not None and self.draft.exists((index,)):
            set_children(self.draft, (index,), nodes)
        self.chapters[index] = self.chapters[index].model_copy(update={"children": nodes})
        self.failed_chapters.pop(index, None)
        return True

    # ------------------------------------------------------------------ modes
    async def aligned(self, base: list[OutlineNode] | None, resume: bool = False) -> None:
        groups = self.job.analysis.technical_groups
        self.chapters = locked_chapters(groups)
        if base:
            by_id = {c.source_requirement_id: c for c in base if c.source_requirement_id}
            for i, ch in enumerate(self.chapters):
                if ch.source_requirement_id in by_id:
                    self.chapters[i] = ch.model_copy(update={"children": list(by_id[ch.source_requirement_id].children)})
        self.sync_draft()
        await self.plan_chapters_async()
        todo = [i for i in range(len(self.chapters)) if not (resume and self.finished(i))]
        if resume:
            self.job.meter.emit("outline", f"继续生成未完成的 {len(todo)} 章（已完成的 {len(self.chapters) - len(todo)} 章保留）")
        for i in todo:
            await self.chapter(i, existing=bool(base) and not resume)

    def fill_after_budget(self, failure: OutlineFailure) -> OutlineFailure | None:
        """The budget ran out: chapters without valid children take their plan (tender and library, marked).

        Returns None when the outline is then valid (the budget becomes a warning), else ``failure``.
        Nothing here calls the model; chapters that already passed keep what they have.
        """
        if not self.job.settings.code_fill:
            return failure
        if not self.chapters and self.mode == "free":
            self.chapters = self.code_top_level()
        if not self.chapters:
            return failure
        if len(self.plans) != len(self.chapters):
            self.plan_chapters()
        filled = 0
        self.code_filled = []
        for i, ch in enumerate(self.chapters):
            if self.complete(i) or i in self.undivided:
                self.failed_chapters.pop(i, None)
                continue
            plan = self.plans.get(i)
            candidate = (ch.model_copy(update={"children": [n.model_copy(deep=True) for n in plan.nodes]})
                         if plan is not None and plan.chapter == ch.title and plan.nodes else None)
            if candidate is None or _chapter_problems(candidate, self.limits):
                self.leave_undivided(i)  # neither the model nor the library can fill it: a leaf the user is told about
                continue
            self.chapters[i] = candidate
            self.failed_chapters.pop(i, None)
            self.code_filled.append(i)
            filled += 1
        renumber_nodes(self.chapters)
        self.sync_draft()
        if self.failed_chapters or check_outline(self.chapters, self.limits):
            return failure
        if filled:
            self.warnings.append(f"{failure.message_zh}：其余 {filled} 章由程序依据招标文件要点和标题库补全（已标注来源），请核对")
        else:
            self.warnings.append(f"{failure.message_zh}，已保留当前目录（各章均已完整）")
        return None

    def leave_undivided(self, index: int) -> None:
        """Keep chapter ``index`` as a leaf and say so: nothing the model wrote, the tender says or the library holds
        fits it. The outline stays valid; the user is told where to add sections."""
        self.chapters[index] = self.chapters[index].model_copy(update={"children": []})
        self.undivided.add(index)
        self.failed_chapters.pop(index, None)
        self.warnings.append(f"第 {index + 1} 章“{self.chapters[index].title}”：模型没有写出下级目录，招标文件和标题库中也没有"
                             "适合本章的内容，已保留为一章，请补充")

    def code_top_level(self) -> list[OutlineNode]:
        """Free mode's chapters made by code when no model could propose them (marked; said to the user)."""
        chapters = free_chapters(self.job.analysis)
        if chapters:
            whence = "招标文件的采购需求" if chapters[0].origin == "tender" else "标题库中适合本项目的通用结构"
            self.warnings.append(f"模型未能拟出章标题：已依据{whence}拟定 {len(chapters)} 章（已标注来源），请核对")
        return chapters

    async def small_questions_after_stop(self) -> None:
        """After the breaker stopped a model that could not write whole chapters, the chapters code filled
        get the one-section question (the model's single probation, see ``write_subsections``): a weak
        model that fails at chapters often names a section's parts well. Nothing is asked when the budget
        ran out or the endpoint never answered as an OpenAI endpoint."""
        wrote = 0
        for i in self.code_filled:
            target = self.target(i)
            if target.plan is None:
                continue
            try:
                nodes, _calls = await write_subsections(self.job, target, list(self.chapters[i].children),
                                                        plan_context(self.job, target, target.plan))
            except (BudgetExhausted, LLMError):
                break
            wrote += sum(1 for s in nodes for c in s.children if c.origin == "model")
            self.chapters[i] = self.chapters[i].model_copy(update={"children": nodes})
        if wrote:
            renumber_nodes(self.chapters)
            self.sync_draft()
            self.notes.append(f"模型虽写不出整章，但为单节写出了 {wrote} 个小标题（已标注来源）")

    def finished(self, index: int) -> bool:
        """Whether resuming may keep chapter ``index``: complete, and either as many sections as a run asks
        for or sections a finished step marked with their origin (a cancelled stream leaves unmarked ones)."""
        ch = self.chapters[index]
        if index in self.undivided:
            return True
        return self.complete(index) and (len(ch.children) >= self.job.limits.min_children
                                         or all(c.origin is not None for c in ch.children))

    def complete(self, index: int) -> bool:
        """Whether chapter ``index`` already has a subtree that breaks no rule (resuming keeps it)."""
        ch = self.chapters[index]
        return bool(ch.children) and not _chapter_problems(ch, self.limits)

    async def user(self, base: list[OutlineNode]) -> None:
        """The user's outline (rule 16): locked headings stay, the model fills only the open chapters."""
        self.chapters = [c.model_copy(deep=True) for c in base]
        self.sync_draft()
        await self.plan_chapters_async()
        todo = open_chapters(self.chapters)
        self.notes.append(f"按您导入的目录生成：{len(self.chapters) - len(todo)} 章已锁定保留，补全其余 {len(todo)} 章")
        self.job.meter.emit("outline", self.notes[-1])
        for i in todo:
            before = self.chapters[i]
            if await self.chapter(i, existing=bool(before.children)):
                self.chapters[i] = keep_locked(before, self.chapters[i])
                self.sync_draft()

    async def free(self, base: list[OutlineNode] | None, resume: bool = False) -> None:
        lim = self.job.limits
        if base and resume and len(base) >= lim.min_chapters:
            self.chapters = [c.model_copy(deep=True) for c in base]
            self.sync_draft()
            await self.plan_chapters_async()
            todo = [i for i in range(len(self.chapters)) if not self.finished(i)]
            self.job.meter.emit("outline", f"继续生成未完成的 {len(todo)} 章（已完成的 {len(self.chapters) - len(todo)} 章保留）")
            for i in todo:
                await self.chapter(i, existing=bool(self.chapters[i].children))
            return
        if base and not resume:
            self.chapters = repair_outline(base, lim)
            self.sync_draft()
            await self.plan_chapters_async()
            for i in range(len(self.chapters)):
                await self.chapter(i, existing=True)
            return
        partial = await self._free_full()
        if partial is not None and not generation_issues(partial, lim):
            self.chapters = partial  # valid as written: one chapter, uneven depth and all (issue 38)
            return
        self.job.meter.emit("stepwise", "整体生成未通过校验，改为逐章生成")
        self.notes.append("整体生成未通过校验，已改为先拟章标题、再逐章生成")
        top = [c for c in (partial or []) if c.title]
        if len(top) < max(lim.min_chapters, 2) or check_outline(repair_outline(top, lim.flat()), lim.flat()):
            try:
                top = await self._free_top_level()
            except _StageFailed:
                top = self.code_top_level() if self.job.settings.code_fill else []
                if not top:
                    raise
        self.chapters = [c.model_copy(deep=True) for c in top]
        self.sync_draft()
        await self.plan_chapters_async()
        for i, ch in enumerate(self.chapters):
            solo = repair_chapter(ch, lim, fold=True)
            if ch.children and not _chapter_problems(solo, lim):
                self.chapters[i] = solo
                continue
            await self.chapter(i, stage="chapter")

    async def _free_full(self) -> list[OutlineNode] | None:
        strategy = self.selector.current
        self.job.meter.strategy = strategy.name
        self.job.meter.emit("outline", f"正在生成完整目录（{strategy.name}）")
        try:
            res = await strategy.full(self.job, self.draft, self.job.settings.guidance)
        except (LLMConnectionError, LLMError) as exc:
            if isinstance(exc, LLMConfigError):
                raise
            self.warnings.append(f"整体生成失败：{exc.message_zh}")
            self.selector.failed(strategy.name)
            return None
        nodes = res.nodes if res.nodes is not None else res.partial
        if res.nodes is not None:
            self.selector.succeeded(strategy.name)
        else:
            self.selector.failed(strategy.name)
        return repair_outline(nodes, self.job.limits, fold=True) if nodes else None

    async def _free_top_level(self) -> list[OutlineNode]:
        issues: list[str] = []
        for attempt in range(1, self.job.settings.chapter_attempts + 1):
            strategy = self.selector.current
            self.job.meter.strategy = strategy.name
            self.job.meter.emit("stepwise", f"正在拟定章标题（第 {attempt} 次，{strategy.name}）", attempt=attempt)
            try:
                res = await strategy.top_level(self.job, self.job.settings.guidance)
            except LLMConfigError:
                raise
            except LLMError as exc:
                issues = [exc.message_zh]
                self.selector.failed(strategy.name)
                continue
            if res.nodes:
                self.selector.succeeded(strategy.name)
                return res.nodes
            issues = res.issues
            self.selector.failed(strategy.name)
        raise _StageFailed("stepwise", "未能生成有效的章标题", issues)

    # ------------------------------------------------------------------ after generation
    def uncovered(self) -> dict[int, list[str]]:
        """Per chapter, the criteria points of its item no heading below it answers (the 评审模拟 engine's
        matching, as ``tests/eval/outline_quality.py`` judges; a heading under another chapter never counts)."""
        out: dict[int, list[str]] = {}
        for i, ch in enumerate(self.chapters):
            group = self.group_of(ch)
            if group is not None:
                missing = item_coverage(group, self.chapters, [(i,)]).missing
                if missing:
                    out[i] = missing
        return out

    def answer_points(self) -> None:
        """The last point fill (one-to-one mode): whatever the model did to a chapter (one leaf titled like an
        overview, a section put under the next chapter, picks off the list), each criteria point of its item
        that no heading below it answers gets a code heading from the criteria's own words (marked ``tender``)
        or a note in the description of the section most about it — within the depth asked, never the title
        of a heading the outline already has. A chapter the fill would make break a rule keeps what it had."""
        if self.mode != "aligned" or not self.job.settings.code_fill:
            return
        lim = self.job.limits
        registry = TitleRegistry([t for ch in self.chapters for t in (ch.title, *(n.title for _, n in ch.walk()))])
        added = 0
        for i, ch in enumerate(self.chapters):
            group = self.group_of(ch)
            if group is None or not ch.children or i in self.failed_chapters:
                continue
            new = answer_chapter(ch, group, registry, levels=lim.depth - 1, min_children=lim.min_children,
                                 max_children=lim.max_children, project=self.job.analysis.overview.project_name)
            if new is ch or (_chapter_problems(new, self.limits) and not _chapter_problems(ch, self.limits)):
                continue
            added += sum(1 for _ in new.walk()) - sum(1 for _ in ch.walk())
            self.chapters[i] = new
        if added:
            renumber_nodes(self.chapters)
            self.sync_draft()
            self.notes.append(f"模型的目录没有回答部分评分要点：程序依据评分标准补上了 {added} 个标题（已标注来源）")

    async def review_loop(self) -> None:
        s = self.job.settings
        for round_no in range(1, s.review_rounds + 1):
            if check_outline(self.chapters, self.limits) or self.failed_chapters:
                return
            self.job.meter.emit("review", f"正在审核目录（第 {round_no} 轮）", attempt=round_no)
            outcome: ReviewOutcome = await review_outline(self.job, self.chapters, self.uncovered())
            if outcome.passed is None:
                self.warnings.append(outcome.warning or "目录审核失败，已保留当前目录")
                return
            self.review_passed = outcome.passed
            if outcome.passed:
                return
            if round_no == s.review_rounds:
                self.warnings.append("审核未通过：" + "；".join(x.text for x in outcome.suggestions[:5]))
                return
            concerned = set(outcome.concerned_chapters(len(self.chapters)))
            if self.mode == "aligned":
                concerned |= set(self.uncovered())
            if not concerned:
                concerned = set(range(len(self.chapters))) if outcome.suggestions else set()
            for i in sorted(concerned):
                before = self.chapters[i]
                ok = await self.chapter(i, guidance=outcome.guidance_for(i), existing=True, stage="review")
                if not ok:
                    self.chapters[i] = before
                    self.failed_chapters.pop(i, None)
                    self.sync_draft()


class _StageFailed(Exception):
    def __init__(self, stage: str, message_zh: str, issues: list[str]) -> None:
        super().__init__(message_zh)
        self.stage, self.message_zh, self.issues = stage, message_zh, issues


def _chapter_problems(chapter: OutlineNode, lim: OutlineLimits) -> list[str]:
    return [str(i) for i in check_outline([chapter], lim.solo())]


def drop_repeats(sections: list[OutlineNode], elsewhere: set[str], min_children: int) -> list[OutlineNode]:
    """``sections`` without level-3 headings that another chapter (``elsewhere``) or an earlier section
    already has, as long as each section keeps ``min_children`` (the local repair of a heading the
    model copied from guidance that code also planned for another chapter). A repeated heading with
    its own subtree stays: design and construction chapters name the same systems, each with its parts;
    so does one the model wrote itself (``origin == "model"``): a writer may name one duty in two places."""
    seen = set(elsewhere)
    out: list[OutlineNode] = []
    for section in sections:
        keys = [normalize_title(c.title) for c in section.children]
        fresh = [c for c, k in zip(section.children, keys, strict=True)
                 if k not in seen or c.children or c.origin == "model"]
        kids = fresh if len(fresh) >= min_children and len(fresh) < len(keys) else section.children
        seen.update(normalize_title(c.title) for c in kids)
        out.append(section if kids is section.children else section.model_copy(update={"children": kids}))
    return out


_DIGITS = "〇一二三四五六七八九"


def _ordinal(n: int) -> str:
    """``n`` (1–99) in Chinese numerals: 二, 十, 十一, 二十三."""
    tens, ones = divmod(n, 10)
    return (("" if tens == 1 else _DIGITS[tens]) + "十" if tens else "") + (_DIGITS[ones] if ones or not tens else "")


def locked_chapters(groups: list[ScoringGroup]) -> list[OutlineNode]:
    """One chapter per technical scoring group, built by code: title, order and source id locked."""
    chapters: list[OutlineNode] = []
    seen: dict[str, int] = {}
    for g in groups:
        shown = display_title(g.title, STORED.max_title_len) or g.title  # no "……", braces or points in titles
        title = clean_title(shown, STORED.max_title_len) or shown.strip()[:STORED.max_title_len]
        key = normalize_title(title)
        if key in seen:  # a Chinese ordinal: a digit in brackets reads as a counter and compares equal
            seen[key] += 1
            title = f"{title}（{_ordinal(seen[key])}）"[:STORED.max_title_len]
        else:
            seen[key] = 1
        chapters.append(OutlineNode(title=title, description=g.description[:STORED.max_description_len],
                                    source_requirement_id=g.id,
                                    source_requirement_title=g.title[:200]))
    renumber_nodes(chapters)
    return chapters


def storage_issues(chapters: list[OutlineNode]) -> list[str]:
    """What in ``chapters`` a project file cannot store (:data:`~app.core.limits.STORED`), in Chinese."""
    try:
        OutlineDocument(outline=chapters)
    except ValidationError as exc:
        return [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors(include_url=False)][:20]
    return []


def verify_locked(chapters: list[OutlineNode], groups: list[ScoringGroup]) -> list[str]:
    """Differences between the chapters and the locked one-to-one top level (empty when intact)."""
    want = locked_chapters(groups)
    issues: list[str] = []
    if len(chapters) != len(want):
        issues.append(f"一级章节数 {len(chapters)} 与技术评分项数 {len(want)} 不一致")
    for i, (got, exp) in enumerate(zip(chapters, want, strict=False)):
        if got.title != exp.title or got.source_requirement_id != exp.source_requirement_id:
            issues.append(f"第 {i + 1} 章应为“{exp.title}”（{exp.source_requirement_id}），实为“{got.title}”")
    return issues


async def _guarded(run: _Run, body: Callable[[], Awaitable[None]]) -> OutlineFailure | None:
    try:
        await body()
    except BudgetExhausted as exc:
        return OutlineFailure("budget", "budget", exc.message_zh)
    except _StageFailed as exc:
        return OutlineFailure(exc.stage, "model", exc.message_zh, tuple(exc.issues))
    except LLMConfigError as exc:
        return OutlineFailure("outline", "config", exc.message_zh)
    except LLMError as exc:
        return OutlineFailure("outline", "endpoint", exc.message_zh)
    return None


def _finish(run: _Run, failure: OutlineFailure | None) -> OutlineResult:
    if run.mode != "user":  # what the final check refuses, the repair before it fixes (a copy of an uncle's title)
        run.chapters = merge_uncle_copies(run.chapters)
    renumber_nodes(run.chapters)
    run.sync_draft()
    # The user's own structure is not judged by the generation rules (rule 14: style is never refused).
    issues = [] if run.mode == "user" else [str(i) for i in check_outline(run.chapters, run.limits)]
    if run.mode == "aligned":
        issues += verify_locked(run.chapters, run.job.analysis.technical_groups)
        if run.job.limits.deepest > 1:  # each chapter is asked for on its own: an empty one was never written
            issues += [f"/outline/{i}/children: “{ch.title}”尚未生成下级目录" for i, ch in enumerate(run.chapters)
                       if not ch.children and i not in run.undivided]
    if failure is None and run.failed_chapters:
        bad = sorted(run.failed_chapters)
        detail = tuple(f"第 {i + 1} 章：{x}" for i in bad for x in run.failed_chapters[i][:3])
        failure = OutlineFailure("chapter", "model", "以下章节未能生成有效的下级目录：" +
                                 "、".join(f"第 {i + 1} 章" for i in bad), detail)
    stored = storage_issues(run.chapters)
    if stored:  # what a project file cannot hold: a failed validation, never an internal error
        issues += stored
        keep = run.chapters[:STORED.max_chapters]
        for i, ch in enumerate(keep):
            if len(ch.children) > STORED.max_children:
                keep[i] = ch.model_copy(update={"children": ch.children[:STORED.max_children]})
        run.warnings.append(f"目录超出了项目文件能保存的范围，只保留了前 {len(keep)} 章（每章至多 {STORED.max_children} 节）："
                            + "；".join(stored[:3]))
        run.chapters = keep
        run.sync_draft()
    valid = not issues and bool(run.chapters)
    if valid:  # what looks odd but is a writer's choice is said, never refused
        run.warnings.extend(i.message for i in outline_warnings(run.chapters, run.limits, whole=run.mode != "aligned"))
    if failure is None and not valid:
        failure = OutlineFailure("validate", "model", "目录未通过结构校验", tuple(issues[:20]))
    uncovered = {run.chapters[i].id: pts for i, pts in run.uncovered().items()} if run.chapters else {}
    sources = count_origins([c for ch in run.chapters for c in ch.children])
    result = OutlineResult(chapters=run.chapters, valid=valid, mode=run.mode, strategy=run.selector.summary(),
                           meter=run.job.meter, issues=issues, failure=failure, review_passed=run.review_passed,
                           warnings=run.warnings, uncovered=uncovered, notes=run.notes,
                           heading_sources=dict(sources), code_filled=list(run.code_filled))
    for i, plan in sorted(run.plans.items()):
        if plan.attachments and i < len(run.chapters) and plan.chapter == run.chapters[i].title:
            result.warnings.append(f"第 {i + 1} 章“{plan.chapter}”的评分标准要求附上证明材料（未列入目录，请放在附件中）："
                                   + "、".join(plan.attachments[:8]))
    filled = sources["tender"] + sources["library"] + sources["history"]
    if filled:
        past = f"，{sources['history']} 个取自历史标书" if sources["history"] else ""
        result.warnings.append(f"有 {filled} 个标题由程序补全：{sources['tender']} 个取自招标文件，{sources['library']} 个取自标题库{past}"
                               "（已标注来源），请核对")
    if failure is None:
        run.job.meter.emit("done", "目录生成完成")
    else:
        run.job.meter.emit("failed", failure.message_zh)
    return result


async def generate_outline(client: LLMClient, analysis: Analysis, settings: OutlineSettings | None = None, *,
                           progress: ProgressCallback | None = None, draft: Outline | None = None,
                           base: list[OutlineNode] | None = None, resume: bool = False) -> OutlineResult:
    """Generate a valid outline for ``analysis`` (free or one-to-one mode); never raises for model trouble.

    ``draft`` is filled live as the run proceeds; ``base`` is an existing outline to
    rewrite or expand (改写/扩写) instead of starting from nothing. With ``resume`` the
    ``base`` is what an interrupted run left: chapters that are already complete are kept
    and only the others are generated. A ``base`` with headings the user locked (their own
    imported outline) keeps them: only its open chapters are written.
    """
    s = settings or OutlineSettings()
    run = _Run(client, analysis, s, progress or ignore_progress, draft)
    if base and has_locks(base):
        run.mode = "user"
    elif s.mode == "aligned" and not analysis.has_technical_scoring:
        run.mode = "free"
        run.notes.append("招标文件中没有找到技术评分项，已改用自由模式，依据技术要求生成目录")

    async def body() -> None:
        if run.mode == "user" and base:
            await run.user(base)
            return
        if run.mode == "aligned":
            await run.aligned(base, resume)
        else:
            await run.free(base, resume)
        renumber_nodes(run.chapters)
        run.sync_draft()
        run.answer_points()  # the reviewer judges the outline with every point answered
        if s.review:
            await run.review_loop()

    failure = await _guarded(run, body)
    if failure is not None and failure.kind == "budget":
        failure = run.fill_after_budget(failure)
        if failure is None and run.code_filled:
            await run.small_questions_after_stop()
    run.answer_points()  # what the review's rewrites or the model's last answers left unanswered
    return _finish(run, failure)


async def regenerate_node(client: LLMClient, analysis: Analysis, chapters: list[OutlineNode], path: Path,
                          guidance: str = "", settings: OutlineSettings | None = None, *,
                          progress: ProgressCallback | None = None, draft: Outline | None = None) -> OutlineResult:
    """Rewrite the subtree under ``path`` (a chapter or a deeper node) with the user's guidance.

    Everything outside that subtree is left exactly as it was; when the model cannot
    produce a valid subtree, the old one is kept and the result carries the failure.
    """
    s = settings or OutlineSettings()
    run = _Run(client, analysis, s, progress or ignore_progress, draft)
    run.chapters = [c.model_copy(deep=True) for c in chapters]
    if any(c.source_requirement_id for c in chapters) and analysis.has_technical_scoring:
        run.mode = "aligned"
    run.sync_draft()
    await run.plan_chapters_async()

    async def body() -> None:
        node = run.draft.node(path)
        levels = s.limits.depth - len(path)
        if levels < 1:
            raise _StageFailed("regenerate", "该标题已是最末一级，没有可重新生成的下级目录", [])
        base_target = run.target(path[0], guidance, existing=True)
        ancestors = tuple(run.draft.node(path[:k]).title for k in range(1, len(path)))
        target = SubtreeTarget(path=path, title=node.title, levels=levels, brief=base_target.brief,
                               ancestors=ancestors, siblings=base_target.siblings if len(path) == 1 else (),
                               guidance=guidance, existing=tuple(node.children),
                               plan=base_target.plan if len(path) == 1 else None)
        res: StepResult = await build_subtree(run.job, run.selector, target, run.draft, path[0] + 1,
                                              len(run.chapters), "regenerate")
        if res.nodes is None:
            raise _StageFailed("regenerate", f"未能重新生成“{node.title}”，已保留原有内容", res.issues)
        run.chapters = [c.model_copy(deep=True) for c in run.draft.chapters]

    failure = await _guarded(run, body)
    if failure is not None:
        run.chapters = [c.model_copy(deep=True) for c in chapters]
        if failure.kind in ("model", "budget") and _code_chapter(run, path, failure):
            failure = None
    return _finish(run, failure)


def _code_chapter(run: _Run, path: Path, failure: OutlineFailure) -> bool:
    """A chapter the model could not rewrite (refused answers, the run's time or call limit) takes its plan.

    The plan is what code writes for a chapter: the tender's points and requirement headings, the user's past
    bids and the heading library, each heading marked with its origin. The chapter's own current headings are
    not reserved (they may be what code planned before). Nothing here calls the model. True when the chapter
    was filled; False (the old chapter stays, the failure stands) for a section, with code filling switched
    off, or when nothing planned fits the chapter.
    """
    if len(path) != 1 or not run.job.settings.code_fill or not 0 <= path[0] < len(run.chapters):
        return False
    index = path[0]
    own = run.chapters[index]
    run.chapters[index] = own.model_copy(update={"children": []})
    run.plan_chapters()
    plan = run.plans.get(index)
    candidate = (own.model_copy(update={"children": [n.model_copy(deep=True) for n in plan.nodes]})
                 if plan is not None and plan.chapter == own.title and plan.nodes else None)
    if candidate is None or _chapter_problems(candidate, run.limits):
        run.chapters[index] = own
        return False
    run.chapters[index] = candidate
    renumber_nodes(run.chapters)
    run.sync_draft()
    run.code_filled = [index]
    lead = f"模型未能重新写出“{own.title}”，" if failure.kind == "model" else f"{failure.message_zh}："
    run.warnings.append(f"{lead}“{own.title}”已由程序依据招标文件要点和标题库补全（已标注来源），请核对；撤销可恢复原有内容")
    return True


def strategies_available() -> list[OutlineStrategy]:
    """The strategies a run can use, in default order (for settings dialogs)."""
    return make_strategies()

"""What one outline run carries around: settings, the client, the meter and the briefs.

Strategies and stages receive one :class:`OutlineJob`; it builds prompts from
``resources/prompts`` (clipped to the endpoint's context size, since llama.cpp answers an
over-long prompt with an empty 200), and records every model call on the meter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from app.core.analysis import Analysis, ScoringGroup
from app.core.outline import Outline, OutlineNode, Path
from app.core.resources import load_prompt
from app.core.rules.outline import OutlineLimits
from app.pipeline.outline.budget import RunBudget, RunMeter

if TYPE_CHECKING:
    from app.library.store import LibraryStore
    from app.llm.client.llm_client import LLMClient
    from app.pipeline.headings.candidates import ChapterPlan

Mode = Literal["free", "aligned"]
StrategyName = Literal["stream", "json"]


@dataclass(frozen=True)
class OutlineSettings:
    """How a run behaves; every bound is configurable and finite by default."""

    mode: Mode = "aligned"
    limits: OutlineLimits = field(default_factory=OutlineLimits)
    budget: RunBudget = field(default_factory=RunBudget)
    strategy: StrategyName = "json"  # tried first; the other one takes over when it keeps failing
    switch_after: int = 2  # consecutive failures of a strategy before switching
    repair_rounds: int = 2  # instruction-stream repair rounds per stream
    json_attempts: int = 2  # collect_json attempts per call (the first plus repairs)
    chapter_attempts: int = 2  # strategy attempts per node before the stepwise fallback
    stepwise: bool = True  # fall back to children-first, then each child's children in its own call
    review: bool = True
    review_rounds: int = 1
    review_temperature: float = 0.1
    temperature: float | None = None
    chapter_max_tokens: int = 1200
    top_max_tokens: int = 800
    full_max_tokens: int = 3500
    max_sections: int = 5  # children per chapter asked of the model
    max_leaves: int = 4  # children per section asked of the model
    descriptions: bool = True  # False: titles only (compact answers for slow, weak local models)
    code_fill: bool = True  # a chapter the model cannot write is filled from the tender and the heading library, marked
    guidance: str = ""
    requirements: str = ""  # the requirement breakdown's tasks and risks (Breakdown.to_prompt_text)
    #: The user's library (资料库): its past sections about a chapter's item are candidates (历史标书), before the
    #: heading library's. None: no past bids.
    library: LibraryStore | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class SubtreeTarget:
    """A node whose children the model writes: its title, context and how many levels below it."""

    path: Path
    title: str
    levels: int  # levels below the node (2 for a chapter in a three-level outline)
    brief: str = ""  # what this node must answer (a scoring group's detail points)
    ancestors: tuple[str, ...] = ()
    siblings: tuple[str, ...] = ()  # titles of the other chapters, to avoid overlap
    guidance: str = ""
    existing: tuple[OutlineNode, ...] = ()  # current children when rewriting
    seeds: tuple[str, ...] = ()  # suggested child titles (grounded candidates: tender points, library sections)
    temperature: float | None = None  # raised on retries: weak models repeat themselves less
    plan: ChapterPlan | None = None  # grounded candidates and the code's chapter when the model cannot write it
    elsewhere: tuple[str, ...] = ()  # headings planned for the other chapters (not to be written here again)


@dataclass
class StepResult:
    """What a strategy step produced: nodes (None when it failed) and the remaining issues."""

    nodes: list[OutlineNode] | None
    issues: list[str] = field(default_factory=list)
    calls: int = 0
    partial: list[OutlineNode] | None = None  # what a failed step still produced (free mode reuses it)


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "……（以下从略）"


def group_brief(group: ScoringGroup, limit: int = 900) -> str:
    """A scoring group as prompt text: title, points, criteria and detail points."""
    lines = [f"对应评分项：{group.title}" + (f"（{group.points:g} 分）" if group.points is not None else "")]
    if group.description:
        lines.append("评分标准：" + _clip(group.description, 400))
    if group.detail_points:
        lines.append("必须覆盖的要点：")
        lines += [f"- {p}" for p in group.detail_points[:10]]
    return _clip("\n".join(lines), limit)


@dataclass
class OutlineJob:
    """One run's shared state: client, settings, meter, analysis and prompt material."""

    client: LLMClient
    settings: OutlineSettings
    meter: RunMeter
    analysis: Analysis
    consecutive_errors: int = 0
    #: Whether a model the breaker stopped got its one try at the one-section question (see ModelHealth).
    small_question_probation: bool = False
    failed_repairs: int = 0  # model repair rounds that fixed nothing: a weak model re-samples instead
    chapters_failed: int = 0  # chapters in a row the model could not write at all (it then gets fewer tries)
    written_titles: list[str] = field(default_factory=list)  # level-3 headings the model wrote for planned sections

    @property
    def weak_model(self) -> bool:
        """True once model repairs failed twice: further calls skip repairs and sample hotter."""
        return self.failed_repairs >= 2

    @property
    def model_struggles(self) -> bool:
        """True once the model could not write a chapter at all: later chapters get one try each, then the
        plan (tender and library) with the model's small questions — a weak model's time goes where it helps."""
        return self.chapters_failed >= 1

    def json_attempts(self) -> int:
        """collect_json attempts for the next call (1 for a weak model: a fresh sample beats a repair)."""
        return 1 if self.weak_model else self.settings.json_attempts

    def temperature_for(self, attempt: int) -> float:
        """Sampling temperature of the ``attempt``-th try of a step (rises; higher for weak models)."""
        base = self.settings.temperature if self.settings.temperature is not None else 0.3
        if self.weak_model:
            base = max(base, 0.8)
        return min(1.3, base + 0.35 * (attempt - 1))
    draft: Outline | None = None  # the live tree a streaming strategy mirrors into

    @property
    def limits(self) -> OutlineLimits:
        """The structure limits of this run."""
        return self.settings.limits

    @property
    def context_chars(self) -> int:
        """Characters of tender text a prompt may carry (about one token per CJK character)."""
        cfg = getattr(self.client, "config", None)
        ctx = int(getattr(cfg, "context_size", 8192) or 8192)
        out = self.settings.full_max_tokens
        return max(800, min(6000, ctx - out - 1200))

    @property
    def project_name(self) -> str:
        """The project's name, or a neutral placeholder."""
        return self.analysis.overview.project_name or "本项目"

    def project_text(self) -> str:
        """Name, summary and scope of the project for prompts."""
        ov = self.analysis.overview
        parts = [f"项目名称：{self.project_name}"]
        if ov.summary:
            parts.append("项目概况：" + _clip(ov.summary, 300))
        if ov.scope:
            parts.append("采购内容：" + _clip(ov.scope, 300))
        if ov.service_period:
            parts.append("服务期：" + ov.service_period)
        return "\n".join(parts)

    def requirements_text(self) -> str:
        """Scoring groups (or, without them, the technical requirements) for whole-outline prompts."""
        budget = self.context_chars // 2
        groups = self.analysis.technical_groups
        if groups:
            lines = ["技术评分项（目录应逐一回应）："]
            for g in groups:
                pts = "；".join(g.detail_points[:6])
                lines.append(f"- {g.title}" + (f"（{g.points:g} 分）" if g.points is not None else "") + (f"：{pts}" if pts else ""))
            return _clip("\n".join(lines), budget)
        reqs = self.analysis.technical_requirements or "\n".join(self.analysis.overview.technical_requirements)
        if reqs:
            return "技术要求（摘录）：\n" + _clip(reqs, budget)
        return ""

    def prompt(self, name: str, **values: Any) -> str:
        """Fill ``resources/prompts/<name>.md``; missing placeholders become empty."""
        template = load_prompt(name)
        return template.format_map(_Blank(values)).strip()

    def record(self, stage: str, calls: int, prompt_tokens: int, completion_tokens: int,
               estimated: bool = False) -> None:
        """Count a finished model call (or a helper's several calls) on the meter."""
        self.meter.record(stage, calls, prompt_tokens, completion_tokens, estimated)


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


def user_messages(prompt: str) -> list[dict[str, Any]]:
    """One user message: weak local servers drop system messages, so everything goes here."""
    return [{"role": "user", "content": prompt}]

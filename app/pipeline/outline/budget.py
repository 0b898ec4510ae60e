"""Per-run budgets for model calls and tokens, and the meter that counts a run's usage.

A weak model can loop forever through repair rounds; the meter makes every run finite.
Each model call is checked *before* it is sent (:meth:`RunMeter.check`) and recorded
after; running out raises :class:`BudgetExhausted`, which the run turns into a structured
failure that keeps whatever was valid so far.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from app.core.pipeline_events import PipelineEvent, ProgressCallback, Stage, ignore_progress, stage_label
from app.llm.client.call_limits import set_run_deadline, set_token_allowance
from app.llm.client.model_health import ModelHealth


@dataclass(frozen=True)
class RunBudget:
    """Limits of one run; ``None`` means unlimited."""

    #: Model calls; a weak model's small questions (one per section) count too, so this leaves room
    #: for them on a 9-chapter tender while a looping model still stops.
    max_calls: int | None = 160
    max_tokens: int | None = 600_000
    #: Wall-clock minutes a run may spend on model calls; past it, code fills what is left (a slow
    #: local model on a laptop still ends in a valid outline in bounded time).
    max_minutes: float | None = 25.0


#: One chapter (重新生成本章) gets a third of a whole outline's time: past it the chapter takes its plan (code
#: from the tender and the heading library, marked), so a slow local model still ends with a chapter soon.
CHAPTER_BUDGET = RunBudget(max_calls=40, max_tokens=150_000, max_minutes=8.0)


class BudgetExhausted(Exception):
    """The run used up its call or token budget; ``message_zh`` says which."""

    def __init__(self, message_zh: str) -> None:
        super().__init__(message_zh)
        self.message_zh = message_zh


@dataclass
class RunMeter:
    """Counts calls, tokens and attempts per stage; reports progress; enforces the budget."""

    budget: RunBudget = field(default_factory=RunBudget)
    progress: ProgressCallback = ignore_progress
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    attempts: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)
    strategy: str = ""
    #: The endpoint's recent answers; when the model is not usable the next check stops the run.
    health: ModelHealth | None = None

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens so far."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def elapsed_s(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started

    def remaining_calls(self) -> int | None:
        """Calls left before the budget runs out (None: unlimited)."""
        if self.budget.max_calls is None:
            return None
        return max(0, self.budget.max_calls - self.calls)

    def check(self, stage: str) -> None:
        """Raise :class:`BudgetExhausted` when another call would exceed the budget."""
        b = self.budget
        if b.max_calls is not None and self.calls >= b.max_calls:
            raise BudgetExhausted(f"模型调用次数已达上限（{b.max_calls} 次），在“{stage_label(stage)}”阶段停止")
        if b.max_tokens is not None and self.tokens >= b.max_tokens:
            raise BudgetExhausted(f"令牌用量已达上限（{b.max_tokens}），在“{stage_label(stage)}”阶段停止")
        if b.max_minutes is not None and self.elapsed_s >= b.max_minutes * 60:
            raise BudgetExhausted(f"生成时间已达上限（{b.max_minutes:g} 分钟），在“{stage_label(stage)}”阶段停止")
        if self.health is not None and self.health.tripped:
            raise BudgetExhausted(self.health.verdict_zh)
        set_token_allowance(self.tokens_left if b.max_tokens is not None else None)
        set_run_deadline(self.seconds_left if b.max_minutes is not None else None)

    def seconds_left(self) -> int | None:
        """Whole seconds the run may still spend (None: no time limit); a streaming call stops at 0."""
        if self.budget.max_minutes is None:
            return None
        return max(0, int(self.budget.max_minutes * 60 - self.elapsed_s))

    def tokens_left(self) -> int | None:
        """Tokens the run may still use (None: unlimited); a streaming call stops past it."""
        if self.budget.max_tokens is None:
            return None
        return max(0, self.budget.max_tokens - self.tokens)

    def allowed_attempts(self, wanted: int) -> int:
        """How many attempts a multi-call helper (collect_json) may make within the budget."""
        left = self.remaining_calls()
        return wanted if left is None else max(1, min(wanted, left))

    def record(self, stage: str, calls: int, prompt_tokens: int, completion_tokens: int,
               estimated: bool = False) -> None:
        """Add one helper's usage to the run's totals."""
        self.calls += calls
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.tokens_estimated = self.tokens_estimated or estimated
        self.attempts[stage] += calls

    def emit(self, stage: Stage, message: str, chapter: int | None = None, chapters: int | None = None,
             attempt: int = 1) -> None:
        """Send a progress event carrying the run's totals."""
        self.progress(PipelineEvent(
            stage=stage, message=message, chapter=chapter, chapters=chapters, attempt=attempt,
            calls=self.calls, prompt_tokens=self.prompt_tokens, completion_tokens=self.completion_tokens,
            tokens_estimated=self.tokens_estimated, strategy=self.strategy,
        ))

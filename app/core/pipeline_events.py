"""Typed progress of a generation run, free of Qt (rule 6 of the architecture).

The pipeline calls a plain ``ProgressCallback`` with :class:`PipelineEvent` values; the UI
turns them into signals, the CLI into log lines, tests into lists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Stage = Literal[
    "analysis", "outline", "repair", "stepwise", "chapter", "review", "regenerate", "done", "failed",
]


@dataclass(frozen=True)
class PipelineEvent:
    """One progress step: stage, chapter i of n (1-based), attempt, and the run's totals so far."""

    stage: Stage
    message: str
    chapter: int | None = None
    chapters: int | None = None
    attempt: int = 1
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    strategy: str = ""

    @property
    def fraction(self) -> float | None:
        """Share of chapters done when the stage works chapter by chapter, else None."""
        if self.chapter is None or not self.chapters:
            return None
        return min(1.0, max(0.0, (self.chapter - 1) / self.chapters))

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens so far."""
        return self.prompt_tokens + self.completion_tokens


ProgressCallback = Callable[[PipelineEvent], None]


def ignore_progress(event: PipelineEvent) -> None:
    """The default progress callback: drop the event."""
    del event

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

#: Chinese labels of the stages (and of the app's other log stages): (status text, log column).
STAGE_LABELS: dict[str, tuple[str, str]] = {
    "analysis": ("分析招标文件", "分析"), "outline": ("生成目录", "目录"), "repair": ("修复目录", "修复"),
    "stepwise": ("逐章生成", "逐章"), "chapter": ("生成章节", "章节"), "review": ("检查目录", "检查"),
    "regenerate": ("重新生成章节", "重生成"), "done": ("完成", "完成"), "failed": ("失败", "失败"),
    "open": ("读取文件", "打开"), "export": ("导出", "导出"), "app": ("程序", "程序"),
}


def stage_label(stage: str, short: bool = False) -> str:
    """The Chinese name of a stage (``short`` for the log pane's column); a sub-step ("chapter/pick") by its
    stage; unknown stages as they are."""
    labels = STAGE_LABELS.get(stage) or STAGE_LABELS.get(stage.split("/", 1)[0])  # "chapter/sub": its stage
    if labels is None:
        return stage
    return labels[1] if short else labels[0]


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

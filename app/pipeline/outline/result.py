"""What a run hands back: the outline, whether it is valid, and a structured report.

A run never raises for model misbehaviour, an exhausted budget or an endpoint failure:
it returns an :class:`OutlineResult` whose ``failure`` says which stage failed and why
(in Chinese), while ``chapters`` keeps everything that was valid so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from app.core.outline import OutlineDocument, OutlineNode
from app.pipeline.outline.budget import RunMeter

FailureKind = Literal["budget", "endpoint", "config", "model"]


@dataclass(frozen=True)
class OutlineFailure:
    """Why a run did not end with a valid outline: stage, kind, Chinese message, issues."""

    stage: str
    kind: FailureKind
    message_zh: str
    issues: tuple[str, ...] = ()


@dataclass
class OutlineResult:
    """The outcome of :func:`app.pipeline.outline.run.generate_outline` (or a regeneration)."""

    chapters: list[OutlineNode]
    valid: bool
    mode: str
    strategy: str
    meter: RunMeter
    issues: list[str] = field(default_factory=list)
    failure: OutlineFailure | None = None
    review_passed: bool | None = None
    warnings: list[str] = field(default_factory=list)
    uncovered: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    heading_sources: dict[str, int] = field(default_factory=dict)  # level-2+ headings by origin (model/tender/library)
    code_filled: list[int] = field(default_factory=list)  # chapters code filled from their plan (the model could not)

    @property
    def ok(self) -> bool:
        """A valid outline and no failure."""
        return self.valid and self.failure is None

    def document(self) -> OutlineDocument:
        """The outline as the serialisable ``{"outline": [...]}`` document."""
        return OutlineDocument(outline=[c.model_copy(deep=True) for c in self.chapters])

    def report(self) -> dict[str, Any]:
        """The run report (as written by ``bidstudio-cli outline --report``)."""
        m = self.meter
        return {
            "valid": self.valid,
            "mode": self.mode,
            "strategy": self.strategy,
            "llm_calls": m.calls,
            "prompt_tokens": m.prompt_tokens,
            "completion_tokens": m.completion_tokens,
            "tokens_estimated": m.tokens_estimated,
            "attempts": dict(m.attempts),
            "review_passed": self.review_passed,
            "duration_s": round(m.elapsed_s, 2),
            "issues": list(self.issues),
            "warnings": list(self.warnings),
            "uncovered_points": dict(self.uncovered),
            "notes": list(self.notes),
            "heading_sources": dict(self.heading_sources),
            "model_nodes": self.heading_sources.get("model", 0),
            "filled_nodes": sum(self.heading_sources.get(k, 0) for k in ("tender", "library", "history")),
            "failure": None if self.failure is None else {
                "stage": self.failure.stage, "kind": self.failure.kind,
                "message": self.failure.message_zh, "issues": list(self.failure.issues),
            },
        }

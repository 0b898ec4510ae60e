"""Live figures of the model call that is running, for the status bar.

The transport reports each call as it starts, while it streams (at most a few times a
second) and when it ends; the UI shows stage, tokens so far, tokens per second and the
elapsed time, so a slow local model is visibly working and a stalled one visibly is not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class CallProgress:
    """One snapshot of a running (or just finished) call."""

    call_id: str
    stage: str
    tokens: int
    elapsed_s: float
    done: bool = False
    ok: bool = True

    @property
    def tokens_per_s(self) -> float:
        """Completion tokens per second so far (0 before the first token)."""
        return self.tokens / self.elapsed_s if self.elapsed_s > 0 and self.tokens else 0.0


CallObserver = Callable[[CallProgress], None]
#: Seconds between two reports of the same streaming call.
REPORT_EVERY_S = 0.25

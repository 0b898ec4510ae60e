"""The run's remaining token allowance, visible to the model call that is running.

A run's budget (``app.pipeline.outline.budget.RunMeter``) is checked before each call; a single
runaway answer could still blow far past it. The meter publishes its allowance here (a
context variable, so it follows the run's task and the tasks it starts) and a streaming
call stops as soon as its own answer crosses what is left.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from contextvars import ContextVar

Allowance = Callable[[], "int | None"]

_ALLOWANCE: ContextVar[weakref.WeakMethod[Allowance] | None] = ContextVar("bidstudio_token_allowance",
                                                                         default=None)


def set_token_allowance(allowance: Allowance | None) -> None:
    """Publish how many tokens the current run may still use (None: unlimited).

    ``allowance`` is a bound method of the run's meter, held weakly: once the run is over
    and its meter gone, nothing limits later calls in the same context.
    """
    _ALLOWANCE.set(weakref.WeakMethod(allowance) if allowance is not None else None)


def tokens_allowed() -> int | None:
    """Tokens the running call may still produce within the run's budget (None: unlimited)."""
    ref = _ALLOWANCE.get()
    allowance = ref() if ref is not None else None
    return None if allowance is None else allowance()

"""The run's remaining token allowance, visible to the model call that is running.

A run's budget (``app.pipeline.outline.budget.RunMeter``) is checked before each call; a single
runaway answer could still blow far past it. The meter publishes its allowance here (a
context variable, so it follows the run's task and the tasks it starts) and a streaming
call stops as soon as its own answer crosses what is left. The run's time limit is published the
same way (:func:`set_run_deadline`): a slow answer stops when the run's minutes are up.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from contextvars import ContextVar

Allowance = Callable[[], "int | None"]

_ALLOWANCE: ContextVar[weakref.WeakMethod[Allowance] | None] = ContextVar("bidstudio_token_allowance",
                                                                         default=None)
_DEADLINE: ContextVar[weakref.WeakMethod[Allowance] | None] = ContextVar("bidstudio_run_deadline", default=None)


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


def set_run_deadline(seconds_left: Allowance | None) -> None:
    """Publish the run's time left (a bound method of its meter giving seconds, None: no limit), held weakly
    as the token allowance is: once the run is over, later calls in the same context are not limited."""
    _DEADLINE.set(weakref.WeakMethod(seconds_left) if seconds_left is not None else None)


def past_run_deadline() -> bool:
    """Whether the running call's run is past its time limit (a streaming call then stops at once)."""
    ref = _DEADLINE.get()
    seconds_left = ref() if ref is not None else None
    left = None if seconds_left is None else seconds_left()
    return left is not None and left <= 0

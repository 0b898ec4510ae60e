"""Bookkeeping of one logical model call, written to the call journal when it ends.

A logical call spans retries and response-format downgrades; the journal gets one line
per logical call with the request as actually sent, what was refused, every retry and
the outcome (completion or error).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.llm.client.call_progress import REPORT_EVERY_S, CallProgress
from app.llm.client.completion import Completion, Message
from app.llm.client.context_fit import CONTEXT_MARGIN_TOKENS, MIN_ANSWER_TOKENS, answer_room, prompt_tokens
from app.llm.client.errors import (
    AnswerTooLarge,
    CallTimedOut,
    DegenerateOutput,
    LLMError,
    MalformedEvent,
    PromptTooLong,
    WrongShapeAnswer,
)

if TYPE_CHECKING:
    from app.llm.client.transport import Transport

log = logging.getLogger("app.llm.client.llm_client")
_CALL_IDS = itertools.count(1)
__all__ = ["CONTEXT_MARGIN_TOKENS", "MIN_ANSWER_TOKENS", "CallLog", "unusable_kind"]


class CallLog:
    """Bookkeeping of one logical call, written to the journal when it ends."""

    def __init__(self, transport: Transport, stage: str, messages: Sequence[Message],
                 requested: dict[str, Any] | None, temperature: float | None, max_tokens: int | None,
                 stream: bool) -> None:
        self.transport = transport
        self.stage = stage
        self.call_id = f"c{next(_CALL_IDS):05d}"
        self.sent_messages = transport.prepare_messages(messages)
        self.requested = requested
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.stream = stream
        self.fmt: dict[str, Any] | None = None
        self.refused: PromptTooLong | None = None  # set when the prompt leaves no room: raised before sending
        prompt = prompt_tokens(self.sent_messages)
        budget = transport.config.max_tokens if max_tokens is None else max_tokens
        context = int(transport.config.context_size)
        room = answer_room(prompt, context)
        if budget > room:
            floor = min(MIN_ANSWER_TOKENS, budget)
            if room >= floor:  # llama.cpp answers nothing past its context: ask for less instead
                log.info("%s: prompt (~%d tokens) + max_tokens %d exceed the context size %d; max_tokens lowered "
                         "to %d", stage, prompt, budget, context, room)
                self.max_tokens = max_tokens = room
            else:  # not sent at all: the endpoint would answer with nothing (or an error)
                log.warning("%s: prompt (~%d tokens) leaves no room for an answer of %d tokens in the context "
                            "size %d; not sent", stage, prompt, floor, context)
                self.refused = PromptTooLong.for_call(stage, prompt, context, floor)
        self.attempts = 1
        self.retries: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.t0 = time.monotonic()
        self.done = False
        self._reported = 0.0
        self.progress(0)

    def progress(self, tokens: int, *, done: bool = False, ok: bool = True) -> None:
        """Tell the transport's observer how the call is doing (throttled while streaming)."""
        observer = self.transport.observer
        if observer is None:
            return
        now = time.monotonic()
        if not done and tokens and now - self._reported < REPORT_EVERY_S:
            return
        self._reported = now
        try:
            observer(CallProgress(self.call_id, self.stage, tokens, now - self.t0, done, ok))
        except Exception:  # a display problem must never break a call
            log.exception("call observer failed")

    def _entry(self) -> dict[str, Any]:
        params = self.transport.params(self.temperature, self.max_tokens)
        return {
            "call_id": self.call_id, "stage": self.stage, "base_url": self.transport.config.base_url,
            "model": params["model"],
            "request": {"messages": self.sent_messages, "temperature": params["temperature"],
                        "max_tokens": params["max_tokens"], "response_format": self.fmt, "stream": self.stream,
                        "requested_response_format": self.requested},
            "rejected_formats": self.rejected, "retries": self.retries, "attempts": self.attempts,
        }

    def finish(self, comp: Completion) -> None:
        """Stamp the completion with attempts and latency and journal it (once)."""
        if self.done:
            return
        self.done = True
        comp.attempts = self.attempts
        comp.latency_s = time.monotonic() - self.t0
        self.progress(comp.usage.completion_tokens, done=True)
        self.transport.health.answered()
        if comp.empty:
            self.transport.health.unusable(self.call_id, "empty", f"finish_reason={comp.finish_reason}")
        journal = self.transport.journal
        if journal is not None:
            journal.record_call({
                **self._entry(), "raw_output": comp.raw_text, "text": comp.text, "reasoning": comp.reasoning,
                "finish_reason": comp.finish_reason, "truncated": comp.truncated, "empty": comp.empty,
                "usage": {"prompt_tokens": comp.usage.prompt_tokens, "completion_tokens": comp.usage.completion_tokens,
                          "estimated": comp.usage.estimated},
                "latency_s": round(comp.latency_s, 4), "error": None,
            })

    def fail(self, exc: BaseException, partial: str = "") -> None:
        """Journal a call that ended in an error or was cancelled (once)."""
        if self.done:
            return
        self.done = True
        self.progress(0, done=True, ok=False)
        kind = unusable_kind(exc)
        if kind:
            self.transport.health.unusable(self.call_id, kind, exc.message_zh if isinstance(exc, LLMError) else "")
        journal = self.transport.journal
        if journal is None:
            return
        if isinstance(exc, LLMError):
            error: dict[str, Any] = {"type": type(exc).__name__, "message": exc.message_zh, "detail": exc.detail,
                                     "status": exc.status}
        elif isinstance(exc, asyncio.CancelledError):
            error = {"type": "Cancelled", "message": "已取消"}
        else:
            error = {"type": type(exc).__name__, "message": str(exc)[:300]}
        journal.record_call({**self._entry(), "raw_output": partial, "latency_s": round(time.monotonic() - self.t0, 4),
                             "error": error})


def unusable_kind(exc: BaseException) -> str:
    """The :mod:`~app.llm.client.model_health` kind of a failed call, or "" when it says nothing about the model."""
    if isinstance(exc, CallTimedOut):
        return "timeout"
    if isinstance(exc, WrongShapeAnswer):
        return "wrong_shape"
    if isinstance(exc, MalformedEvent):
        return "malformed"
    if isinstance(exc, AnswerTooLarge):  # no newline, a bomb, a broken compression: no OpenAI stream at all
        return "oversized"
    if isinstance(exc, DegenerateOutput):
        return "degenerate"
    return ""

"""Run an instruction stream to a valid document: live application, repair and continuation rounds.

One round is one streamed model call: text is parsed as it arrives and every complete
instruction is validated and applied at once (the tree emits its events; the UI follows).
At ``done`` or at the end of the stream the whole document is checked. A cut-off round
(no ``done``, ``finish_reason == "length"``, a dropped connection) is followed by a
continuation round; an invalid document by a repair round that lists the issues and this
round's rejected instructions. Counters are per round (a failure of round 1 never counts
against round 2). Cancelling the task is safe: instructions are applied synchronously
between awaits, so the tree only ever holds whole, valid instructions.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from app.core.outline import Outline
from app.core.rules.outline import OutlineLimits
from app.core.stream_events import (
    Done,
    Instruction,
    InstructionApplied,
    InstructionRejected,
    MalformedInstruction,
    ParseEvent,
    RoundStarted,
    StreamError,
    StreamEvent,
    StreamWarning,
    Thinking,
)
from app.llm.client.errors import LLMConfigError, LLMConnectionError, LLMError, LLMServerGone
from app.llm.client.llm_client import LLMClient, Message, estimate_tokens
from app.llm.instructions.apply import InstructionApplier
from app.llm.instructions.prompts import (
    DocumentCheck,
    continue_prompt,
    repair_prompt,
    validate_document,
    with_followup,
)
from app.llm.instructions.stream import InstructionParser, describe_fixes
from app.llm.json.collect import YIELD_EVERY_S

log = logging.getLogger(__name__)

RoundKind = Literal["initial", "repair", "continue"]
#: Characters the model may still write after ``done`` before the stream is closed.
AFTER_DONE_BUDGET = 200


@dataclass
class RoundStats:
    """What one model call did."""

    round: int
    kind: RoundKind
    applied: int = 0
    rejected: int = 0
    done: bool = False
    truncated: bool = False
    ended_early: bool = False
    finish_reason: str | None = None
    connection_cut: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str = ""
    rejections: list[InstructionRejected] = field(default_factory=list)


@dataclass
class RoundsResult:
    """The outcome of :func:`run_instruction_rounds`; the tree itself holds the document."""

    valid: bool
    rounds: int
    issues: list[str]
    applied: int
    rejected: int
    prompt_tokens: int
    completion_tokens: int
    round_stats: list[RoundStats]
    error: str = ""

    @property
    def counts(self) -> dict[str, int]:
        """Applied/rejected/rounds counts, for logs and the UI."""
        return {"rounds": self.rounds, "applied": self.applied, "rejected": self.rejected,
                "repairs": sum(s.kind == "repair" for s in self.round_stats),
                "continuations": sum(s.kind == "continue" for s in self.round_stats)}


class _Round:
    """Feeds one round's parse events to the applier and keeps the round's counters."""

    def __init__(self, stats: RoundStats, applier: InstructionApplier, emit: Callable[[StreamEvent], None],
                 max_rejected_in_row: int) -> None:
        self.stats = stats
        self.applier = applier
        self.emit = emit
        self.max_in_row = max_rejected_in_row
        self.in_row = 0
        self.after_done = 0

    def handle(self, events: list[ParseEvent]) -> bool:
        """Process events; True when the round should stop reading (done, or too many rejects)."""
        st = self.stats
        for ev in events:
            if st.done:
                if isinstance(ev, (Instruction, MalformedInstruction)):
                    self.emit(StreamWarning("模型在 done 之后还输出了指令，已忽略", st.round))
                    return True
                continue
            if isinstance(ev, Thinking):
                self.emit(ev)
                continue
            if isinstance(ev, MalformedInstruction):
                self._reject(self.applier.reject_malformed(ev, st.round))
            else:
                result = self.applier.apply(ev, st.round)
                if isinstance(result, InstructionRejected):
                    self._reject(result)
                else:
                    if ev.fixes:
                        result = InstructionApplied(ev, st.round, (*result.notes, "自动修正：" + describe_fixes(ev.fixes)))
                    self.in_row = 0
                    if ev.op == "done":
                        st.done = True
                    else:
                        st.applied += 1
                    self.emit(result)
            if self.in_row >= self.max_in_row:
                st.ended_early = True
                self.emit(StreamWarning(f"连续 {self.in_row} 条指令被拒绝，本轮提前结束，将请模型修正", st.round))
                return True
        return False

    def _reject(self, rejection: InstructionRejected) -> None:
        self.stats.rejected += 1
        self.stats.rejections.append(rejection)
        if not rejection.truncated:
            self.in_row += 1
        self.emit(rejection)


async def _stream_round(client: LLMClient, messages: list[Message], rnd: _Round, *, stage: str,
                        temperature: float | None, max_tokens: int | None) -> None:
    """Stream one model call into ``rnd``; fills in its stats (finish, truncation, tokens, error)."""
    st = rnd.stats
    parser = InstructionParser()
    stream = client.stream(messages, temperature=temperature, max_tokens=max_tokens, stage=f"{stage}.r{st.round}")
    received: list[str] = []
    stopped = False
    last_yield = time.perf_counter()
    try:
        async for piece in stream:
            received.append(piece)
            if time.perf_counter() - last_yield > YIELD_EVERY_S:  # buffered pieces arrive without a suspension
                await asyncio.sleep(0)
                last_yield = time.perf_counter()
            if st.done:
                rnd.after_done += len(piece.strip())
                if rnd.after_done > AFTER_DONE_BUDGET:
                    stopped = True
                    break
            if rnd.handle(parser.feed(piece)):
                stopped = True
                break
    except (LLMConfigError, LLMServerGone):  # settings or a dead server: no further round can help
        raise
    except LLMConnectionError as e:
        if not e.partial_text:
            st.error = e.message_zh
            return
        st.truncated = st.connection_cut = True
        rnd.emit(StreamWarning(f"模型输出过程中连接中断，将从当前进度继续：{e.message_zh}", st.round))
    except LLMError as e:
        st.error = e.message_zh
        return
    finally:
        await stream.aclose()
    if not stopped:
        rnd.handle(parser.close())
    try:
        result = stream.result
    except RuntimeError:  # closed early or cut: count what we saw
        st.prompt_tokens = estimate_tokens("".join(str(m.get("content") or "") for m in messages))
        st.completion_tokens = estimate_tokens("".join(received))
    else:
        st.finish_reason = result.finish_reason
        st.prompt_tokens, st.completion_tokens = result.usage.prompt_tokens, result.usage.completion_tokens
        if result.truncated:
            st.truncated = True
    if not st.done and not st.ended_early:
        st.truncated = True
    text = "".join(received)
    if st.applied or st.done:
        client.transport.health.usable(stream.call_id)
    elif st.rejected:  # instructions, every one refused
        client.transport.health.unusable(stream.call_id, "refused", st.rejections[-1].issue)
    elif text.strip() and "{" not in text:  # no instruction, no JSON at all: prose or garbage
        client.transport.health.unusable(stream.call_id, "unparseable", text.strip()[:60])


async def run_instruction_rounds(
    client: LLMClient,
    messages: Sequence[Message],
    outline: Outline,
    applier: InstructionApplier | None = None,
    *,
    limits: OutlineLimits | None = None,
    required_fields: Sequence[str] = (),
    extra_checks: Sequence[DocumentCheck] = (),
    max_rounds: int = 3,
    max_continuations: int = 3,
    max_rejected_in_row: int = 5,
    on_event: Callable[[StreamEvent], None] | None = None,
    stage: str = "outline",
    temperature: float | None = None,
    max_tokens: int | None = None,
    renumber: bool = True,
) -> RoundsResult:
    """Stream instructions into ``outline`` until the document is valid or the rounds run out.

    ``max_rounds`` bounds repair rounds and ``max_continuations`` continuation rounds (both
    after the initial call). Raises only :class:`LLMConfigError` (and cancellation); other
    failures end the run with ``error`` set and the tree keeping everything applied; a server that
    stopped (:class:`LLMServerGone`) is raised too, since no further round can reach it.
    """
    applier = applier or InstructionApplier(outline)
    if applier.outline is not outline:
        raise ValueError("applier must work on the same outline")

    def emit(ev: StreamEvent) -> None:
        if on_event is not None:
            on_event(ev)

    stats: list[RoundStats] = []
    base = list(messages)
    current = base
    kind: RoundKind = "initial"
    repairs = continuations = 0
    issues: list[str] = []
    valid = False
    error = ""
    while True:
        st = RoundStats(len(stats) + 1, kind)
        stats.append(st)
        emit(RoundStarted(st.round, kind))
        await _stream_round(client, current, _Round(st, applier, emit, max_rejected_in_row),
                            stage=stage, temperature=temperature, max_tokens=max_tokens)
        if renumber:
            outline.renumber()
        issues = validate_document(outline, limits, required_fields, extra_checks)
        log.info("%s round %d (%s): applied %d, rejected %d, done=%s, truncated=%s, issues=%d",
                 stage, st.round, kind, st.applied, st.rejected, st.done, st.truncated, len(issues))
        if st.error:
            error = st.error
            emit(StreamError(st.error, st.round))
            break
        hard_cut = st.finish_reason == "length" or st.connection_cut
        if not issues and not hard_cut:
            valid = True  # rejected instructions, if any, changed nothing
            if not st.done:
                emit(StreamWarning("模型没有输出 done，但目录已经完整", st.round))
            break
        if st.truncated and not st.ended_early and continuations < max_continuations:
            continuations += 1
            kind = "continue"
            current = with_followup(base, continue_prompt(outline, issues, st.rejections))
        elif issues and repairs < max_rounds:
            repairs += 1
            kind = "repair"
            current = with_followup(base, repair_prompt(outline, issues, st.rejections))
        else:
            valid = not issues
            break
    emit(Done(valid, len(stats), tuple(issues)))
    return RoundsResult(
        valid=valid, rounds=len(stats), issues=issues,
        applied=sum(s.applied for s in stats), rejected=sum(s.rejected for s in stats),
        prompt_tokens=sum(s.prompt_tokens for s in stats), completion_tokens=sum(s.completion_tokens for s in stats),
        round_stats=stats, error=error,
    )


def events_collector() -> tuple[list[Any], Callable[[StreamEvent], None]]:
    """A list and a callback appending to it (handy for tests and the CLI)."""
    events: list[Any] = []
    return events, events.append

"""``collect_json``: the one road every structured model call takes.

messages + a pydantic model + business rules → :class:`CollectResult` holding either the
validated value or a structured failure. Per answer: extract the JSON (fences, prose,
think blocks) → strict parse → local repair (json-repair; uncertain when it changed
text) → tolerant normalisation (known field-name near-misses, recorded as local repairs)
→ schema validation → business rules. Then, while attempts remain, a targeted repair
request carrying the target description, the previous output and the exact issues.
The same invalid output twice stops the loop (circuit breaker). Model misbehaviour and
connection trouble end in a failed result; only :class:`LLMConfigError` is raised.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from app.core.resources import load_prompt
from app.llm.client.errors import (
    CallTimedOut,
    DegenerateOutput,
    LLMConnectionError,
    LLMError,
    LLMResponseError,
    PromptTooLong,
)
from app.llm.client.llm_client import Completion, LLMClient, Message
from app.llm.json.extract import extract_json, parse_json
from app.llm.json.normalize import normalize_for_model
from app.llm.json.wire_schema import wire_format

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
Rule = Callable[[Any], Sequence[object]]
Normalizer = Callable[[Any], tuple[Any, list[str]]]

#: A streamed answer hands the event loop (and so the GUI) a turn at least this often.
YIELD_EVERY_S = 0.005


class StreamSink(Protocol):
    """Receives a streamed answer as it arrives (e.g. to fill the live tree); see ``collect_json``."""

    def begin(self, attempt: int) -> None:
        """A new answer starts (attempt 1, or a repair that rewrites the whole JSON)."""

    def feed(self, text: str) -> None:
        """The next piece of the answer."""


MAX_ISSUES = 15
MAX_PREVIOUS_CHARS = 12000
EMPTY_ISSUE = "模型返回了空内容（可能是提示词超出上下文长度，或模型没有作答）"
TRUNCATED_ISSUE = "输出被截断（达到 max_tokens 上限），JSON 不完整：请精简描述文字，保证输出完整"
BREAKER_ISSUE = "模型连续两次给出相同的无效输出，已停止修复"


@dataclass
class Evaluation(Generic[M]):
    """What one answer turned into, without any network: the value or the issues."""

    value: M | None
    issues: list[str] = field(default_factory=list)
    local_repairs: list[str] = field(default_factory=list)
    extraction: list[str] = field(default_factory=list)
    uncertain: bool = False
    parsed: bool = True  # the answer held JSON at all (an invalid one may still be repaired)

    @property
    def ok(self) -> bool:
        """Valid against the schema and every business rule."""
        return self.value is not None and not self.issues


@dataclass
class CollectResult(Generic[M]):
    """The validated value, or a structured failure with everything the calls produced."""

    ok: bool = False
    value: M | None = None
    issues: list[str] = field(default_factory=list)
    attempts: int = 0
    raw_outputs: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    local_repairs: list[str] = field(default_factory=list)
    model_repairs: int = 0
    uncertain: bool = False
    truncated: bool = False
    stopped_by: str = ""  # "", "max_attempts", "circuit_breaker", "connection", "response", "timeout", "degenerate", "unusable"
    history: list[list[str]] = field(default_factory=list)  # issues of each attempt
    call_ids: list[str] = field(default_factory=list)
    model_time_s: float = 0.0  # time spent inside client calls (network + server + openai client)
    error: LLMError | None = None  # the endpoint error that stopped the loop (kept with its type)

    @property
    def message_zh(self) -> str:
        """A one-paragraph Chinese summary for the user."""
        if self.ok:
            return f"已获得有效结果（共调用模型 {self.attempts} 次）。"
        head = "；".join(self.issues[:3]) or "未知原因"
        return f"经过 {self.attempts} 次尝试仍未得到有效结果：{head}"


@functools.lru_cache(maxsize=64)
def describe_target(model: type[BaseModel]) -> str:
    """A Chinese description of the wanted JSON: an object matching the model's JSON Schema."""
    schema = json.dumps(model.model_json_schema(), ensure_ascii=False, separators=(",", ":"))
    return f"一个 JSON 对象，符合以下 JSON Schema：{schema}"


def validation_issues(exc: ValidationError) -> list[str]:
    """Pydantic errors as ``outline.0.children.1.description: Field required``."""
    out = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or "(顶层)"
        out.append(f"{loc}: {err['msg']}")
    return out


def evaluate_output(text: str, model: type[M], rules: Sequence[Rule] = (), *, truncated: bool = False,
                    normalizers: Sequence[Normalizer] = ()) -> Evaluation[M]:
    """Turn one answer into a validated value or precise issues (pure; no network)."""
    if not text.strip():
        return Evaluation(None, [EMPTY_ISSUE], parsed=False)
    extracted = extract_json(text)
    parsed = parse_json(extracted.text, truncated=truncated)
    ev: Evaluation[M] = Evaluation(None, extraction=list(extracted.notes))
    if not parsed.ok:
        ev.parsed = False
        ev.issues = [parsed.syntax_issue or "JSON 语法错误"]
        if truncated:
            ev.issues.append(TRUNCATED_ISSUE)
        return ev
    if parsed.repair:
        ev.local_repairs.append(parsed.repair)
        ev.local_repairs.extend(parsed.notes)
    ev.uncertain = parsed.uncertain
    data, notes = normalize_for_model(parsed.value, model)
    ev.local_repairs.extend(notes)
    for norm in normalizers:
        data, more = norm(data)
        ev.local_repairs.extend(more)
    try:
        value = model.model_validate(data)
    except ValidationError as exc:
        ev.issues = _cap(validation_issues(exc))
    else:
        rule_issues = [str(i) for rule in rules for i in rule(value)]
        if rule_issues:
            ev.issues = _cap(rule_issues)
        else:
            ev.value = value
    if ev.issues:
        if parsed.syntax_issue:
            ev.issues.insert(0, parsed.syntax_issue)
        if truncated:
            ev.issues.append(TRUNCATED_ISSUE)
    return ev


def _cap(issues: list[str]) -> list[str]:
    if len(issues) <= MAX_ISSUES:
        return issues
    return [*issues[:MAX_ISSUES], f"……另有 {len(issues) - MAX_ISSUES} 个问题"]


def repair_messages(messages: Sequence[Message], previous: str, issues: list[str], target: str) -> list[Message]:
    """The targeted repair request: the original task, the previous answer, the exact issues."""
    prev = previous if len(previous) <= MAX_PREVIOUS_CHARS else previous[:MAX_PREVIOUS_CHARS] + "……（后略）"
    listed = "\n".join(f"{i}. {issue}" for i, issue in enumerate(issues, 1))
    ask = load_prompt("json_repair").format_map({"target": target, "issues": listed})
    return [*messages, {"role": "assistant", "content": prev}, {"role": "user", "content": ask}]


async def collect_json(client: LLMClient, messages: Sequence[Message], model: type[M], rules: Sequence[Rule] = (),
                       max_attempts: int = 3, stage: str = "json", *, target_description: str | None = None,
                       normalizers: Sequence[Normalizer] = (), use_response_format: bool = True,
                       temperature: float | None = None, max_tokens: int | None = None,
                       stream_to: StreamSink | None = None) -> CollectResult[M]:
    """Call the model until its answer validates as ``model`` and passes ``rules``.

    With ``stream_to`` every answer is streamed and handed to the sink as it arrives (the
    validation of the finished answer is the same). Never raises for model misbehaviour or connection trouble (those end in ``ok=False``);
    raises :class:`~app.llm.client.errors.LLMConfigError` when the endpoint settings are wrong.
    """
    result: CollectResult[M] = CollectResult()
    target = target_description or describe_target(model)
    fmt = wire_format(model) if use_response_format else None
    convo: list[Message] = list(messages)
    seen_invalid: set[str] = set()
    journal = client.journal
    for attempt in range(1, max(1, max_attempts) + 1):
        if attempt > 1 and client.transport.health.tripped:  # the model is not usable: stop asking
            result.issues = [client.transport.health.verdict_zh]
            result.stopped_by = "unusable"
            break
        result.attempts = attempt
        sub_stage = stage if attempt == 1 else f"{stage}/repair{attempt - 1}"
        try:
            if stream_to is None:
                comp = await client.complete(convo, response_format=fmt, temperature=temperature,
                                             max_tokens=max_tokens, stage=sub_stage)
            else:
                comp = await _streamed(client, convo, fmt, temperature, max_tokens, sub_stage, attempt, stream_to)
        except (DegenerateOutput, CallTimedOut) as exc:  # a loop, a runaway answer, a deadline: a failed attempt
            result.issues = [exc.message_zh]
            result.history.append([exc.message_zh])
            result.stopped_by = "timeout" if isinstance(exc, CallTimedOut) else "degenerate"
            if journal is not None:
                journal.record_validation("", sub_stage, attempt=attempt, ok=False, issues=[exc.message_zh],
                                          repair_kind="retry", local_repairs=[])
            convo = list(messages)  # nothing worth repairing: ask afresh
            continue
        except PromptTooLong as exc:  # not sent: a repair (the answer resent) may not fit where the question did
            result.issues = [exc.message_zh]
            result.stopped_by = "response"
            if len(convo) == len(messages):
                result.error = exc
                break
            log.info("%s: the repair request does not fit the context; asking afresh", stage)
            convo = list(messages)
            continue
        except LLMConnectionError as exc:
            result.issues = [exc.message_zh]
            result.stopped_by = "connection"
            result.error = exc
            break
        except LLMResponseError as exc:
            result.issues = [exc.message_zh]
            result.stopped_by = "response"
            break
        _account(result, comp)
        ev = evaluate_output(comp.text, model, rules, truncated=comp.truncated, normalizers=normalizers)
        result.history.append(list(ev.issues))
        if ev.parsed:
            client.transport.health.usable(comp.call_id)
        elif not comp.empty:  # an empty answer was judged by the call itself
            client.transport.health.unusable(comp.call_id, "unparseable", ev.issues[0] if ev.issues else "")
        result.local_repairs.extend(r for r in ev.local_repairs if r not in result.local_repairs)
        repair_kind = "none" if ev.ok else ("retry" if comp.empty else "model_repair")
        key = " ".join(comp.text.split())
        if not ev.ok and key in seen_invalid:
            repair_kind = "circuit_breaker"
        elif ev.ok and ev.local_repairs:
            repair_kind = "local_repair"
        if journal is not None:
            journal.record_validation(comp.call_id, sub_stage, attempt=attempt, ok=ev.ok, issues=ev.issues,
                                      repair_kind=repair_kind, local_repairs=ev.local_repairs, uncertain=ev.uncertain)
        if ev.ok:
            result.ok, result.value, result.issues = True, ev.value, []
            result.uncertain = ev.uncertain
            result.stopped_by = ""
            return result
        result.issues = list(ev.issues)
        if repair_kind == "circuit_breaker":
            result.issues.append(BREAKER_ISSUE)
            result.stopped_by = "circuit_breaker"
            break
        seen_invalid.add(key)
        result.stopped_by = "max_attempts"
        if attempt < max_attempts:
            log.info("%s: attempt %d invalid (%d issues); asking for a repair", stage, attempt, len(ev.issues))
            if comp.empty:
                convo = list(messages)  # nothing to repair: ask the same question again
            else:
                result.model_repairs += 1
                convo = repair_messages(messages, comp.text, ev.issues, target)
    log.warning("%s: no valid result after %d attempts: %s", stage, result.attempts, "; ".join(result.issues[:3]))
    return result


async def _streamed(client: LLMClient, convo: list[Message], fmt: dict[str, Any] | None, temperature: float | None,
                    max_tokens: int | None, stage: str, attempt: int, sink: StreamSink) -> Completion:
    """One streamed call whose pieces go to ``sink``; the finished call as a :class:`Completion`."""
    sink.begin(attempt)
    stream = client.stream(convo, temperature=temperature, max_tokens=max_tokens, stage=stage, response_format=fmt)
    last_yield = time.perf_counter()
    try:
        async for piece in stream:
            sink.feed(piece)
            if time.perf_counter() - last_yield > YIELD_EVERY_S:  # buffered pieces arrive without a suspension
                await asyncio.sleep(0)
                last_yield = time.perf_counter()
    finally:
        await stream.aclose()
    return stream.result


def _account(result: CollectResult[Any], comp: Completion) -> None:
    result.raw_outputs.append(comp.raw_text or comp.text)
    result.call_ids.append(comp.call_id)
    result.prompt_tokens += comp.usage.prompt_tokens
    result.completion_tokens += comp.usage.completion_tokens
    result.tokens_estimated = result.tokens_estimated or comp.usage.estimated
    result.truncated = result.truncated or comp.truncated
    result.model_time_s += comp.latency_s

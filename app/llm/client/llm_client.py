"""Async client for any OpenAI-compatible chat-completions endpoint.

Wraps ``openai.AsyncOpenAI`` (with its own retries switched off) and adds what weak and
local endpoints need: bounded retries with exponential backoff and jitter (honouring
``Retry-After``), the response-format ladder learned per endpoint+model, folding system
messages into the first user message for servers that drop them, think-block removal,
usage accounting (estimated when the server reports none), truncation reporting, a
per-endpoint concurrency limit, prompt cancellation of streams and the call journal.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import openai

from app.llm.client.call_log import CallLog
from app.llm.client.completion import (
    Completion,
    EndpointConfig,
    Message,
    Usage,
    estimate_tokens,
    extra_str,
    fold_system_messages,
)
from app.llm.client.context_fit import answer_room
from app.llm.client.errors import LLMResponseError, MalformedEvent, ResponseFormatRejected
from app.llm.client.journal import replay_request
from app.llm.client.retry_policy import Retryable, backoff_delay, give_up
from app.llm.client.streaming import CompletionStream, wrong_shape
from app.llm.client.transport import Transport

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from app.llm.client.journal import CallJournal
    from app.llm.client.response_format import FormatRegistry

__all__ = [
    "Completion",
    "CompletionStream",
    "EndpointConfig",
    "LLMClient",
    "Message",
    "Transport",
    "Usage",
    "estimate_tokens",
    "fold_system_messages",
]

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Model ids kept from ``GET /models`` (a hostile or huge list must not freeze the settings combo).
MAX_MODEL_IDS = 2000
#: Seconds a whole ``GET /models`` may take when no call deadline is set.
LIST_MODELS_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class ModelListing:
    """What ``GET /models`` returned: the ids kept (sorted) and how many distinct ids there were."""

    ids: list[str]
    total: int

    @property
    def cut(self) -> bool:
        """Whether ids were left out (more than :data:`MAX_MODEL_IDS`)."""
        return self.total > len(self.ids)


class LLMClient:
    """One endpoint's client; create once per endpoint and ``await aclose()`` at the end.

    Everything its calls share (settings, HTTP client, concurrency slot, learned formats,
    journal, whether the server is still there) lives in :attr:`transport`.
    """

    def __init__(self, config: EndpointConfig, journal: CallJournal | None = None,
                 formats: FormatRegistry | None = None) -> None:
        self.transport = Transport(config, journal, formats)

    @property
    def config(self) -> EndpointConfig:
        """The endpoint settings."""
        return self.transport.config

    @property
    def journal(self) -> CallJournal | None:
        """The call journal, if any."""
        return self.transport.journal

    @property
    def formats(self) -> FormatRegistry:
        """The response-format registry this client learns into."""
        return self.transport.formats

    # ------------------------------------------------------------------ public API
    async def complete(self, messages: Sequence[Message], response_format: dict[str, Any] | None = None,
                       temperature: float | None = None, max_tokens: int | None = None,
                       stage: str = "call") -> Completion:
        """One non-streaming call, with retries, the response-format ladder and a deadline.

        Returns a :class:`Completion` (possibly ``empty`` or ``truncated``); raises
        :class:`LLMConfigError`, :class:`LLMConnectionError` or :class:`LLMResponseError`.
        """
        if self.config.stream_calls:
            return await self._complete_streamed(messages, response_format, temperature, max_tokens, stage)
        call = CallLog(self.transport, stage, messages, response_format, temperature, max_tokens, stream=False)
        try:
            if call.refused is not None:
                raise call.refused
            await self.transport.ensure_alive()
            for fmt in self.transport.ladder(response_format):
                call.fmt = fmt
                try:
                    comp = await self._with_retries(functools.partial(self._create_once, call, fmt), call)
                except ResponseFormatRejected as exc:
                    self.transport.mark_unsupported(fmt)
                    call.rejected.append({"response_format": fmt, "error": exc.detail})
                    continue
                call.finish(comp)
                return comp
            raise LLMResponseError("模型服务拒绝了所有结构化输出格式。")  # unreachable: "none" is never rejected
        except BaseException as exc:
            call.fail(exc)
            raise

    async def _complete_streamed(self, messages: Sequence[Message], response_format: dict[str, Any] | None,
                                 temperature: float | None, max_tokens: int | None, stage: str) -> Completion:
        """A whole answer read as a stream, so the first-token, idle and total clocks, the size
        cap and the loop detector apply, and a server stops generating when we stop reading."""
        stream = CompletionStream(self.transport, messages, temperature, max_tokens, stage, response_format,
                                  whole=True)
        try:
            async for _piece in stream:
                pass
        finally:
            await stream.aclose()
        return stream.result

    def stream(self, messages: Sequence[Message], temperature: float | None = None, max_tokens: int | None = None,
               stage: str = "stream", response_format: dict[str, Any] | None = None) -> CompletionStream:
        """A streaming call: iterate for content pieces, then read ``.result``."""
        return CompletionStream(self.transport, messages, temperature, max_tokens, stage, response_format)

    async def list_models(self) -> list[str]:
        """Model ids the endpoint offers (``GET /models``), at most :data:`MAX_MODEL_IDS` of them."""
        return (await self.model_listing()).ids

    async def model_listing(self) -> ModelListing:
        """Model ids the endpoint offers and how many it listed in all.

        A list longer than :data:`MAX_MODEL_IDS` is cut (sorted by name; the configured model is
        kept when the endpoint has it); ``total`` says how many there were, so the cut is shown.
        """
        api = self.transport.api()

        async def once() -> ModelListing:
            try:
                page = await api.models.list()
            except openai.APIError as exc:
                raise self.transport.classify(exc, None) from exc
            self.transport.answered()
            ids = sorted({m.id for m in page.data if isinstance(getattr(m, "id", None), str) and 0 < len(m.id) <= 200})
            total = len(ids)
            if total > MAX_MODEL_IDS:  # a list a combo box (and a person) can use: say what was left out
                log.warning("list_models: the endpoint offers %d models; keeping the first %d", total, MAX_MODEL_IDS)
                wanted = self.config.model
                kept = ids[:MAX_MODEL_IDS]
                if wanted and wanted not in kept and wanted in set(ids):
                    kept.append(wanted)
                ids = kept
            return ModelListing(ids, total)

        limit = self.config.timeout if self.config.timeout > 0 else LIST_MODELS_TIMEOUT_S

        async def bounded() -> ModelListing:
            # A server trickling its answer a byte at a time never trips the HTTP read timeout: the whole
            # listing has a deadline of its own.
            try:
                return await asyncio.wait_for(once(), timeout=limit)
            except asyncio.TimeoutError as exc:
                raise Retryable(f"timeout: no complete model list within {limit:g} s") from exc

        return await self._with_retries(bounded, None)

    async def prompt_tokens_of(self, messages: list[Message]) -> int | None:
        """``usage.prompt_tokens`` the endpoint reports for ``messages`` (one-token answer), if any."""
        api = self.transport.api()

        async def once() -> int | None:
            try:
                resp = await api.chat.completions.create(model=self.config.model, messages=messages,  # type: ignore[arg-type]
                                                         max_tokens=1, temperature=0)
            except openai.APIError as exc:
                raise self.transport.classify(exc, None) from exc
            self.transport.answered()
            usage = getattr(resp, "usage", None)
            return usage.prompt_tokens if usage is not None and usage.prompt_tokens else None

        async with self.transport.slot:
            return await self._with_retries(once, None)

    async def probe_drops_system(self) -> bool | None:
        """Whether the endpoint silently drops system messages (llama.cpp with some chat formats).

        Sends the same one-token request with and without a long system message and
        compares ``usage.prompt_tokens``; None when the endpoint reports no usage.
        The answer suits ``EndpointConfig.system_in_user``.
        """
        user: Message = {"role": "user", "content": "你好"}
        system: Message = {"role": "system", "content": "请严格遵守以下写作规则，只输出要求的内容。" * 8}
        with_system = await self.prompt_tokens_of([system, user])
        without = await self.prompt_tokens_of([user])
        if with_system is None or without is None:
            return None
        return with_system - without < estimate_tokens(str(system["content"])) // 4

    def api(self) -> AsyncOpenAI:
        """The underlying openai client (built on first use; warms imports and TLS set-up)."""
        return self.transport.api()

    async def aclose(self) -> None:
        """Close the underlying HTTP client."""
        await self.transport.aclose()

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def estimate_prompt_tokens(self, messages: Sequence[Message]) -> int:
        """Rough prompt size in tokens (characters based), as the messages will be sent."""
        return sum(estimate_tokens(str(m.get("content") or "")) + 4 for m in self.prepare_messages(messages))

    def fits(self, messages: Sequence[Message], max_tokens: int | None = None) -> bool:
        """Whether prompt + answer budget fit the configured context size (by estimate).

        llama.cpp answers an over-long prompt with HTTP 200 and nothing at all, so callers
        budget prompts with this before sending (a call that leaves no room for an answer is
        refused with :class:`~app.llm.client.errors.PromptTooLong`).
        """
        budget = self.config.max_tokens if max_tokens is None else max_tokens
        return answer_room(self.estimate_prompt_tokens(messages), self.config.context_size) >= budget

    def prepare_messages(self, messages: Sequence[Message]) -> list[Message]:
        """The messages as they will be sent (system folded into user when configured)."""
        return self.transport.prepare_messages(messages)

    # ------------------------------------------------------------------ internals
    async def _create_once(self, call: CallLog, fmt: dict[str, Any] | None) -> Completion:
        transport = self.transport
        api = transport.api()
        params = transport.params(call.temperature, call.max_tokens)
        kwargs: dict[str, Any] = {**params, "messages": call.sent_messages}
        if fmt is not None:
            kwargs["response_format"] = fmt
        timing = transport.timing(call.sent_messages, params["max_tokens"])
        t0 = time.monotonic()
        async with transport.slot:
            try:
                resp = await asyncio.wait_for(api.chat.completions.create(**kwargs), timing.deadline_s)
            except asyncio.TimeoutError as exc:  # nothing arrived at all: worth one more try
                raise Retryable("timeout") from exc
            except openai.APIError as exc:
                if isinstance(exc, openai.APIStatusError):
                    transport.answered()
                raise transport.classify(exc, fmt) from exc
            except ValueError as exc:  # a 200 whose JSON (or UTF-8) is broken
                transport.answered()
                raise MalformedEvent("模型服务返回的应答无法解析", detail=f"{type(exc).__name__}: {exc}"[:200]) from exc
        transport.answered()
        if not hasattr(resp, "choices"):  # a 200 that is not JSON: a proxy page or a wrong address
            raise wrong_shape("", str(resp)[:4096])
        try:
            choice = resp.choices[0] if resp.choices else None
            raw = _text_or_empty(choice.message.content) if choice else ""
            extra_reasoning = extra_str(choice.message, "reasoning_content") if choice else ""
            finish = choice.finish_reason if choice else None
            usage = None
            if resp.usage is not None and (resp.usage.prompt_tokens or resp.usage.completion_tokens):
                usage = Usage(int(resp.usage.prompt_tokens or 0), int(resp.usage.completion_tokens or 0))
        except (AttributeError, TypeError, IndexError, KeyError, ValueError) as exc:  # JSON of the wrong shape
            raise MalformedEvent("模型服务返回的应答不是 OpenAI 格式", detail=f"{type(exc).__name__}: {exc}"[:200]) from exc
        comp = transport.completion(call_id=call.call_id, attempts=call.attempts, messages=call.sent_messages,
                                    raw=raw, extra_reasoning=extra_reasoning, finish=finish, usage=usage, fmt=fmt,
                                    latency=time.monotonic() - t0)
        if comp.empty:
            log.warning("%s: endpoint returned an empty answer (finish_reason=%s)", call.stage, finish)
        return comp

    async def _with_retries(self, op: Callable[[], Awaitable[T]], call: CallLog | None) -> T:
        """Run ``op`` with bounded retries, exponential backoff with jitter and Retry-After.

        A refused connection to a server that answered before is checked once and named
        (:class:`~app.llm.client.errors.LLMServerGone`) instead of being retried.
        """
        cfg = self.config
        attempt = 0
        while True:
            if call is not None:
                call.attempts = attempt + 1
            try:
                return await op()
            except Retryable as exc:
                await self.transport.check_gone(exc)
                if attempt >= cfg.max_retries:
                    stage = call.stage if call is not None else "list_models"
                    log.error("%s: giving up after %d attempts: %s", stage, attempt + 1, exc.reason)
                    raise give_up(exc, attempt + 1) from exc
                delay = backoff_delay(cfg, attempt, exc.retry_after)
                log.warning("%s: attempt %d failed (%s); retrying in %.2f s",
                            call.stage if call is not None else "list_models", attempt + 1, exc.reason, delay)
                if call is not None:
                    call.retries.append({"attempt": attempt + 1, "error": exc.reason, "delay_s": round(delay, 3)})
                await asyncio.sleep(delay)
                attempt += 1


def _text_or_empty(value: object) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"content is {type(value).__name__}, not text")
    return value


async def replay(client: LLMClient, entry: dict[str, Any], stage: str = "replay") -> Completion:
    """Send a journalled call again through ``client`` with the same format and parameters.

    The messages are sent as recorded (already folded if the endpoint needed it).
    """
    kwargs = replay_request(entry)
    return await client.complete(kwargs["messages"], response_format=kwargs.get("response_format"),
                                 temperature=kwargs["temperature"], max_tokens=kwargs["max_tokens"], stage=stage)

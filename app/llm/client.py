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
from typing import TYPE_CHECKING, Any, TypeVar

import openai
from openai import AsyncOpenAI

from app.llm.call_log import CallLog
from app.llm.completion import (
    Completion,
    EndpointConfig,
    Message,
    Usage,
    estimate_tokens,
    extra_str,
    fold_system_messages,
)
from app.llm.endpoint_values import check_endpoint_values
from app.llm.errors import LLMConfigError, LLMResponseError, ResponseFormatRejected
from app.llm.response_format import DEFAULT_REGISTRY, FormatRegistry, ladder
from app.llm.retry_policy import Retryable, backoff_delay, classify, give_up
from app.llm.streaming import CompletionStream
from app.llm.think_blocks import split_think

if TYPE_CHECKING:
    from app.llm.journal import CallJournal

__all__ = [
    "Completion",
    "CompletionStream",
    "EndpointConfig",
    "LLMClient",
    "Message",
    "Usage",
    "estimate_tokens",
    "fold_system_messages",
]

log = logging.getLogger(__name__)
T = TypeVar("T")


class LLMClient:
    """One endpoint's client; create once per endpoint and ``await aclose()`` at the end."""

    def __init__(self, config: EndpointConfig, journal: CallJournal | None = None,
                 formats: FormatRegistry | None = None) -> None:
        self.config = config
        self.journal = journal
        self.formats = formats if formats is not None else DEFAULT_REGISTRY
        self._api: AsyncOpenAI | None = None
        self._sem = asyncio.Semaphore(max(1, config.concurrency))
        if journal is not None and config.api_key:
            journal.add_secret(config.api_key)

    # ------------------------------------------------------------------ public API
    async def complete(self, messages: Sequence[Message], response_format: dict[str, Any] | None = None,
                       temperature: float | None = None, max_tokens: int | None = None,
                       stage: str = "call") -> Completion:
        """One non-streaming call, with retries and the response-format ladder.

        Returns a :class:`Completion` (possibly ``empty`` or ``truncated``); raises
        :class:`LLMConfigError`, :class:`LLMConnectionError` or :class:`LLMResponseError`.
        """
        call = CallLog(self, stage, messages, response_format, temperature, max_tokens, stream=False)
        try:
            for fmt in self._ladder(response_format):
                call.fmt = fmt
                try:
                    comp = await self._with_retries(functools.partial(self._create_once, call, fmt), call)
                except ResponseFormatRejected as exc:
                    self.formats.mark_unsupported(self.config.base_url, self.config.model, fmt)
                    call.rejected.append({"response_format": fmt, "error": exc.detail})
                    continue
                call.finish(comp)
                return comp
            raise LLMResponseError("模型服务拒绝了所有结构化输出格式。")  # unreachable: "none" is never rejected
        except BaseException as exc:
            call.fail(exc)
            raise

    def stream(self, messages: Sequence[Message], temperature: float | None = None, max_tokens: int | None = None,
               stage: str = "stream", response_format: dict[str, Any] | None = None) -> CompletionStream:
        """A streaming call: iterate for content pieces, then read ``.result``."""
        return CompletionStream(self, messages, temperature, max_tokens, stage, response_format)

    async def list_models(self) -> list[str]:
        """Model ids the endpoint offers (``GET /models``)."""
        api = self._client()

        async def once() -> list[str]:
            try:
                page = await api.models.list()
            except openai.APIError as exc:
                raise self._classify(exc, None) from exc
            return sorted(m.id for m in page.data)

        return await self._with_retries(once, None)

    async def probe_drops_system(self) -> bool | None:
        """Whether the endpoint silently drops system messages (llama.cpp with some chat formats).

        Sends the same one-token request with and without a long system message and
        compares ``usage.prompt_tokens``; None when the endpoint reports no usage.
        The answer suits ``EndpointConfig.system_in_user``.
        """
        user: Message = {"role": "user", "content": "你好"}
        system: Message = {"role": "system", "content": "请严格遵守以下写作规则，只输出要求的内容。" * 8}
        api = self._client()

        async def prompt_tokens(messages: list[Message]) -> int | None:
            async def once() -> int | None:
                try:
                    resp = await api.chat.completions.create(model=self.config.model, messages=messages,  # type: ignore[arg-type]
                                                             max_tokens=1, temperature=0)
                except openai.APIError as exc:
                    raise self._classify(exc, None) from exc
                usage = getattr(resp, "usage", None)
                return usage.prompt_tokens if usage is not None and usage.prompt_tokens else None

            async with self._sem:
                return await self._with_retries(once, None)

        with_system = await prompt_tokens([system, user])
        without = await prompt_tokens([user])
        if with_system is None or without is None:
            return None
        return with_system - without < estimate_tokens(str(system["content"])) // 4

    async def aclose(self) -> None:
        """Close the underlying HTTP client."""
        if self._api is not None:
            await self._api.close()
            self._api = None

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
        budget prompts with this before sending.
        """
        budget = self.config.max_tokens if max_tokens is None else max_tokens
        return self.estimate_prompt_tokens(messages) + budget <= self.config.context_size

    # ------------------------------------------------------------------ internals
    def _client(self) -> AsyncOpenAI:
        cfg = self.config
        if not cfg.api_key or not cfg.api_key.strip():
            raise LLMConfigError.missing_key()
        if not cfg.model.strip():
            raise LLMConfigError.missing_model()
        if not cfg.base_url.startswith(("http://", "https://")):
            raise LLMConfigError.bad_base_url(cfg.base_url)
        check_endpoint_values(cfg.base_url, cfg.api_key)
        if self._api is None:
            self._api = AsyncOpenAI(base_url=cfg.base_url.strip(), api_key=cfg.api_key.strip(), max_retries=0,
                                    timeout=cfg.timeout)
        return self._api

    def _ladder(self, requested: dict[str, Any] | None) -> list[dict[str, Any] | None]:
        if requested is None:
            return [None]
        return ladder(requested, self.formats.start_level(self.config.base_url, self.config.model))

    def prepare_messages(self, messages: Sequence[Message]) -> list[Message]:
        """The messages as they will be sent (system folded into user when configured)."""
        if self.config.system_in_user:
            return fold_system_messages(messages)
        return [dict(m) for m in messages]

    def _params(self, temperature: float | None, max_tokens: int | None) -> dict[str, Any]:
        return {
            "model": self.config.model,
            "temperature": self.config.temperature if temperature is None else temperature,
            "max_tokens": self.config.max_tokens if max_tokens is None else max_tokens,
        }

    async def _create_once(self, call: CallLog, fmt: dict[str, Any] | None) -> Completion:
        api = self._client()
        kwargs: dict[str, Any] = {**self._params(call.temperature, call.max_tokens), "messages": call.sent_messages}
        if fmt is not None:
            kwargs["response_format"] = fmt
        t0 = time.monotonic()
        async with self._sem:
            try:
                resp = await api.chat.completions.create(**kwargs)
            except openai.APIError as exc:
                raise self._classify(exc, fmt) from exc
        if not hasattr(resp, "choices"):  # a 200 that is not JSON: a proxy page or a wrong address
            raise LLMResponseError("模型服务返回的不是 OpenAI 格式的响应，请检查接口地址（通常以 /v1 结尾）。",
                                   detail=str(resp)[:200])
        choice = resp.choices[0] if resp.choices else None
        raw = (choice.message.content or "") if choice else ""
        extra_reasoning = extra_str(choice.message, "reasoning_content") if choice else ""
        finish = choice.finish_reason if choice else None
        usage = None
        if resp.usage is not None and (resp.usage.prompt_tokens or resp.usage.completion_tokens):
            usage = Usage(resp.usage.prompt_tokens or 0, resp.usage.completion_tokens or 0)
        return self._completion(call, raw, extra_reasoning, finish, usage, fmt, time.monotonic() - t0)

    def _completion(self, call: CallLog, raw: str, extra_reasoning: str, finish: str | None, usage: Usage | None,
                    fmt: dict[str, Any] | None, latency: float) -> Completion:
        text, think = split_think(raw)
        reasoning = "\n\n".join(r for r in (extra_reasoning.strip(), think) if r)
        if usage is None:
            prompt = sum(estimate_tokens(str(m.get("content") or "")) + 4 for m in call.sent_messages)
            usage = Usage(prompt, estimate_tokens(raw) + estimate_tokens(extra_reasoning), estimated=True)
        if not text.strip():
            log.warning("%s: endpoint returned an empty answer (finish_reason=%s)", call.stage, finish)
        return Completion(text=text, reasoning=reasoning, finish_reason=finish, truncated=finish == "length",
                          usage=usage, response_format=fmt, latency_s=latency, raw_text=raw, call_id=call.call_id,
                          attempts=call.attempts)

    def _classify(self, exc: openai.APIError, fmt: dict[str, Any] | None) -> Exception:
        return classify(exc, fmt, self.config)

    async def _with_retries(self, op: Callable[[], Awaitable[T]], call: CallLog | None) -> T:
        """Run ``op`` with bounded retries, exponential backoff with jitter and Retry-After."""
        cfg = self.config
        attempt = 0
        while True:
            if call is not None:
                call.attempts = attempt + 1
            try:
                return await op()
            except Retryable as exc:
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

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
import email.utils
import functools
import itertools
import logging
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import httpx2
import openai
from openai import AsyncOpenAI

from app.llm.errors import (
    LLMConfigError,
    LLMConnectionError,
    LLMError,
    LLMResponseError,
    ResponseFormatRejected,
)
from app.llm.response_format import (
    DEFAULT_REGISTRY,
    FormatRegistry,
    is_format_rejection,
    ladder,
    mentions_format,
)
from app.llm.think_blocks import ThinkFilter, split_think

if TYPE_CHECKING:
    from app.llm.journal import CallJournal

log = logging.getLogger(__name__)

Message = dict[str, Any]
T = TypeVar("T")
_RETRY_STATUS = frozenset({408, 409, 429})
_call_ids = itertools.count(1)


@dataclass(frozen=True)
class EndpointConfig:
    """Everything needed to talk to one endpoint; ``api_key`` never appears in ``repr``."""

    base_url: str
    api_key: str = field(repr=False)
    model: str
    temperature: float = 0.3
    max_tokens: int = 2048
    timeout: float = 60.0
    max_retries: int = 3
    context_size: int = 8192
    concurrency: int = 1
    system_in_user: bool = False
    backoff_base: float = 1.0  # seconds; delay = base * 2**n * jitter(0.5..1.5), capped
    backoff_max: float = 30.0
    retry_after_max: float = 60.0  # cap on a server's Retry-After


@dataclass(frozen=True)
class Usage:
    """Tokens of one call; ``estimated`` when the server reported none and we counted characters."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


@dataclass
class Completion:
    """The outcome of one model call. ``text`` has think blocks removed; check :attr:`empty`."""

    text: str
    reasoning: str = ""
    finish_reason: str | None = None
    truncated: bool = False
    usage: Usage = field(default_factory=Usage)
    response_format: dict[str, Any] | None = None
    latency_s: float = 0.0
    raw_text: str = ""
    call_id: str = ""
    attempts: int = 1

    @property
    def empty(self) -> bool:
        """An empty answer is a failure (e.g. an over-long prompt on llama.cpp), never a result."""
        return not self.text.strip()


def estimate_tokens(text: str) -> int:
    """Rough token count from characters: one per CJK character, one per four others."""
    cjk = sum(1 for ch in text if "\u2e80" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\uff00" <= ch <= "\uffef")
    return cjk + (len(text) - cjk + 3) // 4


def fold_system_messages(messages: Sequence[Message]) -> list[Message]:
    """Move system messages into the first user message (for servers that drop them)."""
    system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if not system:
        return rest
    preamble = "\n\n".join(s for s in system if s.strip())
    for m in rest:
        if m.get("role") == "user":
            m["content"] = f"{preamble}\n\n{m.get('content') or ''}" if preamble else m.get("content")
            return rest
    return [{"role": "user", "content": preamble}, *rest]


class _Retryable(Exception):
    """An attempt failed in a way worth retrying."""

    def __init__(self, reason: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retry_after = retry_after


class _StreamCut(Exception):
    """A stream ended without a finish reason (connection dropped)."""


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
        call = _CallLog(self, stage, messages, response_format, temperature, max_tokens, stream=False)
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
        if self._api is None:
            self._api = AsyncOpenAI(base_url=cfg.base_url, api_key=cfg.api_key, max_retries=0, timeout=cfg.timeout)
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

    async def _create_once(self, call: _CallLog, fmt: dict[str, Any] | None) -> Completion:
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
        extra_reasoning = _extra_str(choice.message, "reasoning_content") if choice else ""
        finish = choice.finish_reason if choice else None
        usage = None
        if resp.usage is not None and (resp.usage.prompt_tokens or resp.usage.completion_tokens):
            usage = Usage(resp.usage.prompt_tokens or 0, resp.usage.completion_tokens or 0)
        return self._completion(call, raw, extra_reasoning, finish, usage, fmt, time.monotonic() - t0)

    def _completion(self, call: _CallLog, raw: str, extra_reasoning: str, finish: str | None, usage: Usage | None,
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
        """Map an openai exception to a retry signal or one of our errors."""
        if isinstance(exc, openai.APITimeoutError):
            return _Retryable("timeout")
        if isinstance(exc, openai.APIConnectionError):
            return _Retryable(f"connection error: {exc.__cause__ or exc}")
        if not isinstance(exc, openai.APIStatusError):
            return LLMResponseError("模型服务返回了无法识别的响应。", detail=str(exc)[:300])
        status = exc.status_code
        body = _body_text(exc)
        detail = body[:300]
        if status in (401, 403):
            return LLMConfigError.unauthorized(status, detail)
        if is_format_rejection(status, body, fmt):
            return ResponseFormatRejected("模型服务不支持该结构化输出格式。", detail=detail, status=status)
        if status == 404:
            if "model" in body.lower():
                return LLMConfigError.unknown_model(self.config.model, detail)
            return LLMConfigError.not_found(self.config.base_url, detail)
        if status in _RETRY_STATUS or status >= 500:
            return _Retryable(f"HTTP {status}", status, _retry_after(exc))
        if status == 400 and mentions_format(body):
            return LLMResponseError("模型服务不支持结构化输出。", detail=detail, status=status)
        return LLMResponseError(f"模型服务拒绝了请求（HTTP {status}）：{detail or '无详细信息'}", detail=detail,
                                status=status)

    async def _with_retries(self, op: Callable[[], Awaitable[T]], call: _CallLog | None) -> T:
        """Run ``op`` with bounded retries, exponential backoff with jitter and Retry-After."""
        cfg = self.config
        attempt = 0
        while True:
            if call is not None:
                call.attempts = attempt + 1
            try:
                return await op()
            except _Retryable as exc:
                if attempt >= cfg.max_retries:
                    stage = call.stage if call is not None else "list_models"
                    log.error("%s: giving up after %d attempts: %s", stage, attempt + 1, exc.reason)
                    raise _give_up(exc, attempt + 1) from exc
                delay = min(cfg.backoff_max, cfg.backoff_base * 2 ** attempt * (0.5 + random.random()))
                if exc.retry_after is not None:
                    delay = max(delay, min(exc.retry_after, cfg.retry_after_max))
                log.warning("%s: attempt %d failed (%s); retrying in %.2f s",
                            call.stage if call is not None else "list_models", attempt + 1, exc.reason, delay)
                if call is not None:
                    call.retries.append({"attempt": attempt + 1, "error": exc.reason, "delay_s": round(delay, 3)})
                await asyncio.sleep(delay)
                attempt += 1


def _give_up(exc: _Retryable, attempts: int) -> LLMConnectionError:
    if exc.status == 429:
        msg = f"模型服务繁忙（429 请求过多），重试 {attempts} 次后仍失败，请稍后再试或降低并发。"
    elif exc.status is not None:
        msg = f"模型服务出错（HTTP {exc.status}），重试 {attempts} 次后仍失败。"
    elif exc.reason == "timeout":
        msg = f"模型服务响应超时，重试 {attempts} 次后仍失败。可在模型设置中调大超时时间。"
    else:
        msg = f"无法连接模型服务（已尝试 {attempts} 次），请检查接口地址和网络。"
    return LLMConnectionError(msg, detail=exc.reason, status=exc.status, attempts=attempts)


def _body_text(exc: openai.APIStatusError) -> str:
    try:
        text = exc.response.text
    except Exception:  # a streamed error response may not be readable any more
        text = ""
    return f"{exc.message} {text}".strip()


def _retry_after(exc: openai.APIStatusError) -> float | None:
    headers = exc.response.headers
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


def _extra_str(obj: Any, name: str) -> str:
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value if isinstance(value, str) else ""


class _CallLog:
    """Bookkeeping of one logical call, written to the journal when it ends."""

    def __init__(self, client: LLMClient, stage: str, messages: Sequence[Message], requested: dict[str, Any] | None,
                 temperature: float | None, max_tokens: int | None, stream: bool) -> None:
        self.client = client
        self.stage = stage
        self.call_id = f"c{next(_call_ids):05d}"
        self.sent_messages = client.prepare_messages(messages)
        self.requested = requested
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.stream = stream
        self.fmt: dict[str, Any] | None = None
        if not client.fits(self.sent_messages, max_tokens):
            log.warning("%s: prompt (~%d tokens) + max_tokens exceed the context size %d; the endpoint may "
                        "answer with nothing", stage, client.estimate_prompt_tokens(self.sent_messages),
                        client.config.context_size)
        self.attempts = 1
        self.retries: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.t0 = time.monotonic()
        self.done = False

    def _entry(self) -> dict[str, Any]:
        params = self.client._params(self.temperature, self.max_tokens)
        return {
            "call_id": self.call_id, "stage": self.stage, "base_url": self.client.config.base_url,
            "model": params["model"],
            "request": {"messages": self.sent_messages, "temperature": params["temperature"],
                        "max_tokens": params["max_tokens"], "response_format": self.fmt, "stream": self.stream,
                        "requested_response_format": self.requested},
            "rejected_formats": self.rejected, "retries": self.retries, "attempts": self.attempts,
        }

    def finish(self, comp: Completion) -> None:
        if self.done:
            return
        self.done = True
        comp.attempts = self.attempts
        comp.latency_s = time.monotonic() - self.t0
        journal = self.client.journal
        if journal is not None:
            journal.record_call({
                **self._entry(), "raw_output": comp.raw_text, "text": comp.text, "reasoning": comp.reasoning,
                "finish_reason": comp.finish_reason, "truncated": comp.truncated, "empty": comp.empty,
                "usage": {"prompt_tokens": comp.usage.prompt_tokens, "completion_tokens": comp.usage.completion_tokens,
                          "estimated": comp.usage.estimated},
                "latency_s": round(comp.latency_s, 4), "error": None,
            })

    def fail(self, exc: BaseException, partial: str = "") -> None:
        if self.done:
            return
        self.done = True
        journal = self.client.journal
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


class CompletionStream:
    """A streaming call. Iterate it for content pieces (think blocks removed).

    When the iterating task is cancelled or the loop is left early, the HTTP response is
    closed at once so the server stops generating. A connection cut before any content
    arrived is retried; a cut after content was delivered raises
    :class:`LLMConnectionError` carrying ``partial_text``.
    """

    def __init__(self, client: LLMClient, messages: Sequence[Message], temperature: float | None,
                 max_tokens: int | None, stage: str, response_format: dict[str, Any] | None) -> None:
        self._client = client
        self._call = _CallLog(client, stage, messages, response_format, temperature, max_tokens, stream=True)
        self._requested = response_format
        self._gen: AsyncGenerator[str, None] | None = None
        self._result: Completion | None = None

    @property
    def result(self) -> Completion:
        """The completed call; only available after iteration ended normally."""
        if self._result is None:
            raise RuntimeError("stream not finished")
        return self._result

    def __aiter__(self) -> CompletionStream:
        return self

    async def __anext__(self) -> str:
        if self._gen is None:
            self._gen = self._run()
        return await self._gen.__anext__()

    async def aclose(self) -> None:
        """Stop the stream and close the HTTP response."""
        if self._gen is not None:
            await self._gen.aclose()

    async def __aenter__(self) -> CompletionStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _run(self) -> AsyncGenerator[str, None]:
        client, call = self._client, self._call
        delivered: list[str] = []
        try:
            for fmt in client._ladder(self._requested):
                call.fmt = fmt
                attempt = 0
                while True:
                    call.attempts = attempt + 1
                    try:
                        async for piece in self._attempt(fmt, delivered):
                            yield piece
                        break
                    except ResponseFormatRejected as exc:
                        client.formats.mark_unsupported(client.config.base_url, client.config.model, fmt)
                        call.rejected.append({"response_format": fmt, "error": exc.detail})
                        break
                    except (_Retryable, _StreamCut) as exc:
                        retry = exc if isinstance(exc, _Retryable) else _Retryable("stream cut: connection closed mid-stream")
                        if delivered:
                            raise LLMConnectionError("模型输出过程中连接中断，已收到部分内容。", detail=retry.reason,
                                                     attempts=attempt + 1, partial_text="".join(delivered)) from exc
                        if attempt >= client.config.max_retries:
                            raise _give_up(retry, attempt + 1) from exc
                        cfg = client.config
                        delay = min(cfg.backoff_max, cfg.backoff_base * 2 ** attempt * (0.5 + random.random()))
                        if retry.retry_after is not None:
                            delay = max(delay, min(retry.retry_after, cfg.retry_after_max))
                        log.warning("%s: stream attempt %d failed (%s); retrying in %.2f s", call.stage, attempt + 1,
                                    retry.reason, delay)
                        call.retries.append({"attempt": attempt + 1, "error": retry.reason, "delay_s": round(delay, 3)})
                        await asyncio.sleep(delay)
                        attempt += 1
                if self._result is not None:
                    call.finish(self._result)
                    return
        except BaseException as exc:
            call.fail(exc, "".join(delivered))
            raise

    async def _attempt(self, fmt: dict[str, Any] | None, delivered: list[str]) -> AsyncIterator[str]:
        client, call = self._client, self._call
        api = client._client()
        kwargs: dict[str, Any] = {**client._params(call.temperature, call.max_tokens), "messages": call.sent_messages,
                                  "stream": True, "stream_options": {"include_usage": True}}
        if fmt is not None:
            kwargs["response_format"] = fmt
        t0 = time.monotonic()
        async with client._sem:
            try:
                ostream = await api.chat.completions.create(**kwargs)
            except openai.APIError as exc:
                raise client._classify(exc, fmt) from exc
            raw: list[str] = []
            extra_reasoning: list[str] = []
            finish: str | None = None
            usage: Usage | None = None
            think = ThinkFilter()
            try:
                async for chunk in ostream:
                    if chunk.usage is not None and (chunk.usage.prompt_tokens or chunk.usage.completion_tokens):
                        usage = Usage(chunk.usage.prompt_tokens or 0, chunk.usage.completion_tokens or 0)
                    for choice in chunk.choices:
                        if choice.finish_reason:
                            finish = choice.finish_reason
                        extra_reasoning.append(_extra_str(choice.delta, "reasoning_content"))
                        piece = choice.delta.content or ""
                        if piece:
                            raw.append(piece)
                            visible = think.feed(piece)
                            if visible:
                                delivered.append(visible)
                                yield visible
            except openai.APIError as exc:
                raise client._classify(exc, fmt) from exc
            except httpx2.TransportError as exc:
                raise _Retryable(f"stream error: {type(exc).__name__}: {exc}") from exc
            finally:
                await ostream.close()
            if finish is None:
                raise _StreamCut()
            tail = think.finish()
            if tail:
                delivered.append(tail)
                yield tail
        self._result = client._completion(call, "".join(raw), "".join(extra_reasoning), finish, usage, fmt,
                                          time.monotonic() - t0)

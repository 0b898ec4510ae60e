"""What every call to one endpoint shares: settings, the HTTP client, the concurrency slot.

:class:`Transport` is the seam between :class:`~app.llm.client.llm_client.LLMClient`,
:class:`~app.llm.client.streaming.CompletionStream` and :class:`~app.llm.client.call_log.CallLog`:
each takes the transport instead of reaching into the client's private members. It also
knows, per endpoint, whether the server has been reached and whether it has since gone
away (connections refused right after a request was in flight): then one quick check
decides, and a dead server is named at once instead of being retried for minutes.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

import openai
from openai import AsyncOpenAI

from app.core.secrets import install_log_scrubber, register_secret, split_url_password
from app.llm.client.bounded_http import bounded_client
from app.llm.client.chunk_parts import mend_text
from app.llm.client.completion import (
    Completion,
    EndpointConfig,
    Message,
    Usage,
    estimate_tokens,
    fold_system_messages,
)
from app.llm.client.endpoint_values import check_endpoint_values
from app.llm.client.errors import LLMConfigError, LLMServerGone
from app.llm.client.model_health import ModelHealth
from app.llm.client.response_format import DEFAULT_REGISTRY, FormatRegistry, ladder
from app.llm.client.retry_policy import classify
from app.llm.json.think_blocks import split_think

if TYPE_CHECKING:
    from app.llm.client.call_progress import CallObserver
    from app.llm.client.journal import CallJournal

log = logging.getLogger("app.llm.client.llm_client")

#: Completion tokens per second assumed for an endpoint whose speed was never measured
#: (a small local model on a busy two-core machine; fast endpoints finish long before).
ASSUMED_TOKENS_PER_S = 3.0
#: Prompt tokens per second assumed for the time to the first token.
ASSUMED_PROMPT_TOKENS_PER_S = 50.0
FIRST_TOKEN_BASE_S = 60.0
IDLE_TIMEOUT_S = 60.0
LIVENESS_CHECK_S = 2.0


@dataclass(frozen=True)
class CallTiming:
    """The three clocks of one call: time to the first token, silence between tokens, total."""

    first_token_s: float
    idle_s: float
    deadline_s: float


def call_timing(config: EndpointConfig, prompt_tokens: int, max_tokens: int) -> CallTiming:
    """Timeouts of a call from its size and the endpoint's measured speed.

    ``config.timeout`` > 0 is the user's deadline per call (it caps the other two);
    0 derives the deadline from ``max_tokens`` at half the measured tokens/s (or
    :data:`ASSUMED_TOKENS_PER_S` when never measured).
    """
    prompt_speed = config.prompt_tokens_per_s or ASSUMED_PROMPT_TOKENS_PER_S
    first = config.first_token_timeout or FIRST_TOKEN_BASE_S + prompt_tokens / prompt_speed
    idle = config.idle_timeout or IDLE_TIMEOUT_S
    if config.timeout > 0:
        deadline = config.timeout
    else:
        speed = config.tokens_per_s * 0.5 if config.tokens_per_s else ASSUMED_TOKENS_PER_S
        deadline = first + max(1, max_tokens) / max(0.5, speed)
    return CallTiming(min(first, deadline), min(idle, deadline), deadline)


def answer_char_cap(max_tokens: int) -> int:
    """Characters a streamed answer may reach before it is cut (servers that ignore max_tokens)."""
    return max(4000, max_tokens * 6)


def ensure_asyncgen_hooks() -> None:
    """Give the running loop async-generator hooks when it has none (qasync's loop has none).

    Without them an HTTP stream closed early leaves httpx's async generators to the
    garbage collector, which closes them outside the loop ("async generator ignored
    GeneratorExit"); with them each one is closed by a task on the loop that ran it.
    """
    if sys.get_asyncgen_hooks().finalizer is not None:
        return
    loop = asyncio.get_running_loop()

    def finalizer(agen: Any) -> None:
        if not loop.is_closed():
            loop.call_soon_threadsafe(_close_agen, loop, agen)

    sys.set_asyncgen_hooks(finalizer=finalizer)


def _close_agen(loop: asyncio.AbstractEventLoop, agen: Any) -> None:
    if not loop.is_closed():
        loop.create_task(agen.aclose())


def _is_refused(exc: BaseException) -> bool:
    cause: BaseException | None = exc
    for _ in range(4):
        if cause is None:
            return False
        if isinstance(cause, ConnectionRefusedError) or "refused" in str(cause).lower():
            return True
        if type(cause).__name__ == "ConnectError":
            return True
        cause = cause.__cause__ or cause.__context__
    return False


class ServerLifecycle(Protocol):
    """A model server this app runs itself (the built-in local model): started before a call."""

    async def ensure_running(self) -> None:
        """Start the server if needed (a dead one restarted within its allowance); raise when it cannot run."""


class Transport:
    """Shared state of one endpoint's calls (see the module docstring)."""

    def __init__(self, config: EndpointConfig, journal: CallJournal | None = None,
                 formats: FormatRegistry | None = None) -> None:
        self.config = config
        self.journal = journal
        self.formats = formats if formats is not None else DEFAULT_REGISTRY
        self.slot = asyncio.Semaphore(max(1, config.concurrency))
        self.reached = False  # some request got an answer (or was cut in flight)
        self.gone = False  # connections were refused after the server had been reached
        self.observer: CallObserver | None = None  # live figures of each call (the status bar)
        self.health = ModelHealth(config.model)  # recent answers: is the model still worth asking
        self.lifecycle: ServerLifecycle | None = None  # set when the app runs the server itself
        self._api: AsyncOpenAI | None = None
        register_secret(config.api_key)
        register_secret(split_url_password(config.base_url)[1])  # http://user:password@host/v1
        install_log_scrubber()
        if journal is not None and config.api_key:
            journal.add_secret(config.api_key)

    # ------------------------------------------------------------------ HTTP client
    def api(self) -> AsyncOpenAI:
        """The openai client (built on first use; raises :class:`LLMConfigError` on bad settings)."""
        cfg = self.config
        if not cfg.api_key or not cfg.api_key.strip():
            raise LLMConfigError.missing_key()
        if not cfg.model.strip():
            raise LLMConfigError.missing_model()
        if not cfg.base_url.startswith(("http://", "https://")):
            raise LLMConfigError.bad_base_url(cfg.base_url)
        check_endpoint_values(cfg.base_url, cfg.api_key)
        if self._api is None:  # our own clocks fire first; this only backs them up
            timeout = cfg.timeout if cfg.timeout > 0 else call_timing(cfg, 8000, max(cfg.max_tokens, 4096)).deadline_s
            self._api = AsyncOpenAI(base_url=cfg.base_url.strip(), api_key=cfg.api_key.strip(), max_retries=0,
                                    timeout=timeout, http_client=bounded_client(timeout, cfg.base_url))
        return self._api

    async def aclose(self) -> None:
        """Close the HTTP client."""
        if self._api is not None:
            await self._api.close()
            self._api = None

    # ------------------------------------------------------------------ requests
    def ladder(self, requested: dict[str, Any] | None) -> list[dict[str, Any] | None]:
        """Response formats to try for ``requested``, best first, as learned for this endpoint."""
        if requested is None:
            return [None]
        return ladder(requested, self.formats.start_level(self.config.base_url, self.config.model))

    def mark_unsupported(self, fmt: dict[str, Any] | None) -> None:
        """Remember that the endpoint refused ``fmt``."""
        self.formats.mark_unsupported(self.config.base_url, self.config.model, fmt)

    def prepare_messages(self, messages: Sequence[Message]) -> list[Message]:
        """The messages as they will be sent (system folded into user when configured)."""
        if self.config.system_in_user:
            return fold_system_messages(messages)
        return [dict(m) for m in messages]

    def params(self, temperature: float | None, max_tokens: int | None) -> dict[str, Any]:
        """Model, temperature and max_tokens of a request (call values over endpoint defaults)."""
        return {
            "model": self.config.model,
            "temperature": self.config.temperature if temperature is None else temperature,
            "max_tokens": self.config.max_tokens if max_tokens is None else max_tokens,
        }

    def timing(self, messages: Sequence[Message], max_tokens: int | None) -> CallTiming:
        """The timeouts of a call with these (prepared) messages."""
        prompt = sum(estimate_tokens(str(m.get("content") or "")) + 4 for m in messages)
        return call_timing(self.config, prompt, self.config.max_tokens if max_tokens is None else max_tokens)

    def classify(self, exc: openai.APIError, fmt: dict[str, Any] | None) -> Exception:
        """An openai error as a retry signal or one of our errors."""
        return classify(exc, fmt, self.config)

    def completion(self, *, call_id: str, attempts: int, messages: Sequence[Message], raw: str,
                   extra_reasoning: str, finish: str | None, usage: Usage | None, fmt: dict[str, Any] | None,
                   latency: float) -> Completion:
        """Build the :class:`Completion` of an answer: think blocks split off, usage estimated if absent."""
        raw, extra_reasoning = mend_text(raw), mend_text(extra_reasoning)  # lone surrogates never leave here
        text, think = split_think(raw)
        reasoning = "\n\n".join(r for r in (extra_reasoning.strip(), think) if r)
        if usage is None:
            prompt = sum(estimate_tokens(str(m.get("content") or "")) + 4 for m in messages)
            usage = Usage(prompt, estimate_tokens(raw) + estimate_tokens(extra_reasoning), estimated=True)
        return Completion(text=text, reasoning=reasoning, finish_reason=finish, truncated=finish == "length",
                          usage=usage, response_format=fmt, latency_s=latency, raw_text=raw, call_id=call_id,
                          attempts=attempts)

    # ------------------------------------------------------------------ liveness
    def answered(self) -> None:
        """A request reached the server (it answered, or was cut while in flight)."""
        self.reached = True
        self.gone = False

    async def check_gone(self, exc: BaseException) -> None:
        """After a refused connection: raise :class:`LLMServerGone` when the server that was
        reached before no longer listens (one quick check, no more retries)."""
        if not _is_refused(exc):
            if isinstance(exc, Exception) and "timeout" not in str(exc):
                self.reached = True  # the request got through and was cut in flight
            return
        if not (self.reached or self.gone):
            return
        if await self._listening():
            return
        self.gone = True
        raise LLMServerGone.for_endpoint(self.config.base_url, str(exc.__cause__ or exc)[:200])

    async def ensure_alive(self) -> None:
        """Before a call: a server the app runs is started (or restarted once); an endpoint known to be
        gone gets one check, and the call fails at once if it is still gone."""
        if self.lifecycle is not None:
            await self.lifecycle.ensure_running()
            self.gone = False
            return
        if not self.gone:
            return
        if await self._listening():
            self.gone = False
            return
        raise LLMServerGone.for_endpoint(self.config.base_url, "connection refused")

    async def _listening(self) -> bool:
        parts = urlsplit(self.config.base_url)
        host = parts.hostname or "127.0.0.1"
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            _reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), LIVENESS_CHECK_S)
        except (OSError, asyncio.TimeoutError):
            return False
        writer.close()
        try:
            await writer.wait_closed()
        except OSError:
            pass
        return True

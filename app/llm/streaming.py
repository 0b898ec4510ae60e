"""Streaming calls: content pieces as they arrive, prompt cancellation, bounded retries.

Cancelling the task that iterates a :class:`CompletionStream` (or leaving the loop and
closing it) closes the HTTP response at once, so the server sees the disconnect and
stops generating.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

import httpx2
import openai

from app.llm.call_log import CallLog
from app.llm.completion import Completion, Message, Usage, extra_str
from app.llm.errors import LLMConnectionError, ResponseFormatRejected
from app.llm.retry_policy import Retryable, StreamCut, backoff_delay, classify, give_up
from app.llm.think_blocks import ThinkFilter

if TYPE_CHECKING:
    from app.llm.client import LLMClient

log = logging.getLogger("app.llm.client")


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
        self._call = CallLog(client, stage, messages, response_format, temperature, max_tokens, stream=True)
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
                    except (Retryable, StreamCut) as exc:
                        retry = exc if isinstance(exc, Retryable) else Retryable("stream cut: connection closed mid-stream")
                        if delivered:
                            raise LLMConnectionError("模型输出过程中连接中断，已收到部分内容。", detail=retry.reason,
                                                     attempts=attempt + 1, partial_text="".join(delivered)) from exc
                        if attempt >= client.config.max_retries:
                            raise give_up(retry, attempt + 1) from exc
                        delay = backoff_delay(client.config, attempt, retry.retry_after)
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
                raise classify(exc, fmt, client.config) from exc
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
                        extra_reasoning.append(extra_str(choice.delta, "reasoning_content"))
                        piece = choice.delta.content or ""
                        if piece:
                            raw.append(piece)
                            visible = think.feed(piece)
                            if visible:
                                delivered.append(visible)
                                yield visible
            except openai.APIError as exc:
                raise classify(exc, fmt, client.config) from exc
            except httpx2.TransportError as exc:
                raise Retryable(f"stream error: {type(exc).__name__}: {exc}") from exc
            finally:
                await ostream.close()
            if finish is None:
                raise StreamCut()
            tail = think.finish()
            if tail:
                delivered.append(tail)
                yield tail
        self._result = client._completion(call, "".join(raw), "".join(extra_reasoning), finish, usage, fmt,
                                          time.monotonic() - t0)

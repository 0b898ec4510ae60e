"""Streaming calls: content pieces as they arrive, bounded in time and size, cancellable.

The HTTP stream is read by a producer task that owns every resource of the call (the
concurrency slot, the response); the consumer iterates pieces from a queue. So there is no
async generator to be left unclosed: cancelling the consuming task, leaving the loop and
calling :meth:`CompletionStream.aclose`, or dropping the stream altogether all cancel the
producer, which closes the response at once (the server sees the disconnect) and frees
the slot, so the next call can start immediately.

Every attempt has three clocks (:func:`~app.llm.client.transport.call_timing`): the first token,
silence between tokens, and a total deadline. The answer is capped in characters, stopped
when it loops (:class:`~app.llm.json.repetition.RepetitionDetector`) and when the run's token
allowance (:mod:`app.llm.client.call_limits`) is used up.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import httpx2
import openai

from app.llm.client.call_limits import past_run_deadline, tokens_allowed
from app.llm.client.call_log import CallLog
from app.llm.client.chunk_parts import SurrogateMender, chunk_parts
from app.llm.client.completion import Completion, Message, Usage, estimate_tokens
from app.llm.client.errors import (
    AnswerTooLarge,
    CallTimedOut,
    DegenerateOutput,
    LLMConnectionError,
    LLMError,
    MalformedEvent,
    ResponseFormatRejected,
    WrongShapeAnswer,
)
from app.llm.client.retry_policy import Retryable, StreamCut, backoff_delay, give_up
from app.llm.client.transport import CallTiming, answer_char_cap, ensure_asyncgen_hooks
from app.llm.json.repetition import RepetitionDetector
from app.llm.json.think_blocks import ThinkFilter

if TYPE_CHECKING:
    from app.llm.client.transport import Transport

log = logging.getLogger("app.llm.client.llm_client")

_END = object()


class CompletionStream:
    """A streaming call. Iterate it for content pieces (think blocks removed), then read ``result``.

    A connection cut before any content arrived is retried; a cut after content was
    delivered raises :class:`LLMConnectionError` carrying ``partial_text``. A loop or an
    answer past its size cap raises :class:`DegenerateOutput`; a call past its deadline
    :class:`CallTimedOut`.
    """

    def __init__(self, transport: Transport, messages: Sequence[Message], temperature: float | None,
                 max_tokens: int | None, stage: str, response_format: dict[str, Any] | None, *,
                 whole: bool = False) -> None:
        self._transport = transport
        self._call = CallLog(transport, stage, messages, response_format, temperature, max_tokens, stream=True)
        self._whole = whole  # the caller wants the whole answer: a cut mid-answer is retried from scratch
        self._requested = response_format
        self._queue: asyncio.Queue[object] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._result: Completion | None = None
        self._finished = False
        self._delivered: list[str] = []
        self.delivered_chars = 0

    @property
    def result(self) -> Completion:
        """The completed call; only available after iteration ended normally."""
        if self._result is None:
            raise RuntimeError("stream not finished")
        return self._result

    @property
    def call_id(self) -> str:
        """The journal id of this call."""
        return self._call.call_id

    def __aiter__(self) -> CompletionStream:
        return self

    async def __anext__(self) -> str:
        if self._finished:
            raise StopAsyncIteration
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._produce(), name=f"stream:{self._call.stage}")
        try:
            item = await self._queue.get()
        except BaseException:  # the consumer was cancelled: stop the call now
            self._stop()
            raise
        if item is _END:
            self._finished = True
            raise StopAsyncIteration
        if isinstance(item, BaseException):
            self._finished = True
            raise item
        assert isinstance(item, str)
        return item

    async def aclose(self) -> None:
        """Stop the stream, close the HTTP response and free the slot (waits for the producer)."""
        self._finished = True
        task = self._task
        if task is None:
            if not self._call.done:
                self._call.fail(asyncio.CancelledError())
            return
        if not task.done():
            task.cancel()
            await asyncio.wait([task])

    async def __aenter__(self) -> CompletionStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _stop(self) -> None:
        self._finished = True
        if self._task is not None and not self._task.done():
            self._call.fail(asyncio.CancelledError(), "".join(self._delivered))  # journalled now, not later
            self._task.cancel()

    # ------------------------------------------------------------------ producer
    async def _produce(self) -> None:
        transport, call = self._transport, self._call
        delivered = self._delivered
        ensure_asyncgen_hooks()
        try:
            if call.refused is not None:
                raise call.refused
            await transport.ensure_alive()
            for fmt in transport.ladder(self._requested):
                call.fmt = fmt
                attempt = 0
                while True:
                    call.attempts = attempt + 1
                    try:
                        await self._attempt(fmt, delivered)
                        break
                    except CallTimedOut as exc:
                        exc.partial_text = "".join(delivered)
                        exc.attempts = attempt + 1
                        raise
                    except ResponseFormatRejected as exc:
                        transport.mark_unsupported(fmt)
                        call.rejected.append({"response_format": fmt, "error": exc.detail})
                        break
                    except MalformedEvent as exc:
                        if delivered and self._whole:
                            delivered.clear()
                        if delivered or attempt >= transport.config.max_retries:
                            raise MalformedEvent(f"{exc.message_zh}（已尝试 {attempt + 1} 次），请检查模型服务",
                                                 detail=exc.detail) from exc
                        delay = backoff_delay(transport.config, attempt, None)
                        log.warning("%s: malformed stream event (%s); retrying in %.2f s", call.stage, exc.detail, delay)
                        call.retries.append({"attempt": attempt + 1, "error": exc.detail, "delay_s": round(delay, 3)})
                        await asyncio.sleep(delay)
                        attempt += 1
                    except (Retryable, StreamCut) as exc:
                        retry = exc if isinstance(exc, Retryable) else Retryable("stream cut: connection closed mid-stream")
                        if delivered and self._whole:
                            delivered.clear()  # nobody saw the pieces: ask again
                        if delivered:
                            raise LLMConnectionError("模型输出过程中连接中断，已收到部分内容。", detail=retry.reason,
                                                     attempts=attempt + 1, partial_text="".join(delivered)) from exc
                        await transport.check_gone(exc)
                        if attempt >= transport.config.max_retries:
                            raise give_up(retry, attempt + 1) from exc
                        delay = backoff_delay(transport.config, attempt, retry.retry_after)
                        log.warning("%s: stream attempt %d failed (%s); retrying in %.2f s", call.stage, attempt + 1,
                                    retry.reason, delay)
                        call.retries.append({"attempt": attempt + 1, "error": retry.reason, "delay_s": round(delay, 3)})
                        await asyncio.sleep(delay)
                        attempt += 1
                if self._result is not None:
                    call.finish(self._result)
                    self._queue.put_nowait(_END)
                    return
            raise LLMConnectionError("模型服务拒绝了所有结构化输出格式。")  # unreachable: "none" is never rejected
        except asyncio.CancelledError as exc:
            call.fail(exc, "".join(delivered))
            raise
        except LLMError as exc:
            call.fail(exc, "".join(delivered))
            self._queue.put_nowait(exc)
        except Exception as exc:  # never leave an error inside the task: hand it to the consumer
            call.fail(exc, "".join(delivered))
            self._queue.put_nowait(exc)

    async def _attempt(self, fmt: dict[str, Any] | None, delivered: list[str]) -> None:
        transport, call = self._transport, self._call
        if past_run_deadline():  # a retry or a next attempt after the run's time is up: no request at all
            raise DegenerateOutput("本次运行的时间已到上限，已停止当前调用", partial_text="")
        api = transport.api()
        params = transport.params(call.temperature, call.max_tokens)
        kwargs: dict[str, Any] = {**params, "messages": call.sent_messages,
                                  "stream": True, "stream_options": {"include_usage": True}}
        if fmt is not None:
            kwargs["response_format"] = fmt
        timing = transport.timing(call.sent_messages, params["max_tokens"])
        cap = answer_char_cap(int(params["max_tokens"]))
        t0 = time.monotonic()
        async with transport.slot:
            try:
                ostream = await _within(api.chat.completions.create(**kwargs), timing.first_token_s, "first")
            except openai.APIError as exc:
                if isinstance(exc, openai.APIStatusError):
                    transport.answered()
                raise transport.classify(exc, fmt) from exc
            transport.answered()
            content_type = await _refuse_non_stream(ostream)
            events = 0
            raw: list[str] = []
            extra_reasoning: list[str] = []
            finish: str | None = None
            usage: Usage | None = None
            think = ThinkFilter()
            mend, mend_reasoning = SurrogateMender(), SurrogateMender()
            loop = RepetitionDetector()
            chars = tokens = 0
            chunks = ostream.__aiter__()
            try:
                while True:
                    clock = timing.idle_s if raw or extra_reasoning else timing.first_token_s
                    wait = min(clock, timing.deadline_s - (time.monotonic() - t0))
                    try:
                        chunk = await _within(chunks.__anext__(), wait,
                                              "deadline" if wait < clock else ("idle" if raw else "first"),
                                              timing.deadline_s)
                    except StopAsyncIteration:
                        break
                    if self._finished:  # stopped by the consumer (a cancel that wait_for swallowed included)
                        raise asyncio.CancelledError()
                    events += 1
                    parts = chunk_parts(chunk)
                    if parts.usage is not None:
                        usage = parts.usage
                    for chunk_finish, reasoning, piece in parts.choices:
                        if chunk_finish:
                            finish = chunk_finish
                        reasoning = mend_reasoning.feed(reasoning)
                        if reasoning:
                            extra_reasoning.append(reasoning)
                            chars += len(reasoning)
                        piece = mend.feed(piece)
                        if not piece:
                            continue
                        raw.append(piece)
                        chars += len(piece)
                        tokens += estimate_tokens(piece)
                        call.progress(tokens)
                        if loop.feed(piece):
                            raise DegenerateOutput(f"模型输出陷入重复，已停止本次调用：{loop.reason}",
                                                   partial_text="".join(raw))
                        visible = think.feed(piece)
                        if visible:
                            delivered.append(visible)
                            self.delivered_chars += len(visible)
                            self._queue.put_nowait(visible)
                    if chars > cap:
                        raise DegenerateOutput(f"模型输出超过了本次调用的长度上限（{cap} 字），已停止",
                                               partial_text="".join(raw))
                    allowed = tokens_allowed()
                    if allowed is not None and tokens > allowed:
                        raise DegenerateOutput("本次运行的令牌预算已用尽，已停止当前调用", partial_text="".join(raw))
                    if past_run_deadline():
                        raise DegenerateOutput("本次运行的时间已到上限，已停止当前调用", partial_text="".join(raw))
            except openai.APIError as exc:
                raise transport.classify(exc, fmt) from exc
            except httpx2.TransportError as exc:
                raise Retryable(f"stream error: {type(exc).__name__}: {exc}") from exc
            except ValueError as exc:  # an event that is not JSON, or not UTF-8
                raise MalformedEvent("模型服务发送了无法解析的流式数据", detail=f"{type(exc).__name__}: {exc}"[:200]) from exc
            except AnswerTooLarge as exc:
                if not events and "json" in content_type:  # one huge JSON document instead of a stream
                    raise wrong_shape(content_type, exc.message_zh) from exc
                raise
            finally:
                await _close_quietly(ostream, chunks)
            if not events and "json" in content_type:  # a whole JSON answer: the SSE reader found no event in it
                raise wrong_shape(content_type, "")
            if finish is None:
                raise StreamCut()
            rest = mend.finish()
            if rest:
                raw.append(rest)
                visible = think.feed(rest)
                if visible:
                    delivered.append(visible)
                    self._queue.put_nowait(visible)
            extra_reasoning.append(mend_reasoning.finish())
            tail = think.finish()
            if tail:
                delivered.append(tail)
                self._queue.put_nowait(tail)
        self._result = transport.completion(call_id=call.call_id, attempts=call.attempts, messages=call.sent_messages,
                                            raw="".join(raw), extra_reasoning="".join(extra_reasoning), finish=finish,
                                            usage=usage, fmt=fmt, latency=time.monotonic() - t0)
        if self._result.empty:
            log.warning("%s: endpoint returned an empty answer (finish_reason=%s)", call.stage, finish)


async def _refuse_non_stream(ostream: Any) -> str:
    """A 200 that is not an event stream (a proxy's login page, a wrong address) is an error.

    Returns the content type; a JSON one is let through (some servers label their event stream
    so) and judged by what arrives: no event at all means plain JSON (:func:`wrong_shape`).
    """
    response = getattr(ostream, "response", None)
    kind = str(getattr(response, "headers", {}).get("content-type", "")).lower() if response is not None else ""
    if not kind or "event-stream" in kind or "json" in kind:
        return kind
    try:
        body = (await response.aread())[:4096].decode("utf-8", "replace")  # type: ignore[union-attr]
    except Exception:  # the body is only for the message (a cap crossed included)
        body = kind
    await _close_quietly(ostream, None)
    raise wrong_shape(kind, body)


def wrong_shape(kind: str, body: str) -> WrongShapeAnswer:
    """The error for a 200 answer that is not an OpenAI stream: says what came instead."""
    head = body.lstrip()[:200].lower()
    if "html" in kind or head.startswith(("<!doctype", "<html", "<")):
        return WrongShapeAnswer("模型服务地址返回了一个网页（可能是登录页、代理或网关页面），不是 OpenAI 接口的应答；"
                                "请检查接口地址（通常以 /v1 结尾）和网络代理。", kind="html", detail=body[:200])
    if "json" in kind or head.startswith(("{", "[")):
        return WrongShapeAnswer("模型服务应答了，但不是 OpenAI 流式格式（返回了普通 JSON 而不是事件流）；"
                                "请检查接口地址，或确认该服务支持流式输出。", kind="json", detail=body[:200])
    return WrongShapeAnswer(f"模型服务返回的不是 OpenAI 格式的响应（{kind or '未知类型'}），请检查接口地址（通常以 /v1 结尾）。",
                            kind="other", detail=body[:200])


async def _within(awaitable: Any, seconds: float, clock: str, total: float = 0.0) -> Any:
    """Await with a timeout; expiry becomes a retry signal (first token, idle) or a deadline error."""
    try:
        return await asyncio.wait_for(awaitable, max(0.01, seconds))
    except asyncio.TimeoutError as exc:
        if clock == "deadline":
            raise CallTimedOut(f"模型调用超过了总时限（{total or seconds:.0f} 秒内未完成），已停止。"
                               "可在模型设置中调大超时，或用“测试连接”重新测速。", detail="timeout") from exc
        raise Retryable(f"timeout: {seconds:.1f} s without {'a first token' if clock == 'first' else 'output'}") from exc


async def _close_quietly(ostream: Any, chunks: Any) -> None:
    """Close the response and the chunk iterator now, inside the loop.

    An iterator left suspended would be finalized later by the garbage collector, possibly
    outside any event loop ("async generator ignored GeneratorExit").
    """
    for closer in (ostream.close, getattr(chunks, "aclose", None)):
        if closer is None:
            continue
        try:
            await closer()
        except Exception:  # closing must never mask the real outcome
            pass


__all__ = ["CallTiming", "CompletionStream"]

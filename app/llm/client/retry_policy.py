"""When to retry a model call, how long to wait, and what to tell the user when we stop.

Transient failures (408, 409, 429, 5xx, network errors, timeouts, streams cut before any
content) are retried with exponential backoff and jitter, honouring the server's
``Retry-After`` up to a cap; 401/403/404 become configuration errors; a refused response
format becomes a signal for the ladder. Everything else is a response error.
"""

from __future__ import annotations

import email.utils
import random
import time
from typing import Any

import httpx2
import openai

from app.llm.client.completion import EndpointConfig
from app.llm.client.errors import (
    LLMConfigError,
    LLMConnectionError,
    LLMError,
    LLMResponseError,
    ResponseFormatRejected,
)
from app.llm.client.response_format import is_format_rejection, mentions_format

RETRY_STATUS = frozenset({408, 409, 429})


class Retryable(Exception):
    """An attempt failed in a way worth retrying."""

    def __init__(self, reason: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retry_after = retry_after


class StreamCut(Exception):
    """A stream ended without a finish reason (connection dropped)."""


def backoff_delay(config: EndpointConfig, attempt: int, retry_after: float | None) -> float:
    """Delay before retry number ``attempt + 1``: base * 2**attempt * jitter, capped; Retry-After wins."""
    delay = min(config.backoff_max, config.backoff_base * 2.0 ** attempt * (0.5 + random.random()))
    if retry_after is not None:
        delay = max(delay, min(retry_after, config.retry_after_max))
    return delay


def classify(exc: openai.APIError, fmt: dict[str, Any] | None, config: EndpointConfig) -> Exception:
    """Map an openai exception to a retry signal or one of our errors."""
    if isinstance(exc, openai.APITimeoutError):
        if _failed_to_connect(exc):
            return Retryable(f"connect timeout: {exc.__cause__ or exc}")
        return Retryable("timeout: the server accepted the request but answered too slowly")
    if isinstance(exc, openai.APIConnectionError):
        cause = own_error_in(exc)
        if cause is not None:  # a byte cap crossed while the body was read: the same answer would follow
            return cause
        if not _failed_to_connect(exc):  # connected, then the answer broke off (or never came in whole)
            return Retryable(f"answer cut: {exc.__cause__ or exc}")
        return Retryable(f"connection error: {exc.__cause__ or exc}")
    if not isinstance(exc, openai.APIStatusError):
        return LLMResponseError("模型服务返回了无法识别的响应。", detail=str(exc)[:300])
    status = exc.status_code
    body = body_text(exc)
    detail = body[:300]
    if status in (401, 403):
        return LLMConfigError.unauthorized(status, detail)
    if is_format_rejection(status, body, fmt):
        return ResponseFormatRejected("模型服务不支持该结构化输出格式。", detail=detail, status=status)
    if status == 404:
        if "model" in body.lower():
            return LLMConfigError.unknown_model(config.model, detail)
        return LLMConfigError.not_found(config.base_url, detail)
    if status in RETRY_STATUS or status >= 500:
        return Retryable(f"HTTP {status}", status, retry_after_of(exc))
    if status == 400 and mentions_format(body):
        return LLMResponseError("模型服务不支持结构化输出。", detail=detail, status=status)
    return LLMResponseError(f"模型服务拒绝了请求（HTTP {status}）：{detail or '无详细信息'}", detail=detail,
                            status=status)


def give_up(exc: Retryable, attempts: int) -> LLMConnectionError:
    """The error to raise when retries are exhausted, with a message fitting the cause."""
    if exc.status == 429:
        msg = f"模型服务繁忙（429 请求过多），重试 {attempts} 次后仍失败，请稍后再试或降低并发。"
    elif exc.status is not None:
        msg = f"模型服务出错（HTTP {exc.status}），重试 {attempts} 次后仍失败。"
    elif exc.reason.startswith("timeout"):
        msg = (f"模型服务应答太慢：已连接上，但没有在时限内答完（已尝试 {attempts} 次）。"
               "服务可能过载；可稍后再试，或在模型设置中调大超时时间。")
    elif exc.reason.startswith("answer cut"):
        msg = f"模型服务已连接上，但应答中途断开或无法读取（已尝试 {attempts} 次），请稍后再试或查看服务端日志。"
    elif exc.reason.startswith("connect timeout"):
        msg = f"无法连接模型服务：连接超时（已尝试 {attempts} 次），请检查接口地址和网络。"
    else:
        msg = f"无法连接模型服务（已尝试 {attempts} 次），请检查接口地址和网络。"
    connected = exc.status is not None or exc.reason.startswith(("timeout", "answer cut"))
    return LLMConnectionError(msg, detail=exc.reason, status=exc.status, attempts=attempts, answered=connected)


def _failed_to_connect(exc: BaseException) -> bool:
    """Whether the HTTP layer under ``exc`` never got a connection (refused, unknown host, connect timeout)."""
    cause: BaseException | None = exc.__cause__ or exc.__context__
    for _ in range(6):
        if cause is None:
            return True  # nothing more known: assume the worst, as before
        if isinstance(cause, (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.UnsupportedProtocol)):
            return True
        if isinstance(cause, (httpx2.ReadTimeout, httpx2.ReadError, httpx2.RemoteProtocolError,
                              httpx2.WriteTimeout, httpx2.WriteError, httpx2.PoolTimeout)):
            return False
        cause = cause.__cause__ or cause.__context__
    return True


def body_text(exc: openai.APIStatusError) -> str:
    """The error message plus the raw response body (llama.cpp puts the reason there)."""
    try:
        text = exc.response.text
    except Exception:  # a streamed error response may not be readable any more
        text = ""
    return f"{exc.message} {text}".strip()


def retry_after_of(exc: openai.APIStatusError) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``Retry-After``), if any."""
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
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, parsed.timestamp() - time.time())


def own_error_in(exc: BaseException) -> LLMError | None:
    """One of our errors raised under the HTTP layer (a byte cap) that openai wrapped, if any."""
    cause: BaseException | None = exc.__cause__ or exc.__context__
    for _ in range(6):
        if cause is None:
            return None
        if isinstance(cause, LLMError):
            return cause
        cause = cause.__cause__ or cause.__context__
    return None

"""The HTTP layer under the openai client, with byte caps on every answer.

The openai client reads a server-sent-event stream line by line and a plain answer whole,
with no limit: a stream that never sends a newline, or a small gzip answer that inflates
to gigabytes, fills the memory. :class:`BoundedTransport` wraps the real transport and
counts the bytes of every response as they arrive — compressed on the wire, inflated
after decoding (done here, in bounded pieces), and since the last line break — and raises
:class:`~app.llm.client.errors.AnswerTooLarge` at the first cap crossed.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx2

from app.llm.client.errors import AnswerTooLarge

#: Inflated bytes handed on per decompression step (a bomb never inflates more at once).
DECODE_STEP = 1 << 20


@dataclass(frozen=True)
class ByteCaps:
    """Byte limits of one HTTP answer."""

    #: Bytes between two line breaks (an SSE event, or a whole non-streamed JSON answer).
    line: int = 16 << 20
    #: Bytes of the whole answer after decoding.
    body: int = 64 << 20
    #: Bytes of the whole answer as received (compressed).
    wire: int = 64 << 20


DEFAULT_CAPS = ByteCaps()


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g} MB"


class CappedBody(httpx2.AsyncByteStream):
    """A response body that decodes gzip/deflate itself and enforces :class:`ByteCaps`."""

    def __init__(self, inner: httpx2.AsyncByteStream, coding: str, caps: ByteCaps) -> None:
        self._inner = inner
        self._caps = caps
        self._wire = 0
        self._body = 0
        self._line = 0
        if coding == "gzip":
            self._inflate: zlib._Decompress | None = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif coding == "deflate":
            self._inflate = zlib.decompressobj()
        else:
            self._inflate = None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        inflate = self._inflate
        async for raw in self._inner:
            self._wire += len(raw)
            if self._wire > self._caps.wire:
                raise AnswerTooLarge(f"模型服务的应答超过了 {_mib(self._caps.wire)}，已停止读取")
            if inflate is None:
                yield self._count(raw)
                continue
            try:
                data = inflate.decompress(raw, DECODE_STEP)
                while data:
                    yield self._count(data)
                    data = inflate.decompress(inflate.unconsumed_tail, DECODE_STEP) if inflate.unconsumed_tail else b""
            except zlib.error as exc:
                raise AnswerTooLarge("模型服务的压缩应答无法解压，已停止读取", detail=str(exc)) from exc
        if inflate is not None:
            tail = inflate.flush()
            if tail:
                yield self._count(tail)

    def _count(self, data: bytes) -> bytes:
        self._body += len(data)
        if self._body > self._caps.body:
            raise AnswerTooLarge(f"模型服务的应答（解压后）超过了 {_mib(self._caps.body)}，已停止读取")
        cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
        self._line = self._line + len(data) if cut < 0 else len(data) - cut - 1
        if self._line > self._caps.line:
            raise AnswerTooLarge(f"模型服务的应答中有一行超过了 {_mib(self._caps.line)}（没有换行），已停止读取")
        return data

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    """The default HTTP transport with :class:`ByteCaps` on every response body."""

    def __init__(self, caps: ByteCaps, inner: httpx2.AsyncBaseTransport) -> None:
        self._caps = caps
        self._inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` (offering only the encodings decoded here) and cap the answer."""
        request.headers["Accept-Encoding"] = "gzip, deflate"
        response = await self._inner.handle_async_request(request)
        codings = [c.strip().lower() for c in response.headers.get("content-encoding", "").split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        if len(codings) > 1 or (codings and codings[0] not in ("gzip", "deflate")):
            await response.aclose()
            raise AnswerTooLarge("模型服务使用了不支持的压缩方式，已停止读取",
                                 detail=response.headers.get("content-encoding", ""))
        headers = [(k, v) for k, v in response.headers.raw if k.lower() not in (b"content-encoding", b"content-length")]
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return httpx2.Response(status_code=response.status_code, headers=headers,
                               stream=CappedBody(response.stream, codings[0] if codings else "", self._caps),
                               extensions=response.extensions)

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedClient(httpx2.AsyncClient):
    """An HTTP client whose every transport (direct and through an environment proxy) is capped."""

    caps: ByteCaps = DEFAULT_CAPS

    def _init_transport(self, *args: Any, **kwargs: Any) -> httpx2.AsyncBaseTransport:
        return BoundedTransport(self.caps, super()._init_transport(*args, **kwargs))

    def _init_proxy_transport(self, *args: Any, **kwargs: Any) -> httpx2.AsyncBaseTransport:
        return BoundedTransport(self.caps, super()._init_proxy_transport(*args, **kwargs))


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` names this machine itself (``localhost``, 127.0.0.0/8, ``::1``)."""
    import ipaddress

    try:
        host = (httpx2.URL(url.strip()).host or "").strip("[]").lower()
    except (httpx2.InvalidURL, TypeError, ValueError):
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bounded_client(timeout: float, base_url: str = "") -> httpx2.AsyncClient:
    """An HTTP client for :class:`openai.AsyncOpenAI` whose answers are capped (openai's defaults otherwise).

    A server on this machine (``base_url`` on loopback: the built-in model, a local llama.cpp or
    Ollama) is reached directly, never through a proxy from the environment (``HTTP_PROXY``, the
    system's settings): a proxy's own 127.0.0.1 is not this machine, and an office proxy that
    refuses loopback would cut the user off from a model running beside the app.
    """
    return BoundedClient(timeout=timeout, follow_redirects=True, trust_env=not is_loopback_url(base_url),
                         limits=httpx2.Limits(max_connections=100, max_keepalive_connections=20))

"""A real local HTTP server speaking the OpenAI chat-completions protocol, for tests.

It listens on a loopback socket; the real ``openai`` client talks to it. Each test scripts
what the "model" does with :class:`Reply` objects (text, streamed or not, HTTP errors,
dropped connections, slow answers, truncation) and afterwards inspects the requests the
server received. It also plays three llama.cpp behaviours: rejecting ``json_schema``
response formats (as HTTP 400, or as llama-cpp-python's HTTP 500 pydantic error),
counting overlapping requests so concurrency limits can be checked, and dying on a schema
whose grammar is too large (:func:`grammar_overflow`): the connection is dropped without
an answer and the server stops listening, so every later request is refused. Hostile or
broken servers are played too: SSE payloads sent verbatim (``Reply.events``: truncated JSON,
split surrogate pairs), a raw body of any type and encoding (``Reply.raw``: a login page,
plain JSON, a gzip bomb) and a body that never ends (``Reply.endless``).

Usage::

    with OpenAIServer() as server:
        server.push(Reply.text('{"a": 1}'))
        client = AsyncOpenAI(base_url=server.base_url, api_key="k")
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LLAMA_CPP_500_BODY = {
    "error": {
        "code": 500,
        "message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
        "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
        "'ctx': {'expected': \"'text' or 'json_object'\"}}]",
        "type": "internal_server_error",
    }
}


#: llama.cpp's MAX_REPETITION_THRESHOLD: rules one repetition may generate.
LLAMA_REPETITION_THRESHOLD = 2000
#: Total grammar rules this server accepts (a small machine's engine chokes well before).
GRAMMAR_RULE_LIMIT = 3000


def grammar_overflow(schema: Any, rule_limit: int = GRAMMAR_RULE_LIMIT) -> str | None:
    """Why llama.cpp's grammar parser would refuse ``schema`` (and the server die), or None.

    Written independently of the app's own estimate: llama-cpp-python turns a bounded
    string or array into nested optional groups, ``(x (x (x)?)?)?``; the parser counts the
    rules inside each group and fails once a repetition would repeat more than
    ``LLAMA_REPETITION_THRESHOLD`` of them.
    """
    defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}
    done: set[str] = set()
    total = 0
    worst = 0

    def nested(low: Any, high: Any) -> None:
        nonlocal total, worst
        if high is None:
            total += 1
            return
        depth = max(0, int(high) - int(low or 0))
        worst = max(worst, 2 * depth - 1)
        total += 2 * depth

    def walk(node: Any) -> None:
        nonlocal total
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        total += 1
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.split("/")[-1]
            if name not in done:
                done.add(name)
                walk(defs.get(name))
            return
        if node.get("type") == "string" and ("maxLength" in node or "minLength" in node):
            nested(node.get("minLength"), node.get("maxLength"))
        if node.get("type") == "array" or "items" in node:
            nested(node.get("minItems"), node.get("maxItems"))
        for key in ("items", "anyOf", "oneOf", "allOf"):
            if key in node:
                walk(node[key])
        for sub in (node.get("properties") or {}).values():
            walk(sub)

    walk(schema)
    if worst > LLAMA_REPETITION_THRESHOLD:
        return ("parse: error parsing grammar: number of rules that are going to be repeated multiplied by "
                "the new repetition exceeds sane defaults")
    if total > rule_limit:
        return f"failed to parse grammar: {total} rules"
    return None


def schema_in(response_format: Any) -> Any:
    """The schema a ``response_format`` carries (json_schema or llama.cpp's json_object + schema)."""
    if not isinstance(response_format, dict):
        return None
    if response_format.get("type") == "json_schema":
        return (response_format.get("json_schema") or {}).get("schema")
    return response_format.get("schema")


@dataclass
class Reply:
    """One scripted answer of the fake model."""

    content: str = ""
    finish_reason: str = "stop"
    status: int = 200
    body: Any = None  # JSON body for error replies
    headers: dict[str, str] = field(default_factory=dict)
    chunk_size: int = 7  # characters per SSE chunk when streaming
    delay: float = 0.0  # seconds before answering
    chunk_delay: float = 0.0  # seconds between SSE chunks
    drop_after: int | None = None  # close the socket after this many characters (streaming)
    usage: dict[str, int] | bool | None = True  # True: computed; None/False: no usage reported
    reasoning: str = ""  # sent as reasoning_content deltas before the content
    #: Hostile or broken servers: SSE ``data:`` payloads sent verbatim (then ``[DONE]``), instead of content.
    events: list[str] | None = None
    #: A raw 200 body sent verbatim whatever was asked (a web page, plain JSON, gzip bytes…).
    raw_body: bytes | None = None
    content_type: str = "text/event-stream"
    content_encoding: str = ""
    #: Bytes repeated after ``raw_body`` until the client hangs up (or ``endless_limit`` bytes were sent).
    endless: bytes | None = None
    endless_limit: int = 4 << 30

    @classmethod
    def raw(cls, body: bytes, content_type: str, **kw: Any) -> Reply:
        """A 200 answer with exactly this body (for streaming and plain requests alike)."""
        return cls(raw_body=body, content_type=content_type, **kw)

    @classmethod
    def text(cls, content: str, **kw: Any) -> Reply:
        """A normal answer (works for streaming and non-streaming requests)."""
        return cls(content=content, **kw)

    @classmethod
    def error(cls, status: int, message: str = "error", **kw: Any) -> Reply:
        """An HTTP error with an OpenAI-style error body."""
        body = kw.pop("body", None) or {"error": {"message": message, "type": "error", "code": status}}
        return cls(status=status, body=body, **kw)

    @classmethod
    def truncated(cls, content: str, **kw: Any) -> Reply:
        """An answer cut by the token limit (``finish_reason == "length"``)."""
        return cls(content=content, finish_reason="length", **kw)

    @classmethod
    def dropped(cls, content: str, after: int, **kw: Any) -> Reply:
        """A stream whose connection is closed after ``after`` characters."""
        return cls(content=content, drop_after=after, **kw)


@dataclass
class RecordedRequest:
    """What the server received, and when."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    started: float
    finished: float = 0.0
    disconnected: bool = False
    #: Streamed content: (characters sent so far, ``time.perf_counter()`` after the flush) per chunk.
    sent: list[tuple[int, float]] = field(default_factory=list)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages of a completion request."""
        return list(self.body.get("messages", [])) if isinstance(self.body, dict) else []

    @property
    def prompt_text(self) -> str:
        """All message contents joined, for asserting on prompts."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)


Handler = Callable[[RecordedRequest], Reply]


class OpenAIServer:
    """The scripted server; a context manager that starts and stops its thread."""

    def __init__(self, models: list[str] | None = None, port: int = 0) -> None:
        self.models = models or ["test-model"]
        self.requests: list[RecordedRequest] = []
        self.script: deque[Reply] = deque()
        self.handler: Handler | None = None
        self.default: Reply | None = None
        self.reject_json_schema: str | None = None  # None, "400" or "500"
        self.require_key: str | None = None  # when set, other keys get 401
        self.max_concurrent = 0
        self.grammar_check = True  # die like llama.cpp on a schema whose grammar is too large
        self.grammar_rule_limit = GRAMMAR_RULE_LIMIT
        self.died: str | None = None  # why the server process "exited"
        self._closed = False
        self._inflight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The ``/v1`` base URL to give the client."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> OpenAIServer:
        self._thread.start()
        return self

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def die(self, reason: str) -> None:
        """Stop listening at once, as a crashed server process does (later connects are refused)."""
        self.died = reason
        threading.Thread(target=self.close, name="fake-openai-exit", daemon=True).start()

    @property
    def alive(self) -> bool:
        """Whether the server still accepts connections."""
        return self.died is None and not self._closed

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def push(self, *replies: Reply | str) -> None:
        """Queue replies; a plain string is ``Reply.text``."""
        for r in replies:
            self.script.append(Reply.text(r) if isinstance(r, str) else r)

    @property
    def completion_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _next_reply(self, req: RecordedRequest) -> Reply:
        with self._lock:
            if self.script:
                return self.script.popleft()
        if self.handler is not None:
            return self.handler(req)
        if self.default is not None:
            return self.default
        return Reply.error(500, "test server: no scripted reply left")

    def _enter(self) -> None:
        with self._lock:
            self._inflight += 1
            self.max_concurrent = max(self.max_concurrent, self._inflight)

    def _leave(self) -> None:
        with self._lock:
            self._inflight -= 1


def _usage(req: RecordedRequest, reply: Reply) -> dict[str, int] | None:
    if reply.usage is True:
        prompt = max(1, len(req.prompt_text) // 2)
        completion = max(1, len(reply.content) // 2)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if isinstance(reply.usage, dict):
        return reply.usage
    return None


def _make_handler(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class _H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(obj, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _record(self, body: Any) -> RecordedRequest:
            req = RecordedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
            with server._lock:
                server.requests.append(req)
            return req

        def _auth_ok(self) -> bool:
            if server.require_key is None:
                return True
            if self.headers.get("Authorization") == f"Bearer {server.require_key}":
                return True
            self._send_json(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}})
            return False

        def do_GET(self) -> None:
            req = self._record(None)
            if not self._auth_ok():
                return
            if self.path.rstrip("/").endswith("/models"):
                self._send_json(200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in server.models]})
            else:
                self._send_json(404, {"error": {"message": "not found"}})
            req.finished = time.monotonic()

        def do_POST(self) -> None:
            if server.died is not None:  # the process is gone: nothing answers any more
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_raw": raw.decode("utf-8", "replace")}
            req = self._record(body)
            if not self._auth_ok():
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": "not found"}})
                return
            server._enter()
            try:
                self._complete(req, body)
            except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                req.disconnected = True
            finally:
                req.finished = time.monotonic()
                server._leave()

        def _complete(self, req: RecordedRequest, body: dict[str, Any]) -> None:
            rf = body.get("response_format") or {}
            if server.reject_json_schema and rf.get("type") == "json_schema":
                if server.reject_json_schema == "500":
                    self._send_json(500, LLAMA_CPP_500_BODY)
                else:
                    self._send_json(400, {"error": {"message": "response_format type json_schema is not supported", "type": "invalid_request_error", "param": "response_format"}})
                return
            schema = schema_in(rf)
            if server.grammar_check and schema is not None:
                reason = grammar_overflow(schema, server.grammar_rule_limit)
                if reason is not None:  # llama-cpp-python's process exits: no answer, no listener
                    req.disconnected = True
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    server.die(reason)
                    return
            reply = server._next_reply(req)
            if reply.delay:
                time.sleep(reply.delay)
            if reply.status != 200:
                self._send_json(reply.status, reply.body, reply.headers)
                return
            model = body.get("model", "test-model")
            if reply.raw_body is not None or reply.endless is not None:
                self._raw(req, reply)
                return
            if body.get("stream"):
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                self._stream(req, reply, model, include_usage)
                return
            message: dict[str, Any] = {"role": "assistant", "content": reply.content}
            if reply.reasoning:
                message["reasoning_content"] = reply.reasoning
            payload: dict[str, Any] = {
                "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
            }
            usage = _usage(req, reply)
            if usage:
                payload["usage"] = usage
            self._send_json(200, payload)

        def _chunk(self, model: str, delta: dict[str, Any], finish: str | None, usage: dict[str, int] | None = None,
                   choices: bool = True) -> bytes:
            obj: dict[str, Any] = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": model,
                                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if choices else []}
            if usage is not None:
                obj["usage"] = usage
            return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"

        def _raw(self, req: RecordedRequest, reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", reply.content_type)
            if reply.content_encoding:
                self.send_header("Content-Encoding", reply.content_encoding)
            if reply.endless is None:
                self.send_header("Content-Length", str(len(reply.raw_body or b"")))
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            self.wfile.write(reply.raw_body or b"")
            sent = len(reply.raw_body or b"")
            while reply.endless is not None and sent < reply.endless_limit:
                self.wfile.write(reply.endless)
                sent += len(reply.endless)
                req.sent.append((sent, time.perf_counter()))
                if reply.chunk_delay:
                    time.sleep(reply.chunk_delay)
            self.wfile.flush()

        def _stream(self, req: RecordedRequest, reply: Reply, model: str, include_usage: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            w = self.wfile
            if reply.events is not None:
                for payload in reply.events:
                    w.write(b"data: " + payload.encode("utf-8", "surrogatepass") + b"\n\n")
                    w.flush()
                    if reply.chunk_delay:
                        time.sleep(reply.chunk_delay)
                w.write(b"data: [DONE]\n\n")
                w.flush()
                return
            w.write(self._chunk(model, {"role": "assistant", "content": ""}, None))
            for i in range(0, len(reply.reasoning), reply.chunk_size):
                w.write(self._chunk(model, {"reasoning_content": reply.reasoning[i:i + reply.chunk_size]}, None))
            sent = 0
            text = reply.content
            step = max(1, reply.chunk_size)
            while sent < len(text):
                piece = text[sent:sent + step]
                if reply.drop_after is not None and sent + len(piece) > reply.drop_after:
                    piece = piece[: max(0, reply.drop_after - sent)]
                    if piece:
                        w.write(self._chunk(model, {"content": piece}, None))
                    w.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    req.disconnected = True
                    return
                w.write(self._chunk(model, {"content": piece}, None))
                w.flush()
                sent += len(piece)
                req.sent.append((sent, time.perf_counter()))
                if reply.chunk_delay:
                    time.sleep(reply.chunk_delay)
            if reply.drop_after is not None:
                self.connection.shutdown(socket.SHUT_RDWR)
                req.disconnected = True
                return
            w.write(self._chunk(model, {}, reply.finish_reason))
            usage = _usage(req, reply)
            if include_usage and usage:
                w.write(self._chunk(model, {}, None, usage, choices=False))
            w.write(b"data: [DONE]\n\n")
            w.flush()

    return _H

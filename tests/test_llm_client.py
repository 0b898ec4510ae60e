"""LLMClient against the real local OpenAI-compatible server: every HTTP fault and model quirk."""

from __future__ import annotations

import asyncio
import email.utils
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.llm.client.errors import LLMConfigError, LLMConnectionError, LLMResponseError, PromptTooLong
from app.llm.client.llm_client import (
    Completion,
    EndpointConfig,
    LLMClient,
    estimate_tokens,
    fold_system_messages,
)
from app.llm.client.response_format import FormatRegistry
from app.llm.json.think_blocks import ThinkFilter, split_think
from tests.openai_server import OpenAIServer, RecordedRequest, Reply

USER = [{"role": "user", "content": "请列出三个要点"}]


def make_client(server: OpenAIServer, **kw: object) -> LLMClient:
    params: dict[str, object] = {"base_url": server.base_url, "api_key": "test-key", "model": "test-model",
                                 "backoff_base": 0.01, "backoff_max": 0.05, "timeout": 5.0}
    params.update(kw)
    return LLMClient(EndpointConfig(**params), formats=FormatRegistry())  # type: ignore[arg-type]


@pytest.fixture
async def client(llm_server: OpenAIServer) -> AsyncIterator[LLMClient]:
    c = make_client(llm_server)
    yield c
    await c.aclose()


# ---------------------------------------------------------------- plain calls


async def test_complete_sends_config_and_returns_text_without_streaming_when_asked(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, temperature=0.1, max_tokens=321, stream_calls=False)
    llm_server.push(Reply.text("一、质量保证"))
    comp = await c.complete(USER, stage="analysis")
    await c.aclose()
    body = llm_server.completion_requests[0].body
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.1
    assert body["max_tokens"] == 321
    assert body["messages"] == USER
    assert "response_format" not in body
    assert "stream" not in body or body["stream"] is False
    assert llm_server.completion_requests[0].headers["authorization"] == "Bearer test-key"
    assert comp.text == "一、质量保证"
    assert comp.finish_reason == "stop" and not comp.truncated and not comp.empty
    assert comp.usage.estimated is False
    assert comp.usage.prompt_tokens == len("请列出三个要点") // 2  # what the server reported
    assert comp.latency_s > 0


async def test_complete_streams_by_default_and_returns_the_whole_text(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, max_tokens=321)
    llm_server.push(Reply.text("一、质量保证体系", chunk_size=2))
    comp = await c.complete(USER, stage="analysis")
    await c.aclose()
    body = llm_server.completion_requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 321 and body["messages"] == USER
    assert comp.text == "一、质量保证体系" and comp.finish_reason == "stop" and not comp.usage.estimated



async def test_per_call_overrides(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("ok"))
    await client.complete(USER, temperature=0.0, max_tokens=7)
    body = llm_server.completion_requests[0].body
    assert body["temperature"] == 0.0 and body["max_tokens"] == 7


async def test_system_in_user_folds_system_prompt(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, system_in_user=True)
    llm_server.push(Reply.text("好"), Reply.text("好"))
    msgs = [{"role": "system", "content": "你是投标专家。"}, {"role": "user", "content": "写目录"}]
    await c.complete(msgs)
    stream = c.stream(msgs)
    _ = [p async for p in stream]
    await c.aclose()
    for req in llm_server.completion_requests:
        assert [m["role"] for m in req.messages] == ["user"]
        assert req.messages[0]["content"].startswith("你是投标专家。")
        assert req.messages[0]["content"].endswith("写目录")


async def test_system_kept_by_default(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("好"))
    await client.complete([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}])
    assert [m["role"] for m in llm_server.completion_requests[0].messages] == ["system", "user"]


def test_fold_without_user_message() -> None:
    assert fold_system_messages([{"role": "system", "content": "only"}]) == [{"role": "user", "content": "only"}]


# ---------------------------------------------------------------- retries


@pytest.mark.parametrize("status", [500, 502, 503, 408, 409, 429])
async def test_transient_status_is_retried(client: LLMClient, llm_server: OpenAIServer, status: int,
                                           caplog: pytest.LogCaptureFixture) -> None:
    llm_server.push(Reply.error(status, "temporary"), Reply.text("恢复了"))
    with caplog.at_level(logging.WARNING, logger="app.llm.client.llm_client"):
        comp = await client.complete(USER)
    assert comp.text == "恢复了"
    assert comp.attempts == 2
    assert len(llm_server.completion_requests) == 2
    assert any("retrying" in r.getMessage() and str(status) in r.getMessage() for r in caplog.records)


async def test_retries_are_bounded(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, max_retries=2)
    llm_server.default = Reply.error(502, "bad gateway")
    with pytest.raises(LLMConnectionError) as err:
        await c.complete(USER)
    await c.aclose()
    assert len(llm_server.completion_requests) == 3
    assert err.value.attempts == 3 and err.value.status == 502
    assert "502" in err.value.message_zh and "重试" in err.value.message_zh


async def test_retry_after_is_honoured(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server)
    llm_server.push(Reply.error(429, "slow down", headers={"Retry-After": "1"}), Reply.text("ok"))
    t0 = time.monotonic()
    await c.complete(USER)
    waited = llm_server.completion_requests[1].started - llm_server.completion_requests[0].finished
    await c.aclose()
    assert waited >= 0.95, waited  # backoff alone would be <= 0.05 s
    assert time.monotonic() - t0 < 3


async def test_retry_after_is_capped(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, retry_after_max=0.2)
    llm_server.push(Reply.error(429, "slow down", headers={"Retry-After": "120"}), Reply.text("ok"))
    t0 = time.monotonic()
    comp = await c.complete(USER)
    await c.aclose()
    assert comp.text == "ok"
    assert 0.15 <= time.monotonic() - t0 < 2


async def test_retry_after_ms_header(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server)
    llm_server.push(Reply.error(429, "slow", headers={"retry-after-ms": "300"}), Reply.text("ok"))
    await c.complete(USER)
    await c.aclose()
    reqs = llm_server.completion_requests
    assert reqs[1].started - reqs[0].finished >= 0.28


async def test_429_exhausted_message(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, max_retries=1)
    llm_server.default = Reply.error(429, "rate limited", headers={"Retry-After": "0"})
    with pytest.raises(LLMConnectionError) as err:
        await c.complete(USER)
    await c.aclose()
    assert "429" in err.value.message_zh
    assert len(llm_server.completion_requests) == 2


async def test_timeout_is_retried_then_reported(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, timeout=0.2, max_retries=1)
    llm_server.default = Reply.text("太慢了", delay=0.6)
    with pytest.raises(LLMConnectionError) as err:
        await c.complete(USER)
    await c.aclose()
    assert len(llm_server.completion_requests) == 2
    assert "超时" in err.value.message_zh


async def test_slow_answer_within_timeout(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, timeout=2.0)
    llm_server.push(Reply.text("慢但是到了", delay=0.3))
    comp = await c.complete(USER)
    await c.aclose()
    assert comp.text == "慢但是到了" and comp.attempts == 1


async def test_connection_refused_is_connection_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c = LLMClient(EndpointConfig(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", model="m",
                                 backoff_base=0.01, max_retries=1), formats=FormatRegistry())
    with pytest.raises(LLMConnectionError) as err:
        await c.complete(USER)
    await c.aclose()
    assert err.value.attempts == 2
    assert "无法连接" in err.value.message_zh


# ---------------------------------------------------------------- configuration errors


async def test_wrong_key_is_config_error_without_retry(llm_server: OpenAIServer) -> None:
    llm_server.require_key = "right-key"
    c = make_client(llm_server, api_key="wrong-key")
    with pytest.raises(LLMConfigError) as err:
        await c.complete(USER)
    await c.aclose()
    assert len(llm_server.completion_requests) == 1
    assert err.value.status == 401 and "密钥" in err.value.message_zh


async def test_403_is_config_error(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.error(403, "forbidden"))
    with pytest.raises(LLMConfigError) as err:
        await client.complete(USER)
    assert err.value.status == 403 and len(llm_server.completion_requests) == 1


async def test_missing_key_sends_nothing(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, api_key="  ")
    with pytest.raises(LLMConfigError) as err:
        await c.complete(USER)
    with pytest.raises(LLMConfigError):
        _ = [p async for p in c.stream(USER)]
    await c.aclose()
    assert llm_server.requests == []
    assert "API 密钥" in err.value.message_zh


async def test_unknown_model_is_config_error(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.error(404, "The model `test-model` does not exist"))
    with pytest.raises(LLMConfigError) as err:
        await client.complete(USER)
    assert "test-model" in err.value.message_zh
    assert len(llm_server.completion_requests) == 1


async def test_other_400_is_response_error_without_retry(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.error(400, "This model's maximum context length is 8192 tokens"))
    with pytest.raises(LLMResponseError) as err:
        await client.complete(USER)
    assert "400" in err.value.message_zh
    assert len(llm_server.completion_requests) == 1


# ---------------------------------------------------------------- answers


async def test_truncated_answer_is_reported(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.truncated('{"outline": [{"title": "项目'), Reply.truncated("被截断的流"))
    comp = await client.complete(USER)
    assert comp.truncated and comp.finish_reason == "length"
    stream = client.stream(USER)
    assert "".join([p async for p in stream]) == "被截断的流"
    assert stream.result.truncated


async def test_empty_answer_is_detectable(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text(""), Reply.text("   "), Reply.text("<think>只想不答</think>"))
    for _ in range(3):
        comp = await client.complete(USER)
        assert comp.empty
    assert comp.reasoning == "只想不答"


async def test_think_block_stripped_and_kept(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("<think>先分析评分表……</think>\n{\"a\": 1}", reasoning="服务端推理"))
    comp = await client.complete(USER)
    assert comp.text == '{"a": 1}'
    assert "先分析评分表" in comp.reasoning and "服务端推理" in comp.reasoning
    assert "<think>" in comp.raw_text


async def test_leading_close_tag_without_open(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("模板里已经打开了思考</think>正文"))
    comp = await client.complete(USER)
    assert comp.text == "正文" and comp.reasoning == "模板里已经打开了思考"


async def test_usage_estimated_when_missing(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("技术方案与实施计划", usage=None), Reply.text("技术方案与实施计划", usage=None))
    comp = await client.complete(USER)
    assert comp.usage.estimated
    assert comp.usage.completion_tokens == estimate_tokens("技术方案与实施计划") == 9
    assert comp.usage.prompt_tokens >= estimate_tokens("请列出三个要点")
    stream = client.stream(USER)
    _ = [p async for p in stream]
    assert stream.result.usage.estimated and stream.result.usage.completion_tokens == 9


async def test_stream_usage_reported(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("abcdefghij", usage={"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}))
    stream = client.stream(USER)
    _ = [p async for p in stream]
    body = llm_server.completion_requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert stream.result.usage.prompt_tokens == 11 and stream.result.usage.completion_tokens == 5
    assert not stream.result.usage.estimated


# ---------------------------------------------------------------- streaming


async def test_stream_pieces_and_result(client: LLMClient, llm_server: OpenAIServer) -> None:
    text = "第一章 项目理解\n第二章 技术方案\n" * 5
    llm_server.push(Reply.text(text, chunk_size=4))
    stream = client.stream(USER, stage="outline")
    pieces = [p async for p in stream]
    assert len(pieces) > 5
    assert "".join(pieces) == text
    assert stream.result.text == text.strip()
    assert stream.result.finish_reason == "stop"


async def test_stream_think_tags_split_across_chunks(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("<think>让我想想：一级目录</think>set /outline/0 项目理解", chunk_size=3))
    stream = client.stream(USER)
    shown = "".join([p async for p in stream])
    assert shown == "set /outline/0 项目理解"
    assert stream.result.reasoning == "让我想想：一级目录"


async def test_stream_reasoning_content_not_shown(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("答案", reasoning="推理过程"))
    stream = client.stream(USER)
    assert "".join([p async for p in stream]) == "答案"
    assert stream.result.reasoning == "推理过程"


async def test_stream_dropped_before_content_is_retried(client: LLMClient, llm_server: OpenAIServer,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    llm_server.push(Reply.dropped("不会到达", after=0), Reply.text("第二次成功"))
    with caplog.at_level(logging.WARNING, logger="app.llm.client.llm_client"):
        stream = client.stream(USER)
        text = "".join([p async for p in stream])
    assert text == "第二次成功"
    assert stream.result.attempts == 2
    assert len(llm_server.completion_requests) == 2 and llm_server.completion_requests[0].disconnected
    assert any("stream cut" in r.getMessage() for r in caplog.records)


async def test_stream_dropped_mid_content_raises_with_partial(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.dropped("set /outline/0 项目理解\nset /outline/1 技术方案\n", after=20, chunk_size=5))
    received: list[str] = []
    with pytest.raises(LLMConnectionError) as err:
        async for piece in client.stream(USER):
            received.append(piece)
    assert "".join(received) == err.value.partial_text
    assert err.value.partial_text.startswith("set /outline/0")
    assert len(llm_server.completion_requests) == 1


async def test_stream_5xx_before_start_is_retried(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.error(503, "loading model"), Reply.text("好了"))
    stream = client.stream(USER)
    assert "".join([p async for p in stream]) == "好了"
    assert len(llm_server.completion_requests) == 2


async def test_cancel_closes_http_stream_promptly(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("很长的输出。" * 400, chunk_size=2, chunk_delay=0.01))
    first = asyncio.Event()
    got: list[str] = []

    async def consume() -> None:
        async for piece in client.stream(USER):
            got.append(piece)
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 5)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    req = llm_server.completion_requests[0]
    deadline = time.monotonic() + 2
    while not req.finished and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert req.disconnected, "server never saw the client go away"
    assert req.finished - cancelled_at < 0.5, req.finished - cancelled_at
    assert len("".join(got)) < len("很长的输出。" * 400)


async def test_leaving_loop_early_closes_stream(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("x" * 4000, chunk_size=2, chunk_delay=0.01))
    async with client.stream(USER) as stream:
        async for _ in stream:
            break
    req = llm_server.completion_requests[0]
    deadline = time.monotonic() + 2
    while not req.finished and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert req.disconnected and req.finished


async def test_result_before_end_is_an_error(client: LLMClient) -> None:
    with pytest.raises(RuntimeError):
        _ = client.stream(USER).result


# ---------------------------------------------------------------- concurrency and models


@pytest.mark.parametrize("limit", [1, 2])
async def test_concurrency_limit(llm_server: OpenAIServer, limit: int) -> None:
    c = make_client(llm_server, concurrency=limit)
    llm_server.default = Reply.text("ok", delay=0.15)
    results = await asyncio.gather(*(c.complete(USER) for _ in range(4)))
    await c.aclose()
    assert all(isinstance(r, Completion) and r.text == "ok" for r in results)
    assert llm_server.max_concurrent == limit


async def test_list_models(llm_server: OpenAIServer) -> None:
    llm_server.models = ["qwen2.5-7b", "gemma3-270m"]
    c = make_client(llm_server)
    assert await c.list_models() == ["gemma3-270m", "qwen2.5-7b"]
    llm_server.require_key = "other"
    with pytest.raises(LLMConfigError):
        await c.list_models()
    await c.aclose()


def test_api_key_not_in_repr() -> None:
    cfg = EndpointConfig(base_url="http://x/v1", api_key="sk-SECRET-123", model="m")
    assert "sk-SECRET-123" not in repr(cfg)


def test_estimate_tokens() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("项目管理") == 4
    assert estimate_tokens("abcdefgh") == 2


async def test_stream_stall_mid_content_times_out_with_partial(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, timeout=0.5, max_retries=1)
    llm_server.push(Reply.text("abcdefghij" * 3, chunk_size=5, chunk_delay=1.5))
    got: list[str] = []
    with pytest.raises(LLMConnectionError) as err:
        async for piece in c.stream(USER):
            got.append(piece)
    await c.aclose()
    assert got == ["abcde"] and err.value.partial_text == "abcde"
    assert err.value.detail == "timeout"
    assert len(llm_server.completion_requests) == 1


async def test_stream_slow_start_is_retried(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, timeout=0.5, max_retries=1)
    llm_server.push(Reply.text("迟到", delay=1.5), Reply.text("准时"))
    stream = c.stream(USER)
    assert [p async for p in stream] == ["准时"]
    await c.aclose()
    assert stream.result.attempts == 2 and len(llm_server.completion_requests) == 2


async def test_a_prompt_past_the_context_is_refused_before_sending(llm_server: OpenAIServer,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    c = make_client(llm_server, context_size=400, max_tokens=50)
    long_prompt = [{"role": "user", "content": "招标文件正文" * 60}]
    assert c.estimate_prompt_tokens(long_prompt) > 300
    assert not c.fits(long_prompt)
    assert c.fits(USER)
    llm_server.push(Reply.text("不应发送"))
    with caplog.at_level(logging.WARNING, logger="app.llm.client.llm_client"), pytest.raises(PromptTooLong) as err:
        await c.complete(long_prompt)
    await c.aclose()
    assert llm_server.completion_requests == []  # nothing went out
    assert "上下文只有 400 tokens" in err.value.message_zh and "模型设置" in err.value.message_zh
    assert any("not sent" in r.getMessage() for r in caplog.records)


async def test_non_openai_200_body_is_response_error() -> None:
    class ProxyPage(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            data = "<html>请先登录代理</html>".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ProxyPage)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        c = LLMClient(EndpointConfig(base_url=f"http://127.0.0.1:{httpd.server_address[1]}/v1", api_key="k",
                                     model="m"), formats=FormatRegistry())
        with pytest.raises(LLMResponseError) as err:
            await c.complete(USER)
        await c.aclose()
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert "接口地址" in err.value.message_zh and "登录代理" in err.value.detail


@pytest.mark.parametrize("drops", [True, False])
async def test_probe_drops_system(llm_server: OpenAIServer, drops: bool) -> None:
    def handler(req: RecordedRequest) -> Reply:
        seen = [m for m in req.messages if not (drops and m["role"] == "system")]
        tokens = sum(len(str(m["content"])) for m in seen)
        return Reply.text("好", usage={"prompt_tokens": tokens, "completion_tokens": 1, "total_tokens": tokens + 1})

    llm_server.handler = handler
    c = make_client(llm_server, system_in_user=True)  # the probe must not fold: it tests the raw endpoint
    assert await c.probe_drops_system() is drops
    await c.aclose()
    first, second = llm_server.completion_requests
    assert [m["role"] for m in first.messages] == ["system", "user"] and first.body["max_tokens"] == 1
    assert [m["role"] for m in second.messages] == ["user"]


async def test_probe_without_usage(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.text("好", usage=None)
    assert await client.probe_drops_system() is None


@settings(max_examples=150, deadline=None)
@given(cuts=st.lists(st.integers(min_value=1, max_value=60), max_size=12),
       answer=st.text(alphabet="目录<>/thinkg 甲乙{}\"", max_size=30))
def test_think_filter_is_chunking_independent(cuts: list[int], answer: str) -> None:
    text = f"<think>想一想 <b> </thin</think>{answer}<THINK>再想</THINK>尾"
    pieces, pos = [], 0
    for cut in sorted(set(cuts)):
        pieces.append(text[pos:cut])
        pos = cut
    pieces.append(text[pos:])
    flt = ThinkFilter()
    shown = "".join(flt.feed(p) for p in pieces) + flt.finish()
    expected, reasoning = split_think(text)
    assert shown.strip() == expected
    assert flt.reasoning.replace(" ", "") == reasoning.replace("\n\n", "").replace(" ", "")


async def test_retry_after_http_date(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server)
    when = email.utils.formatdate(time.time() + 2, usegmt=True)  # whole seconds: waits ~1-2 s
    llm_server.push(Reply.error(503, "maintenance", headers={"Retry-After": when}), Reply.text("ok"))
    await c.complete(USER)
    await c.aclose()
    reqs = llm_server.completion_requests
    assert 0.5 <= reqs[1].started - reqs[0].finished <= 2.5

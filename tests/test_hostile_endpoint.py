"""Hostile and broken endpoints (issue 30): malformed events, split surrogates, answers without
bounds, answers in the wrong shape and models that never give anything usable.

Every behaviour is played by the loopback server (``tests/openai_server.py``): the real
openai client reads it over a socket.
"""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

import pytest

from app.llm.client.errors import AnswerTooLarge, LLMResponseError, MalformedEvent, WrongShapeAnswer
from app.llm.client.journal import CallJournal
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.run import generate_outline
from tests.openai_server import OpenAIServer, Reply
from tests.pipeline_support import kind_of, make_client, sample_analysis

USER = [{"role": "user", "content": "请列出三个要点"}]


def event(content: str | None = None, finish: str | None = None) -> str:
    """One chat.completion.chunk as its SSE payload (surrogates kept as JSON escapes)."""
    delta = {} if content is None else {"content": content}
    return json.dumps({"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


# ---------------------------------------------------------------- one bad event


@pytest.mark.parametrize("bad", ['{"id": "x", "choices": [{"delta": {"content": "半', "{not json",
                                 '{"choices": "x"}', '{"choices": [{"delta": {"content": 42}}]}'])
async def test_a_malformed_event_is_a_failed_attempt_that_is_retried(llm_server: OpenAIServer, bad: str) -> None:
    llm_server.push(Reply(events=[event("你好"), bad]), Reply.text("一切正常"))
    async with make_client(llm_server, max_retries=2) as client:
        comp = await client.complete(USER)
    assert comp.text == "一切正常"
    assert len(llm_server.completion_requests) == 2


async def test_malformed_events_every_time_are_reported_not_an_internal_error(llm_server: OpenAIServer) -> None:
    llm_server.default = Reply(events=["{not json"])
    async with make_client(llm_server, max_retries=1) as client:
        with pytest.raises(MalformedEvent) as err:
            await client.complete(USER)
    assert isinstance(err.value, LLMResponseError)
    assert "无法解析的流式数据" in err.value.message_zh and "2 次" in err.value.message_zh


async def test_a_surrogate_pair_split_over_two_events_is_joined(llm_server: OpenAIServer, tmp_path: Path) -> None:
    # json.dumps writes the lone halves as \\ud83d and \\ude00 escapes, as a server cutting UTF-16 would
    llm_server.push(Reply(events=[event("笑\ud83d"), event("\ude00了"), event(finish="stop")]))
    journal = CallJournal(tmp_path)
    async with make_client(llm_server) as client:
        client.transport.journal = journal
        comp = await client.complete(USER)
    assert comp.text == "笑😀了"
    assert "😀" in journal.path.read_text(encoding="utf-8")


async def test_a_lone_surrogate_becomes_a_replacement_character(llm_server: OpenAIServer, tmp_path: Path) -> None:
    llm_server.push(Reply(events=[event("坏\ud83d"), event(finish="stop")]))
    journal = CallJournal(tmp_path)
    async with make_client(llm_server) as client:
        client.transport.journal = journal
        comp = await client.complete(USER)
    assert comp.text == "坏\ufffd"
    comp.text.encode("utf-8")  # printable, writable


async def test_streamed_pieces_never_carry_half_a_pair(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply(events=[event("a\ud83d"), event("\ude00b"), event(finish="stop")]))
    async with make_client(llm_server) as client:
        stream = client.stream(USER)
        pieces = [p async for p in stream]
    assert "".join(pieces) == "a😀b"
    for piece in pieces:
        piece.encode("utf-8")


@pytest.mark.parametrize("body", [b"{not json", b'{"choices": "x"}', b'{"choices": [{"message": {"content": 7}}]}'])
async def test_a_broken_plain_answer_is_reported_not_an_internal_error(llm_server: OpenAIServer, body: bytes) -> None:
    llm_server.default = Reply.raw(body, "application/json")
    async with make_client(llm_server, stream_calls=False, max_retries=0) as client:
        with pytest.raises(MalformedEvent):
            await client.complete(USER)


async def test_a_lone_surrogate_in_a_plain_answer_is_replaced(llm_server: OpenAIServer) -> None:
    body = '{"choices": [{"message": {"content": "\\ud83d好"}, "finish_reason": "stop"}]}'.encode()
    llm_server.default = Reply.raw(body, "application/json")
    async with make_client(llm_server, stream_calls=False) as client:
        comp = await client.complete(USER)
    assert comp.text == "\ufffd好"


# ---------------------------------------------------------------- bytes without bound


async def test_a_line_that_never_ends_is_cut_at_the_line_cap(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply(raw_body=b"data: {\"x\": \"", endless=b"y" * 65536))
    started = time.monotonic()
    async with make_client(llm_server, max_retries=0) as client:
        with pytest.raises(AnswerTooLarge) as err:
            await client.complete(USER)
    assert "没有换行" in err.value.message_zh
    assert time.monotonic() - started < 30
    sent = llm_server.completion_requests[0].sent
    assert sent and sent[-1][0] < 256 << 20  # the server was stopped long before the 4 GB it would send


async def test_a_gzip_bomb_is_stopped_after_the_inflated_cap(llm_server: OpenAIServer) -> None:
    line = b": " + b"k" * 4093 + b"\n"  # SSE comments: lines short enough, many of them
    bomb = gzip.compress(line * ((100 << 20) // len(line)), compresslevel=9)  # ~100 MB inflated
    assert len(bomb) < 1 << 20
    llm_server.push(Reply.raw(bomb, "text/event-stream", content_encoding="gzip"))
    async with make_client(llm_server, max_retries=0) as client:
        with pytest.raises(AnswerTooLarge) as err:
            await client.complete(USER)
    assert "解压后" in err.value.message_zh


async def test_a_gzip_answer_within_the_caps_is_read(llm_server: OpenAIServer) -> None:
    body = "".join(f"data: {event(p)}\n\n" for p in ("压缩", "也行")) + f"data: {event(finish='stop')}\n\ndata: [DONE]\n\n"
    llm_server.push(Reply.raw(gzip.compress(body.encode()), "text/event-stream", content_encoding="gzip"))
    async with make_client(llm_server) as client:
        comp = await client.complete(USER)
    assert comp.text == "压缩也行"


# ---------------------------------------------------------------- the wrong shape


async def test_plain_json_to_a_stream_request_is_named(llm_server: OpenAIServer) -> None:
    plain = {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant",
                                                                                           "content": "hi"}}]}
    llm_server.default = Reply.raw(json.dumps(plain).encode(), "application/json")
    async with make_client(llm_server, max_retries=2) as client:
        with pytest.raises(WrongShapeAnswer) as err:
            await client.complete(USER)
    assert err.value.kind == "json" and "不是 OpenAI 流式格式" in err.value.message_zh
    assert len(llm_server.completion_requests) == 1  # the same request gets the same answer: not retried


async def test_a_50_mb_json_answer_to_a_stream_request_is_named_without_reading_it_all(
        llm_server: OpenAIServer) -> None:
    huge = b'{"choices": [{"message": {"content": "' + b"x" * (50 << 20) + b'"}}]}'
    llm_server.push(Reply.raw(huge, "application/json"))
    async with make_client(llm_server, max_retries=0) as client:
        with pytest.raises(WrongShapeAnswer) as err:
            await client.complete(USER)
    assert err.value.kind == "json"


async def test_a_login_page_is_named_a_web_page(llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.raw("<!DOCTYPE html><html><body>请登录</body></html>".encode(), "text/html")
    async with make_client(llm_server) as client:
        with pytest.raises(WrongShapeAnswer) as err:
            await client.complete(USER)
    assert err.value.kind == "html" and "网页" in err.value.message_zh


# ---------------------------------------------------------------- the circuit breaker


async def _run_against(llm_server: OpenAIServer, **client_kw: object) -> tuple[object, int]:
    async with make_client(llm_server, **client_kw) as client:  # type: ignore[arg-type]
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False))
    return res, len(llm_server.completion_requests)


async def test_a_model_answering_only_garbage_is_given_up_after_a_few_calls(llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.text("我不太明白你的意思，请再说一遍。")
    res, calls = await _run_against(llm_server)
    assert calls <= 8, calls
    assert res.valid  # filled by code from the tender's points and the heading library
    said = " ".join(res.warnings)
    assert "不适用于本任务" in said and "test-model" in said and "无法解析的内容" in said
    assert "由程序" in said


async def test_a_login_page_on_every_call_stops_the_run_and_says_so(llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.raw("<html><body>请先登录</body></html>".encode(), "text/html")
    res, calls = await _run_against(llm_server)
    assert calls <= 8, calls
    said = " ".join(res.warnings) + (res.failure.message_zh if res.failure else "")
    assert "非 OpenAI 格式的应答" in said and "由程序" in said
    assert res.meter.completion_tokens == 0


async def test_an_endpoint_that_trickles_is_given_up_after_a_few_deadlines(llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.text("慢" * 200, chunk_size=1, chunk_delay=0.2)
    started = time.monotonic()
    res, calls = await _run_against(llm_server, timeout=0.5)
    assert calls <= 8, calls
    assert time.monotonic() - started < 30
    assert "超时未完成" in " ".join(res.warnings)


# ---------------------------------------------------------------- the context


async def test_max_tokens_is_lowered_so_prompt_and_answer_fit_the_context(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("好"))
    prompt = [{"role": "user", "content": "评分表" * 2236}]  # ~6 710 tokens, as the llama.cpp report had
    async with make_client(llm_server, context_size=8192, max_tokens=4096) as client:
        await client.complete(prompt)
    sent = llm_server.completion_requests[0].body["max_tokens"]
    assert 256 <= sent <= 8192 - 6708  # what is left of the context, not the 4 096 asked


async def test_the_scoring_call_fits_a_small_context_with_its_answer(llm_server: OpenAIServer,
                                                                    tmp_path: Path) -> None:
    import docx

    from app.documents.loader import load_tender
    from app.llm.client.completion import estimate_tokens
    from app.pipeline.analysis.tender import analyze_tender

    d = docx.Document()
    d.add_heading("第一章 招标公告", level=1)
    d.add_paragraph("项目名称：某区运维服务项目")
    d.add_heading("第三章 评标办法", level=1)
    numbers = "一二三四五六七八九十"
    for i in range(400):  # Chinese text, few digits or marks: about a token a character
        d.add_paragraph(f"第{numbers[i % 10]}项技术方案评分标准内容完整措施具体针对性强的得满分一般的酌情给分")
    path = tmp_path / "t.docx"
    d.save(str(path))
    llm_server.default = Reply.text('{"project_name": "某项目", "groups": []}')
    async with make_client(llm_server, context_size=8192, max_tokens=4096) as client:
        await analyze_tender(client, load_tender(path), model_groups=True)
    scoring = [r for r in llm_server.completion_requests if kind_of(r) == "scoring"]
    assert scoring and "第十项" in scoring[0].prompt_text
    for req in scoring:
        assert estimate_tokens(req.prompt_text) + req.body["max_tokens"] <= 8192
        assert req.body["max_tokens"] == 1500  # the text was fitted: the answer keeps all it asks for


def test_a_stopped_model_gets_one_probation_call_and_a_web_page_none() -> None:
    """The breaker's probation (a smaller question after whole chapters failed): one call, no more; an
    endpoint that never answered as an OpenAI endpoint gets none."""
    from app.llm.client.model_health import ModelHealth

    h = ModelHealth("m", threshold=3)
    assert not h.grant_probation()  # nothing to forgive
    for i in range(3):
        h.answered()
        h.unusable(f"c{i}", "unparseable")
    assert h.tripped and h.grant_probation() and not h.tripped and h.verdict_zh == ""
    h.answered()
    h.unusable("c3", "degenerate")  # the probation call failed too: stopped again at once
    assert h.tripped and "不适用于本任务" in h.verdict_zh
    assert h.grant_probation()
    h.answered()
    h.usable("c4")  # a usable answer ends the streak
    assert not h.tripped and h.bad_streak() == []
    page = ModelHealth("m", threshold=2)
    for i in range(2):
        page.unusable(f"p{i}", "wrong_shape", "返回了网页")
    assert page.tripped and not page.grant_probation() and page.tripped

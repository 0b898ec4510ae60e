"""Bounds of every model call: wire schemas a grammar engine takes, a dead server named,
deadlines, answer caps, the run budget and loop detection — against the loopback server."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from app.llm.client.call_limits import tokens_allowed
from app.llm.client.errors import CallTimedOut, DegenerateOutput, LLMConnectionError, LLMServerGone
from app.llm.json.repetition import RepetitionDetector, is_looping_text
from app.llm.json.wire_schema import (
    GRAMMAR_BUDGET,
    MAX_REPETITION_SPAN,
    grammar_cost,
    wire_format,
    wire_schema,
)
from app.pipeline.analysis.tender import ModelOverview
from app.pipeline.outline.budget import RunBudget, RunMeter
from app.pipeline.outline.wire_catalog import wire_models
from tests.openai_server import OpenAIServer, Reply, grammar_overflow, schema_in
from tests.pipeline_support import make_client

USER = [{"role": "user", "content": "请输出项目概况"}]
APP = Path(__file__).resolve().parent.parent / "app"


# ---------------------------------------------------------------- wire schemas


def test_every_wire_schema_the_app_can_send_is_within_the_grammar_budget() -> None:
    models = list(wire_models())
    assert len(models) > 50
    for model in models:
        schema = wire_schema(model)
        cost = grammar_cost(schema)
        assert cost.rules <= GRAMMAR_BUDGET and cost.longest_span <= MAX_REPETITION_SPAN, (model.__name__, cost)
        assert grammar_overflow(schema) is None, model.__name__  # the llama.cpp emulation agrees
        text = json.dumps(schema)
        for bound in re.findall(r'"max(?:Length|Items)": (\d+)', text):
            assert int(bound) <= 80
        for node in _arrays(schema):
            assert "maxItems" in node, (model.__name__, node)


def _arrays(node: object) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    if isinstance(node, dict):
        if node.get("type") == "array":
            out.append(node)
        for value in node.values():
            out += _arrays(value)
    elif isinstance(node, list):
        for value in node:
            out += _arrays(value)
    return out


def test_every_collect_json_call_site_sends_a_catalogued_model() -> None:
    listed = {m.__name__ for m in wire_models()}
    found = set()
    for path in APP.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"collect_json\(\s*[\w.]+,\s*(?:[^,()]+|\w+\([^()]*\)),\s*([A-Z]\w+)", text):
            found.add(m.group(1))
    assert found and found <= listed, found - listed


def test_long_strings_leave_the_wire_but_stay_checked_in_code() -> None:
    schema = wire_schema(ModelOverview)
    summary = schema["properties"]["summary"]
    assert "maxLength" not in summary  # 2000 nested repetitions killed llama.cpp
    assert schema["properties"]["technical_requirements"]["maxItems"] <= 12
    with pytest.raises(ValueError):
        ModelOverview.model_validate({"summary": "很" * 2001})
    assert grammar_overflow(ModelOverview.model_json_schema()) is not None  # the unbounded model would kill it


async def test_a_schema_over_the_limit_kills_the_server_and_the_client_names_it(llm_server: OpenAIServer) -> None:
    llm_server.reject_json_schema = "500"  # llama-cpp-python: json_schema refused, json_object + schema compiled
    client = make_client(llm_server, max_retries=3)
    deadly = {"type": "json_schema", "json_schema": {"name": "x", "schema": ModelOverview.model_json_schema()}}
    with pytest.raises(LLMServerGone) as err:
        await client.complete(USER, response_format=deadly)
    await client.aclose()
    assert "本地模型服务已停止响应" in err.value.message_zh and "已保留" in err.value.message_zh
    assert not llm_server.alive and llm_server.died and "grammar" in llm_server.died
    sent = [schema_in(r.body.get("response_format")) for r in llm_server.completion_requests]
    assert len(sent) == 2  # json_schema refused, json_object + schema killed it; no retry storm after


async def test_the_bounded_wire_format_keeps_the_server_alive(llm_server: OpenAIServer) -> None:
    llm_server.reject_json_schema = "500"
    llm_server.default = Reply.text('{"project_name": "某项目"}')
    client = make_client(llm_server)
    comp = await client.complete(USER, response_format=wire_format(ModelOverview))
    await client.aclose()
    assert comp.text and llm_server.alive
    assert schema_in(llm_server.completion_requests[-1].body["response_format"]) is not None


async def test_a_server_that_stopped_is_named_after_one_check(llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.text("好")
    client = make_client(llm_server, max_retries=3)
    await client.complete(USER)
    llm_server.die("killed")
    for _ in range(100):
        if not llm_server.alive and llm_server._closed:
            break
        await asyncio.sleep(0.01)
    with pytest.raises(LLMServerGone):
        await client.complete(USER)
    with pytest.raises(LLMServerGone):  # later calls fail at once too
        async for _piece in client.stream(USER):
            pass
    await client.aclose()
    assert client.transport.gone


async def test_never_reached_endpoint_keeps_the_plain_unreachable_message() -> None:
    server = OpenAIServer().start()
    url = server.base_url
    server.close()
    from app.llm.client.llm_client import EndpointConfig, LLMClient

    client = LLMClient(EndpointConfig(base_url=url, api_key="k", model="m", max_retries=1, backoff_base=0.01))
    with pytest.raises(LLMConnectionError) as err:
        await client.complete(USER)
    await client.aclose()
    assert not isinstance(err.value, LLMServerGone) and "无法连接" in err.value.message_zh


# ---------------------------------------------------------------- time and size


async def test_a_trickling_stream_is_stopped_by_its_deadline(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("慢" * 200, chunk_size=1, chunk_delay=0.1))
    client = make_client(llm_server, timeout=0.6)
    got: list[str] = []
    with pytest.raises(CallTimedOut) as err:
        async for piece in client.stream(USER):
            got.append(piece)
    await client.aclose()
    assert got and err.value.partial_text == "".join(got) and len(got) < 200
    assert len(llm_server.completion_requests) == 1  # a deadline is not retried with the same long request


def test_deadline_follows_max_tokens_and_measured_speed() -> None:
    from app.llm.client.llm_client import EndpointConfig
    from app.llm.client.transport import call_timing

    slow = EndpointConfig(base_url="http://127.0.0.1:1/v1", api_key="k", model="m", tokens_per_s=4.0)
    fast = EndpointConfig(base_url="http://127.0.0.1:1/v1", api_key="k", model="m", tokens_per_s=80.0)
    fixed = EndpointConfig(base_url="http://127.0.0.1:1/v1", api_key="k", model="m", timeout=15.0)
    assert call_timing(slow, 1000, 2048).deadline_s > call_timing(slow, 1000, 256).deadline_s
    assert call_timing(slow, 1000, 2048).deadline_s > 5 * call_timing(fast, 1000, 2048).deadline_s
    t = call_timing(fixed, 1000, 2048)
    assert t.deadline_s == 15.0 and t.first_token_s <= 15.0 and t.idle_s <= 15.0


async def test_an_answer_past_its_size_cap_is_cut_while_streaming(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("".join(f"第{i}条内容不同" for i in range(20_000)), chunk_size=500))
    client = make_client(llm_server)
    with pytest.raises(DegenerateOutput) as err:
        async for _piece in client.stream(USER, max_tokens=100):
            pass
    await client.aclose()
    assert "长度上限" in err.value.message_zh and len(err.value.partial_text) < 10_000


async def test_the_run_budget_stops_the_call_that_crosses_it(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("".join(f"第{i}项措施" for i in range(3000)), chunk_size=50))
    client = make_client(llm_server)
    meter = RunMeter(budget=RunBudget(max_tokens=800))
    meter.check("outline")
    assert tokens_allowed() == 800
    with pytest.raises(DegenerateOutput) as err:
        async for _piece in client.stream(USER, max_tokens=100_000):
            pass
    await client.aclose()
    assert "预算" in err.value.message_zh


async def test_cancel_mid_stream_frees_the_slot_for_the_next_call(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("长" * 2000, chunk_size=5, chunk_delay=0.02), Reply.text("下一个"))
    client = make_client(llm_server, concurrency=1)
    got: list[str] = []

    async def consume() -> None:
        async for piece in client.stream(USER):
            got.append(piece)

    task = asyncio.create_task(consume())
    while not got:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    comp = await asyncio.wait_for(client.complete(USER), 5)
    await client.aclose()
    assert comp.text == "下一个" and len(llm_server.completion_requests) == 2


# ---------------------------------------------------------------- loops


async def test_a_looping_stream_is_stopped_and_never_a_result(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("1.1." * 2000, chunk_size=8))
    client = make_client(llm_server)
    stream = client.stream(USER)
    with pytest.raises(DegenerateOutput) as err:
        async for _piece in stream:
            pass
    await client.aclose()
    assert "重复" in err.value.message_zh and len(err.value.partial_text) < 1000
    with pytest.raises(RuntimeError):
        _ = stream.result


@pytest.mark.parametrize("text", [
    "1.1." * 100, "节标题" * 80, "好的，" * 100, ("重复的一行内容，模型停不下来了。\n" * 6),
    "".join("我们将提供优质服务，确保项目顺利实施。" for _ in range(12)),
])
def test_loops_are_detected(text: str) -> None:
    assert is_looping_text(text)


def test_real_answers_are_not_loops() -> None:
    corpus = Path(__file__).parent / "corpus" / "good_outline.json"
    outline = corpus.read_text(encoding="utf-8")
    lines = [json.dumps({"op": "append", "path": f"/outline/{i}/children", "value": {"title": f"第{i}项保障措施"}},
                        ensure_ascii=False) for i in range(60)]
    table = "| 序号 | 内容 | 负责人 |\n|---|---|---|\n" + "".join(f"| {i} | 巡检第{i}台设备 | 张工 |\n" for i in range(30))
    for text in (outline, "\n".join(lines), table, "我公司将组建专业团队。" + "服务内容包括日常巡检、故障处理、应急响应。"):
        assert is_looping_text(text) is None, text[:80]
    d = RepetitionDetector()
    assert not any(d.feed(line + "\n") for line in lines)


# ---------------------------------------------------------------- secrets


KEY = "sk-live-8f3a9c2b7d6e5f4a3b2c1d0e"


async def test_an_error_body_echoing_the_key_never_shows_it(llm_server: OpenAIServer) -> None:
    from app.llm.client.errors import LLMResponseError

    llm_server.default = Reply.error(400, f"invalid request; headers: Authorization: Bearer {KEY}")
    from app.llm.client.llm_client import EndpointConfig, LLMClient

    client = LLMClient(EndpointConfig(base_url=llm_server.base_url, api_key=KEY, model="m", max_retries=0))
    with pytest.raises(LLMResponseError) as err:
        await client.complete(USER)
    await client.aclose()
    assert KEY not in str(err.value) and KEY not in err.value.message_zh and KEY not in err.value.detail
    assert llm_server.completion_requests[0].headers["authorization"] == f"Bearer {KEY}"  # it was really sent


def test_cli_stderr_and_report_never_show_the_key(llm_server: OpenAIServer, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from app.cli import main

    tender = tmp_path / "tender.txt"
    tender.write_text("第一章 招标公告\n项目名称：某区运维服务项目\n第二章 采购需求\n1. 提供运维服务。\n"
                      "第三章 评标办法\n技术方案：方案完善得20分。\n", encoding="utf-8")
    llm_server.default = Reply.error(400, f"bad request (Authorization: Bearer {KEY}) api_key={KEY}")
    monkeypatch.setenv("BIDSTUDIO_API_KEY", KEY)
    report = tmp_path / "report.json"
    code = main(["outline", str(tender), "--base-url", llm_server.base_url, "--model", "m",
                 "-o", str(tmp_path / "o.json"), "--report", str(report), "--max-calls", "6"])
    captured = capsys.readouterr()
    assert code in (0, 4, 5) and llm_server.completion_requests  # code fills what the model cannot (issue 38)
    assert KEY not in captured.err and KEY not in captured.out
    if report.exists():
        assert KEY not in report.read_text(encoding="utf-8")


def test_log_lines_are_scrubbed(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from app.core.secrets import install_log_scrubber, register_secret

    install_log_scrubber()
    register_secret("my-very-private-token-123")
    logging.getLogger("app.test").warning("server said %s", "token my-very-private-token-123, Bearer abcdefghijk")
    assert "my-very-private-token-123" not in caplog.text and "abcdefghijk" not in caplog.text


async def test_collect_json_counts_a_loop_as_a_failed_attempt_and_asks_again(llm_server: OpenAIServer) -> None:
    from pydantic import BaseModel

    from app.llm.json.collect import collect_json

    class Title(BaseModel):
        title: str

    llm_server.push(Reply.text('{"title": "' + "1.1." * 600, chunk_size=16), Reply.text('{"title": "质量保障措施"}'))
    client = make_client(llm_server)
    res = await collect_json(client, USER, Title, max_attempts=2)
    await client.aclose()
    assert res.ok and res.value is not None and res.value.title == "质量保障措施"
    assert res.attempts == 2 and "重复" in res.history[0][0]
    assert llm_server.completion_requests[1].messages == USER  # a fresh question, not a repair of the loop


# ---------------------------------------------------------------- hostile instruction streams


def test_deeply_nested_instructions_are_rejected_not_crashing() -> None:
    from app.core.stream_events import MalformedInstruction
    from app.llm.instructions.stream import parse_text

    nested = '{"op":"set","path":"/outline/0/title","value":' + "[" * 300 + "]" * 300 + "}"
    deep_line = '{"op":"set","path":"/outline/0/title","value":' + "[" * 100_000
    multi = '{"op":"append","path":"/outline",\n"value":' + "{\"a\":" * 200 + "1" + "}" * 200 + "}"
    for text in (nested, deep_line, multi, "[" * 100_000):
        events = parse_text(text)
        assert all(isinstance(e, MalformedInstruction) or type(e).__name__ == "Thinking" for e in events)
        assert any(isinstance(e, MalformedInstruction) for e in events) or text.startswith("[")


@pytest.mark.parametrize("index", ["²", "٢", "１", "𝟚"])
def test_only_ascii_digits_index_an_instruction_path(index: str) -> None:
    from app.core.outline import Outline, OutlineNode
    from app.core.stream_events import Instruction, InstructionRejected
    from app.llm.instructions.apply import InstructionApplier
    from app.llm.instructions.stream import parse_text

    outline = Outline()
    outline.replace([OutlineNode(title="服务方案"), OutlineNode(title="质量保障"), OutlineNode(title="售后服务")])
    applier = InstructionApplier(outline)
    events = parse_text('{"op":"set","path":"/outline/' + index + '/title","value":"改名"}')
    results = [applier.apply(e) for e in events if isinstance(e, Instruction)]
    assert results and all(isinstance(r, InstructionRejected) for r in results)
    assert [c.title for c in outline.chapters] == ["服务方案", "质量保障", "售后服务"]


async def test_a_server_dying_mid_run_ends_it_named_with_the_chapters_kept(llm_server: OpenAIServer) -> None:
    from app.pipeline.outline.job import OutlineSettings
    from app.pipeline.outline.run import generate_outline
    from tests.pipeline_support import Router, sample_analysis

    router = Router()

    def answer(req: object) -> Reply:
        reply = router(req)  # type: ignore[arg-type]
        if router.count("chapter:") == 2 and router.seen[-1].startswith("chapter:"):
            llm_server.die("killed after the first chapter")  # the process exits while this call is in flight
            return Reply.text("", delay=0.05)
        return reply

    llm_server.handler = answer
    client = make_client(llm_server, max_retries=3)
    res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False))
    await client.aclose()
    assert res.failure is not None and res.failure.kind == "endpoint"
    assert "本地模型服务已停止响应" in res.failure.message_zh
    assert res.chapters and res.chapters[0].children  # the first chapter, valid, is kept
    assert len(llm_server.completion_requests) == 2  # no retry storm against a dead server


def test_pretty_printed_json_with_empty_fields_is_not_a_loop() -> None:
    leaves = [{"title": f"第{i}项工作要点", "description": ""} for i in range(40)]
    text = json.dumps({"outline": [{"title": "运维方案", "description": "", "children": leaves}]},
                      ensure_ascii=False, indent=1)
    assert is_looping_text(text) is None
    assert is_looping_text("\n".join(['  "title": "质量保障措施说明",'] * 6))  # the same heading again and again

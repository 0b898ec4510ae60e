"""collect_json through the real client against the local server: repair paths and the corpus."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from app.core.outline import OutlineDocument
from app.core.rules.outline import generation_issues
from app.llm.client.errors import LLMConfigError
from app.llm.client.journal import CallJournal
from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.llm.client.response_format import FormatRegistry
from app.llm.json.collect import BREAKER_ISSUE, EMPTY_ISSUE, TRUNCATED_ISSUE, collect_json, evaluate_output
from app.llm.json.extract import extract_json, parse_json
from tests.corpus_cases import MESSAGES, NORMALIZERS, Case, good_answer, load_cases, rules_for, script_server
from tests.openai_server import OpenAIServer, Reply


class Leaf(BaseModel):
    """A node whose description is required (to see 'Field required' issues)."""

    title: str = Field(min_length=1)
    description: str
    children: list[Leaf] = Field(default_factory=list)


class Doc(BaseModel):
    """Test document model."""

    outline: list[Leaf]


GOOD_DOC = {"outline": [{"title": "技术方案", "description": "方案", "children": [
    {"title": "总体设计", "description": "设计"}, {"title": "详细设计", "description": "细节"}]}]}
GOOD_TEXT = json.dumps(GOOD_DOC, ensure_ascii=False)


def outline_rules(doc: OutlineDocument) -> list[str]:
    """What a whole outline asked of a model must fix (defects, and levels asked for but not written)."""
    return [str(i) for i in generation_issues(doc.outline)]


def make_client(server: OpenAIServer, journal: CallJournal | None = None, **kw: object) -> LLMClient:
    params: dict[str, object] = {"base_url": server.base_url, "api_key": "k", "model": "test-model",
                                 "backoff_base": 0.01, "backoff_max": 0.02, "timeout": 5.0}
    params.update(kw)
    return LLMClient(EndpointConfig(**params), journal=journal, formats=FormatRegistry())  # type: ignore[arg-type]


@pytest.fixture
async def client(llm_server: OpenAIServer) -> AsyncIterator[LLMClient]:
    c = make_client(llm_server)
    yield c
    await c.aclose()


# ---------------------------------------------------------------- pure evaluation


def test_syntax_issue_is_precise() -> None:
    text = '{"outline": [\n  {"title": "a",\n   "description" "b"}]}'
    parsed = parse_json(text)
    assert parsed.syntax_issue == "JSON 语法错误：第 3 行第 18 列附近 Expecting ':'"
    broken = '{\n  "a": 1,\n  "b": {"c": 2 "d": 3}}'
    assert parse_json(broken).syntax_issue == "JSON 语法错误：第 3 行第 16 列附近 Expecting ','"


def test_missing_field_issue_path() -> None:
    data = {"outline": [{"title": "一", "description": "x", "children": [
        {"title": "甲", "description": "y"}, {"title": "乙"}]}]}
    ev = evaluate_output(json.dumps(data, ensure_ascii=False), Doc)
    assert ev.issues == ["outline.0.children.1.description: Field required"]


def test_extract_prefers_the_real_json() -> None:
    got = extract_json('示例：{"x": 1}\n正式：{"outline": [{"title": "t", "description": "d"}]} 完')
    assert json.loads(got.text) == {"outline": [{"title": "t", "description": "d"}]}
    assert "去掉了 JSON 前后的说明文字" in got.notes


def test_repair_that_changes_text_is_uncertain() -> None:
    parsed = parse_json('{"title": "项目管理", "description": "要点" "被丢掉的说明"}')
    assert parsed.ok and parsed.repair
    assert parsed.uncertain
    assert any("被丢掉的说明" in n for n in parsed.notes)


def test_repair_without_text_change_is_certain() -> None:
    parsed = parse_json('{"title": "项目管理",}')
    assert parsed.ok and parsed.repair and not parsed.uncertain


def test_normaliser_is_recorded_as_local_repair() -> None:
    ev = evaluate_output('{"outline": [{"name": "甲", "desc": "d", "child": []}]}', Doc)
    assert ev.ok
    assert ev.value is not None and ev.value.outline[0].title == "甲"
    assert any("child" in r and "children" in r for r in ev.local_repairs)
    assert any("name" in r and "title" in r for r in ev.local_repairs)


# ---------------------------------------------------------------- through the server


async def test_valid_first_time(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(GOOD_TEXT)
    res = await collect_json(client, MESSAGES, Doc, stage="t")
    assert res.ok and res.attempts == 1 and res.value is not None
    assert res.value.outline[0].children[1].title == "详细设计"
    assert res.local_repairs == [] and res.model_repairs == 0
    body = llm_server.completion_requests[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["properties"]["outline"]["type"] == "array"
    assert res.prompt_tokens > 0 and res.completion_tokens == len(GOOD_TEXT) // 2


@pytest.mark.parametrize("text", [
    "```json\n" + GOOD_TEXT + "\n```",
    "好的，目录如下：\n" + GOOD_TEXT + "\n以上。",
    "<think>先想想 {大括号}</think>" + GOOD_TEXT,
    GOOD_TEXT.replace('"设计"}', '"设计",}').replace("]}]}", "],},],}"),
    GOOD_TEXT.replace('"', "'"),
    GOOD_TEXT.replace("{", "{ // 注释\n", 1),
    GOOD_TEXT.replace('"children"', '"child"'),
], ids=["fence", "prose", "think", "trailing_commas", "single_quotes", "comments", "child_alias"])
async def test_fixed_locally_without_second_call(client: LLMClient, llm_server: OpenAIServer, text: str) -> None:
    llm_server.push(text)
    res = await collect_json(client, MESSAGES, Doc)
    assert res.ok, res.issues
    assert res.value is not None and res.value.model_dump() == Doc.model_validate(GOOD_DOC).model_dump()
    assert len(llm_server.completion_requests) == 1 and res.model_repairs == 0


async def test_missing_field_gets_targeted_repair(client: LLMClient, llm_server: OpenAIServer) -> None:
    bad = json.dumps({"outline": [{"title": "技术方案", "description": "方案", "children": [
        {"title": "总体设计", "description": "设计"}, {"title": "详细设计"}]}]}, ensure_ascii=False)
    llm_server.push(bad, GOOD_TEXT)
    res = await collect_json(client, MESSAGES, Doc, target_description="三级目录 JSON")
    assert res.ok and res.attempts == 2 and res.model_repairs == 1
    assert res.history[0] == ["outline.0.children.1.description: Field required"]
    repair = llm_server.completion_requests[1].messages
    assert repair[: len(MESSAGES)] == MESSAGES
    assert repair[-2] == {"role": "assistant", "content": bad}
    assert "outline.0.children.1.description: Field required" in repair[-1]["content"]
    assert "三级目录 JSON" in repair[-1]["content"]
    assert "最小" in repair[-1]["content"]
    assert res.raw_outputs == [bad, GOOD_TEXT]


async def test_syntax_and_schema_issues_both_reported(client: LLMClient, llm_server: OpenAIServer) -> None:
    bad = '{"outline": [\n  {"title": "甲",\n   "description" "缺冒号"}]}'  # repaired locally, still no children
    llm_server.push(bad, good_answer("good"))
    res = await collect_json(client, MESSAGES, OutlineDocument, rules=[outline_rules], normalizers=NORMALIZERS)
    assert res.ok
    ask = llm_server.completion_requests[1].messages[-1]["content"]
    assert "JSON 语法错误：第 3 行第 18 列附近 Expecting ':'" in ask
    assert "至少需要 2 个" in ask
    assert any("json-repair" in r for r in res.local_repairs)


async def test_too_shallow_outline_repaired_by_model(client: LLMClient, llm_server: OpenAIServer) -> None:
    shallow = '{"outline": [{"title": "项目理解"}, {"title": "技术方案"}]}'
    llm_server.push(shallow, good_answer("good"))
    res = await collect_json(client, MESSAGES, OutlineDocument, rules=[outline_rules])
    assert res.ok and res.model_repairs == 1
    assert res.value is not None and res.value.outline[0].depth() == 3
    assert "目录只有一级章节" in llm_server.completion_requests[1].messages[-1]["content"]


async def test_garbage_then_valid(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push("I am a language model and cannot help.", GOOD_TEXT)
    res = await collect_json(client, MESSAGES, Doc)
    assert res.ok and res.attempts == 2
    assert res.history[0] == ["没有找到 JSON 内容（输出中没有 { 或 [）"]


async def test_empty_answer_is_failure_then_asked_again(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push("", GOOD_TEXT)
    res = await collect_json(client, MESSAGES, Doc)
    assert res.ok and res.attempts == 2 and res.model_repairs == 0
    assert res.history[0] == [EMPTY_ISSUE]
    assert llm_server.completion_requests[1].messages == MESSAGES  # nothing to repair: same question


async def test_truncated_answer_asks_for_shorter_output(client: LLMClient, llm_server: OpenAIServer) -> None:
    good = good_answer("good")
    cut = good[: good.index("系统总体架构")]
    llm_server.push(Reply.truncated(cut), good)
    res = await collect_json(client, MESSAGES, OutlineDocument, rules=[outline_rules])
    assert res.ok and res.truncated
    assert TRUNCATED_ISSUE in res.history[0]


async def test_truncated_but_complete_enough_is_uncertain(client: LLMClient, llm_server: OpenAIServer) -> None:
    text = good_answer("good")
    cut = text[: text.rindex("身份认证") + 2]
    llm_server.push(Reply.truncated(cut))
    res = await collect_json(client, MESSAGES, OutlineDocument, rules=[outline_rules])
    assert res.ok and res.uncertain and res.truncated
    assert len(llm_server.completion_requests) == 1


async def test_circuit_breaker_on_identical_invalid_output(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.text('{"outline": []}')
    res = await collect_json(client, MESSAGES, OutlineDocument, rules=[outline_rules], max_attempts=5)
    assert not res.ok and res.value is None
    assert res.attempts == 2 and res.stopped_by == "circuit_breaker"
    assert res.issues[-1] == BREAKER_ISSUE
    assert len(llm_server.completion_requests) == 2


async def test_bounded_attempts_structured_failure(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push('{"outline": [{"title": "1"}]}', '{"outline": [{"title": "2"}]}', '{"outline": [{"title": "3"}]}')
    res = await collect_json(client, MESSAGES, OutlineDocument, rules=[outline_rules], max_attempts=3)
    assert not res.ok and res.attempts == 3 and res.stopped_by == "max_attempts"
    assert len(res.raw_outputs) == 3 and len(res.history) == 3
    assert any("只有数字或标点" in i for i in res.issues)
    assert "3 次尝试" in res.message_zh


async def test_config_error_is_raised(llm_server: OpenAIServer) -> None:
    llm_server.require_key = "right"
    c = make_client(llm_server, api_key="wrong")
    with pytest.raises(LLMConfigError):
        await collect_json(c, MESSAGES, Doc)
    await c.aclose()


async def test_connection_failure_is_a_result(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, max_retries=1)
    llm_server.default = Reply.error(502, "bad gateway")
    res = await collect_json(c, MESSAGES, Doc)
    await c.aclose()
    assert not res.ok and res.stopped_by == "connection"
    assert "502" in res.issues[0]


async def test_llama_cpp_500_inside_collect_json(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.reject_json_schema = "500"
    llm_server.push(GOOD_TEXT)
    res = await collect_json(client, MESSAGES, Doc)
    assert res.ok
    types = [r.body["response_format"]["type"] for r in llm_server.completion_requests]
    assert types == ["json_schema", "json_object"]
    assert "schema" in llm_server.completion_requests[1].body["response_format"]


async def test_without_response_format(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(GOOD_TEXT)
    res = await collect_json(client, MESSAGES, Doc, use_response_format=False)
    assert res.ok and "response_format" not in llm_server.completion_requests[0].body


async def test_journal_links_validation_to_calls(llm_server: OpenAIServer, tmp_path: Path) -> None:
    journal = CallJournal(tmp_path)
    c = make_client(llm_server, journal=journal)
    llm_server.push('{"outline": [{"title": "甲"}]}', GOOD_TEXT)
    res = await collect_json(c, MESSAGES, Doc, stage="outline")
    await c.aclose()
    entries = journal.entries()
    calls = [e for e in entries if e["kind"] == "call"]
    checks = [e for e in entries if e["kind"] == "validation"]
    assert [e["call_id"] for e in calls] == [e["call_id"] for e in checks] == res.call_ids
    assert [e["stage"] for e in calls] == ["outline", "outline/repair1"]
    assert checks[0]["repair_kind"] == "model_repair" and checks[0]["issues"] == res.history[0]
    assert checks[1]["ok"] is True and checks[1]["repair_kind"] == "none"


# ---------------------------------------------------------------- the corpus


CASES = load_cases()


@pytest.fixture(scope="module")
def corpus_server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as server:
        yield server


def test_corpus_is_big_enough() -> None:
    assert len(CASES) >= 30
    kinds = {c.kind for c in CASES}
    assert {"syntax", "fence", "prose", "field_names", "shallow", "mapping", "numbering", "truncation"} <= kinds


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_corpus_case(corpus_server: OpenAIServer, case: Case) -> None:
    corpus_server.requests.clear()
    script_server(corpus_server, case)
    c = make_client(corpus_server)
    res = await collect_json(c, MESSAGES, OutlineDocument, rules=rules_for(case), normalizers=NORMALIZERS,
                             max_attempts=3, stage="corpus")
    await c.aclose()
    calls = corpus_server.completion_requests
    if case.expect == "local":
        assert res.ok, res.issues
        assert len(calls) == 1 and res.model_repairs == 0
        assert res.uncertain == case.uncertain
    elif case.expect == "model_repair":
        assert res.ok, res.issues
        assert res.model_repairs == 1 and len(calls) == 2
        ask = calls[1].messages[-1]["content"]
        assert all(issue in ask for issue in res.history[0])  # the exact issues went back to the model
        assert calls[1].messages[-2]["role"] == "assistant"
    else:
        assert not res.ok and res.value is None
        assert res.issues and res.stopped_by == "circuit_breaker"
        assert len(calls) == 2
    if res.ok:
        assert res.value is not None
        assert outline_rules(res.value) == []
    assert res.attempts == len(res.raw_outputs) == len(calls)

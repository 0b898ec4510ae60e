"""The call journal: what it records, that it replays, and that it never holds a key."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.core.outline import OutlineDocument
from app.llm.client.errors import LLMConfigError, LLMConnectionError, LLMResponseError
from app.llm.client.journal import CallJournal, replay_request
from app.llm.client.llm_client import EndpointConfig, LLMClient, replay
from app.llm.client.response_format import FormatRegistry
from app.llm.json.collect import collect_json
from app.llm.json.wire_schema import wire_format  # bounded as the app sends it (storage holds 2000 chapters)
from tests.corpus_cases import good_answer
from tests.openai_server import OpenAIServer, Reply

KEY = "sk-ZEBRA-7f3a9c1d-DO-NOT-LEAK-42"
MESSAGES = [{"role": "system", "content": "只输出 JSON"}, {"role": "user", "content": "生成目录"}]


def make_client(server: OpenAIServer, journal: CallJournal, **kw: object) -> LLMClient:
    params: dict[str, object] = {"base_url": server.base_url, "api_key": KEY, "model": "test-model",
                                 "backoff_base": 0.01, "backoff_max": 0.02, "timeout": 5.0, "temperature": 0.2,
                                 "max_tokens": 999}
    params.update(kw)
    return LLMClient(EndpointConfig(**params), journal=journal, formats=FormatRegistry())  # type: ignore[arg-type]


async def test_call_entry_fields(llm_server: OpenAIServer, tmp_path: Path) -> None:
    journal = CallJournal(tmp_path / "run-1")
    c = make_client(llm_server, journal)
    llm_server.push(Reply.truncated("<think>想</think>部分", usage={"prompt_tokens": 10, "completion_tokens": 4,
                                                                   "total_tokens": 14}))
    comp = await c.complete(MESSAGES, stage="analysis")
    await c.aclose()
    assert journal.path == tmp_path / "run-1" / "llm_calls.jsonl"
    [entry] = journal.entries()
    assert entry["kind"] == "call" and entry["call_id"] == comp.call_id
    assert entry["stage"] == "analysis" and entry["model"] == "test-model"
    assert entry["request"]["messages"] == MESSAGES
    assert entry["request"]["temperature"] == 0.2 and entry["request"]["max_tokens"] == 999
    assert entry["request"]["response_format"] is None
    assert entry["raw_output"] == "<think>想</think>部分" and entry["text"] == "部分"
    assert entry["reasoning"] == "想"
    assert entry["finish_reason"] == "length" and entry["truncated"] is True
    assert entry["usage"] == {"prompt_tokens": 10, "completion_tokens": 4, "estimated": False}
    assert entry["latency_s"] >= 0 and entry["error"] is None


async def test_retries_formats_and_errors_are_recorded(llm_server: OpenAIServer, tmp_path: Path) -> None:
    journal = CallJournal(tmp_path)
    c = make_client(llm_server, journal, max_retries=1)
    llm_server.reject_json_schema = "500"
    llm_server.push(Reply.error(503, "busy"), Reply.text('{"outline": []}'))
    await c.complete(MESSAGES, response_format=wire_format(OutlineDocument))
    llm_server.default = Reply.error(502, "bad gateway")
    with pytest.raises(LLMConnectionError):
        await c.complete(MESSAGES, stage="second")
    await c.aclose()
    ok, failed = journal.entries()
    assert ok["request"]["response_format"]["type"] == "json_object"
    assert ok["rejected_formats"][0]["response_format"]["type"] == "json_schema"
    assert "literal_error" in ok["rejected_formats"][0]["error"]
    assert ok["retries"][0]["error"] == "HTTP 503" and ok["attempts"] == 2
    assert failed["stage"] == "second" and failed["error"]["type"] == "LLMConnectionError"
    assert "502" in failed["error"]["message"] and failed["attempts"] == 2


async def test_stream_and_cancel_recorded(llm_server: OpenAIServer, tmp_path: Path) -> None:
    journal = CallJournal(tmp_path)
    c = make_client(llm_server, journal)
    llm_server.push(Reply.text("流式答案", chunk_size=2), Reply.text("很长" * 500, chunk_size=2, chunk_delay=0.01))
    stream = c.stream(MESSAGES, stage="outline")
    _ = [p async for p in stream]
    got: list[str] = []

    async def consume() -> None:
        async for piece in c.stream(MESSAGES, stage="cancelled"):
            got.append(piece)

    task = asyncio.create_task(consume())
    while not got:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await c.aclose()
    done, cancelled = journal.entries()
    assert done["request"]["stream"] is True and done["raw_output"] == "流式答案"
    assert cancelled["error"]["type"] == "Cancelled"
    # The journal keeps what arrived from the server: what the caller read, and at most what the
    # stream's producer had already queued for it when the cancel came (whole pieces of the answer).
    raw, read = cancelled["raw_output"], "".join(got)
    assert raw.startswith(read) and len(raw) < len("很长" * 500)
    assert raw[len(read):].replace("很长", "") == ""


async def test_validation_entries(llm_server: OpenAIServer, tmp_path: Path) -> None:
    journal = CallJournal(tmp_path)
    c = make_client(llm_server, journal)
    llm_server.push("```json\n" + good_answer("good") + "\n```")
    res = await collect_json(c, MESSAGES, OutlineDocument, stage="outline")
    await c.aclose()
    assert res.ok
    call, check = journal.entries()
    assert check["kind"] == "validation" and check["call_id"] == call["call_id"]
    assert check["ok"] is True and check["issues"] == [] and check["repair_kind"] == "none"


async def test_replay_sends_the_same_request(llm_server: OpenAIServer, tmp_path: Path) -> None:
    journal = CallJournal(tmp_path)
    c = make_client(llm_server, journal, system_in_user=True)
    llm_server.reject_json_schema = "400"
    llm_server.default = Reply.text('{"outline": []}')
    await c.complete(MESSAGES, response_format=wire_format(OutlineDocument), temperature=0.7, max_tokens=55)
    await c.aclose()
    original = llm_server.completion_requests[-1].body
    entry = CallJournal.read(journal.path)[0]
    assert replay_request(entry) == {k: original[k] for k in ("model", "messages", "temperature", "max_tokens",
                                                              "response_format")}
    fresh = make_client(llm_server, CallJournal(tmp_path / "replay"))
    comp = await replay(fresh, entry)
    await fresh.aclose()
    again = llm_server.completion_requests[-1].body
    assert again == original
    assert comp.text == '{"outline": []}'


async def test_api_key_never_written(llm_server: OpenAIServer, tmp_path: Path) -> None:
    journal = CallJournal(tmp_path)
    c = make_client(llm_server, journal)
    # a server that echoes the key and the header back in its error text, and a reply quoting it
    llm_server.push(Reply.error(400, f"Invalid request from key {KEY} (Authorization: Bearer {KEY})"),
                    Reply.text(f"你的密钥是 {KEY}"))
    with pytest.raises(LLMResponseError):
        await c.complete(MESSAGES)
    await c.complete([*MESSAGES, {"role": "user", "content": f"key={KEY}"}])
    stream = c.stream(MESSAGES)
    llm_server.push(Reply.text("ok"))
    _ = [p async for p in stream]
    await c.aclose()
    bad = make_client(llm_server, journal, api_key="sk-WRONG-abcdef-777")
    llm_server.require_key = KEY
    with pytest.raises(LLMConfigError):
        await bad.complete(MESSAGES)
    await bad.aclose()
    content = journal.path.read_text("utf-8")
    assert len(journal.entries()) == 4
    assert KEY not in content and "ZEBRA-7f3a9c1d" not in content
    assert "sk-WRONG-abcdef-777" not in content
    assert "authorization" not in {k.lower() for e in journal.entries() for k in _keys(e)}
    assert "Bearer sk-" not in content
    # the requests did carry the key, so the test would notice a leak
    assert llm_server.completion_requests[0].headers["authorization"] == f"Bearer {KEY}"


def _keys(value: object) -> list[str]:
    if isinstance(value, dict):
        return [str(k) for k in value] + [k for v in value.values() for k in _keys(v)]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


def test_scrubs_header_like_fields(tmp_path: Path) -> None:
    journal = CallJournal(tmp_path, secrets=["topsecret-value"])
    journal.write({"headers": {"Authorization": "Bearer abcdefghijk", "X-Api-Key": "x", "accept": "json"},
                   "note": "token topsecret-value inside", "nested": [{"api_key": "k"}]})
    [entry] = journal.entries()
    assert entry["headers"] == {"accept": "json"}
    assert entry["note"] == "token *** inside"
    assert entry["nested"] == [{}]


def test_torn_last_line_is_skipped(tmp_path: Path) -> None:
    journal = CallJournal(tmp_path)
    journal.write({"kind": "call", "n": 1})
    with journal.path.open("a", encoding="utf-8") as fh:
        fh.write('{"kind": "call", "n": ')
    assert [e["n"] for e in journal.entries()] == [1]
    assert json.loads(journal.path.read_text("utf-8").splitlines()[0])["n"] == 1

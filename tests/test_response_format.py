"""The response-format ladder: detection of refusals, downgrade order, memory, persistence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from app.core.limits import STORED
from app.core.outline import OutlineDocument
from app.llm.client.errors import LLMConfigError, LLMConnectionError
from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.llm.client.response_format import (
    FormatLevel,
    FormatRegistry,
    is_format_rejection,
    json_schema_format,
    ladder,
    level_of,
    strict_schema,
)
from tests.openai_server import LLAMA_CPP_500_BODY, OpenAIServer, RecordedRequest, Reply

USER = [{"role": "user", "content": "输出 JSON"}]


class Item(BaseModel):
    """A tiny target model."""

    name: str = Field(min_length=1)
    tags: list[str] = Field(default_factory=list, max_length=3)


FMT = json_schema_format(Item)


def make_client(server: OpenAIServer, registry: FormatRegistry, model: str = "test-model") -> LLMClient:
    cfg = EndpointConfig(base_url=server.base_url, api_key="k", model=model, backoff_base=0.01, backoff_max=0.02)
    return LLMClient(cfg, formats=registry)


def sent_formats(server: OpenAIServer) -> list[Any]:
    return [r.body.get("response_format") for r in server.completion_requests]


@pytest.mark.parametrize("mode", ["400", "500"])
async def test_json_schema_rejection_falls_back_and_is_remembered(llm_server: OpenAIServer, mode: str) -> None:
    llm_server.reject_json_schema = mode
    registry = FormatRegistry()
    c = make_client(llm_server, registry)
    llm_server.push(Reply.text('{"name": "a"}'), Reply.text('{"name": "b"}'))
    first = await c.complete(USER, response_format=FMT)
    second = await c.complete(USER, response_format=FMT)
    await c.aclose()
    formats = sent_formats(llm_server)
    assert [f["type"] for f in formats] == ["json_schema", "json_object", "json_object"]
    assert formats[1]["schema"] == FMT["json_schema"]["schema"]  # llama.cpp extension carries the schema
    assert first.response_format == formats[1] and second.response_format == formats[2]
    assert first.text == '{"name": "a"}' and second.text == '{"name": "b"}'
    assert registry.start_level(llm_server.base_url, "test-model") == FormatLevel.JSON_OBJECT_SCHEMA


async def test_llama_cpp_500_is_not_retried_as_server_error(llm_server: OpenAIServer) -> None:
    llm_server.reject_json_schema = "500"
    c = make_client(llm_server, FormatRegistry())
    llm_server.push(Reply.text('{"name": "a"}'))
    await c.complete(USER, response_format=FMT)
    await c.aclose()
    # exactly one refused json_schema request: a downgrade, not a retry of the same thing
    assert sum(1 for f in sent_formats(llm_server) if f["type"] == "json_schema") == 1
    assert "literal_error" in LLAMA_CPP_500_BODY["error"]["message"]


async def test_plain_500_is_retried_not_downgraded(llm_server: OpenAIServer) -> None:
    registry = FormatRegistry()
    c = make_client(llm_server, registry)
    llm_server.push(Reply.error(500, "CUDA out of memory"), Reply.text('{"name": "a"}'))
    comp = await c.complete(USER, response_format=FMT)
    await c.aclose()
    assert [f["type"] for f in sent_formats(llm_server)] == ["json_schema", "json_schema"]
    assert comp.response_format == FMT
    assert registry.start_level(llm_server.base_url, "test-model") == FormatLevel.JSON_SCHEMA


async def test_whole_ladder_down_to_none_and_never_loops(llm_server: OpenAIServer) -> None:
    def no_structured_output(req: RecordedRequest) -> Reply:
        if req.body.get("response_format"):
            return Reply.error(422, "Unprocessable: response_format is not supported by this backend")
        return Reply.text('{"name": "plain"}')

    llm_server.handler = no_structured_output
    registry = FormatRegistry()
    c = make_client(llm_server, registry)
    comp = await c.complete(USER, response_format=FMT)
    assert comp.response_format is None and comp.text == '{"name": "plain"}'
    formats = sent_formats(llm_server)
    assert [level_of(f) for f in formats] == [FormatLevel.JSON_SCHEMA, FormatLevel.JSON_OBJECT_SCHEMA,
                                              FormatLevel.JSON_OBJECT, FormatLevel.NONE]
    assert registry.start_level(llm_server.base_url, "test-model") == FormatLevel.NONE
    await c.complete(USER, response_format=FMT)
    await c.aclose()
    assert len(llm_server.completion_requests) == 5  # the second call went straight to "none"
    assert "response_format" not in llm_server.completion_requests[-1].body


async def test_learning_is_per_model(llm_server: OpenAIServer) -> None:
    llm_server.reject_json_schema = "400"
    registry = FormatRegistry()
    a = make_client(llm_server, registry, model="model-a")
    b = make_client(llm_server, registry, model="model-b")
    llm_server.default = Reply.text('{"name": "x"}')
    await a.complete(USER, response_format=FMT)
    await b.complete(USER, response_format=FMT)
    await a.aclose()
    await b.aclose()
    assert [f["type"] for f in sent_formats(llm_server)] == ["json_schema", "json_object", "json_schema", "json_object"]
    assert registry.start_level(llm_server.base_url, "model-a") == FormatLevel.JSON_OBJECT_SCHEMA
    assert registry.start_level(llm_server.base_url, "other") == FormatLevel.JSON_SCHEMA


async def test_registry_persists_to_file(llm_server: OpenAIServer, tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "formats.json"
    llm_server.reject_json_schema = "500"
    llm_server.default = Reply.text('{"name": "x"}')
    c = make_client(llm_server, FormatRegistry(path))
    await c.complete(USER, response_format=FMT)
    await c.aclose()
    assert path.is_file()
    assert json.loads(path.read_text("utf-8")) == {f"{llm_server.base_url}|test-model": int(FormatLevel.JSON_OBJECT_SCHEMA)}
    fresh = make_client(llm_server, FormatRegistry(path))
    await fresh.complete(USER, response_format=FMT)
    await fresh.aclose()
    assert sent_formats(llm_server)[-1]["type"] == "json_object"
    assert len(llm_server.completion_requests) == 3  # no second refusal after the restart


def test_corrupt_registry_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "formats.json"
    path.write_text("{not json", "utf-8")
    assert FormatRegistry(path).start_level("http://x", "m") == FormatLevel.JSON_SCHEMA


async def test_404_naming_response_format_downgrades(llm_server: OpenAIServer) -> None:
    def handler(req: RecordedRequest) -> Reply:
        if (req.body.get("response_format") or {}).get("type") == "json_schema":
            return Reply.error(404, "json_schema response format not found for this route")
        return Reply.text('{"name": "x"}')

    llm_server.handler = handler
    c = make_client(llm_server, FormatRegistry())
    comp = await c.complete(USER, response_format=FMT)
    await c.aclose()
    assert comp.response_format is not None and comp.response_format["type"] == "json_object"


async def test_404_about_model_is_config_error_even_with_format(llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.error(404, "model 'test-model' not found")
    c = make_client(llm_server, FormatRegistry())
    with pytest.raises(LLMConfigError):
        await c.complete(USER, response_format=FMT)
    await c.aclose()
    assert len(llm_server.completion_requests) == 1


async def test_stream_uses_ladder_too(llm_server: OpenAIServer) -> None:
    llm_server.reject_json_schema = "500"
    llm_server.push(Reply.text('{"name": "s"}'))
    c = make_client(llm_server, FormatRegistry())
    stream = c.stream(USER, response_format=FMT)
    assert "".join([p async for p in stream]) == '{"name": "s"}'
    await c.aclose()
    assert stream.result.response_format is not None
    assert [f["type"] for f in sent_formats(llm_server)] == ["json_schema", "json_object"]


async def test_server_errors_after_downgrade_still_bounded(llm_server: OpenAIServer) -> None:
    llm_server.reject_json_schema = "500"
    llm_server.default = Reply.error(503, "overloaded")
    c = make_client(llm_server, FormatRegistry())
    with pytest.raises(LLMConnectionError):
        await c.complete(USER, response_format=FMT)
    await c.aclose()
    assert len(llm_server.completion_requests) == 1 + 4  # one refusal, then 1 + 3 retries


# ---------------------------------------------------------------- pure functions


def test_ladder_order_and_start() -> None:
    full = ladder(FMT, FormatLevel.JSON_SCHEMA)
    assert [level_of(f) for f in full] == [3, 2, 1, 0]
    assert ladder(FMT, FormatLevel.JSON_OBJECT) == [{"type": "json_object"}, None]
    assert ladder({"type": "json_object"}, FormatLevel.JSON_SCHEMA) == [{"type": "json_object"}, None]


@pytest.mark.parametrize(("status", "body", "sent", "expected"), [
    (500, json.dumps(LLAMA_CPP_500_BODY), FMT, True),
    (500, "internal error", FMT, False),
    (502, "response_format", None, False),
    (400, "response_format type json_schema is not supported", FMT, True),
    (400, "invalid request", FMT, True),
    (400, "maximum context length exceeded: too many tokens", FMT, False),
    (422, "json_schema: unknown field", FMT, True),
    (404, "model not found", FMT, False),
    (429, "response_format", FMT, False),
])
def test_is_format_rejection(status: int, body: str, sent: dict[str, Any] | None, expected: bool) -> None:
    assert is_format_rejection(status, body, sent) is expected


def test_strict_schema_closes_every_object() -> None:
    schema = strict_schema(OutlineDocument)
    node = schema["$defs"]["OutlineNode"]
    assert node["additionalProperties"] is False
    assert set(node["required"]) == set(node["properties"])
    assert "title" in node["properties"]  # a property named like a keyword survives
    assert schema["additionalProperties"] is False
    assert "default" not in json.dumps(schema)
    assert node["properties"]["children"]["maxItems"] == STORED.max_children

"""The client never sends a prompt that leaves no room for an answer (issue 30, attack 13).

llama.cpp answers a prompt past its context with nothing at all (or a 400). Every call goes
through one guard: with some room left, ``max_tokens`` is lowered so prompt + answer fit; with
less than a minimal answer's room the call is not sent and raises ``PromptTooLong`` with a
Chinese message naming the context size and what to do. Checked on the loopback server: what it
receives fits the advertised context, counted more conservatively than the client counts.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from app.llm.client.errors import LLMResponseError, PromptTooLong
from app.llm.json.collect import collect_json
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import make_client


def conservative_tokens(text: str) -> int:
    """A token per CJK character and per three other characters (real tokenizers do better)."""
    cjk = sum(1 for ch in text if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef")
    return cjk + (len(text) - cjk + 2) // 3


def fits(req: RecordedRequest, context: int) -> bool:
    """The prompt the server received plus the answer budget it was asked for, within ``context``."""
    framing = 4 * len(req.messages)
    return conservative_tokens(req.prompt_text) + framing + int(req.body.get("max_tokens") or 0) <= context


def _prompt(chars: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": ("请根据以下招标文件内容编写技术方案。" * (chars // 18 + 1))[:chars]}]


async def test_max_tokens_is_lowered_so_the_request_fits(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("好的"))
    async with make_client(llm_server, context_size=2048, max_tokens=1500) as client:
        comp = await client.complete(_prompt(1200))
    assert comp.text == "好的"
    (req,) = llm_server.completion_requests
    assert int(req.body["max_tokens"]) < 1500
    assert fits(req, 2048), (conservative_tokens(req.prompt_text), req.body["max_tokens"])


async def test_a_prompt_with_no_room_for_an_answer_is_not_sent(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text("不应发送"))
    async with make_client(llm_server, context_size=2048, max_tokens=800) as client:
        with pytest.raises(PromptTooLong) as err:
            await client.complete(_prompt(1900))
        stream = client.stream(_prompt(1900), stage="draft")
        with pytest.raises(PromptTooLong):
            async for _piece in stream:
                pass
        await stream.aclose()
    assert llm_server.completion_requests == []
    exc = err.value
    assert isinstance(exc, LLMResponseError)  # a failed call, not an internal error
    assert exc.context_size == 2048 and exc.prompt_tokens > 1900
    assert "提示词过长" in exc.message_zh and "2048 tokens" in exc.message_zh and "模型设置" in exc.message_zh


class _Answer(BaseModel):
    items: list[str]


async def test_a_repair_that_would_not_fit_asks_afresh_instead(llm_server: OpenAIServer) -> None:
    # the first answer is long and invalid: resending it with the question would overflow the context
    noise = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(1400))  # long, and not a loop
    llm_server.push(Reply.text('{"wrong": "' + noise + '"}'), Reply.text('{"items": ["甲", "乙"]}'))
    async with make_client(llm_server, context_size=2048, max_tokens=1600) as client:
        res = await collect_json(client, _prompt(300), _Answer, max_attempts=3, stage="json")
    assert res.ok and res.value is not None and res.value.items == ["甲", "乙"]
    reqs = llm_server.completion_requests
    assert len(reqs) == 2
    assert all(fits(r, 2048) for r in reqs)
    assert noise[:50] not in reqs[1].prompt_text  # asked afresh, not a repair carrying the answer


async def test_collect_json_reports_a_prompt_too_long_as_a_failed_call(llm_server: OpenAIServer) -> None:
    async with make_client(llm_server, context_size=1024) as client:
        res = await collect_json(client, _prompt(2000), _Answer, max_attempts=3, stage="json")
    assert not res.ok and res.stopped_by == "response"
    assert "提示词过长" in res.issues[0]
    assert llm_server.completion_requests == []

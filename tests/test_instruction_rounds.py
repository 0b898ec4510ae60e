"""Instruction rounds end to end through the local OpenAI-compatible server (streaming SSE)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.core.outline import Outline, OutlineDocument
from app.core.stream_events import (
    Done,
    Instruction,
    InstructionApplied,
    InstructionRejected,
    RoundStarted,
    StreamError,
    StreamWarning,
    Thinking,
)
from app.llm.client.errors import LLMConfigError
from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.llm.client.response_format import FormatRegistry
from app.llm.instructions.apply import InstructionApplier
from app.llm.instructions.rounds import run_instruction_rounds
from app.llm.instructions.stream import parse_text
from tests.openai_server import OpenAIServer, Reply

MESSAGES = [{"role": "system", "content": "你是投标专家。"}, {"role": "user", "content": "请输出技术标目录指令。"}]


def line(op: str, path: str = "", value: Any = None, **extra: Any) -> str:
    obj: dict[str, Any] = {"op": op}
    if path:
        obj["path"] = path
    if value is not None:
        obj["value"] = value
    obj.update(extra)
    return json.dumps(obj, ensure_ascii=False)


def chapter_lines(i: int, sections: int = 2, points: int = 2) -> list[str]:
    """Instructions building chapter ``i`` (appended at index ``i``) with sections and points."""
    out = [f"第 {i + 1} 章写主题{i}。", line("append", "/outline", {"title": f"主题{i}方案", "description": f"主题{i}的总体思路"})]
    for j in range(sections):
        out.append(line("append", f"/outline/{i}/children", {"title": f"主题{i}措施{j}"}))
        for k in range(points):
            out.append(line("append", f"/outline/{i}/children/{j}/children", {"title": f"主题{i}措施{j}细则{k}"}))
    return out


def script(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def make_client(server: OpenAIServer, **kw: Any) -> LLMClient:
    params: dict[str, Any] = {"base_url": server.base_url, "api_key": "k", "model": "test-model",
                              "backoff_base": 0.01, "backoff_max": 0.05, "timeout": 5.0, "max_retries": 1}
    params.update(kw)
    return LLMClient(EndpointConfig(**params), formats=FormatRegistry())


@pytest.fixture
async def client(llm_server: OpenAIServer) -> AsyncIterator[LLMClient]:
    c = make_client(llm_server)
    yield c
    await c.aclose()


class Balanced:
    """Tree listener checking that every "before" is followed by its "after"."""

    def __init__(self, outline: Outline) -> None:
        self.open: list[object] = []
        self.count = 0
        outline.subscribe(self)

    def __call__(self, phase: str, event: object) -> None:
        if phase == "before":
            assert not self.open, "nested change"
            self.open.append(event)
        else:
            assert self.open == [event]
            self.open.clear()
            self.count += 1


async def test_single_round_fills_the_tree_live(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text(script(*chapter_lines(0), *chapter_lines(1), line("done")), chunk_size=5))
    outline = Outline()
    balanced = Balanced(outline)
    events: list[Any] = []
    result = await run_instruction_rounds(client, MESSAGES, outline, on_event=events.append)
    assert result.valid and result.rounds == 1 and result.issues == []
    assert result.applied == 2 * (1 + 2 + 4) and result.rejected == 0
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert [c.title for c in outline.chapters] == ["主题0方案", "主题1方案"]
    assert outline.chapters[1].children[1].children[0].id == "2.2.1"  # renumbered by code
    assert balanced.count >= result.applied and not balanced.open
    assert isinstance(events[0], RoundStarted) and isinstance(events[-1], Done) and events[-1].valid
    assert any(isinstance(e, Thinking) and "主题1" in e.text for e in events)
    assert sum(isinstance(e, InstructionApplied) for e in events) == result.applied + 1  # + done
    body = llm_server.completion_requests[0].body
    assert body["stream"] is True and body["messages"] == MESSAGES


async def test_repair_round_gets_issues_and_rejections(client: LLMClient, llm_server: OpenAIServer) -> None:
    first = [*chapter_lines(0), *chapter_lines(1)]
    twin = first.index(line("append", "/outline/1/children/1/children", {"title": "主题1措施1细则1"}))
    first[twin] = line("append", "/outline/1/children/1/children", {"title": "主题1措施1细则0"})  # a repeated sibling
    bad = line("set", "/outline/0/title", 42)
    llm_server.push(
        Reply.text(script(*first, bad, line("done"))),
        Reply.text(script("改一个细则。", line("set", "/outline/1/children/1/children/1/title", "补充细则"), line("done"))),
    )
    outline = Outline()
    events: list[Any] = []
    result = await run_instruction_rounds(client, MESSAGES, outline, on_event=events.append)
    assert result.valid and result.rounds == 2
    assert [s.kind for s in result.round_stats] == ["initial", "repair"]
    assert [s.rejected for s in result.round_stats] == [1, 0]
    repair = llm_server.completion_requests[1]
    assert [m["role"] for m in repair.messages] == ["system", "user"]  # roles keep alternating
    text = repair.prompt_text
    assert "/outline/1/children/1/children/1/title" in text and "与同级第 1 项重复" in text
    assert bad in text and "应为字符串，实际是整数" in text
    assert "/outline/1/children/1  标题：主题1措施1" in text  # the listing gives paths
    assert [c.title for c in outline.chapters[1].children[1].children] == ["主题1措施1细则0", "补充细则"]
    rejected = [e for e in events if isinstance(e, InstructionRejected)]
    assert len(rejected) == 1 and rejected[0].round == 1


async def test_truncation_continues_from_current_state(client: LLMClient, llm_server: OpenAIServer) -> None:
    cut = '{"op":"append","path":"/outline/1/children","value":{"title":"主题1措'
    llm_server.push(
        Reply.truncated(script(*chapter_lines(0), *chapter_lines(1)[:2]) + cut),
        Reply.text(script("接着写。", *chapter_lines(1)[2:], line("done"))),
    )
    outline = Outline()
    events: list[Any] = []
    result = await run_instruction_rounds(client, MESSAGES, outline, on_event=events.append)
    assert result.valid, result.issues
    assert [s.kind for s in result.round_stats] == ["initial", "continue"]
    first = result.round_stats[0]
    assert first.truncated and first.finish_reason == "length" and not first.done
    assert [r.truncated for r in first.rejections] == [True]
    prompt = llm_server.completion_requests[1].prompt_text
    assert "被截断" in prompt and cut in prompt and "/outline/1  标题：主题1方案" in prompt
    assert [c.title for c in outline.chapters[1].children] == ["主题1措施0", "主题1措施1"]
    # the cut instruction was never applied half-way
    assert all(c.title != "主题1措" for c in outline.chapters[1].children)


async def test_missing_done_and_incomplete_means_continue(client: LLMClient, llm_server: OpenAIServer) -> None:
    first = chapter_lines(0)
    llm_server.push(
        Reply.text(script(*first[:2])),  # cut after the first chapter's title: nothing below it yet
        Reply.text(script(*first[2:], *chapter_lines(1), line("done"))),
    )
    outline = Outline()
    result = await run_instruction_rounds(client, MESSAGES, outline)
    assert result.valid and [s.kind for s in result.round_stats] == ["initial", "continue"]
    assert "下没有任何子项" in llm_server.completion_requests[1].prompt_text


async def test_missing_done_but_complete_is_accepted_with_warning(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text(script(*chapter_lines(0), *chapter_lines(1))))
    events: list[Any] = []
    result = await run_instruction_rounds(client, MESSAGES, Outline(), on_event=events.append)
    assert result.valid and result.rounds == 1
    assert any(isinstance(e, StreamWarning) and "done" in e.message for e in events)


async def test_dropped_connection_is_continued(client: LLMClient, llm_server: OpenAIServer) -> None:
    text = script(*chapter_lines(0), *chapter_lines(1))
    llm_server.push(
        Reply.dropped(text, after=len(script(*chapter_lines(0))) + 10),
        Reply.text(script(*chapter_lines(1), line("done"))),
    )
    outline = Outline()
    events: list[Any] = []
    result = await run_instruction_rounds(client, MESSAGES, outline, on_event=events.append)
    assert result.valid, result.issues
    assert result.round_stats[0].connection_cut and result.round_stats[1].kind == "continue"
    assert any(isinstance(e, StreamWarning) and "连接中断" in e.message for e in events)
    assert len(outline.chapters) == 2


async def test_errors_are_counted_per_round(client: LLMClient, llm_server: OpenAIServer) -> None:
    """NovelForge pitfall 6: a rejected round's errors must not leak into later rounds."""
    base = [*chapter_lines(0), *chapter_lines(1)]
    twin = base.index(line("append", "/outline/1/children/1/children", {"title": "主题1措施1细则1"}))
    base[twin] = line("append", "/outline/1/children/1/children", {"title": "主题1措施1细则0"})  # a repeated sibling
    bad_a = line("set", "/outline/9/title", "甲")
    bad_b = line("set", "/outline/0/nickname", "乙")
    llm_server.push(
        Reply.text(script(*base, bad_a, bad_a, line("done"))),
        Reply.text(script(bad_b, line("done"))),
        Reply.text(script(line("set", "/outline/1/children/1/children/1/title", "补充细则"), line("done"))),
    )
    result = await run_instruction_rounds(client, MESSAGES, Outline())
    assert result.valid and result.rounds == 3
    assert [s.rejected for s in result.round_stats] == [2, 1, 0]
    assert all(s.done for s in result.round_stats)
    third = llm_server.completion_requests[2].prompt_text
    assert bad_b in third and bad_a not in third
    second = llm_server.completion_requests[1].prompt_text
    assert bad_a in second


async def test_run_of_rejections_ends_round_early(client: LLMClient, llm_server: OpenAIServer) -> None:
    junk = [line("set", f"/outline/{i}/title", "x") for i in range(5)]
    llm_server.push(
        Reply.text(script(*junk, *chapter_lines(0), *chapter_lines(1), line("done"))),
        Reply.text(script(*chapter_lines(0), *chapter_lines(1), line("done"))),
    )
    result = await run_instruction_rounds(client, MESSAGES, Outline(), max_rejected_in_row=5)
    first = result.round_stats[0]
    assert first.ended_early and first.rejected == 5 and first.applied == 0
    assert result.valid and result.round_stats[1].kind == "repair"


async def test_rounds_are_bounded(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.text(script(line("append", "/outline", {"title": "唯一一章"}), line("done")))
    events: list[Any] = []
    result = await run_instruction_rounds(client, MESSAGES, Outline(), max_rounds=2, on_event=events.append)
    assert not result.valid and result.rounds == 3 and result.issues
    assert isinstance(events[-1], Done) and not events[-1].valid and events[-1].issues


async def test_locked_paths_through_rounds(client: LLMClient, llm_server: OpenAIServer) -> None:
    outline = Outline()
    setup = InstructionApplier(outline)
    for ev in parse_text(script(*[ln for ln in chapter_lines(0) + chapter_lines(1) if "细则" not in ln and "措施" not in ln])):
        if isinstance(ev, Instruction):
            setup.apply(ev)
    applier = InstructionApplier(outline, locked=["/outline/*/title"], lock_reason="一级标题对应评分项")
    body = [ln for ln in chapter_lines(0) + chapter_lines(1) if '"path": "/outline",' not in ln]
    llm_server.push(Reply.text(script(line("set", "/outline/0/title", "改名"), *body, line("done"))))
    result = await run_instruction_rounds(client, MESSAGES, outline, applier)
    assert result.valid and result.round_stats[0].rejected == 1
    assert "已锁定" in result.round_stats[0].rejections[0].issue
    assert outline.chapters[0].title == "主题0方案"


async def test_connection_failure_is_a_result_not_a_crash(llm_server: OpenAIServer) -> None:
    c = make_client(llm_server, max_retries=0)
    llm_server.push(Reply.error(500, "boom"))
    events: list[Any] = []
    outline = Outline()
    result = await run_instruction_rounds(c, MESSAGES, outline, on_event=events.append)
    await c.aclose()
    assert not result.valid and result.error and result.rounds == 1
    assert any(isinstance(e, StreamError) for e in events)


async def test_config_error_propagates(llm_server: OpenAIServer) -> None:
    llm_server.require_key = "right"
    c = make_client(llm_server, api_key="wrong")
    with pytest.raises(LLMConfigError):
        await run_instruction_rounds(c, MESSAGES, Outline())
    await c.aclose()


async def test_cancel_mid_stream_leaves_a_consistent_tree(client: LLMClient, llm_server: OpenAIServer) -> None:
    lines = [*chapter_lines(0, sections=4, points=3), *chapter_lines(1, sections=4, points=3), line("done")]
    llm_server.push(Reply.text(script(*lines), chunk_size=9, chunk_delay=0.01))
    outline = Outline()
    balanced = Balanced(outline)
    applied: list[InstructionApplied] = []
    enough = asyncio.Event()

    def on_event(ev: Any) -> None:
        if isinstance(ev, InstructionApplied):
            applied.append(ev)
            if len(applied) == 6:
                enough.set()

    task = asyncio.create_task(run_instruction_rounds(client, MESSAGES, outline, on_event=on_event))
    await asyncio.wait_for(enough.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    n = len(applied)
    assert 6 <= n < len(lines) - 3
    assert not balanced.open  # no change was left half-done
    OutlineDocument.model_validate(outline.to_data())
    # exactly the applied instructions are in the tree, in order
    expected = Outline()
    replay = InstructionApplier(expected)
    for ev in applied:
        replay.apply(ev.instruction)
    assert outline.to_data() == expected.to_data()
    req = llm_server.completion_requests[0]
    for _ in range(200):
        if req.finished:
            break
        await asyncio.sleep(0.01)
    assert req.disconnected


@pytest.mark.parametrize("chunk_size", [1, 4, 33, 5000])
async def test_same_tree_and_events_for_any_sse_chunking(client: LLMClient, llm_server: OpenAIServer,
                                                        chunk_size: int) -> None:
    pretty = '{\n  "op": "set",\n  "path": "/outline/0/description",\n  "value": "多行 {写法}",\n}\n'
    text = script(*chapter_lines(0), "思考 {title} 与 \\", pretty.rstrip("\n"), *chapter_lines(1), line("done"))
    llm_server.push(Reply.text(text, chunk_size=chunk_size))
    outline = Outline()
    events: list[Any] = []
    result = await run_instruction_rounds(client, MESSAGES, outline, on_event=events.append)
    assert result.valid and result.rounds == 1
    assert outline.chapters[0].description == "多行 {写法}"
    reference = Outline()
    ref_events: list[Any] = []
    applier = InstructionApplier(reference)
    for ev in parse_text(text):
        if isinstance(ev, Thinking):
            ref_events.append(ev)
        elif isinstance(ev, Instruction):
            ref_events.append(applier.apply(ev))
    reference.renumber()
    assert outline.to_data() == reference.to_data()
    got = [e for e in events if isinstance(e, (Thinking, InstructionApplied, InstructionRejected))]
    assert [type(e).__name__ for e in got] == [type(e).__name__ for e in ref_events]

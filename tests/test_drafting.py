"""Section drafting engine against the local OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.core.breakdown import Breakdown, BreakdownItem, RiskItem
from app.core.drafting_state import DraftingState, SectionDraft
from app.core.outline import Outline, OutlineNode
from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.pipeline.drafting.context import SectionRequest, section_requests
from app.pipeline.drafting.engine import DraftingEngine, DuplicateWarning, find_duplicates
from app.pipeline.drafting.text import (
    clean_markdown,
    drop_repeated_lines,
    is_looping,
    refusal_reason,
    seam_overlap,
)
from tests.openai_server import OpenAIServer, RecordedRequest, Reply

LEAVES = ["配送时间安排", "配送车辆管理", "冷链温控措施", "人员健康管理", "食品留样制度", "应急补货流程"]


def _outline() -> Outline:
    chapter = OutlineNode(id="1", title="配送服务方案", source_requirement_id="R1", children=[
        OutlineNode(id="1.1", title="配送组织", children=[
            OutlineNode(id=f"1.1.{i + 1}", title=t, description=f"写明{t}的具体做法") for i, t in enumerate(LEAVES[:3])
        ]),
        OutlineNode(id="1.2", title="质量保障", children=[
            OutlineNode(id=f"1.2.{i + 1}", title=t) for i, t in enumerate(LEAVES[3:])
        ]),
    ])
    return Outline([chapter])


ANALYSIS = Analysis(
    overview=ProjectOverview(project_name="职工食堂食品配送服务项目", buyer="某市税务局", summary="为食堂配送食材一年"),
    groups=[ScoringGroup(id="R1", title="配送方案", points=12, detail_points=["配送时间合理得4分", "冷链措施完善得4分"])],
)
BREAKDOWN = Breakdown(
    status="executable",
    tasks=[BreakdownItem(text="说明配送车辆的冷链温控措施", page=13)],
    risks=[RiskItem(text="3.▲送货车辆须用冷藏车配送，保证冷链不中断", page=28, mark="▲", origin="code", category="scoring")],
)


def _requests(**kw: object) -> list[SectionRequest]:
    return section_requests(_outline(), ANALYSIS, BREAKDOWN, **kw)  # type: ignore[arg-type]


def _title_of(req: RecordedRequest) -> str:
    m = re.search(r"【本节标题】(\S+)", req.prompt_text)
    return m.group(1) if m else ""


def _distinct_text(title: str, n: int = 12) -> str:
    """Text unique to one section (so the duplicate guard stays quiet)."""
    return "".join(f"{title}第{i}条措施由专人负责，编号{hash((title, i)) % 9973}。" for i in range(n))


@pytest.fixture
async def client(llm_server: OpenAIServer) -> AsyncIterator[LLMClient]:
    c = LLMClient(EndpointConfig(base_url=llm_server.base_url, api_key="k", model="test-model", max_retries=0,
                                 backoff_base=0.01, concurrency=4))
    yield c
    await c.aclose()


def _collect(engine: DraftingEngine) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {}

    def on_state(d: SectionDraft) -> None:
        seen.setdefault(d.key, []).append(d.status)

    engine.on_state = on_state
    return seen


async def test_prompt_carries_the_section_context(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text(_distinct_text("配送时间安排")))
    req = next(r for r in _requests(guidance="突出本地化服务", target_chars=600) if r.title == "冷链温控措施")
    engine = DraftingEngine(client)
    state = await engine.run([req])
    prompt = llm_server.completion_requests[0].prompt_text
    for expected in ("职工食堂食品配送服务项目", "1 配送服务方案 > 1.1 配送组织 > 冷链温控措施", "配送时间安排",
                     "配送车辆管理", "R1 配送方案（12 分）", "冷链措施完善得4分", "▲送货车辆须用冷藏车",
                     "突出本地化服务", "约 600 字"):
        assert expected in prompt, expected
    assert "人员健康管理" not in prompt  # not a sibling
    assert state.sections["1.1.3"].status == "done"


@pytest.mark.parametrize(("engine_limit", "client_limit", "expected"), [(2, 4, 2), (None, 4, 3), (None, 1, 1)])
async def test_concurrency_limit_holds(llm_server: OpenAIServer, engine_limit: int | None, client_limit: int,
                                       expected: int) -> None:
    llm_server.handler = lambda req: Reply.text(_distinct_text(_title_of(req), 4), chunk_size=8, chunk_delay=0.03)
    async with LLMClient(EndpointConfig(base_url=llm_server.base_url, api_key="k", model="test-model",
                                        concurrency=client_limit)) as c:
        engine = DraftingEngine(c, concurrency=engine_limit)
        seen = _collect(engine)
        writing_now: list[int] = []
        engine.on_delta = lambda key, piece: writing_now.append(len(engine.state.by_status("writing")))
        state = await engine.run(_requests())
    assert engine.limit == expected
    assert llm_server.max_concurrent == expected
    assert max(writing_now) == expected
    assert all(d.status == "done" for d in state.sections.values()) and len(state.sections) == 6
    assert all(s[:3] == ["waiting", "writing", "done"] for s in seen.values())


async def _wait_for(cond: object, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not cond():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "condition not reached"
        await asyncio.sleep(0.01)


async def test_cancel_one_section_and_then_all(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.handler = lambda req: Reply.text(_distinct_text(_title_of(req), 20), chunk_size=4, chunk_delay=0.02)
    engine = DraftingEngine(client, concurrency=2)
    run = asyncio.create_task(engine.run(_requests()))
    st = engine.state.sections
    await _wait_for(lambda: "1.1.1" in st and len(st["1.1.1"].text) > 10)
    assert engine.cancel("1.1.1")
    await _wait_for(lambda: st["1.1.1"].status == "cancelled")
    partial = st["1.1.1"].text
    assert partial and not engine.cancel("1.1.1")
    await _wait_for(lambda: len(st["1.1.2"].text) > 10)
    engine.cancel_all()
    state = await run
    assert state.sections["1.1.1"].text == partial  # the partial text is kept
    statuses = {k: d.status for k, d in state.sections.items()}
    assert statuses["1.1.2"] == "cancelled" and "waiting" not in statuses.values() and "writing" not in statuses.values()
    assert sum(s == "cancelled" for s in statuses.values()) >= 4  # the queue was cancelled too
    await asyncio.sleep(0.2)
    assert len(llm_server.completion_requests) <= 4  # cancelled waiting sections never called the model
    assert all(r.finished for r in llm_server.completion_requests)


async def test_cancelling_the_run_task_cancels_every_section(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.handler = lambda req: Reply.text(_distinct_text(_title_of(req), 20), chunk_size=4, chunk_delay=0.02)
    engine = DraftingEngine(client, concurrency=2)
    run = asyncio.create_task(engine.run(_requests()))
    await _wait_for(lambda: len(engine.state.by_status("writing")) == 2)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert set(engine.state.by_status("cancelled")) == {r.key for r in _requests()}
    assert engine.running == []


async def test_a_second_run_joins_the_active_queue(llm_server: OpenAIServer) -> None:
    llm_server.handler = lambda req: Reply.text(_distinct_text(_title_of(req), 4), chunk_size=8, chunk_delay=0.02)
    requests = _requests()
    async with LLMClient(EndpointConfig(base_url=llm_server.base_url, api_key="k", model="test-model",
                                        concurrency=4)) as c:
        engine = DraftingEngine(c, concurrency=1)
        first = asyncio.create_task(engine.run(requests[:2]))
        await _wait_for(lambda: engine.running == ["1.1.1", "1.1.2"])
        second = asyncio.create_task(engine.run(requests[1:3]))  # 1.1.2 is already queued: not reset
        await _wait_for(lambda: "1.1.3" in engine.running)
        assert engine.running == ["1.1.1", "1.1.2", "1.1.3"]
        await asyncio.gather(first, second)
    assert llm_server.max_concurrent == 1
    assert [engine.state.sections[r.key].status for r in requests[:3]] == ["done"] * 3
    assert len(llm_server.completion_requests) == 3 and engine.running == []


async def test_resume_after_reloading_saved_state(client: LLMClient, llm_server: OpenAIServer) -> None:
    requests = _requests()[:2]
    llm_server.handler = lambda req: Reply.text(_distinct_text(_title_of(req), 30), chunk_size=4, chunk_delay=0.02)
    engine = DraftingEngine(client, concurrency=1)
    run = asyncio.create_task(engine.run(requests))
    await _wait_for(lambda: "1.1.1" in engine.state.sections and len(engine.state.sections["1.1.1"].text) > 20)
    engine.cancel_all()
    await run
    saved = engine.state.model_dump_json()
    partial = engine.state.sections["1.1.1"].text

    reloaded = DraftingState.model_validate_json(saved)
    assert reloaded.unfinished() == ["1.1.1", "1.1.2"]
    assert reloaded.sections["1.1.1"].to_section_state().status == "queued"
    llm_server.handler = None
    llm_server.push(Reply.text("后续内容：车辆每日出车前检查。"), Reply.text(_distinct_text("配送车辆管理")))
    before = len(llm_server.completion_requests)
    engine2 = DraftingEngine(client, state=reloaded, concurrency=1)
    state = await engine2.resume(_requests())  # only the unfinished two are sent
    first = llm_server.completion_requests[before]
    assert first.messages[-2] == {"role": "assistant", "content": partial}
    assert "接着写" in first.messages[-1]["content"]
    assert state.sections["1.1.1"].status == "done"
    assert state.sections["1.1.1"].text.startswith(partial[:20]) and state.sections["1.1.1"].text.endswith("出车前检查。")
    assert len(llm_server.completion_requests) == before + 2


async def test_truncation_continues_from_where_it_stopped(client: LLMClient, llm_server: OpenAIServer) -> None:
    first = "我公司配送车辆统一采用冷藏车，车厢温度全程记录，"
    llm_server.push(Reply.truncated(first), Reply.text("温度全程记录，每日出车前由专人检查制冷设备。"))
    engine = DraftingEngine(client)
    state = await engine.run(_requests()[:1])
    d = state.sections["1.1.1"]
    assert d.status == "done" and d.continuations == 1
    assert d.text == first + "每日出车前由专人检查制冷设备。"  # the repeated seam is cut
    second = llm_server.completion_requests[1]
    assert second.messages[-2]["content"] == first


async def test_endless_truncation_stops_after_bounded_continuations(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.handler = lambda req: Reply.truncated(f"第{len(llm_server.completion_requests)}段内容较长需要继续。")
    engine = DraftingEngine(client, max_continuations=2)
    state = await engine.run(_requests()[:1])
    assert len(llm_server.completion_requests) == 3
    assert state.sections["1.1.1"].status == "done" and "不完整" in state.sections["1.1.1"].error


async def test_looping_model_is_stopped_mid_stream_and_never_accepted(client: LLMClient,
                                                                      llm_server: OpenAIServer) -> None:
    loop = "我公司配送车辆每日出车前统一消毒并记录。\n" + "配送人员持证上岗，统一着装并佩戴工牌。\n" * 40
    llm_server.push(Reply.truncated(loop, chunk_size=4, chunk_delay=0.005))
    request = replace(_requests()[0], existing="原有正文：配送车辆每日消毒。")
    state = await DraftingEngine(client).run([request])
    d = state.sections["1.1.1"]
    assert len(llm_server.completion_requests) == 1  # no continuation of a loop
    first = llm_server.completion_requests[0]
    for _ in range(200):  # the server notices the closed socket on its next write
        if first.disconnected:
            break
        await asyncio.sleep(0.01)
    assert first.disconnected  # cut while streaming, not read to the end
    assert d.status == "failed" and "重复" in d.error
    assert d.text == "原有正文：配送车辆每日消毒。"  # the section keeps its text
    assert "统一着装并佩戴工牌" in d.rejected_text and d.rejected_text.count("佩戴工牌") < 40


async def test_a_few_repeated_lines_are_dropped_not_rejected(client: LLMClient, llm_server: OpenAIServer) -> None:
    text = "我公司配送车辆每日出车前统一消毒并记录。\n" + "配送人员持证上岗，统一着装。\n" * 3
    llm_server.push(Reply.text(text))
    state = await DraftingEngine(client).run(_requests()[:1])
    d = state.sections["1.1.1"]
    assert d.status == "done" and d.text == "我公司配送车辆每日出车前统一消毒并记录。\n配送人员持证上岗，统一着装。"
    assert "重复" in d.error


async def test_numbering_loop_never_replaces_text(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.truncated("1.1." * 400, chunk_size=16))
    request = replace(_requests()[0], existing="旧正文保持不变。")
    state = await DraftingEngine(client).run([request])
    d = state.sections["1.1.1"]
    assert d.status == "failed" and d.text == "旧正文保持不变。" and d.rejected_text.startswith("1.1.")


async def test_degenerate_output_is_failed_and_prompt_echo_removed(client: LLMClient, llm_server: OpenAIServer) -> None:
    answers = {"配送时间安排": Reply.truncated("( )\n——\n"),
               "配送车辆管理": Reply.text("直接输出正文：\n我公司配送车辆统一采用冷藏车，每日消毒并记录温度。\n【本节标题】")}
    llm_server.handler = lambda req: answers[_title_of(req)]
    state = await DraftingEngine(client).run(_requests()[:2])
    bad, good = state.sections["1.1.1"], state.sections["1.1.2"]
    assert bad.status == "failed" and "几乎没有有效文字" in bad.error
    assert good.status == "done" and good.text == "我公司配送车辆统一采用冷藏车，每日消毒并记录温度。"


async def test_cut_stream_continues(client: LLMClient, llm_server: OpenAIServer) -> None:
    text = "我公司建立食品留样制度，每餐每样留样不少于一百二十五克，冷藏保存四十八小时。"
    llm_server.push(Reply.dropped(text, after=20, chunk_size=5), Reply.text(text[20:]))
    engine = DraftingEngine(client)
    state = await engine.run(_requests()[:1])
    d = state.sections["1.1.1"]
    assert d.status == "done" and d.text == text and d.continuations == 1
    assert llm_server.completion_requests[0].disconnected


async def test_empty_and_refusal_are_failed_with_reason(client: LLMClient, llm_server: OpenAIServer) -> None:
    answers = {"配送时间安排": Reply.text(""), "配送车辆管理": Reply.text("抱歉，我无法完成这个请求。"),
               "冷链温控措施": Reply.text(_distinct_text("冷链温控措施"))}
    llm_server.handler = lambda req: answers[_title_of(req)]
    state = await DraftingEngine(client).run(_requests()[:3])
    s = state.sections
    assert s["1.1.1"].status == "failed" and "空内容" in s["1.1.1"].error
    assert s["1.1.2"].status == "failed" and "拒绝" in s["1.1.2"].error
    assert s["1.1.3"].status == "done" and s["1.1.3"].error == ""


async def test_server_error_marks_failed(client: LLMClient, llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.error(500, "boom")
    state = await DraftingEngine(client).run(_requests()[:2])
    assert all(d.status == "failed" and d.error for d in state.sections.values())


async def test_bad_key_fails_every_section_after_one_call(llm_server: OpenAIServer) -> None:
    llm_server.require_key = "right"
    async with LLMClient(EndpointConfig(base_url=llm_server.base_url, api_key="wrong", model="test-model")) as c:
        state = await DraftingEngine(c, concurrency=1).run(_requests())
    assert all(d.status == "failed" and "密钥" in d.error for d in state.sections.values())
    assert len(llm_server.completion_requests) == 1


async def test_duplicate_guard_warns_on_near_duplicates(client: LLMClient, llm_server: OpenAIServer) -> None:
    same = _distinct_text("通用措施")
    answers = {"配送时间安排": same, "配送车辆管理": same.replace("第3条", "第三条"),
               "冷链温控措施": _distinct_text("冷链温控措施")}
    llm_server.handler = lambda req: Reply.text(answers[_title_of(req)])
    got: list[DuplicateWarning] = []
    engine = DraftingEngine(client, on_duplicate=got.append)
    state = await engine.run(_requests()[:3])
    assert len(got) == 1 and {got[0].key_a, got[0].key_b} == {"1.1.1", "1.1.2"} and got[0].score > 0.8
    assert "高度相似" in got[0].message_zh
    assert [(w.key_a, w.key_b) for w in find_duplicates(state)] == [("1.1.1", "1.1.2")]


async def test_rewrite_returns_new_text_and_keeps_old_on_failure(client: LLMClient, llm_server: OpenAIServer) -> None:
    req = _requests()[0]
    llm_server.push(Reply.text("## 配送时间安排\n\n* 每日六点前送达。\n* 节假日提前一天确认。"))
    res = await DraftingEngine(client).rewrite(req, "每天送货。", "specific", guidance="写明时间点")
    assert res.ok and res.previous == "每天送货。" and res.label == "更具体"
    assert res.text == "- 每日六点前送达。\n- 节假日提前一天确认。"
    prompt = llm_server.completion_requests[0].prompt_text
    assert "每天送货。" in prompt and "更具体" in prompt and "写明时间点" in prompt
    llm_server.push(Reply.text("对不起，我不能改写。"))
    bad = await DraftingEngine(client).rewrite(req, "每天送货。", "expand")
    assert not bad.ok and bad.text == "每天送货。" and bad.error


def test_markdown_cleanup_and_text_checks() -> None:
    raw = "```markdown\n# 1.1.1 配送时间安排\n正文第一段。\n\n\n\n### 保障措施\n1. 专人负责\n| 项目 | 时间 |\n|---|---|\n```"
    assert clean_markdown(raw, "配送时间安排") == (
        "正文第一段。\n\n**保障措施**\n- 专人负责\n| 项目 | 时间 |\n|---|---|"
    )
    assert refusal_reason("  ") and refusal_reason("I'm sorry, I can't help.")
    assert refusal_reason("抱歉" + "很长的正文" * 100) is None
    assert seam_overlap("甲乙丙丁戊己庚辛", "丙丁戊己庚辛壬癸") == 6
    assert seam_overlap("甲乙丙丁戊己庚辛", "壬癸子丑寅卯辰巳") == 0
    table = "| 项目 | 时间 |\n|---|---|\n| 早餐 | 6点 |\n|---|---|"
    assert drop_repeated_lines(table) == (table, 0)  # short rules are not "repeats"
    assert drop_repeated_lines("甲乙丙丁戊己庚\n其他内容写在这里\n甲乙丙丁戊己庚") == ("甲乙丙丁戊己庚\n其他内容写在这里", 1)
    assert is_looping("冷链运输全程记录温度，车辆每日消毒。", "冷链运输全程记录温度，车辆每日消毒。冷链运输")
    assert not is_looping("冷链运输全程记录温度，车辆每日消毒。", "人员持健康证上岗，统一着装，每年体检一次并建立档案。")


def test_state_round_trips_through_the_project_section_records() -> None:
    from app.pipeline.drafting.context import path_for_key

    state = DraftingState()
    for key, status, text in [("1.1.1", "done", "全文"), ("1.1.2", "writing", "半截"), ("1.1.3", "cancelled", "一点"),
                              ("1.2.1", "failed", ""), ("1.2.2", "waiting", "")]:
        state.sections[key] = SectionDraft(key=key, status=status, text=text)  # type: ignore[arg-type]
    records = state.to_section_states(model="m")
    assert {k: r.status for k, r in records.items()} == {
        "1.1.1": "done", "1.1.2": "queued", "1.1.3": "queued", "1.2.1": "failed", "1.2.2": "queued"}
    back = DraftingState.from_section_states(records, {k: d.text for k, d in state.sections.items()})
    assert back.unfinished() == ["1.1.2", "1.1.3", "1.2.2"]
    assert back.sections["1.1.2"].text == "半截" and back.sections["1.1.1"].status == "done"
    outline = _outline()
    assert path_for_key(outline, "1.2.1") == (0, 1, 0) and path_for_key(outline, "9.9") is None

"""Closed questions about one point and one passage (loopback OpenAI server): a quote must be in the passage."""

from __future__ import annotations

import json

from app.core.analysis import Analysis, ScoringGroup
from app.core.outline import OutlineNode
from app.pipeline.evaluation.questions import QuestionStats, ask_point, ask_points, quote_in_passage
from app.pipeline.evaluation.review import review_bid
from tests.openai_server import OpenAIServer, Reply
from tests.pipeline_support import make_client

BODY = "我方设立专门小组，明确岗位和职责，每月检查一次并形成书面记录，发现问题当日整改并复查。"
PARAPHRASE = "遇到火情、停电、食物中毒等突发情况时，现场负责人五分钟内启动三级响应程序。"


def _answer(answer: str, quote: str = "") -> Reply:
    return Reply.text(json.dumps({"answer": answer, "quote": quote}, ensure_ascii=False))


def _case() -> tuple[Analysis, list[OutlineNode]]:
    criteria = "方案内容包含但不限于：①人员配置方案；②应急处置预案。方案完整的得10分；方案较完整的得6分；未提供的不得分。"
    analysis = Analysis(groups=[ScoringGroup(id="R1", title="服务方案", description=criteria, points=10)])
    chapters = [OutlineNode(title="服务方案", source_requirement_id="R1", children=[
        OutlineNode(title="人员配置方案", content="人员配置方案如下：项目经理一名，保洁员十二名。" + BODY),
        OutlineNode(title="现场保障", content=PARAPHRASE + BODY)])]
    return analysis, chapters


def test_the_quote_check_ignores_spacing_and_punctuation_only() -> None:
    assert quote_in_passage("现场负责人 五分钟内启动三级响应程序", PARAPHRASE)
    assert quote_in_passage("遇到火情，停电，食物中毒", PARAPHRASE)
    assert not quote_in_passage("现场负责人十分钟内启动响应程序", PARAPHRASE)
    assert not quote_in_passage("响应", PARAPHRASE)  # too short to prove anything


async def test_a_quote_in_the_passage_is_kept_and_changes_the_status(llm_server: OpenAIServer) -> None:
    analysis, chapters = _case()
    review = review_bid(analysis, chapters)
    (item,) = review.items
    assert [p.status for p in item.points] == ["answered", "missing"] and item.estimate.expected == 6
    llm_server.push(_answer("是", "现场负责人五分钟内启动三级响应程序。"))
    async with make_client(llm_server) as client:
        stats = await ask_points(client, review, chapters)
    assert (stats.asked, stats.kept, stats.quote_rejected) == (1, 1, 0)
    point = item.points[1]
    assert point.status == "answered" and point.decided_by == "model"
    assert point.evidence[0].path == (0, 1) and "五分钟内" in point.evidence[0].quote
    assert item.estimate.expected == 10
    (request,) = llm_server.completion_requests
    assert "应急处置预案" in request.prompt_text and PARAPHRASE in request.prompt_text


async def test_a_quote_not_in_the_passage_is_rejected_and_code_stays(llm_server: OpenAIServer) -> None:
    analysis, chapters = _case()
    review = review_bid(analysis, chapters)
    llm_server.push(_answer("是", "我方制定了完善的应急处置预案并定期演练。"), _answer("是", "应急预案完善并定期演练。"))
    async with make_client(llm_server) as client:
        stats = await ask_points(client, review, chapters)
    assert (stats.asked, stats.kept, stats.quote_rejected) == (1, 0, 1)
    repair = llm_server.completion_requests[1].prompt_text
    assert "我方制定了完善的应急处置预案并定期演练" in repair and "不在正文中" in repair
    point = review.items[0].points[1]
    assert point.status == "missing" and point.decided_by == "code"
    assert review.items[0].estimate.expected == 6


async def test_a_wrong_quote_gets_one_repair_and_a_real_one_is_kept(llm_server: OpenAIServer) -> None:
    stats = QuestionStats()
    llm_server.push(_answer("是", "应急预案完善。"), _answer("是", "现场负责人五分钟内启动三级响应程序。"))
    async with make_client(llm_server) as client:
        verdict = await ask_point(client, "应急处置预案", PARAPHRASE, stats)
    assert verdict is not None and verdict.kept and "五分钟内" in verdict.quote
    assert (stats.asked, stats.kept, stats.quote_rejected) == (1, 1, 0) and len(llm_server.completion_requests) == 2


async def test_no_and_partial_answers(llm_server: OpenAIServer) -> None:
    stats = QuestionStats()
    llm_server.push(_answer("否"), _answer("部分", "现场负责人五分钟内启动三级响应程序"))
    async with make_client(llm_server) as client:
        no = await ask_point(client, "应急处置预案", PARAPHRASE, stats)
        partial = await ask_point(client, "应急处置预案", PARAPHRASE, stats)
    assert no is not None and no.answer == "否" and no.kept
    assert partial is not None and partial.answer == "部分" and partial.kept
    assert (stats.asked, stats.valid, stats.kept) == (2, 2, 2)


async def test_a_broken_answer_counts_as_failed(llm_server: OpenAIServer) -> None:
    stats = QuestionStats()
    llm_server.push("我觉得是的", "还是不知道")
    async with make_client(llm_server) as client:
        verdict = await ask_point(client, "应急处置预案", PARAPHRASE, stats)
    assert verdict is None and stats.failed == 1 and stats.kept == 0

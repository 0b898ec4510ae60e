"""A model proposes figure data through collect_json: rule violations go back for repair, failures are Chinese."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from app.core.analysis import Analysis, ProjectOverview
from app.core.outline import OutlineNode
from app.export.figures.render import render_png
from app.llm.client.llm_client import LLMClient
from app.pipeline.drafting.figure_proposal import figure_prompt, propose_figure
from tests.openai_server import OpenAIServer
from tests.test_collect_json import make_client

TEAM = OutlineNode(title="项目组织机构", description="项目经理负责制，配备技术、质量、安全负责人",
                   content="本项目设项目经理一名，下设技术负责人、质量负责人和安全负责人。")


@pytest.fixture
async def client(llm_server: OpenAIServer) -> AsyncIterator[LLMClient]:
    c = make_client(llm_server)
    yield c
    await c.aclose()


def _analysis() -> Analysis:
    return Analysis(overview=ProjectOverview(project_name="某市政道路养护服务", service_period="服务期 365 日历天"))


async def test_two_roots_are_sent_back_and_the_repaired_chart_is_drawn(client: LLMClient,
                                                                      llm_server: OpenAIServer) -> None:
    two_roots = {"units": [{"name": "项目经理", "parent": ""}, {"name": "技术负责人", "parent": ""}]}
    good = {"units": [{"name": "项目经理", "parent": ""}, {"name": "技术负责人", "parent": "项目经理"},
                      {"name": "质量负责人", "parent": "项目经理"}, {"name": "安全负责人", "parent": "项目经理"}]}
    llm_server.push(json.dumps(two_roots, ensure_ascii=False), json.dumps(good, ensure_ascii=False))
    proposal = await propose_figure(client, "org", TEAM, _analysis())
    assert proposal.figure is not None and proposal.attempts == 2
    assert [u.name for u in proposal.figure.data.units][1:] == ["技术负责人", "质量负责人", "安全负责人"]  # type: ignore[union-attr]
    repair = json.dumps(llm_server.completion_requests[1].body["messages"], ensure_ascii=False)
    assert "最上级岗位只能有一个" in repair  # the rule's own message went back to the model
    assert render_png(proposal.figure).png.startswith(b"\x89PNG")
    first = llm_server.completion_requests[0].body["messages"][0]["content"]
    assert "项目组织机构" in first and "服务期 365 日历天" in first and "组织机构图" in first


async def test_gantt_proposal_past_the_duration_fails_with_a_chinese_message(client: LLMClient,
                                                                            llm_server: OpenAIServer) -> None:
    late = {"total_days": 30, "tasks": [{"name": "养护实施", "start": 20, "days": 40}]}
    llm_server.push(*[json.dumps(late, ensure_ascii=False)] * 3)
    proposal = await propose_figure(client, "gantt", TEAM, _analysis())
    assert proposal.figure is None
    assert "模型没有给出可用的进度计划横道图数据" in proposal.message_zh and "超过总工期 30 天" in proposal.message_zh


def test_prompt_names_the_kind_and_its_format() -> None:
    prompt = figure_prompt("flow", TEAM, None, ["故障 2 小时内到场"])
    assert "流程图" in prompt and '"shape": "decision"' in prompt and "故障 2 小时内到场" in prompt
    assert "{kind_zh}" not in prompt and "{format}" not in prompt

"""The model's part with grounded candidates, through the loopback server: a weak model that copies
the candidates, one that ignores them and writes its own headings, one that writes fragments."""

from __future__ import annotations

import json

import pytest

from app.core.outline import OutlineNode
from app.pipeline.headings.fill import (
    description_problem,
    drop_fragments,
    fragment_issues,
    project_echo_issues,
)
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.run import generate_outline
from tests.eval.outline_quality import evaluate
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router, make_client, sample_analysis

GROUPS = [("服务方案", ["项目人员配置方案", "实施进度计划", "售后服务方案"]), ("应急预案", [])]


def _candidates(req: RecordedRequest) -> list[str]:
    """The level-2 candidates the chapter prompt offers (its "可参考的二级标题" list)."""
    lines = req.prompt_text.split("可参考的二级标题", 1)[-1].splitlines()[1:]
    out = []
    for line in lines:
        if not line.startswith("- "):
            break
        out.append(line[2:].split("（", 1)[0])
    return out


async def test_a_weak_model_that_copies_the_candidates(llm_server: OpenAIServer) -> None:
    def copy(kind: str, req: RecordedRequest) -> Reply:
        if kind.startswith("chapter:"):
            cands = _candidates(req)
            assert len(cands) >= 3, req.prompt_text
            own = iter(["岗位分工说明", "人员到岗安排", "里程碑节点", "周报与月报", "回访与评价", "投诉受理渠道"])
            sections = [{"title": t, "children": [{"title": next(own)}, {"title": next(own)}]} for t in cands[:3]]
            return Reply.text(json.dumps({"children": sections}, ensure_ascii=False))
        return Reply.text('{"passed": true, "suggestions": []}')

    llm_server.handler = Router(copy)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(GROUPS), OutlineSettings(mode="aligned", review=False))
    assert res.ok
    first = res.chapters[0].children
    assert [n.title for n in first] == ["项目人员配置方案", "实施进度计划", "售后服务方案"]
    assert {n.origin for n in first} == {"tender"}  # copied candidates keep their source
    assert all(c.origin == "model" for n in first for c in n.children)  # what it wrote itself is its own
    assert evaluate(res.chapters).count("model") == sum(len(n.children) for ch in res.chapters for n in ch.children)


async def test_a_model_that_ignores_the_candidates_writes_its_own(llm_server: OpenAIServer) -> None:
    own = {"服务方案": ["夜间值守安排", "工单闭环管理", "服务满意度回访"], "应急预案": ["停电应急响应", "网络中断恢复", "应急演练记录"]}
    leaves = {"服务方案": ["值班表编排", "交接班记录", "派单与接单", "办结审核", "回访话术", "不满意整改"],
              "应急预案": ["备用电源切换", "停电通知流程", "链路冗余切换", "故障定位排查", "演练脚本编写", "演练复盘总结"]}

    def write(kind: str, req: RecordedRequest) -> Reply:
        if kind.startswith("chapter:"):
            title = kind.split(":", 1)[1]
            kids = iter(leaves[title])
            sections = [{"title": t, "children": [{"title": next(kids)}, {"title": next(kids)}]} for t in own[title]]
            return Reply.text(json.dumps({"children": sections}, ensure_ascii=False))
        return Reply.text('{"passed": true, "suggestions": []}')

    llm_server.handler = Router(write)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(GROUPS), OutlineSettings(mode="aligned", review=False))
    assert res.ok
    assert [n.title for n in res.chapters[1].children] == own["应急预案"]
    assert res.heading_sources["model"] == 18  # every heading it wrote is kept as its own
    # the scored points it ignored (项目人员配置方案, 实施进度计划, 售后服务方案) are answered by code, marked
    first = res.chapters[0]
    assert [n.title for n in first.children][:3] == own["服务方案"]
    added = [n for _, n in first.walk() if n.origin == "tender"]
    assert res.heading_sources.get("tender", 0) == len(added) == 3, [n.title for n in added]
    assert res.uncovered == {}
    assert "可参考的二级标题" in llm_server.completion_requests[0].prompt_text  # it was offered them


async def test_a_suffix_pattern_under_every_section_is_rejected(llm_server: OpenAIServer) -> None:
    def pattern(kind: str, req: RecordedRequest) -> Reply:
        sections = [{"title": t, "children": [{"title": f"{t}目标"}, {"title": f"{t}做法"}]}
                    for t in ("人员安排计划", "进度控制计划", "质量检查计划")]
        return Reply.text(json.dumps({"children": sections}, ensure_ascii=False))

    llm_server.handler = Router(pattern)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(GROUPS[:1]), OutlineSettings(mode="aligned", review=False))
    assert res.ok and evaluate(res.chapters).count("generic") == 0
    assert any("各节都用同一写法" in r.prompt_text for r in llm_server.completion_requests)


async def test_fragments_are_never_accepted(llm_server: OpenAIServer) -> None:
    fragments = {"children": [{"title": "如拣货", "children": [{"title": "收银"}, {"title": "营业员等"}]},
                              {"title": "数量大", "children": [{"title": "专业性强"}, {"title": "覆盖面广"}]}]}
    llm_server.handler = Router(lambda kind, req: Reply.text(json.dumps(fragments, ensure_ascii=False)))
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(GROUPS), OutlineSettings(mode="aligned", review=False))
    assert res.ok
    report = evaluate(res.chapters)
    assert report.fragments == 0 and report.count("generic") == 0 and report.distinct
    assert res.heading_sources.get("model", 0) == 0
    chapter_prompts = [r.prompt_text for r in llm_server.completion_requests if "现在只写其中一章" in r.prompt_text]
    assert any("是从句子里截下的片段" in p for p in chapter_prompts)  # the issue went back to the model


def test_fragment_rule_and_local_repair() -> None:
    nodes = [OutlineNode(title="配送车辆调度", children=[OutlineNode(title="如拣货"), OutlineNode(title="车辆派遣记录"),
                                                        OutlineNode(title="装车复核流程")]),
             OutlineNode(title="数量大")]
    issues = fragment_issues(nodes)
    assert issues == ["/children/0/children/0/title: “如拣货”以“如”开头，是从句子里截下的片段",
                      "/children/1/title: “数量大”以“大”结尾，是描述而不是标题（可改为名词短语）"]
    repaired = drop_fragments(nodes, 2)
    assert [c.title for c in repaired[0].children] == ["车辆派遣记录", "装车复核流程"]
    assert len(repaired) == 2  # dropping "数量大" would leave one section: kept for the model to fix


@pytest.mark.parametrize(("text", "ok"), [
    ("说明应急物资的储备地点、数量和定期检查安排", True),
    ("请您填写以下内容", False),
    ("应急物资储备", False),
    ("foodservice", False),
    ("应急方案未完成的应急方案未完成的应急方案", False),
    ("该项目为某单位食堂食材配送服务项目", False),
])
def test_description_checks(text: str, ok: bool) -> None:
    assert (description_problem(text, "应急物资储备", "应急方案", "某单位食堂食材配送服务项目") is None) is ok


def test_a_heading_that_copies_the_project_name_is_an_issue_at_any_depth() -> None:
    project = "2026-2027年某市政务信息系统运维服务采购"
    echo = OutlineNode(title="2026-2028年某市政务信息系统运维服务采购")
    section = OutlineNode(title="岗位设置", children=[echo, OutlineNode(title="运维人员配置")])
    issues = project_echo_issues([section, OutlineNode(title="信息系统运维服务内容")], project)
    assert issues == ["/children/0/children/0/title: 标题“2026-2028年某市政务信息系统运维服务采购”照抄了项目名称，应写本节自己的内容"]
    assert project_echo_issues([section], "某项目") == []  # a short name says too little to compare

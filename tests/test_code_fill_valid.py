"""Issue 38.3: the outline is valid whatever the model does.

A model that never answers usefully (the loopback server answering every call with the same
sentence) makes the run's breaker hand every chapter to code fill. A chapter neither the model nor
the library can fill gets sub-headings from its own criteria and name, or stays a leaf the user is
told about; a tender without technical scoring gets chapters from its requirements or a generic
plan; duplicate item names stay distinct; what the final check refuses, the repair before it fixes;
the depth the user chose is a limit for every heading, code's included.
"""

from __future__ import annotations

import json

from app.core.analysis import Analysis, ProjectOverview, RequirementHeading, ScoringGroup
from app.core.limits import OutlineLimits
from app.core.outline import OutlineNode
from app.core.rules.outline import check_outline
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.repair import merge_uncle_copies, repair_outline
from app.pipeline.outline.run import generate_outline
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router, make_client

GARBAGE = "我不太明白你的意思，请再说一遍。"


def _groups(*items: tuple[str, str]) -> list[ScoringGroup]:
    return [ScoringGroup(id=f"R{i + 1}", title=t, description=d, points=10.0) for i, (t, d) in enumerate(items)]


async def _run(server: OpenAIServer, a: Analysis, **settings: object) -> object:
    async with make_client(server) as client:
        return await generate_outline(client, a, OutlineSettings(**settings))  # type: ignore[arg-type]


def _depth(nodes: list[OutlineNode]) -> int:
    return max((n.depth() for n in nodes), default=0)


async def test_a_chapter_nothing_fits_gets_its_criteria_or_stays_a_leaf_the_user_is_told_about(
        llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.text(GARBAGE)
    a = Analysis(overview=ProjectOverview(project_name="某大学教务管理软件开发项目"), source="table", groups=_groups(
        ("系统功能设计", "根据投标人提供的系统功能设计进行评审，包括选课管理、成绩管理、学籍管理等，设计完整的得10分。"),
        ("现场方案演示", "现场演示，演示流畅的得5分。"),
        ("党建融合", ""),
        ("产物利用与末端管控方案", "")))
    res = await _run(llm_server, a, mode="aligned", review=False)
    assert res.valid, res.report()  # type: ignore[attr-defined]
    chapters = res.chapters  # type: ignore[attr-defined]
    assert not [i for i in res.issues if "尚未生成" in i]  # type: ignore[attr-defined]
    titles = {ch.title: [c.title for c in ch.children] for ch in chapters}
    assert {"选课管理", "成绩管理", "学籍管理"} <= set(titles["系统功能设计"]) or any(
        {"选课管理", "成绩管理", "学籍管理"} <= {x.title for _, x in ch.walk()} for ch in chapters[:1])
    assert titles["产物利用与末端管控方案"] == ["产物利用方案", "末端管控方案"]  # its own name's parts
    leaves = [t for t, kids in titles.items() if not kids]
    said = " ".join(res.warnings)  # type: ignore[attr-defined]
    assert all(f"“{t}”" in said and "已保留为一章" in said for t in leaves), (leaves, said)


async def test_a_tender_without_technical_scoring_gets_code_chapters_when_the_model_cannot(
        llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.text(GARBAGE)
    reqs = ["项目概述", "保洁服务内容与标准", "垃圾分类收集与清运", "人员配备要求", "服务质量考核", "响应文件的编制要求"]
    a = Analysis(overview=ProjectOverview(project_name="某区政务中心保洁服务项目"), source="none",
                 technical_requirements="提供日常保洁、垃圾清运、卫生间保洁等服务。",
                 requirement_headings=[RequirementHeading(text=t) for t in reqs])
    res = await _run(llm_server, a, mode="free", review=False)
    assert res.valid, res.report()  # type: ignore[attr-defined]
    chapters = [ch.title for ch in res.chapters]  # type: ignore[attr-defined]
    assert chapters[:4] == ["保洁服务内容与标准", "垃圾分类收集与清运", "人员配备要求", "服务质量考核"]
    assert all(ch.origin == "tender" for ch in res.chapters)  # type: ignore[attr-defined]
    assert any("模型未能拟出章标题" in w for w in res.warnings)  # type: ignore[attr-defined]
    bare = Analysis(overview=ProjectOverview(project_name="某单位数据核验服务项目"), source="none")
    res = await _run(llm_server, bare, mode="free", review=False)
    assert res.valid and res.chapters, res.report()  # type: ignore[attr-defined]
    assert all(ch.origin == "library" for ch in res.chapters)  # type: ignore[attr-defined]


async def test_items_with_one_name_stay_distinct_chapters(llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.text(GARBAGE)
    items = [("主观分", f"第{i}项：根据服务方案的完整性进行评审") for i in range(12)]
    a = Analysis(overview=ProjectOverview(project_name="某单位保洁服务项目"), source="table", groups=_groups(*items))
    res = await _run(llm_server, a, mode="aligned", review=False)
    assert res.valid, res.report()  # type: ignore[attr-defined]
    titles = [ch.title for ch in res.chapters]  # type: ignore[attr-defined]
    assert titles[:3] == ["主观分", "主观分（二）", "主观分（三）"] and titles[10:] == ["主观分（十一）", "主观分（十二）"]


def test_a_heading_titled_like_a_sibling_of_its_parent_is_merged_into_that_sibling() -> None:
    """Gemma's penetration-test chapter: a scored part nested under a library heading, beside its own section."""
    kids = [OutlineNode(title="人员保障及协调配合方案")]
    chapter = OutlineNode(title="服务方案", children=[
        OutlineNode(title="服务目标", children=[OutlineNode(title="服务质量控制方案", children=kids),
                                            OutlineNode(title="服务范围")]),
        OutlineNode(title="服务质量控制方案", children=[OutlineNode(title="质量检查")])])
    other = OutlineNode(title="培训方案", children=[OutlineNode(title="培训计划")])
    assert [i.code for i in check_outline([chapter, other])] == ["same_as_parent_sibling"]
    fixed = merge_uncle_copies([chapter, other])
    assert check_outline(fixed) == []
    assert [c.title for c in fixed[0].children[0].children] == ["服务范围"]
    assert [c.title for c in fixed[0].children[1].children] == ["质量检查", "人员保障及协调配合方案"]


async def test_the_final_check_never_refuses_what_the_repair_before_it_can_fix(llm_server: OpenAIServer) -> None:
    nested = {"children": [
        {"title": "服务目标", "children": [{"title": "服务质量控制方案", "children": [{"title": "人员保障及协调配合方案"}]},
                                       {"title": "服务范围界定"}]},
        {"title": "服务质量控制方案", "children": [{"title": "质量检查制度"}, {"title": "质量考核办法"}]}]}

    def answer(kind: str, req: RecordedRequest) -> Reply:
        if kind.startswith("chapter:"):
            return Reply.text(json.dumps(nested, ensure_ascii=False))
        return Reply.text('{"passed": true, "suggestions": []}' if kind == "review" else GARBAGE)

    llm_server.handler = Router(answer)
    a = Analysis(overview=ProjectOverview(project_name="某银行渗透测试服务项目"), source="table",
                 groups=_groups(("服务方案", "服务方案完整的得10分")))
    res = await _run(llm_server, a, mode="aligned", review=False, chapter_attempts=1)
    assert res.valid, res.report()  # type: ignore[attr-defined]
    assert check_outline(res.chapters, OutlineLimits(min_chapters=1)) == []  # type: ignore[attr-defined]


async def test_the_depth_the_user_chose_is_a_limit_for_the_model_and_for_code(llm_server: OpenAIServer) -> None:
    deep = {"children": [{"title": "服务组织", "children": [{"title": "岗位设置", "children": [
        {"title": "项目经理岗位"}, {"title": "保洁员岗位"}]}, {"title": "人员分工"}]},
                         {"title": "服务流程", "children": [{"title": "日常保洁流程"}, {"title": "专项保洁流程"}]}]}

    def answer(kind: str, req: RecordedRequest) -> Reply:
        if kind.startswith("chapter:"):
            return Reply.text(json.dumps(deep, ensure_ascii=False))
        return Reply.text('{"passed": true, "suggestions": []}' if kind == "review" else GARBAGE)

    llm_server.handler = Router(answer)
    a = Analysis(overview=ProjectOverview(project_name="某单位保洁服务项目"), source="table",
                 groups=_groups(("服务方案", "服务方案完整的得10分")))
    res = await _run(llm_server, a, mode="aligned", review=False)
    assert res.valid and _depth(res.chapters) == 3, res.report()  # type: ignore[attr-defined]
    post = next(n for _, n in res.chapters[0].walk() if n.title == "岗位设置")  # type: ignore[attr-defined]
    assert "项目经理岗位" in post.description and "保洁员岗位" in post.description  # said, not dropped
    llm_server.handler = None
    llm_server.default = Reply.text(GARBAGE)
    res = await _run(llm_server, a, mode="aligned", review=False, limits=OutlineLimits(depth=2))
    assert res.valid and _depth(res.chapters) == 2, res.report()  # type: ignore[attr-defined]


def test_a_persons_deeper_outline_is_not_folded_by_the_repair_of_their_own_outline() -> None:
    human = [OutlineNode(title="技术方案", children=[OutlineNode(title="系统设计", children=[
        OutlineNode(title="总体架构", children=[OutlineNode(title="网络拓扑")])])]), OutlineNode(title="附件")]
    assert _depth(repair_outline(human, OutlineLimits(depth=3))) == 4  # only a model's answer is held to the depth

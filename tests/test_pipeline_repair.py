"""Local repairs before any model call, coverage of detail points, bounded schemas, budgets."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.core.analysis import ScoringGroup
from app.core.outline import OutlineNode as N
from app.core.rules.outline import check_outline, clean_title, title_problem
from app.pipeline.evaluation.outline_points import item_coverage
from app.pipeline.headings.coverage import point_label
from app.pipeline.outline.budget import BudgetExhausted, RunBudget, RunMeter
from app.pipeline.outline.repair import repair_outline
from app.pipeline.outline.schemas import children_model, full_outline_model, to_nodes
from app.pipeline.outline.steps import StrategySelector


def test_clean_title_strips_numbering_markdown_and_quotes() -> None:
    assert clean_title("1.2 设计原则") == "设计原则"
    assert clean_title("**第一章 总体方案**") == "总体方案"
    assert clean_title("（一）质量保障。") == "质量保障"
    assert clean_title("“应急预案”") == "应急预案"
    assert clean_title("3.1.2、 进度") == "进度"


def test_echo_and_duplicate_children_are_dropped_keeping_two() -> None:
    chapter = N(title="服务方案", children=[
        N(title="二级目录", children=[N(title="a1"), N(title="a2")]),
        N(title="人员配置", children=[N(title="岗位设置"), N(title="三级目录"), N(title="岗位设置"), N(title="人员培训")]),
        N(title="服务方案", children=[N(title="b1"), N(title="b2")]),
        N(title="进度计划", children=[N(title="里程碑"), N(title="一级目录")]),
        N(title="人员配置", children=[N(title="c1"), N(title="c2")]),
    ])
    out = repair_outline([chapter, N(title="售后服务", children=[N(title="响应机制", children=[N(title="x"), N(title="y")]),
                                                                  N(title="回访制度", children=[N(title="p"), N(title="q")])])])
    sections = out[0].children
    # a section titled like its chapter beside sections of its own is the chapter's overview part (issue 38): kept
    assert [s.title for s in sections] == ["人员配置", "服务方案", "进度计划"]
    assert [c.title for c in sections[0].children] == ["岗位设置", "人员培训"]
    # one good child is enough: the echo goes (a single sub-item is a shape, not a defect)
    assert [c.title for c in sections[2].children] == ["里程碑"]
    assert out[0].id == "1" and sections[2].children[0].id == "1.3.1"
    alone = repair_outline([N(title="服务方案", children=[N(title="服务方案", children=[N(title="人员分工"), N(title="二级目录")])]),
                            out[1]])
    assert [s.title for s in alone[0].children] == ["服务方案"]  # a lone copy stays, and the rules name it
    assert [c.title for c in alone[0].children[0].children] == ["人员分工"]


def test_repair_drops_nothing_it_cannot_fix_and_the_rules_say_what_is_over() -> None:
    steps = "施工准备 平整场地 测量放样 基坑开挖 地基处理 底板防水 钢筋绑扎 模板支设 混凝土浇筑 变形缝处理 顶板防水 基坑回填 质量要求 进度计划".split()
    deep = N(title="总体方案", children=[N(title=t, children=[N(title="小点一", children=[N(title="第四级")]),
                                                                     N(title="小点二")]) for t in steps])
    out = repair_outline([deep, deep.model_copy(update={"title": "实施方案"})])
    assert len(out[0].children) == 14  # a list of 14 stays whole
    assert all(s.children[0].children[0].title == "第四级" for s in out[0].children)  # a fourth level stays
    assert not [i for i in check_outline(out) if i.code in ("too_deep", "too_many_children")]
    huge = N(title="总体方案", children=[N(title=f"工序{chr(0x4e00 + 7 * i)}{chr(0x4e50 + i)}") for i in range(22)])
    out = repair_outline([huge, N(title="实施方案", children=[N(title="进度")])])
    assert len(out[0].children) == 22
    assert [i.code for i in check_outline(out)] == ["too_many_children"]  # said, not cut


def test_locked_top_level_is_untouched() -> None:
    chapters = [N(title="1.服务方案", source_requirement_id="R1", children=[N(title="1.1 人员", children=[N(title="x1"), N(title="x2")])])]
    out = repair_outline(chapters, lock_top=True)
    assert out[0].title == "1.服务方案" and out[0].children[0].title == "人员"


def test_placeholders_copied_from_prompt_examples_are_caught() -> None:
    assert title_problem("具体标题") and title_problem("……") and title_problem("三级目录")
    assert title_problem("质量控制流程") is None


def test_coverage_finds_uncovered_points() -> None:
    chapter = N(title="服务方案", children=[
        N(title="项目人员配置", children=[N(title="人员分工"), N(title="岗位职责")]),
        N(title="实施进度安排", description="按实施进度计划推进", children=[N(title="进度节点"), N(title="进度控制")]),
    ])
    points = ["①项目人员配置方案合理得5分", "②实施进度计划科学", "③设备配置和技术工具方案"]
    group = ScoringGroup(id="R1", title="服务方案", detail_points=points)  # a point's number and grade are no words of it
    assert item_coverage(group, [chapter], [(0,)]).missing == ["设备配置和技术工具方案"]
    assert point_label("①项目人员配置方案：配置合理得5分") == "项目人员配置方案"


def test_a_two_character_point_is_covered_by_the_heading_that_names_it() -> None:
    chapter = N(title="培训方案", children=[
        N(title="培训内容设置", children=[N(title="培训地点"), N(title="培训方式")]),
        N(title="培训考核", children=[N(title="考核方式"), N(title="效果评估")]),
    ])
    group = ScoringGroup(id="R1", title="培训方案", detail_points=["地点", "方式", "目标", "师资"])
    assert item_coverage(group, [chapter], [(0,)]).missing == ["目标", "师资"]


def test_bounded_schema_carries_limits_and_is_lenient_where_code_can_fix() -> None:
    model = children_model(2, 1, 14)
    schema = model.model_json_schema()
    assert schema["properties"]["children"]["maxItems"] == 14 and schema["properties"]["children"]["minItems"] == 1
    heading = schema["$defs"]["Heading2"]["properties"]["title"]
    assert heading["minLength"] == 2 and heading["maxLength"] == 40
    long_title = "共用设备设施定期维修计划和实施方案及其费用测算"
    value = model.model_validate({"children": [
        {"title": "1.1 人员配置", "children": [{"title": "岗位", "description": None}]},  # a single sub-item
        {"title": "进度", "children": [{"title": f"节点{i}"} for i in range(14)]},  # a list of 14
        {"title": "总体说明"},  # a section left undivided
        {"title": long_title, "children": [{"title": "aa"}, {"title": "bb"}]},
    ]})
    nodes = to_nodes(value.children)  # type: ignore[attr-defined]
    assert [n.title for n in nodes] == ["人员配置", "进度", "总体说明", long_title]  # nothing cut
    assert len(nodes[0].children) == 1 and len(nodes[1].children) == 14 and nodes[2].children == []
    with pytest.raises(ValidationError):  # beyond the limit: refused with the reason, never cut
        model.model_validate({"children": [{"title": "进度", "children": [{"title": f"节点{i}"} for i in range(15)]}]})
    with pytest.raises(ValidationError):
        model.model_validate({"children": [{"title": "很" * 41}]})
    with pytest.raises(ValidationError):
        model.model_validate({"children": []})
    assert "Heading3" in full_outline_model(3).model_json_schema()["$defs"]


def test_compact_schema_has_no_descriptions() -> None:
    schema = children_model(2, 2, 4, False).model_json_schema()
    assert all("description" not in d["properties"] for d in schema["$defs"].values())


def test_meter_enforces_budget_and_counts() -> None:
    meter = RunMeter(budget=RunBudget(max_calls=3, max_tokens=100))
    meter.check("chapter")
    meter.record("chapter", 2, 30, 20)
    assert meter.allowed_attempts(3) == 1 and meter.tokens == 50
    meter.record("review", 1, 10, 10)
    with pytest.raises(BudgetExhausted) as exc:
        meter.check("review")
    assert "3" in exc.value.message_zh and meter.attempts == {"chapter": 2, "review": 1}
    tokens = RunMeter(budget=RunBudget(max_calls=None, max_tokens=10))
    tokens.record("outline", 1, 8, 5)
    with pytest.raises(BudgetExhausted):
        tokens.check("outline")


def test_selector_switches_after_repeated_failures() -> None:
    class S:
        def __init__(self, name: str) -> None:
            self.name = name

    sel = StrategySelector([S("json"), S("stream")], "json", switch_after=2)  # type: ignore[list-item]
    sel.failed("json")
    assert sel.current.name == "json"
    sel.failed("json")
    assert sel.current.name == "stream" and sel.switches == 1
    sel.succeeded("stream")
    assert sel.summary() == "stream"


def test_children_copying_the_parents_siblings_are_dropped_or_reported() -> None:
    from app.core.rules.outline import OutlineLimits
    from app.pipeline.outline.strategy_json import subtree_issues

    chapters = [
        N(title="实施进度计划", children=[
            N(title="进度安排", children=[N(title="里程碑"), N(title="工期保障")]),
            N(title="进度控制", children=[N(title="周报制度"), N(title="偏差纠正")]),
        ]),
        N(title="售后服务方案", children=[
            N(title="实施进度计划", children=[N(title="甲方对接"), N(title="乙方响应")]),  # copies chapter 1
            N(title="响应机制", children=[N(title="热线受理"), N(title="现场支持")]),
            N(title="回访制度", children=[N(title="定期回访"), N(title="满意度调查")]),
        ]),
    ]
    assert any(i.code == "same_as_parent_sibling" for i in check_outline(chapters))
    repaired = repair_outline(chapters, OutlineLimits(), lock_top=True)
    assert [c.title for c in repaired[1].children] == ["响应机制", "回访制度"]
    assert check_outline(repaired) == []
    # a per-chapter answer that copies another chapter loses the copy (a good section remains)
    kept, left = subtree_issues("售后服务方案", chapters[1].children[:2], 2, OutlineLimits(),
                                siblings=("实施进度计划", "售后服务方案"))
    assert [n.title for n in kept] == ["响应机制"] and left == []
    # …and when the copy is all there is, it is reported, not accepted
    _, left = subtree_issues("售后服务方案", chapters[1].children[:1], 2, OutlineLimits(),
                             siblings=("实施进度计划", "售后服务方案"))
    assert any("同级章节同名" in x for x in left)
    # …at any depth: a level-3 heading named like another chapter is as much a copy
    deep = [N(title="响应机制", children=[N(title="实施进度计划"), N(title="热线受理")]),
            N(title="回访制度", children=[N(title="定期回访"), N(title="满意度调查")])]
    _, left = subtree_issues("售后服务方案", deep, 2, OutlineLimits(), siblings=("实施进度计划", "售后服务方案"))
    assert left == ["/children/0/children/0/title: 标题“实施进度计划”与上级的同级章节同名，应写本节自己的内容"]

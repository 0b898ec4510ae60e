"""Grounded candidates and the chapters code builds from them: from the tender and the library only,
marked, in heading form, and distinct from chapter to chapter."""

from __future__ import annotations

from collections import Counter

from app.core.analysis import Analysis, ProjectOverview, RequirementHeading, ScoringGroup
from app.core.heading_form import fragment_problem
from app.core.outline import OutlineNode
from app.core.rules import check_outline, normalize_title
from app.pipeline.coverage import uncovered_points
from app.pipeline.heading_candidates import ChapterPlan, plan_outline
from app.pipeline.heading_library import default_library

GROUPS = [
    ScoringGroup(id="R1", title="服务方案", points=40, description=(
        "方案内容包含但不限于：①项目人员配置方案；②实施进度计划；③设备配置和技术工具方案；④售后服务方案等，"
        "方案内容完全满足要求得40分；每缺少一项扣10分。")),
    ScoringGroup(id="R2", title="应急方案", points=10, description=(
        "根据投标人的应急方案(包括但不限于应急补货处理、食物中毒处理、配送车辆故障、恶劣天气情况的配送等)进行评审：\n"
        "1.应急方案合理、具体、可行性强，得10分；\n2.应急方案较合理，得6分；\n3.没有提供方案不得分。")),
    ScoringGroup(id="R3", title="人员培训及应急预案", points=10, description="培训方案与应急预案完整、可行的得10分。"),
    ScoringGroup(id="R4", title="配送服务方案", points=10, description="配送方案科学合理的得10分，较合理的得6分。"),
    ScoringGroup(id="R5", title="配送保障方案", points=5, description="配送保障措施到位的得5分。"),
    ScoringGroup(id="R6", title="质量保证措施", points=5, description="质量保证措施到位的得5分，一般的得2分。"),
]
REQUIREMENTS = [RequirementHeading(text=t, level=lv) for lv, t in [
    (1, "项目概述"), (1, "食材配送"), (2, "配送时间"), (2, "交货地点与签收"), (2, "冷链运输要求"), (1, "质量的基本检查")]]


def _analysis() -> Analysis:
    return Analysis(overview=ProjectOverview(project_name="某单位食堂食材配送服务项目"), groups=GROUPS,
                    requirement_headings=REQUIREMENTS)


def _plans() -> list[ChapterPlan]:
    return plan_outline([(g.title, g) for g in GROUPS], _analysis())


def _chapters(plans: list[ChapterPlan]) -> list[OutlineNode]:
    return [OutlineNode(title=p.chapter, children=p.nodes) for p in plans]


def test_every_heading_is_grounded_marked_and_in_heading_form() -> None:
    plans = _plans()
    library = {t for e in default_library() for t in e.headings()}
    for plan, group in zip(plans, GROUPS, strict=True):
        assert len(plan.nodes) >= 2, plan.chapter
        for path, node in OutlineNode(title="x", children=plan.nodes).walk():
            assert node.origin in ("tender", "library"), node
            assert fragment_problem(node.title, group.description) is None, node.title
            if node.origin == "library":
                assert node.title in library
            else:  # from the tender: its words are in the criteria or the requirements
                source = group.description + "".join(r.text for r in REQUIREMENTS)
                assert sum(ch in source for ch in node.title) >= len(node.title) - 4, node.title
            assert len(path) == 2 or len(node.children) >= 2
    assert check_outline(_chapters(plans)) == []


def test_chapters_never_share_headings_or_child_sets() -> None:
    chapters = _chapters(_plans())
    titles = Counter(normalize_title(n.title) for c in chapters for _, n in c.walk())
    assert [t for t, k in titles.items() if k > 1] == []
    sets = Counter(frozenset(normalize_title(x.title) for x in n.children) for c in chapters for _, n in c.walk()
                   if n.children)
    assert max(sets.values()) == 1


def test_named_parts_of_the_answer_become_the_sections() -> None:
    plan = _plans()[0]
    assert plan.structured
    titles = [n.title for n in plan.nodes]
    assert titles[:4] == ["项目人员配置方案", "实施进度计划", "设备配置和技术工具方案", "售后服务方案"]
    assert all(n.origin == "tender" for n in plan.nodes[:4])
    assert uncovered_points(OutlineNode(title="服务方案", children=plan.nodes),
                            ["项目人员配置方案", "实施进度计划", "设备配置和技术工具方案", "售后服务方案"]) == []
    staffing = plan.nodes[0]  # its level-3 headings come from the staffing entry of the library
    assert all(c.origin == "library" for c in staffing.children) and len(staffing.children) >= 2


def test_bare_points_go_under_the_library_structure() -> None:
    plan = _plans()[1]
    assert not plan.structured and plan.entries[0].entry.id == "emergency"
    assert all(n.origin == "library" for n in plan.nodes)
    slot = [n for n in plan.nodes if any(c.origin == "tender" for c in n.children)]
    assert len(slot) == 1
    assert [c.title for c in slot[0].children][:2] == ["应急补货处理", "食物中毒处理"]


def test_compound_item_uses_both_entries() -> None:
    plan = _plans()[2]
    assert {m.entry.id for m in plan.entries} == {"training", "emergency"}
    lib = default_library()
    owners = {e.id for n in plan.nodes for e in lib if any(n.title == s.title for v in e.variants for s in v.sections)}
    assert {"training", "emergency"} <= owners


def test_requirement_headings_of_the_item_are_offered_and_used() -> None:
    plan = _plans()[3]
    assert plan.requirements and plan.requirements[0].title == "食材配送"
    assert [t for t, _ in plan.requirements[0].children] == ["配送时间", "交货地点与签收", "冷链运输要求"]
    assert plan.nodes[0].title == "食材配送" and plan.nodes[0].origin == "tender"
    assert all(c.origin == "tender" for c in plan.nodes[0].children)


def test_options_and_guidance_list_every_source() -> None:
    plan = _plans()[3]
    sources = {c.source for c in plan.options()}
    assert sources == {"tender", "library"}
    text = plan.guidance()
    assert "食材配送（招标文件）" in text and "（常用结构）" in text


def test_an_item_nothing_matches_falls_back_to_the_project_domain() -> None:
    group = ScoringGroup(id="R1", title="项目具体内容", description="内容完整的得10分。")
    analysis = Analysis(overview=ProjectOverview(project_name="某大楼物业管理服务"), groups=[group])
    plan = plan_outline([(group.title, group)], analysis)[0]
    assert plan.entries[0].entry.id == "property" and len(plan.nodes) >= 3


def test_two_levels_or_one() -> None:
    plans = plan_outline([(g.title, g) for g in GROUPS[:2]], _analysis(), levels=1)
    assert all(n.children == [] for p in plans for n in p.nodes)
    assert all(len(p.nodes) >= 2 for p in plans)

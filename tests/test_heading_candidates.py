"""Grounded candidates and the chapters code builds from them: from the tender and the library only,
marked, in heading form, and distinct from chapter to chapter."""

from __future__ import annotations

from collections import Counter

from app.core.analysis import Analysis, ProjectOverview, RequirementHeading, ScoringGroup
from app.core.outline import OutlineNode
from app.core.rules.heading_form import fragment_problem
from app.core.rules.outline import check_outline, normalize_title
from app.pipeline.evaluation.outline_points import item_coverage
from app.pipeline.headings.candidates import ChapterPlan, plan_outline
from app.pipeline.headings.library import default_library

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
    assert item_coverage(GROUPS[0], [OutlineNode(title="服务方案", children=plan.nodes)], [(0,)]).missing == []
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


def test_planning_on_the_event_loop_yields_between_chapters_and_plans_the_same() -> None:
    """A run plans on the loop's own thread, one chapter per turn of the loop: a worker thread
    would hold the GIL and stall the GUI thread's every return from Qt into Python."""
    import asyncio
    import threading

    from app.llm.client.llm_client import EndpointConfig, LLMClient
    from app.pipeline.headings import candidates as heading_candidates
    from app.pipeline.outline.job import OutlineSettings
    from app.pipeline.outline.run import _Run

    client = LLMClient(EndpointConfig(base_url="http://127.0.0.1:9/v1", api_key="k", model="m"))
    run = _Run(client, _analysis(), OutlineSettings(mode="aligned"), lambda *_a: None, None)
    run.chapters = [OutlineNode(title=g.title, source_requirement_id=g.id) for g in GROUPS]
    threads: set[int] = set()
    real = heading_candidates.plan_chapter

    def recording(*args: object, **kwargs: object) -> ChapterPlan:
        threads.add(threading.get_ident())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    async def plan() -> int:
        ticks = 0
        stop = False

        def tick() -> None:
            nonlocal ticks
            ticks += 1
            if not stop:
                asyncio.get_running_loop().call_soon(tick)

        asyncio.get_running_loop().call_soon(tick)
        heading_candidates.plan_chapter = recording  # type: ignore[assignment]
        try:
            await run.plan_chapters_async()
        finally:
            heading_candidates.plan_chapter = real  # type: ignore[assignment]
            stop = True
        return ticks

    ticks = asyncio.run(plan())
    assert threads == {threading.main_thread().ident}
    assert ticks >= len(GROUPS) - 1  # the loop ran between chapters
    planned = {i: [n.title for _, n in OutlineNode(title="x", children=p.nodes).walk()] for i, p in run.plans.items()}
    run.plan_chapters()
    assert planned == {i: [n.title for _, n in OutlineNode(title="x", children=p.nodes).walk()]
                       for i, p in run.plans.items()}
    assert len(planned) == len(GROUPS) and all(planned.values())


def test_a_tender_point_gets_level3_headings_about_it_or_stays_as_one() -> None:
    """The library's level-3 headings go under a tender point only from a library section about
    that point; a point nothing in the library is about stays in the chapter as a heading of its own."""
    from app.pipeline.headings.candidates import grams

    group = ScoringGroup(id="R1", title="服务团队", points=20, description=(
        "服务团队方案包括：①保密措施方案；②重大节假日服务方案；③总体服务思路；④专门工作流程；⑤人员安全保护措施；"
        "⑥甲乙丙丁戊己庚。每缺一项扣4分。"))
    analysis = Analysis(overview=ProjectOverview(project_name="某机关大楼保洁服务项目"), groups=[group])
    plan = plan_outline([(group.title, group)], analysis)[0]
    sections = [s for e in default_library() for v in e.variants for s in v.sections]
    placed = 0
    for node in plan.nodes:
        kids = [c.title for c in node.children if c.origin == "library"]
        if node.origin != "tender" or not kids:
            continue
        placed += 1
        sources = [s for s in sections if set(kids) <= set(s.children) or set(kids) <= {x.title for x in sections}]
        about = [s for s in sources if grams(node.title) & set().union(grams(s.title), *map(grams, s.children))]
        assert about, f"{node.title} -> {kids}: from no library section about it"
    assert placed >= 4
    titles = [n.title for _, n in OutlineNode(title="x", children=plan.nodes).walk()]
    assert "甲乙丙丁戊己庚" in titles  # housed as a level-3 heading in its own words

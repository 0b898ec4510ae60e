"""The evented outline tree, JSON pointers and structure rules (app/core)."""

from __future__ import annotations

import pytest

from app.core.outline import Changed, Inserted, Moved, Outline, OutlineError, OutlineNode, Removed, Reset
from app.core.pointer import PointerError, parse_pointer, path_to_pointer, pointer_to_target
from app.core.rules.outline import (
    OutlineLimits,
    check_outline,
    generation_issues,
    normalize_title,
    outline_warnings,
    strip_numbering,
    title_problem,
)


def _tree() -> Outline:
    def leaf(t: str) -> OutlineNode:
        return OutlineNode(title=t)

    return Outline([
        OutlineNode(title="总体方案", children=[
            OutlineNode(title="设计原则", children=[leaf("安全可靠"), leaf("经济适用")]),
            OutlineNode(title="技术路线", children=[leaf("系统架构"), leaf("关键技术")]),
        ]),
        OutlineNode(title="实施计划", children=[
            OutlineNode(title="进度安排", children=[leaf("里程碑"), leaf("工期保障")]),
            OutlineNode(title="人员配置", children=[leaf("项目经理"), leaf("技术团队")]),
        ]),
    ])


def test_events_come_before_and_after_each_change() -> None:
    tree = _tree()
    seen: list[tuple[str, object]] = []
    tree.subscribe(lambda phase, ev: seen.append((phase, ev)))
    tree.append((0,), OutlineNode(title="质量保障"))
    tree.update((0, 2), title="质量保证")
    tree.move((0, 2), (1,), 0)
    tree.remove((1, 0))
    tree.replace([])
    kinds = [(p, type(e)) for p, e in seen]
    assert kinds == [
        ("before", Inserted), ("after", Inserted),
        ("before", Changed), ("after", Changed),
        ("before", Moved), ("after", Moved),
        ("before", Removed), ("after", Removed),
        ("before", Reset), ("after", Reset),
    ]
    assert seen[0][1] == Inserted((0,), 2, 1)
    assert seen[4][1] == Moved((0,), 2, (1,), 0)


def test_move_within_parent_uses_qt_style_destination() -> None:
    tree = _tree()
    new_path = tree.move((0, 0), (0,), 2)  # after the second sibling
    assert new_path == (0, 1)
    assert [c.title for c in tree.node((0,)).children] == ["技术路线", "设计原则"]


def test_cannot_move_into_own_subtree_or_bad_index() -> None:
    tree = _tree()
    with pytest.raises(OutlineError):
        tree.move((0,), (0, 1), 0)
    with pytest.raises(OutlineError):
        tree.insert((0,), 9, OutlineNode(title="x"))
    with pytest.raises(OutlineError):
        tree.node((5,))


def test_renumber_gives_positional_ids() -> None:
    tree = _tree()
    tree.renumber()
    assert tree.node((1, 0, 1)).id == "2.1.2"
    assert tree.depth() == 3 and len(tree) == 14


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("/outline/0/title", ["outline", "0", "title"]),
        ("/a~1b/c~0d", ["a/b", "c~d"]),
        ("$.outline[2].children[0].title", ["outline", "2", "children", "0", "title"]),
        ("outline.1.children", ["outline", "1", "children"]),
        ("outline[0]['title']", ["outline", "0", "title"]),
    ],
)
def test_pointer_dialects_normalise(text: str, tokens: list[str]) -> None:
    assert parse_pointer(text) == tokens


def test_pointer_to_target_and_back() -> None:
    t = pointer_to_target(parse_pointer("/outline/2/children/0"))
    assert (t.path, t.field) == ((2, 0), None)
    t = pointer_to_target(parse_pointer("/outline/2/children"))
    assert (t.path, t.field) == ((2,), "children")
    t = pointer_to_target(parse_pointer("/outline"))
    assert (t.path, t.field) == ((), "children")
    assert path_to_pointer((2, 0), "title") == "/outline/2/children/0/title"
    assert path_to_pointer((), "children") == "/outline"
    with pytest.raises(PointerError):
        pointer_to_target(parse_pointer("/outline/x"))
    with pytest.raises(PointerError):
        pointer_to_target(parse_pointer("/items/0"))


def test_a_good_outline_breaks_no_rule() -> None:
    assert check_outline(_tree().chapters) == []


def test_rules_catch_weak_model_patterns() -> None:
    bad = [
        OutlineNode(title="一级目录", children=[
            OutlineNode(title="二级目录", children=[OutlineNode(title="三级目录"), OutlineNode(title="3")]),
            OutlineNode(title="二级目录", children=[OutlineNode(title="a"), OutlineNode(title="b")]),
        ]),
        OutlineNode(title="实施计划", children=[
            OutlineNode(title="实施计划", children=[OutlineNode(title="a"), OutlineNode(title="b")]),
        ]),
        OutlineNode(title="质量保障", children=[
            OutlineNode(title="措施", children=[OutlineNode(title="a"), OutlineNode(title="b")]),
            OutlineNode(title="制度", children=[OutlineNode(title="c", children=[OutlineNode(title="d")])]),
        ]),
    ]
    codes = {(i.code, i.pointer) for i in check_outline(bad)}
    assert ("bad_title", "/outline/0/title") in codes
    assert ("bad_title", "/outline/0/children/0/children/1/title") in codes
    assert ("duplicate_sibling", "/outline/0/children/1/title") in codes
    assert ("same_as_parent", "/outline/1/children/0/title") in codes
    assert not any(c == "too_few_children" for c, _ in codes)  # a single sub-item is style, not a defect
    assert not any(c == "too_deep" for c, _ in codes)  # a fourth level in one branch is accepted
    assert any(c == "repeated_children" for c, _ in codes)


def test_rules_catch_placeholder_titles_and_copies_of_a_parents_sibling() -> None:
    chapters = [
        OutlineNode(title="配送车辆", children=[
            OutlineNode(title="A_1", children=[OutlineNode(title="甲"), OutlineNode(title="乙")]),
            OutlineNode(title="加工场地", children=[OutlineNode(title="丙"), OutlineNode(title="丁")]),
        ]),
        OutlineNode(title="加工场地", children=[
            OutlineNode(title="B2", children=[OutlineNode(title="戊"), OutlineNode(title="己")]),
            OutlineNode(title="GIS平台", children=[OutlineNode(title="庚"), OutlineNode(title="辛")]),
        ]),
    ]
    codes = {(i.code, i.pointer) for i in check_outline(chapters)}
    assert ("bad_title", "/outline/0/children/0/title") in codes
    assert ("same_as_parent_sibling", "/outline/0/children/1/title") in codes
    assert ("bad_title", "/outline/1/children/0/title") in codes
    assert not any(p.startswith("/outline/1/children/1/") or p == "/outline/1/children/1/title" for _, p in codes)


def test_depth_is_what_is_asked_and_branches_may_stop_earlier() -> None:
    two_levels = [OutlineNode(title=t, children=[OutlineNode(title="甲"), OutlineNode(title="乙")]) for t in ("一", "二")]
    assert check_outline(two_levels, OutlineLimits(depth=2)) == []
    assert check_outline(two_levels, OutlineLimits(depth=3)) == []  # a two-level outline at the default depth
    uneven = [OutlineNode(title="编制说明", children=[OutlineNode(title="编制依据")]),
              OutlineNode(title="施工方案", children=[OutlineNode(title="测量放样"), OutlineNode(title="基坑开挖", children=[
                  OutlineNode(title="放坡开挖"), OutlineNode(title="边坡支护")])])]
    assert check_outline(uneven) == []
    undivided = [*uneven, OutlineNode(title="附件")]
    assert check_outline(undivided) == []  # a chapter left undivided beside divided ones
    flat = [OutlineNode(title="编制说明"), OutlineNode(title="附件")]
    assert check_outline(flat) == []  # a chapter list (what a works tender prescribes) is valid as written
    assert [i.code for i in outline_warnings(flat)] == ["chapters_only"]  # and said
    assert [i.code for i in generation_issues(flat)] == ["no_sections"]  # a run that asked for levels asks for them
    assert [i.code for i in check_outline(flat[:1], OutlineLimits().solo())] == ["no_sections"]  # asked alone, empty
    five = [OutlineNode(title="一", children=[OutlineNode(title="二", children=[OutlineNode(title="三", children=[
        OutlineNode(title="四", children=[OutlineNode(title="五")])])])]), *uneven]
    assert [i.code for i in check_outline(five)] == ["too_deep"]


def test_long_lists_and_many_chapters_are_accepted_up_to_the_limit_and_said_beyond() -> None:
    sections = [OutlineNode(title=f"工序{chr(0x4e00 + i)}") for i in range(14)]
    names = "编制说明 工程概况 施工部署 进度计划 质量保证 安全管理 文明施工 环境保护 季节施工 应急预案 成品保护 竣工验收".split()
    chapters = [OutlineNode(title=t, children=[OutlineNode(title=t + "要点")]) for t in names]
    chapters.append(OutlineNode(title="施工方案", children=sections))
    assert check_outline(chapters) == []  # 13 chapters, a list of 14
    more = "保修服务 培训方案 协调配合 资源配置 风险管理 技术创新 信息管理 合理化建议".split()
    many = [*chapters, *(OutlineNode(title=t, children=[OutlineNode(title=t + "要点")]) for t in more)]
    issues = check_outline(many)
    assert [i.code for i in issues] == ["too_many_chapters"] and "21" in issues[0].message and "20" in issues[0].message


def test_title_helpers() -> None:
    assert strip_numbering("1.2 设计原则") == "设计原则"
    assert strip_numbering("第三章 实施方案") == "实施方案"
    assert strip_numbering("（二）保障措施") == "保障措施"
    assert strip_numbering("Project-2: 实施进度计划") == strip_numbering("Step 3：实施进度计划") == "实施进度计划"
    assert strip_numbering("ISO9001 质量体系") == "ISO9001 质量体系"  # a standard's number is not a list label
    assert title_problem("  ") == "标题为空"
    assert title_problem("...") is not None
    assert title_problem("项目理解") is None
    assert title_problem("《食品安全法》执行措施") is None
    assert title_problem("}, …], …} 向下的内容是： 1. 对项目人员的培训") is not None
    assert title_problem("请写出以下内容") is not None
    assert normalize_title("服务方案（2）") == normalize_title("服务方案(3)") == "服务方案"
    assert title_problem("原料采购（2）： 200万") is not None and title_problem("菜品制作：180万元") is not None
    assert title_problem("100万元以下零星项目管理") is None  # an amount inside a phrase is the heading's subject


def test_a_heading_titled_like_any_ancestor_is_refused() -> None:
    kids = [OutlineNode(title="服务方案"), OutlineNode(title="相关要求说明")]
    chapters = [OutlineNode(title="服务方案", children=[OutlineNode(title="食品安全", children=kids),
                                                      OutlineNode(title="餐次安排", children=[OutlineNode(title="早餐供应"),
                                                                                          OutlineNode(title="午餐供应")])]),
                OutlineNode(title="应急预案", children=[OutlineNode(title=t, children=[OutlineNode(title=t + "流程"),
                                                                                      OutlineNode(title=t + "记录")])
                                                      for t in ("火灾处置", "停电处置")])]
    issues = [i for i in check_outline(chapters) if i.code == "same_as_parent"]
    assert [i.pointer for i in issues] == ["/outline/0/children/0/children/0/title"]
    assert normalize_title("ISO9001认证") == "iso9001认证"
    assert title_problem("培训计划……") is not None
    assert title_problem("项目名称：山西华阳集团新能股份有限公司一矿阎家庄风井项目") is not None
    assert title_problem("招标代理单位：中国中铁集团公司") is not None
    assert title_problem("服务承诺：7×24小时响应") is None
    assert title_problem("项目1000000000000000000000000000") is not None
    assert title_problem("A.1050000000") is not None
    assert title_problem("ISO9001质量管理体系") is None
    assert title_problem("10-year-old child") is not None
    assert title_problem("项目编号") is not None


@pytest.mark.parametrize("title", ["节标题", "章节标题", "小节", "标题一", "标题1", "小节2", "第三节", "子标题（二）",
                                   "小点标题", "要点", "细项3"])
def test_placeholder_headings_are_rule_violations(title: str) -> None:
    from app.core.rules.outline import title_problem

    assert title_problem(title)


@pytest.mark.parametrize("title", ["项目实施方案", "质量保障措施", "服务标准", "分项设计", "章节安排说明", "应急要点处置"])
def test_real_headings_are_not_placeholders(title: str) -> None:
    from app.core.rules.outline import title_problem

    assert title_problem(title) is None


def test_two_sections_of_one_chapter_with_the_same_children_are_a_repeated_pattern() -> None:
    def section(title: str, kids: list[str]) -> OutlineNode:
        return OutlineNode(title=title, children=[OutlineNode(title=k) for k in kids])

    same = ["职能与岗位", "协作关系", "人员管理制度"]
    chapter = OutlineNode(title="管理机构设置", children=[section("机构设置", same), section("岗位职责", list(reversed(same)))])
    other = OutlineNode(title="风险管理", children=[section("风险识别", ["风险清单", "风险等级"]),
                                                   section("风险应对", ["规避措施", "转移安排"])])
    found = [(i.code, i.pointer) for i in check_outline([chapter, other])]
    assert found == [("repeated_children", "/outline/0/children/1/children")]
    # Nearly the same (four of five shared, as a weak model wrote them) is the same pattern.
    chapter.children[0] = section("机构设置", ["职位设置", *same, "内部运行机制"])
    chapter.children[1] = section("岗位职责", [*same, "内部运行机制"])
    assert [i.code for i in check_outline([chapter, other])] == ["repeated_children"]
    chapter.children[1] = section("岗位职责", ["岗位说明书", "协作关系", "考核办法"])
    assert not check_outline([chapter, other])
    # The same set under sections of different chapters (twice only) is not flagged by this rule.
    other.children[1] = section("风险应对", same)
    distinct = chapter.model_copy(update={"children": [chapter.children[0], section("岗位职责", ["岗位说明", "考核办法"])]})
    assert not [i for i in check_outline([distinct, other]) if i.code == "repeated_children"]


def test_a_persons_outline_shapes_are_valid_as_written_and_said() -> None:
    """Issue 38: one top chapter with everything below it, a chapter list, an overview section titled like
    its parent beside others are what people write — never refused, always said."""
    one = [OutlineNode(title="质量保证和售后服务", children=[
        OutlineNode(title="质量保证", children=[OutlineNode(title="质量目标"), OutlineNode(title="质量体系")]),
        OutlineNode(title="售后服务", children=[OutlineNode(title="服务承诺"), OutlineNode(title="响应时间")])])]
    assert check_outline(one) == [] and generation_issues(one) == []
    assert [i.code for i in outline_warnings(one)] == ["one_chapter"]
    assert outline_warnings(one, whole=False) == []  # one-to-one mode: one scoring item, one chapter
    overview = [OutlineNode(title="工程概况", children=[OutlineNode(title="工程概况"), OutlineNode(title="工程的各项参数")]),
                OutlineNode(title="监理规划", children=[OutlineNode(title="监理目标")])]
    assert check_outline(overview) == []
    warned = outline_warnings(overview)
    assert [(i.code, i.pointer) for i in warned] == [("same_as_parent_kept", "/outline/0/children/0/title")]
    alone = [OutlineNode(title="工程概况", children=[OutlineNode(title="工程概况")]), overview[1]]
    assert [i.code for i in check_outline(alone)] == ["same_as_parent"]  # nothing beside it: an empty level
    near = [OutlineNode(title="服务质量保证措施与服务质量承诺", children=[
        OutlineNode(title="服务质量保障措施与服务质量承诺"), OutlineNode(title="人员保障")]), overview[1]]
    assert [i.code for i in check_outline(near)] == ["same_as_parent"]  # one character off: a copying slip
    assert [i.code for i in check_outline([])] == ["too_few_chapters"]

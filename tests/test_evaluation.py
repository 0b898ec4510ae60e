"""评审模拟 by code: each point's status with evidence, tiers read from criteria texts, the score."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.analysis import Analysis, ScoringGroup
from app.core.outline import OutlineNode
from app.pipeline.evaluation.matching import BidText, match_point
from app.pipeline.evaluation.review import review_bid
from app.pipeline.evaluation.terms import item_points, point_terms
from app.pipeline.evaluation.tiers import estimate, parse_rule, parse_tiers

BODY = "我方设立专门小组，明确岗位和职责，每月检查一次并形成书面记录，发现问题当日整改并复查，确保各项工作落实到位。"


def _group(gid: str, title: str, criteria: str, points: float | None = 10.0) -> ScoringGroup:
    return ScoringGroup(id=gid, title=title, description=criteria, points=points)


def _bid(*sections: tuple[str, str], rid: str = "R1", title: str = "服务方案") -> list[OutlineNode]:
    return [OutlineNode(title=title, source_requirement_id=rid,
                        children=[OutlineNode(title=t, content=c) for t, c in sections])]


CRITERIA = ("根据投标人提供的服务方案进行评审，方案内容包含但不限于：①人员配置方案；②应急处置预案；③服务质量保证措施。"
            "方案完整、科学合理的得10分；方案较完整的得7分；方案简单的得3分；未提供的不得分。")


def _review(chapters: list[OutlineNode], criteria: str = CRITERIA) -> list[tuple[str, str]]:
    analysis = Analysis(groups=[_group("R1", "服务方案", criteria)])
    (item,) = review_bid(analysis, chapters).items
    return [(p.label, p.status) for p in item.points]


def test_a_point_with_a_titled_section_and_a_body_is_answered_with_evidence() -> None:
    chapters = _bid(("人员配置方案", "本项目人员配置方案如下：" + BODY), ("应急处置预案", "应急处置预案分三级。" + BODY),
                    ("服务质量保证措施", "服务质量保证措施包括日检周查。" + BODY))
    analysis = Analysis(groups=[_group("R1", "服务方案", CRITERIA)])
    review = review_bid(analysis, chapters)
    (item,) = review.items
    assert [p.status for p in item.points] == ["answered"] * 3
    first = item.points[0]
    assert first.evidence[0].path == (0, 0) and first.evidence[0].heading == "1.1 人员配置方案"
    assert "人员配置方案" in first.evidence[0].quote
    assert item.estimate.expected == 10 and item.estimate.maximum == 10
    assert review.expected == 10 and review.maximum == 10


def test_a_removed_point_is_missing_and_the_tier_drops() -> None:
    chapters = _bid(("人员配置方案", "本项目人员配置方案如下：" + BODY), ("服务质量保证措施", "服务质量保证措施包括日检周查。" + BODY))
    assert dict(_review(chapters)) == {"人员配置方案": "answered", "应急处置预案": "missing", "服务质量保证措施": "answered"}
    analysis = Analysis(groups=[_group("R1", "服务方案", CRITERIA)])
    (item,) = review_bid(analysis, chapters).items
    assert item.estimate.expected == 7 and item.estimate.tier.endswith("方案较完整")


def test_a_single_short_mention_is_thin() -> None:
    chapters = _bid(("人员配置方案", "本项目人员配置方案如下：" + BODY),
                    ("服务质量保证措施", "服务质量保证措施包括日检周查。" + BODY + "另备有应急处置预案。"))
    statuses = dict(_review(chapters))
    assert statuses["应急处置预案"] == "thin"


def test_a_title_without_text_is_missing_with_a_note() -> None:
    chapters = _bid(("人员配置方案", "本项目人员配置方案如下：" + BODY), ("应急处置预案", ""))
    analysis = Analysis(groups=[_group("R1", "服务方案", CRITERIA)])
    (item,) = review_bid(analysis, chapters).items
    point = item.points[1]
    assert point.status == "missing" and point.note == "只有标题，没有正文" and point.evidence[0].path == (0, 1)


def test_a_number_the_point_asks_for_must_be_given() -> None:
    terms = point_terms("故障响应时间不超过2小时")
    assert terms is not None and terms.units == ("小时",)
    text = BidText([OutlineNode(title="故障响应", content="故障响应时间由值班人员负责。" + BODY + "故障响应时间按约定执行。")])
    assert match_point(terms, text.passages).status == "thin"
    text = BidText([OutlineNode(title="故障响应", content="故障响应时间不超过 1 小时。" + BODY + "故障响应时间按约定执行。")])
    assert match_point(terms, text.passages).status == "answered"


def test_a_sibling_point_is_not_read_as_the_answer() -> None:
    criteria = "方案至少包括食堂服务人员管理制度、食堂服务实施措施等进行评审。"
    chapters = _bid(("食堂服务人员管理制度", "食堂服务人员管理制度规定上岗要求。" + BODY), title="食堂服务方案")
    assert dict(_review(chapters, criteria)) == {"食堂服务人员管理制度": "answered", "食堂服务实施措施": "missing"}


def test_an_answer_in_another_items_chapter_is_thin_with_where() -> None:
    analysis = Analysis(groups=[_group("R1", "服务方案", CRITERIA), _group("R2", "培训方案", "培训计划", 5)])
    chapters = [*_bid(("人员配置方案", "本项目人员配置方案如下：" + BODY), ("服务质量保证措施", "服务质量保证措施。" + BODY)),
                OutlineNode(title="培训方案", source_requirement_id="R2", children=[
                    OutlineNode(title="培训计划", content=BODY),
                    OutlineNode(title="服务方案中的应急处置预案", content="应急处置预案分为三级响应。" + BODY)])]
    item = review_bid(analysis, chapters).items[0]
    point = item.points[1]
    assert point.status == "thin" and "2.2 服务方案中的应急处置预案" in point.note


def test_a_title_naming_several_points_is_no_answer_to_either() -> None:
    criteria = "根据零部件、备品备件供应情况进行评审。"
    chapters = _bid(("供应保障", "零部件由原厂直供，库存充足。" + BODY), title="零部件、备品备件供应情况")
    assert dict(_review(chapters, criteria)) == {"零部件": "thin", "备品备件供应": "missing"}


def test_a_sub_item_is_looked_for_under_its_parent_point() -> None:
    criteria = "①食品安全管理：包括采购、储存、加工等；②食堂卫生管理：包括餐具消毒、食材储存管理等。"
    chapters = [OutlineNode(title="服务方案", source_requirement_id="R1", children=[
        OutlineNode(title="食品安全管理", children=[OutlineNode(title="采购", content="采购环节索证索票。" + BODY),
                                                   OutlineNode(title="加工", content="加工环节生熟分开。" + BODY)]),
        OutlineNode(title="食堂卫生管理", children=[
            OutlineNode(title="餐具消毒", content="餐具消毒每餐一次。" + BODY),
            OutlineNode(title="食材储存管理", content="食材储存管理分区分架，离地离墙。" + BODY)])])]
    statuses = dict(_review(chapters, criteria))
    assert statuses["食品安全管理：储存"] == "missing"
    assert statuses["食堂卫生管理：食材储存管理"] == "answered" and statuses["食品安全管理：加工"] == "answered"


def test_no_mapping_searches_the_whole_bid() -> None:
    chapters = [OutlineNode(title="总体方案", children=[
        OutlineNode(title="人员配置方案", content="人员配置方案如下：" + BODY),
        OutlineNode(title="应急处置预案", content="应急处置预案分三级。" + BODY),
        OutlineNode(title="服务质量保证措施", content="服务质量保证措施。" + BODY)])]
    assert [s for _, s in _review(chapters)] == ["answered"] * 3


def test_item_points_fall_back_to_the_title() -> None:
    points = item_points(_group("R1", "服务方案", "方案合理得5分，较合理得3分。", 5))
    assert [p.label for p in points] == ["服务方案"]
    sub = item_points(_group("R2", "环境管理", "①环境管理：包括布局设计、桌椅摆放、照明等方面的管理；②员工卫生管理。"))
    assert [p.label for p in sub][:3] == ["环境管理：布局设计", "环境管理：桌椅摆放", "环境管理：照明"]


# ------------------------------------------------------------------ tiers on generated criteria texts

TIER_TEXTS = [
    ("方案{q}的，优（8-10分）；方案较完整的，良（5-7分）；方案一般的，中（2-4分）；未提供的不得分。",
     [("优", 8, 10), ("良", 5, 7), ("中", 2, 4), ("未提供", 0, 0)]),
    ("优 8–10 分：方案{q}；良 5–7 分：方案较完整；差 0–4 分：方案简单。",
     [("优", 8, 10), ("良", 5, 7), ("差", 0, 4)]),
    ("1、方案{q}，得10分；\n2、方案较完整，得7分；\n3、方案简单，得4分；\n4、未提供的，不得分。",
     [("方案{q}", 10, 10), ("方案较完整", 7, 7), ("方案简单", 4, 4), ("未提供", 0, 0)]),
]


@pytest.mark.parametrize("quality", ["完整科学", "详细可行", "合理"])
@pytest.mark.parametrize(("template", "want"), TIER_TEXTS)
def test_tiers_are_read_best_first(template: str, want: list[tuple[str, float, float]], quality: str) -> None:
    tiers = parse_tiers(template.format(q=quality))
    assert [(t.label, t.low, t.high) for t in tiers] == [(lbl.format(q=quality), lo, hi) for lbl, lo, hi in want]
    assert parse_rule(template.format(q=quality)).kind == "tiers"


@pytest.mark.parametrize(("per", "cap"), [(2, 6), (1.5, 4.5), (3, 9)])
def test_per_item_points_with_a_cap(per: float, cap: float) -> None:
    text = f"投标人每提供一项有效措施得{per:g}分，最高得{cap:g}分。"
    rule = parse_rule(text)
    assert rule.kind == "per_item" and rule.per_item == per and rule.cap == cap
    assert estimate(rule, ["answered", "thin", "missing"], cap).expected == 2 * per
    assert estimate(rule, ["answered"] * 5, cap).expected == cap


@pytest.mark.parametrize("deduct", [1, 2, 2.5])
def test_a_deduction_per_missing_point(deduct: float) -> None:
    rule = parse_rule(f"方案内容完全满足要求得10分；每缺少一项内容扣{deduct:g}分。")
    assert rule.kind == "deduction" and rule.per_item == deduct
    assert estimate(rule, ["answered", "missing", "missing"], 10).expected == 10 - 2 * deduct


def test_numbered_sub_points_with_own_points() -> None:
    rule = parse_rule("1、服务理念，0-5分；2、重点难点应对措施，0-5分", [5.0, 5.0])
    assert rule.kind == "sub_points"
    assert estimate(rule, ["answered", "thin"], 10, [5.0, 5.0]).expected == 7.5


def test_sub_points_that_do_not_add_up_are_scaled_to_the_maximum() -> None:
    rule = parse_rule("1、服务理念，0-5分；3、重点难点应对措施，0-5分", [5.0, 5.0])
    est = estimate(rule, ["answered", "answered"], 15, [5.0, 5.0])
    assert est.expected == 15 and "折算" in est.explanation


def test_each_sub_point_graded_alike() -> None:
    text = "①火灾；②停电；③食物中毒，以上每小项满分3分，响应完整的小项得3分，响应有所欠缺的小项得1分，缺失的小项得0分。"
    rule = parse_rule(text)
    assert rule.kind == "point_tiers"
    assert estimate(rule, ["answered", "thin", "missing"], 9).expected == 4


def test_a_single_range_scales_with_the_answered_share() -> None:
    rule = parse_rule("根据投标人的应急预案进行评审，0-10 分；")
    assert rule.kind == "range"
    assert estimate(rule, ["answered", "missing"], 10).expected == 5


def test_no_grading_is_proportional_and_says_so() -> None:
    rule = parse_rule("方案应当全面。")
    est = estimate(rule, ["answered", "answered", "missing", "missing"], 8)
    assert rule.kind == "proportional" and est.expected == 4 and "估算" in est.explanation


# ------------------------------------------------------------------ 补写: where the text goes


def test_fill_targets_append_to_a_thin_section_or_add_a_heading_where_it_fits() -> None:
    from app.pipeline.evaluation.fill import draft_problem, fill_target

    criteria = "方案内容包含但不限于：①人员配置方案；②应急处置预案；③服务质量保证措施；④设备维护保养计划。"
    chapters = [OutlineNode(title="服务方案", source_requirement_id="R1", children=[
        OutlineNode(title="人员配置方案", content="人员配置方案如下：项目经理一名，保洁员十二名。" + BODY),
        OutlineNode(title="质量与应急", children=[
            OutlineNode(title="服务质量保证措施", content="服务质量保证措施包括日检周查。" + BODY + "另备有应急处置预案。")]),
        OutlineNode(title="设备管理", description="设备维护")])]
    analysis = Analysis(groups=[_group("R1", "服务方案", criteria)])
    (item,) = review_bid(analysis, chapters).items
    by_label = {p.label: p for p in item.points}
    assert by_label["应急处置预案"].status == "thin"
    thin = fill_target(item, by_label["应急处置预案"], chapters)
    assert (thin.kind, thin.path) == ("append", (0, 1, 0))
    device = fill_target(item, by_label["设备维护保养计划"], chapters)
    assert (device.kind, device.path, device.index, device.title) == ("insert", (0, 2), 0, "设备维护保养计划")
    alone = Analysis(groups=[_group("R1", "服务方案", "方案内容包括：①人员配置方案；②培训计划。")])
    (item2,) = review_bid(alone, chapters).items
    training = fill_target(item2, item2.points[1], chapters)
    assert (training.kind, training.path, training.index) == ("insert", (0,), 3)
    point = by_label["应急处置预案"]
    assert draft_problem("太短。", point) == "模型返回的正文过短"
    assert draft_problem("我方将认真做好各项服务工作，确保服务质量达到采购人要求，并持续改进服务流程和管理制度。", point)
    assert draft_problem("针对应急处置预案，我方按火灾、停电、食物中毒三类事件分级响应，现场负责人五分钟内到场。", point) is None


# ------------------------------------------------------------------ tiers on criteria texts generated at random

_QUALITY = ("方案完整、科学合理", "方案较完整、基本合理", "方案一般", "方案简单、针对性不强", "方案粗糙")
_STYLES = ("{q}的，得{p}分", "{q}，得{p}分", "{q}的得{p}分", "{q}：{p}分")


@st.composite
def _graded(draw: st.DrawFn) -> tuple[str, list[float]]:
    n = draw(st.integers(min_value=2, max_value=5))
    points = sorted(draw(st.lists(st.integers(min_value=1, max_value=30), min_size=n, max_size=n, unique=True)),
                    reverse=True)
    style = draw(st.sampled_from(_STYLES))
    numbered = draw(st.booleans())
    sep = draw(st.sampled_from(("；", "；\n", "。")))
    parts = [style.format(q=_QUALITY[i], p=p) for i, p in enumerate(points)]
    if numbered:
        parts = [f"{i + 1}、{x}" for i, x in enumerate(parts)]
    zero = draw(st.booleans())
    if zero:
        parts.append(f"{len(parts) + 1}、未提供的不得分" if numbered else "未提供的不得分")
    text = "根据投标人的服务方案进行评审：" + sep.join(parts) + "。"
    return text, [float(p) for p in points] + ([0.0] if zero else [])


@settings(max_examples=80, deadline=None)
@given(_graded())
def test_generated_graded_criteria_give_their_tiers_in_order(case: tuple[str, list[float]]) -> None:
    text, points = case
    tiers = parse_tiers(text)
    assert [t.high for t in tiers] == points
    rule = parse_rule(text)
    assert rule.kind == "tiers"
    top = points[0]
    assert estimate(rule, ["answered"] * 3, top).expected == top
    assert estimate(rule, ["missing"] * 3, top).expected == 0.0  # nothing written: no tier, however low
    assert estimate(rule, ["missing", "missing", "thin"], top).expected == (points[-2] if points[-1] == 0 else points[-1])


def test_text_about_a_narrower_point_is_thin_evidence_for_the_broader_one() -> None:
    criteria = "方案至少包括培训、培训计划等进行评审。"
    chapters = _bid(("培训计划", "培训计划按季度编排，每季度两次。" + BODY), title="人员管理")
    statuses = dict(_review(chapters, criteria))
    assert statuses == {"培训": "thin", "培训计划": "answered"}
    analysis = Analysis(groups=[_group("R1", "人员管理", criteria)])
    point = review_bid(analysis, chapters).items[0].points[0]
    assert point.note == "只在“培训计划”的内容中提及"

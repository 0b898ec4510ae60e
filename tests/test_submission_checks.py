"""提交前检查: each rule that decides 废标 (or an unfinished bid) before export."""

from __future__ import annotations

import pytest

from app.core.analysis import Analysis, ScoringGroup
from app.core.breakdown import Breakdown, RiskItem
from app.core.outline import OutlineNode
from app.export.submission_checks import (
    anonymity_findings,
    estimated_pages,
    order_findings,
    page_findings,
    page_limit_in,
    submission_checks,
    text_findings,
)
from app.pipeline.evaluation.clauses import clause_coverage

BODY = "我方设立专门小组，明确岗位和职责，每月检查一次并形成书面记录，发现问题当日整改并复查。"
CLAUSE = "★3.2 投标人须为全部派驻人员购买雇主责任险，保额不低于每人五十万元。"


def _analysis() -> Analysis:
    return Analysis(groups=[ScoringGroup(id="R1", title="服务方案", points=10),
                            ScoringGroup(id="R2", title="应急预案", points=5)])


def _chapters(*extra: OutlineNode) -> list[OutlineNode]:
    return [OutlineNode(title="服务方案", source_requirement_id="R1", children=[OutlineNode(title="服务流程", content=BODY)]),
            OutlineNode(title="应急预案", source_requirement_id="R2", children=[OutlineNode(title="预案体系", content=BODY),
                                                                           *extra])]


def _breakdown(**kw: object) -> Breakdown:
    return Breakdown(risks=[RiskItem(text=CLAUSE, origin="code", mark="★", category="rejection", **kw)])  # type: ignore[arg-type]


def _blocking(findings: list) -> list[str]:  # type: ignore[type-arg]
    return [f.rule for f in findings if f.blocking]


def test_a_star_clause_the_text_does_not_answer_blocks_while_left_at_the_default() -> None:
    chapters = _chapters()
    breakdown = _breakdown()
    addressed = {c.risk_index: c.answered_by for c in clause_coverage(breakdown, chapters)}
    assert addressed == {0: ""}
    found = submission_checks(_analysis(), chapters, breakdown, addressed=addressed)
    assert _blocking(found) == ["★条款"] and "待确认" in found[0].message


def test_a_star_clause_answered_in_the_text_passes() -> None:
    answer = OutlineNode(title="人员保险", content="我方承诺为全部派驻人员购买雇主责任险，保额每人五十万元。" + BODY)
    chapters = _chapters(answer)
    breakdown = _breakdown(answered_in="2.2")
    addressed = {c.risk_index: c.answered_by for c in clause_coverage(breakdown, chapters)}
    assert addressed == {0: "2.2 人员保险"}
    assert submission_checks(_analysis(), chapters, breakdown, addressed=addressed) == []


def test_a_clause_marked_answered_by_a_section_that_does_not_show_it_warns() -> None:
    found = submission_checks(_analysis(), _chapters(), _breakdown(answered_in="2.1"), addressed={0: ""})
    assert [(f.rule, f.blocking, f.path) for f in found] == [("★条款", False, (1, 0))]
    assert "请核对" in found[0].message


def test_a_filled_deviation_row_passes_even_without_text() -> None:
    breakdown = _breakdown(deviation="负偏离", deviation_note="保额按每人三十万元")
    assert submission_checks(_analysis(), _chapters(), breakdown, addressed={0: ""}) == []


def test_a_triangle_clause_only_warns() -> None:
    breakdown = Breakdown(risks=[RiskItem(text="▲ 投标人应提供驻场人员名册。", origin="code", mark="▲")])
    found = submission_checks(_analysis(), _chapters(), breakdown, addressed={0: ""})
    assert [(f.rule, f.blocking) for f in found] == [("▲条款", False)]


@pytest.mark.parametrize(("text", "limit"), [
    ("技术标不超过 80 页（不含封面）。", 80), ("技术部分篇幅不得超过120页", 120), ("技术文件应控制在 60 页以内", 60),
    ("投标文件正文不少于 10 页", None), ("商务标不超过 30 页", None)])
def test_the_page_limit_is_read_from_the_tender(text: str, limit: int | None) -> None:
    assert page_limit_in(text) == limit


def test_the_page_limit_blocks_after_layout_and_warns_on_an_estimate() -> None:
    assert page_findings(50, 40, estimated=False) == []
    assert [f.blocking for f in page_findings(50, 61, estimated=False)] == [True]
    assert [f.blocking for f in page_findings(50, 61, estimated=True)] == [False]
    long = [OutlineNode(title="章", children=[OutlineNode(title="节", content="字" * 6500)])]
    assert 10 <= estimated_pages(long) <= 11
    found = submission_checks(_analysis(), long, None, page_limit=5)
    assert any(f.rule == "页数限制" and "估算" in f.message for f in found)


def test_chapters_out_of_the_scoring_order_or_missing() -> None:
    chapters = _chapters()
    assert order_findings(_analysis(), chapters) == []
    swapped = order_findings(_analysis(), chapters[::-1])
    assert [(f.rule, f.blocking) for f in swapped] == [("章节顺序", False)]
    missing = order_findings(_analysis(), chapters[:1])
    assert [(f.blocking, "应急预案" in f.message) for f in missing] == [(False, True)]
    mapped = [chapters[0], OutlineNode(title="其他", children=[OutlineNode(title="预案", content=BODY, scoring_refs=["R2"])])]
    assert order_findings(_analysis(), mapped) == []  # a section the user mapped answers the item


def test_anonymity_finds_names_phones_mails_and_people() -> None:
    bad = OutlineNode(title="团队", content=("恒信配送将组建专门团队，项目经理：王建国，联系电话 13812345678，"
                                           "邮箱 hx@example.com。设备由华北机电设备有限公司供货。"))
    found = anonymity_findings(_chapters(bad), bidder="广州市恒信配送服务有限公司")
    messages = " ".join(f.message for f in found)
    assert "投标人名称" in messages and "13812345678" in messages and "hx@example.com" in messages
    assert "王建国" in messages
    assert all(f.blocking for f in found if "公司名称" not in f.message)
    assert anonymity_findings(_chapters(), bidder="广州市恒信配送服务有限公司") == []
    assert anonymity_findings([OutlineNode(title="人员", content="项目经理负责统筹，主管负责现场。")]) == []


def test_anonymity_runs_only_in_anonymous_mode() -> None:
    leaky = OutlineNode(title="联系", content="联系电话 13812345678。" + BODY)
    assert not any(f.rule == "暗标" for f in submission_checks(_analysis(), _chapters(leaky), None))
    assert any(f.rule == "暗标" for f in submission_checks(_analysis(), _chapters(leaky), None, anonymous=True))


@pytest.mark.parametrize("placeholder", ["【项目名称】", "XXX", "×××", "某某", "待补充"])
def test_empty_sections_and_placeholders_block(placeholder: str) -> None:
    chapters = _chapters(OutlineNode(title="空白小节"), OutlineNode(title="说明", content=f"本项目{placeholder}的服务。"))
    found = text_findings(chapters)
    assert [(f.rule, f.path) for f in found] == [("空章节", (1, 1)), ("占位文字", (1, 2))]
    assert all(f.blocking for f in found)


def test_the_parts_a_tender_prescribes_must_be_there_and_in_order() -> None:
    from app.documents.outlines.prescribed import prescribed_outline
    from app.export.submission_checks import prescribed_findings

    tender = ("第四章 投标文件格式\n技术部分须按以下顺序编写：\n一、项目理解与需求分析\n二、服务方案\n三、质量保证措施\n"
              "四、应急预案\n以上内容缺项的，按无效投标处理。\n第五章 合同条款\n")
    parts = [s.title for s in prescribed_outline(tender)]
    assert parts == ["项目理解与需求分析", "服务方案", "质量保证措施", "应急预案"]
    complete = [OutlineNode(title=t) for t in ("项目理解与需求分析", "服务方案及实施计划", "质量保证措施", "应急预案")]
    assert prescribed_findings(parts, complete) == []
    missing = [OutlineNode(title=t) for t in ("项目理解与需求分析", "服务方案", "应急预案")]
    found = prescribed_findings(parts, missing)
    assert [(f.rule, f.blocking) for f in found] == [("规定结构", True)] and "质量保证措施" in found[0].message
    swapped = [OutlineNode(title=t) for t in ("服务方案", "项目理解与需求分析", "质量保证措施", "应急预案")]
    found = prescribed_findings(parts, swapped)
    assert [(f.rule, f.blocking) for f in found] == [("规定结构", False)] and found[0].path == (0,)
    assert prescribed_findings([], missing) == []  # a tender that prescribes nothing: no finding


def test_a_prescribed_part_left_out_blocks_in_the_whole_list() -> None:
    chapters = _chapters()
    found = submission_checks(_analysis(), chapters, None, prescribed=["项目理解与需求分析", chapters[0].title])
    assert any(f.rule == "规定结构" and f.blocking and "项目理解" in f.message for f in found)


def test_a_bare_someone_is_a_placeholder_but_a_quoted_or_surnamed_name_is_not() -> None:
    from app.export.submission_checks import placeholder_in

    assert placeholder_in("由某某负责每日检查。") == "某某"
    assert placeholder_in("项目经理张某某负责全面工作。") is None  # a name a 暗标 writer left out on purpose
    assert placeholder_in("保洁由“某某物业”派驻，执行《某某市物业管理办法》。") is None
    assert placeholder_in("“某某物业”派驻人员，某某负责检查。") == "某某"  # the bare one after the quote
    assert placeholder_in("详见【附件三】，由张某某签字") == "【附件三】"


def test_many_findings_of_one_rule_are_one_group_in_place() -> None:
    from app.export.submission_checks import Finding, FindingGroup, grouped

    found = [Finding("★条款", "a", True), *[Finding("空章节", f"s{i}", True, (0, i)) for i in range(5)],
             Finding("占位文字", "p", True), Finding("空章节", "late", False)]
    out = grouped(found)
    assert [type(e).__name__ for e in out] == ["Finding", "FindingGroup", "Finding", "Finding"]
    group = out[1]
    assert isinstance(group, FindingGroup) and group.message == "5 节没有正文" and len(group.findings) == 5
    assert grouped(found[:4]) == found[:4]  # three of a kind stay three rows

"""Heading form: noun phrases pass; pieces of sentences (seen from weak models and naive splitting) do not."""

from __future__ import annotations

import pytest

from app.core.rules.heading_form import fragment_problem, is_heading_form, vague_problem

HEADINGS = ["应急物资储备", "食品安全", "质量保证", "及时响应机制", "如期交付保障", "等级保护测评", "设计评审",
            "配送车辆调度管理", "项目负责人", "收银", "概况", "吊顶", "CMMI3", "ISO9001", "关于节假日保障", "人员流动率控制", "厨房操作规范", "和谐劳动关系建设", "需求分析"]
FRAGMENTS = {
    "如拣货": "开头", "等方面": "开头", "和营业员": "开头", "收": "中文", "数量大": "结尾", "专业性强": "结尾",
    "覆盖面广": "结尾", "售后服务及时": "结尾", "运行费用低": "结尾", "服务等": "结尾", "投标人提供": "评分",
    "根据投标人的服务方案": "开头", "方案内容包含但不限于": "动词", "质量保证措施完善": "结尾", "得3分": "评分",
    "内容完整，措施具体": "标点", "设置用水定额并进行监控管理": "连接词", "CISP与CISAW": "中文",
    "需要另行招聘": "开头", "是否具备资质": "开头", "项目经理具有中级以上职称": "谓语", "驾驶员不少于3名": "谓语",
}


@pytest.mark.parametrize("title", HEADINGS)
def test_headings_pass(title: str) -> None:
    assert fragment_problem(title) is None
    assert is_heading_form(title)


@pytest.mark.parametrize(("title", "why"), FRAGMENTS.items())
def test_fragments_are_named(title: str, why: str) -> None:
    problem = fragment_problem(title)
    assert problem is not None and why in problem


def test_numbering_is_ignored_and_long_sentences_refused() -> None:
    assert fragment_problem("1.2 应急物资储备") is None
    assert fragment_problem("（三）售后服务方案") is None
    assert "超过" in (fragment_problem("采购人要求在规定时间内完成全部食材的验收入库和分拣配送工作内容安排以及每日的台账记录和留样工作安排") or "")


def test_a_clause_of_the_criteria_copied_whole_is_a_fragment() -> None:
    criteria = "根据投标人的服务方案进行评审：服务内容和实施方案科学合理，考虑周全，得10分；①项目人员配置方案；②实施进度计划"
    assert "照抄" in (fragment_problem("服务内容和实施方案科学合理", criteria) or "") or \
        fragment_problem("服务内容和实施方案科学合理", criteria) is not None
    # listed points are what the criteria ask for: they make headings
    assert fragment_problem("项目人员配置方案", criteria) is None
    assert fragment_problem("实施进度计划", criteria) is None


@pytest.mark.parametrize(("title", "vague", "filler"), [
    ("相关需求", True, True), ("相关业务", True, True), ("有关问题", True, True),
    # a person writes these beside their siblings; only a weak model's one-section answer is refused them
    ("服务内容", False, True), ("问题管理", False, True), ("其他事项", False, True), ("其他", False, True),
    ("其他要求", False, False), ("工作计划", False, False), ("需求分析", False, False), ("用户需求", False, False),
    ("应急管理", False, False), ("服务方案", False, False), ("保洁服务内容", False, False),
])
def test_a_heading_made_only_of_empty_words_is_vague(title: str, vague: bool, filler: bool) -> None:
    assert (vague_problem(title) is not None) == vague
    assert (vague_problem(title, strict=True) is not None) == filler


def test_a_clause_cut_after_a_pronoun_or_around_an_instruction_verb_is_a_fragment() -> None:
    assert "以“该”结尾" in (fragment_problem("饮食需求六个方面阐述对该") or "")
    assert fragment_problem("饮食需求六个方面阐述对项目理解和认识") is not None
    assert fragment_problem("设备说明书") is None and fragment_problem("功能说明") is None

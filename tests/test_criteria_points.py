"""The criteria splitter on generated criteria texts: every pattern tenders use, grade levels left out."""

from __future__ import annotations

import pytest

from app.core.rules.heading_form import fragment_problem
from app.pipeline.headings.criteria_points import point_heading, point_headings, split_criteria


def texts(criteria: str) -> list[str]:
    return [p.text for p in split_criteria(criteria)]


def test_circled_items_with_trailing_grading() -> None:
    c = ("根据供应商针对本项目提供的方案进行综合评分：方案内容包含但不限于：①人员配置方案；②实施进度计划；③设备配置方案；"
         "④售后服务方案等，方案内容完全满足要求得40分；每缺少一项内容扣5分。\n注：缺陷指方案内容凭空编造。")
    assert texts(c) == ["人员配置方案", "实施进度计划", "设备配置方案", "售后服务方案"]


def test_circled_items_with_sub_enumerations_become_children() -> None:
    c = "①场地环境管理：包括布局设计、桌椅摆放、照明、通风等方面的管理；②员工卫生管理：包括个人卫生、着装、健康状况等方面。"
    heads = dict(point_headings(c))
    assert heads["场地环境管理"] == ["布局设计", "桌椅摆放"]
    assert heads["员工卫生管理"] == ["个人卫生", "健康状况"]


def test_numbered_grade_levels_are_not_points() -> None:
    c = ("根据投标人制订的巡检服务方案（至少包括巡检管理规章制度、巡检实施措施等）进行评审：\n"
         "1、服务内容和实施方案科学合理，考虑周全，得10分；\n2、服务内容和实施方案较科学合理，得7分；\n"
         "3、服务内容和实施方案一般，得4分；\n4、未提供的不得分。")
    assert texts(c) == ["巡检管理规章制度", "巡检实施措施"]


def test_numbered_sub_criteria_with_their_own_points() -> None:
    c = ("（1）产品结构设计合理性、先进性，分值3～5分；\n（2）主要性能指标满足或优于要求，分值3～5分；\n"
         "（3）材料选用合理，加工工艺先进，分值3～5分。")
    pts = split_criteria(c)
    assert [p.points for p in pts] == [5.0, 5.0, 5.0]
    heads = [h for h, _ in point_headings(c)]
    assert heads == ["产品结构设计合理性与先进性", "主要性能指标", "材料选用"]


def test_enumeration_in_parentheses_after_lead_words() -> None:
    c = "根据投标人的配送方案(包括但不限于车辆调度、冷链运输、交付签收等)进行评审：1.方案科学合理得6分；2.方案较合理得4分。"
    assert texts(c) == ["车辆调度", "冷链运输", "交付签收"]


def test_enumeration_before_grading_colon() -> None:
    c = "满足项目要求的服务人员的配置，岗位设置、执业资格、持证情况、类似工作经验等综合评审：配备合理的得12分，基本合理的得8分。"
    assert texts(c) == ["岗位设置", "执业资格", "持证情况", "类似工作经验"]


def test_shared_tail_goes_to_every_item() -> None:
    c = "突发应急方案（至少包括会务服务、车辆服务、后勤服务的突发应急处理预案等）进行评审"
    assert texts(c) == ["会务服务突发应急处理预案", "车辆服务突发应急处理预案", "后勤服务突发应急处理预案"]


def test_point_blocks_and_single_objects() -> None:
    c = ("（15分）根据投标单位所提供的针对本项目服务特点、难点分析、员工激励措施等服务方案完整性进行评审：1、完整得15分；"
         "2、较完整得10分。\n（5分）根据投标单位针对本项目的应急服务方案进行评审：1、详细可行得5分。\n"
         "（10分）根据投标单位提供的服务质量保证措施、服务质量承诺、考核及奖惩办法等进行综合评审：1、健全得10分。")
    assert texts(c) == ["服务特点", "难点分析", "员工激励措施", "应急服务方案", "服务质量保证措施", "服务质量承诺",
                        "考核及奖惩办法"]


def test_grading_only_criteria_have_no_points() -> None:
    assert texts("投标人每具备一台自有或租赁的车辆得3分，最高得6分。") == []
    assert texts("1.800平方米以上的得8分；2.600平方米以上的得6分；3.不提供的，不得分。") == []


@pytest.mark.parametrize(("point", "suffix", "heading"), [
    ("火灾", "应急处置", "火灾应急处置"),
    ("配送", "管理", "配送管理"),
    ("投标单位为本次项目配置的项目负责人的工作经验", "", "项目负责人工作经验"),
    ("维护维修率低", "", "维护维修率控制"),
    ("售后服务及时", "", "售后服务及时性保障"),
    ("体系完善", "", "体系建设"),
    ("停电、停水、停气", "应急处置", "停电停水停气应急处置"),
    ("不可抗力条件的处理及其他突发情况", "", "不可抗力条件的处理"),
    ("对所有项目人员的培训方案综合评审", "", "项目人员培训方案"),
])
def test_point_heading_forms(point: str, suffix: str, heading: str) -> None:
    assert point_heading(point, suffix) == heading


@pytest.mark.parametrize("point", ["数量大", "专业性强", "如拣货", "收银", "计算机、通信、信息处理", "得分"])
def test_points_that_cannot_be_headings_give_none(point: str) -> None:
    assert point_heading(point) is None


def test_every_heading_produced_is_in_heading_form() -> None:
    criteria = [
        "①食堂环境管理：包括布局设计、桌椅摆放等；②食品安全管理：包括食品采购、储存、加工等；③垃圾处理管理",
        "对①火灾；②燃气泄漏；③食物中毒；④停电、停水；⑤自然灾害等，提供应急保障方案",
        "根据投标人的售后服务方案（包含：售后服务计划、增值服务、售后保证措施）进行评审：1.完善得6分",
        "服务方案的合理性及完整性、工作计划的合理性及充分性进行评分：方案分析到位的得15分",
    ]
    for c in criteria:
        for h, subs in point_headings(c, "应急处置"):
            assert fragment_problem(h, c) is None, h
            assert all(fragment_problem(s, c) is None for s in subs), subs


# ---- issue 38: criteria read by their structure, so code never makes headings of their grading


@pytest.mark.parametrize(("criteria", "expected"), [
    # the grade judges a part: the part is the point, its qualities are not (可执行性强, 针对性强)
    ("技术措施科学合理、可执行性强、针对性强的得10分；基本合理的得5分。", [("技术措施", [])]),
    ("对项目需求理解透彻、重点难点分析到位、应对措施可行的得6分",
     [("项目需求理解", []), ("重点难点分析", []), ("应对措施", [])]),
    # 如…等 after the object: its parts
    ("投标人提供的系统可用性保障方案，如冗余设计、故障切换、数据备份等，方案完善得10分。",
     [("系统可用性保障方案", ["冗余设计", "故障切换", "数据备份"])]),
    # qualities sharing one noun; the verb in front goes
    ("提供安全性、稳定性管理措施，措施完善可行的得8分。", [("安全性管理措施", []), ("稳定性管理措施", [])]),
    # an object with a note of its contents; a connective in front and a note on documents after are no points
    ("在此基础上，提供详细项目开发计划（含里程碑、人员安排）的加2分。以上资料均要求提供扫描件加盖公章。",
     [("项目开发计划", ["里程碑", "人员安排"])]),
    # lists after colons, however the sentence goes on
    ("方案内容包括但不限于：测试方法、测试工具、测试流程、报告编制等，从以下两个方面评价：安全措施、风险控制。",
     [("测试方法", []), ("测试工具", []), ("测试流程", []), ("报告编制", []), ("安全措施", []), ("风险控制", [])]),
    # what the grade asks the bidder to have
    ("在本市范围内有维修服务站的并提供租赁合同证明，得5分；在本市附近有维修服务站的，得2分；没有的不得分。",
     [("维修服务站", [])]),
    # the bidder's voice goes, what it provides stays, with the parts 包括 names
    ("应答人提供技术方案，包括测试方法、测试工具、测试流程等，方案完整可行的得10分。",
     [("技术方案", ["测试方法", "测试工具", "测试流程"])]),
])
def test_graded_sentences_are_read_clause_by_clause(criteria: str, expected: list[tuple[str, list[str]]]) -> None:
    assert point_headings(criteria) == expected


@pytest.mark.parametrize(("point", "suffix"), [("可执行性强", "售后保障"), ("性", "售后保障"), ("在此基础上", "技术措施"),
                                               ("科学合理", "技术措施"), ("以上资料均要求提供扫描件加盖公章", ""),
                                               ("注明证明材料在投标文件中具体位置", ""), ("从以下两个方面的安全措施", "")])
def test_a_predicate_connective_or_note_never_becomes_a_heading(point: str, suffix: str) -> None:
    assert point_heading(point, suffix) is None


def test_judging_words_and_open_notes_leave_the_part_they_judge() -> None:
    assert point_heading("科学合理的技术措施") == "技术措施"
    assert point_heading("详细项目开发计划（含里程碑") == "项目开发计划"
    assert point_heading("应答人提供技术方案") == "技术方案"
    assert point_heading("详细设计") == "详细设计"  # a heading of its own, not a judgement


@pytest.mark.parametrize(("point", "suffix", "heading"), [
    ("地点", "培训", "培训地点"), ("时间", "培训", "培训时间"),  # an aspect of the item takes its subject in front
    ("响应时间", "售后保障", "响应时间"), ("服务优势", "应急处置", "服务优势"),  # an aspect already named stays
    ("质保期", "售后保障", "质保期"),
    ("火灾", "应急处置", "火灾应急处置"), ("停电停水", "应急处置", "停电停水应急处置"),  # an instance takes the suffix
    ("对产品运输", "建议", "产品运输建议"), ("有违约处罚承诺", "", "违约处罚承诺"),  # the criteria's verb in front goes
    ("做好辖区内非机动车停放管理", "", "辖区内非机动车停放管理"), ("尤其是高性能电脑安装调试", "", "高性能电脑安装调试"),
    ("对外协调", "", "对外协调"), ("有害生物防治", "", "有害生物防治"),  # words that start so stay
])
def test_a_point_becomes_the_heading_a_writer_would_write(point: str, suffix: str, heading: str) -> None:
    assert point_heading(point, suffix) == heading


def test_examples_of_a_noun_in_brackets_are_not_the_parts_asked_for() -> None:
    """硬件（如专业图形显卡、高性能CPU等）的供应渠道…: the examples name what the hardware is; the parts the evaluator
    looks at are the sentence's own run. A bracket that lists what a plan holds (包括…, 根据…各环节) still wins."""
    texts = [p.text for p in split_criteria(
        "重点考察专用硬件（如专业图形显卡、高性能CPU等）的原材料供应渠道可靠性、采购管理流程规范性、源头质量把控措施，"
        "以及功能性能适配性（适配创作软件、渲染需求等）等。")]
    assert not [t for t in texts if "显卡" in t or "CPU" in t or "渲染" in t], texts
    assert {"采购管理流程规范性", "源头质量把控措施"} <= set(texts), texts
    plan = [p.text for p in split_criteria("根据投标人的食品安全管理方案（根据货物的来源、生长环境、加工、包装各环节的安全措施）进行评审")]
    assert {"生长环境", "加工"} <= set(plan), plan
    kept = split_criteria("投标人提供的系统可用性保障方案，如冗余设计、故障切换、数据备份等，方案完善得10分。")
    assert [(p.text, p.items) for p in kept] == [("系统可用性保障方案", ["冗余设计", "故障切换", "数据备份"])]


def test_a_subject_cut_before_its_qualities_leaves_no_modal_verb() -> None:
    # "运维方案和实施安排应科学、合理" read up to its qualities: the heading is the subject, not "…安排应运维"
    assert point_heading("运维方案和实施安排应", "运维") == "运维方案和实施安排"
    assert point_heading("驻场服务人员须") == "驻场服务人员"
    assert point_heading("售后服务响应") == "售后服务响应"  # 响应, 供应 are words of their own
    assert point_heading("备品备件供应", "方案") == "备品备件供应方案"

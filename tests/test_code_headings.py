"""Headings code makes from the tender meet the model's bar; evidence to attach goes to an attachment list.

A weak model that cannot write a chapter (it echoes the prompt) makes code fill it from the
criteria and the heading library: no heading of the result may be a criterion's predicate
(是否, 明确, 及时性), a cut word, or a document to attach (合同首页, 任命书); those documents are
listed in a warning instead.
"""

from __future__ import annotations

import json

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.core.rules.heading_form import evidence_problem, fragment_problem
from app.core.rules.outline import title_problem
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.run import generate_outline
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router, make_client

_ECHO = json.dumps({"children": [{"title": "一级目录", "children": [{"title": "二级目录"}]}]}, ensure_ascii=False)
_GROUPS = [
    ("人员资格与能力", "项目经理具有信息安全相关证书，提供合同首页、金额页、签字盖章页及项目经理任命书复印件，"
                 "每提供一份得1分；项目技术人员相关职称或证书齐全得2分。"),
    ("实施方案", "安装方案是否详实，实施安排是否合理；项目进度计划明确，实施安排科学得5分；"
             "项目风险分析及应对措施及时性，得3分。"),
]


async def test_code_headings_carry_no_predicates_cut_words_or_evidence(llm_server: OpenAIServer) -> None:
    def answer(kind: str, req: RecordedRequest) -> Reply:
        if kind == "review":
            return Reply.text('{"passed": true, "suggestions": []}')
        if kind == "subsections":
            return Reply.text('{"titles": []}')
        return Reply.text(_ECHO)

    llm_server.handler = Router(answer)
    analysis = Analysis(overview=ProjectOverview(project_name="某银行渗透测试服务项目", summary="渗透测试服务"),
                        groups=[ScoringGroup(id=f"R{i + 1}", title=t, description=d, points=10.0)
                                for i, (t, d) in enumerate(_GROUPS)], source="table")
    async with make_client(llm_server) as client:
        res = await generate_outline(client, analysis, OutlineSettings(mode="aligned", review=False))
    assert res.ok, res.report()
    titles = [n.title for ch in res.chapters for _, n in ch.walk()]
    assert titles
    for t in titles:
        assert title_problem(t) is None and fragment_problem(t) is None and evidence_problem(t) is None, t
    assert not any(w in t for t in titles for w in ("是否", "首页", "金额页", "任命书", "及时性", "或证"))
    listed = [w for w in res.warnings if "证明材料" in w]
    assert len(listed) == 1 and "合同首页" in listed[0] and "项目经理任命书复印件" in listed[0]


#: Criteria sentences of the classes code used to cut into headings with a suffix put on (issue 38, read on the
#: shared tenders): a lead verb, a judgement inside, the sentence's own words, the tender's markup, a modal with
#: its verb, a purpose in front, aspects of the item (时间、地点…) and a bare quality the evaluator judges.
#: With the detail points the analysis reads from such criteria (its clauses, as ``analyze_tender`` lists them).
_DETAILS = {
    "日常管理服务": ["对辖区内日常巡查工作", "做好辖区内非机动车停放管理", "协助城管执法部门开展多种形式宣传活动",
               "组织措施得当有效", "合理可操作", "相关设备配备数量充足"],
    "技术参数响应": ["用“█”标注技术参数全部", "“★”号参数为实质性要求", "为保证系统数据的高安全性", "所投存储系列产品需经过"],
    "培训方案": ["时间", "地点", "目标", "方式", "对象", "科学性", "合理性", "可执行性"],
    "售后服务": ["质保期", "响应时间", "人员安排", "备品备件配置", "故障解决方案", "相关业绩合同若能体现合同总金额",
             "出库不得超过24小时"],
}
_SENTENCES = [
    ("日常管理服务", "对辖区内的日常巡查工作，做好辖区内非机动车停放管理，协助城管执法部门开展多种形式宣传活动；"
                 "组织措施得当有效、合理可操作的得10分；相关设备配备数量充足的得5分。"),
    ("技术参数响应", "所投产品技术指标完全满足，用“█”标注的技术参数全部满足得5分；“★”号参数为实质性要求；"
                 "为保证系统数据的高安全性，存储应自带数据复制功能；所投存储系列产品需经过第三方评估检测。"),
    ("培训方案", "培训方案包括培训时间、地点、目标、方式、对象等，方案科学性、合理性、可执行性强的得5分。"),
    ("售后服务", "售后服务方案包含但不限于质保期、响应时间、人员安排、备品备件配置、故障解决方案等；"
             "相关业绩合同若能体现合同总金额的得2分；出库不得超过24小时。"),
]


async def test_code_headings_carry_no_sentence_of_the_criteria(llm_server: OpenAIServer) -> None:
    from app.core.rules.heading_form import clause_problem, form_problem, requirement_problem

    def answer(kind: str, req: RecordedRequest) -> Reply:
        if kind == "review":
            return Reply.text('{"passed": true, "suggestions": []}')
        if kind == "subsections":
            return Reply.text('{"titles": []}')
        return Reply.text(_ECHO)

    llm_server.handler = Router(answer)
    analysis = Analysis(overview=ProjectOverview(project_name="某镇综合管理及设备采购项目"),
                        groups=[ScoringGroup(id=f"R{i + 1}", title=t, description=d, points=10.0, detail_points=_DETAILS[t])
                                for i, (t, d) in enumerate(_SENTENCES)], source="table")
    async with make_client(llm_server) as client:
        res = await generate_outline(client, analysis, OutlineSettings(mode="aligned", review=False))
    assert res.valid, res.report()
    titles = [n.title for ch in res.chapters for _, n in ch.walk()]
    assert titles
    assert [t for t in titles if form_problem(t) or clause_problem(t) or requirement_problem(t)] == []
    bad_words = ("做好", "协助", "得当", "充足", "可操作", "█", "★", "需经过", "应自带", "为保证", "若能", "不得超过",
                 "地点培训", "时间培训", "方式培训", "时间售后保障", "质保期售后保障", "科学性", "可执行性")
    assert [t for t in titles if any(w in t for w in bad_words)] == []
    training = next(ch for ch in res.chapters if ch.title == "培训方案")
    kept = {n.title for _, n in training.walk()}
    assert {"培训时间", "培训地点"} <= kept, kept  # the aspects, named the way a writer names them

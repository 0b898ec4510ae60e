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

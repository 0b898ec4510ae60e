"""Closed questions to the model when code is unsure of the scoring table (loopback OpenAI server)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import docx

from app.documents.loader import load_tender
from app.documents.scoring.model import ScoreCategory
from app.documents.scoring.table import parse_scoring
from app.pipeline.analysis.scoring_questions import choose_table, settle_categories
from app.pipeline.analysis.tender import analyze_tender
from app.pipeline.outline.budget import RunMeter
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import make_client


def _table(d: docx.document.Document, rows: list[list[str]]) -> None:
    t = d.add_table(rows=len(rows), cols=len(rows[0]))
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            t.cell(i, j).text = text


def _two_versions(path: Path) -> Path:
    """Two 100-point tables with nothing saying which one applies (not titled for lots, which would be
    a reading each): code cannot tell which one is the scheme."""
    d = docx.Document()
    d.add_paragraph("第三章 评标办法")
    for title, names in (("评分细则", ["保洁方案", "绿化方案"]), ("评分细则（备选）", ["安保方案", "消防方案"])):
        d.add_paragraph(title)
        _table(d, [["序号", "评分因素", "评分标准", "分值"],
                   ["1", names[0], f"{names[0]}完整、可行的得满分，较完整的得一半。", "40"],
                   ["2", names[1], f"{names[1]}完整、可行的得满分，较完整的得一半。", "30"],
                   ["3", "企业业绩", "每个同类业绩得5分，最高20分。", "20"],
                   ["4", "投标报价", "最低报价得满分。", "10"]])
    d.save(str(path))
    return path


def _weights_without_groups(path: Path) -> Path:
    """One table without categories, and a line that states the category totals."""
    d = docx.Document()
    d.add_paragraph("第三章 评标办法")
    d.add_paragraph("分值构成：技术部分 60 分，商务部分 30 分，价格部分 10 分。")
    d.add_paragraph("评分细则")
    _table(d, [["序号", "评分因素", "评分标准", "分值"],
               ["1", "实施方案", "实施方案完整、可行的得满分。", "40"],
               ["2", "项目负责人", "项目负责人具有高级职称得满分。", "20"],
               ["3", "企业业绩", "每个同类业绩得5分。", "10"],
               ["4", "培训计划", "培训计划完整的得满分。", "20"],
               ["5", "投标报价", "最低报价得满分。", "10"]])
    d.save(str(path))
    return path


def _answer(n: int) -> Reply:
    return Reply.text(json.dumps({"answer": n}))


async def test_model_picks_the_table_among_what_code_found(llm_server: OpenAIServer, tmp_path: Path) -> None:
    doc = load_tender(_two_versions(tmp_path / "two.docx"))
    scoring = parse_scoring(doc)
    assert "table" in scoring.uncertain and len(scoring.options) == 2
    assert [r.factor for r in scoring.rows][:2] == ["保洁方案", "绿化方案"]
    llm_server.push(_answer(2))
    async with make_client(llm_server) as client:
        result, note = await choose_table(client, doc, scoring, RunMeter())
    assert [r.factor for r in result.rows][:2] == ["安保方案", "消防方案"]
    assert result.decided_by == "model" and "由模型在 2 个候选中选定" in note
    (request,) = llm_server.completion_requests
    assert "1." in request.prompt_text and "2." in request.prompt_text and "安保方案" in request.prompt_text
    schema = json.dumps(request.body.get("response_format") or {}, ensure_ascii=False)
    assert '"answer"' in schema and '"maximum": 2' in schema and len(schema) < 600  # one bounded integer


async def test_a_pick_that_fails_the_sums_is_not_applied(llm_server: OpenAIServer, tmp_path: Path) -> None:
    doc = load_tender(_two_versions(tmp_path / "two.docx"))
    scoring = parse_scoring(doc)
    second = scoring.candidates[scoring.options[1][0]]
    second.rows[0].points = 35  # the second table no longer adds up to 100
    llm_server.push(_answer(2))
    async with make_client(llm_server) as client:
        result, note = await choose_table(client, doc, scoring, RunMeter())
    assert result.rows[0].factor == "保洁方案" and result.decided_by == "code"
    assert "分值合计不符" in note


async def test_no_valid_answer_keeps_code_choice(llm_server: OpenAIServer, tmp_path: Path) -> None:
    doc = load_tender(_two_versions(tmp_path / "two.docx"))
    scoring = parse_scoring(doc)
    llm_server.push(Reply.text("第三个"), Reply.text('{"answer": 7}'))
    async with make_client(llm_server) as client:
        result, note = await choose_table(client, doc, scoring, RunMeter())
    assert result is scoring and result.decided_by == "code" and "沿用程序的判断" in note


def _category_handler(answers: dict[str, int]) -> object:
    def handle(req: RecordedRequest) -> Reply:
        m = re.search(r"评分项：(\S+?)（", req.prompt_text)
        return _answer(answers[m.group(1)] if m else 1)
    return handle


async def test_category_answers_applied_only_when_the_stated_totals_then_hold(
        llm_server: OpenAIServer, tmp_path: Path) -> None:
    doc = load_tender(_weights_without_groups(tmp_path / "w.docx"))
    scoring = parse_scoring(doc)
    assert scoring.points_by_category() == {"技术": 80, "商务": 10, "价格": 10}  # by the words: 60/30/10 stated
    llm_server.handler = _category_handler({"实施方案": 1, "项目负责人": 2, "企业业绩": 2, "培训计划": 1})
    async with make_client(llm_server) as client:
        result, note = await settle_categories(client, doc, scoring, RunMeter())
    assert result.points_by_category() == {"技术": 60, "商务": 30, "价格": 10}
    lead = next(r for r in result.rows if r.factor == "项目负责人")
    assert lead.category == ScoreCategory.COMMERCIAL and lead.category_source == "model"
    assert result.decided_by == "model" and "经分值核对" in note
    assert not any("评分项：投标报价" in r.prompt_text for r in llm_server.completion_requests)  # price not asked


async def test_category_answers_that_break_the_totals_are_reverted(llm_server: OpenAIServer, tmp_path: Path) -> None:
    doc = load_tender(_weights_without_groups(tmp_path / "w.docx"))
    scoring = parse_scoring(doc)
    llm_server.handler = _category_handler({"实施方案": 2, "项目负责人": 1, "企业业绩": 1, "培训计划": 1})
    async with make_client(llm_server) as client:
        result, note = await settle_categories(client, doc, scoring, RunMeter())
    assert result.points_by_category() == {"技术": 80, "商务": 10, "价格": 10}
    assert all(r.category_source != "model" for r in result.rows) and "未采用" in note


async def test_analysis_records_what_the_model_decided(llm_server: OpenAIServer, tmp_path: Path) -> None:
    doc = load_tender(_two_versions(tmp_path / "two.docx"))

    def handle(req: RecordedRequest) -> Reply:
        if "候选表格" in req.prompt_text:
            return _answer(2)
        return Reply.text(json.dumps({"project_name": "物业服务项目"}, ensure_ascii=False))

    llm_server.handler = handle
    async with make_client(llm_server) as client:
        a = await analyze_tender(client, doc, model_groups=False)
    assert [g.title for g in a.technical_groups] == ["安保方案", "消防方案"]
    assert any("由模型" in d for d in a.scoring_decisions) and a.scoring_decisions[0] in a.notes
    used = [t for t in a.scoring_tables if t.used]
    assert len(used) == 1 and used[0].groups[0].title == "安保方案"
    assert any(not t.used and t.groups[0].title == "保洁方案" for t in a.scoring_tables)  # still pickable

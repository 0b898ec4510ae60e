"""Tender analysis: table-first technical groups, model additions, cross-check differences,
no-technical-scoring handling; code-read detail points; real tenders when ../shared is present."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.documents.loader import load_tender
from app.documents.scoring.cells import default_category
from app.documents.scoring.model import ScoreCategory, ScoringResult, ScoringRow, ScoringTable
from app.pipeline.analysis.tender import analyze_tender, split_points
from tests.openai_server import OpenAIServer, Reply
from tests.pipeline_support import Router, make_client

TENDER_TEXT = """第一章 招标公告

项目名称：某区智慧社区运维服务项目
采购人：某区政务服务数据管理局
预算金额：120万元
服务期：一年

第二章 采购需求

一、服务内容
1. 提供 7×24 小时运维服务。
2. 建立信息安全管理制度。

第三章 评标办法

评分标准如下：服务方案包括但不限于人员配置、进度计划、质量保障等；培训方案全面得10分。
"""


def _row(factor: str, cat: ScoreCategory, points: float, criteria: str = "") -> ScoringRow:
    return ScoringRow(factor=factor, category=cat, category_source="column", points=points, criteria=criteria,
                      table_id="t1", pages=[1])


def _scoring(confidence: float = 1.0) -> ScoringResult:
    rows = [
        _row("报价", ScoreCategory.PRICE, 30),
        _row("服务方案", ScoreCategory.TECHNICAL, 30, "服务方案包括但不限于人员配置、进度计划、质量保障等，方案完善得30分"),
        _row("企业业绩", ScoreCategory.COMMERCIAL, 30),
        _row("培训方案", ScoreCategory.TECHNICAL, 10, "培训方案全面得10分"),
    ]
    return ScoringResult(found=True, confidence=confidence,
                         tables=[ScoringTable(table_ids=["t1"], pages=[1], rows=rows)])


@pytest.fixture
def tender(tmp_path: Path) -> Path:
    path = tmp_path / "tender.txt"
    path.write_text(TENDER_TEXT, encoding="utf-8")
    return path


async def test_confident_table_gives_titles_and_points_model_adds_and_differences_kept(
        llm_server: OpenAIServer, tender: Path) -> None:
    router = Router()
    router.add("overview", {"project_name": "某区智慧社区运维服务项目", "buyer": "某区政务服务数据管理局",
                            "summary": "智慧社区运维", "budget": "120万元", "service_period": "一年",
                            "technical_requirements": "7×24 小时运维；信息安全管理"})
    router.add("scoring", {"groups": [
        {"title": "服务方案", "points": 25, "detail_points": ["人员配置", "进度计划", "火星探测计划"]},
        {"title": "培训方案", "points": "10分"},
        {"title": "应急预案", "points": 5},
        {"title": "报价", "points": 30},
    ]})
    llm_server.handler = router
    doc = load_tender(tender)
    async with make_client(llm_server) as client:
        a = await analyze_tender(client, doc, scoring=_scoring(), model_groups=True)
    assert [(g.id, g.title, g.points) for g in a.technical_groups] == [("R2", "服务方案", 30.0), ("R4", "培训方案", 10.0)]
    assert [(g.title, g.category) for g in a.groups if g.category != "technical"] == [
        ("报价", "price"), ("企业业绩", "business")]  # listed for the view and the 评分索引表
    assert a.technical_groups[0].detail_points == ["人员配置", "进度计划"]  # the invented point is dropped
    assert a.table_confident and a.source == "table+model" and a.has_technical_scoring
    kinds = {(d.field, d.group_id) for d in a.differences}
    assert ("points", "R2") in kinds and ("missing_in_table", None) in kinds
    assert any("30" in d.message and "25" in d.message for d in a.differences)
    assert a.overview.project_name == "某区智慧社区运维服务项目" and a.overview.budget == "120万元"
    assert a.overview.technical_requirements == ["7×24 小时运维", "信息安全管理"]
    assert "人员配置" in next(r for r in llm_server.completion_requests if "评分项" in r.prompt_text).prompt_text


async def test_model_groups_skipped_when_table_stands_alone(llm_server: OpenAIServer, tender: Path) -> None:
    router = Router()
    router.add("overview", {"project_name": "某区智慧社区运维服务项目"})
    llm_server.handler = router
    scoring = _scoring()
    scoring.tables[0].rows[3].criteria = "包括培训计划、培训内容、培训考核"
    async with make_client(llm_server) as client:
        a = await analyze_tender(client, load_tender(tender), scoring=scoring)
    assert [k for k in router.seen if k != "second_reading"] == ["overview"]  # no scoring-groups call
    assert a.source == "table" and a.technical_groups[1].detail_points == ["培训计划", "培训内容", "培训考核"]


async def test_unconfident_table_keeps_its_titles_and_records_the_model_difference(
        llm_server: OpenAIServer, tender: Path) -> None:
    router = Router()
    router.add("overview", "不是 JSON", "也不是", "还不是")
    router.add("scoring", {"groups": [{"title": "服务实施方案", "detail_points": ["人员配置"]}, {"title": "培训方案"}]})
    llm_server.handler = router
    async with make_client(llm_server) as client:
        a = await analyze_tender(client, load_tender(tender), scoring=_scoring(confidence=0.3))
    assert [g.title for g in a.technical_groups] == ["服务方案", "培训方案"]  # the table is never re-extracted
    assert any(d.field == "title" and d.table_value == "服务方案" and d.model_value == "服务实施方案"
               for d in a.differences)
    assert any("请在分析页核对" in n for n in a.notes)
    assert a.overview.project_name == "某区智慧社区运维服务项目"  # read by code when the model failed
    assert any("项目概况" in n for n in a.notes)


async def test_no_technical_scoring_is_said_and_requirements_passed_for_free_mode(tender: Path) -> None:
    a = await analyze_tender(None, load_tender(tender), scoring=ScoringResult(found=False))
    assert not a.has_technical_scoring and a.source == "none"
    assert any("没有找到技术评分项" in n for n in a.notes)
    assert "7×24 小时运维服务" in a.technical_requirements


async def test_unreachable_endpoint_raises_connection_error(tender: Path) -> None:
    from app.llm.client.errors import LLMConnectionError

    with OpenAIServer() as server:
        server.handler = lambda req: Reply.error(503, "down")
        async with make_client(server) as client:
            with pytest.raises(LLMConnectionError):
                await analyze_tender(client, load_tender(tender), scoring=_scoring())


def test_split_points_reads_items_and_skips_grading() -> None:
    assert split_points("方案包含①项目人员配置方案 ②实施进度计划 ③售后服务方案等，完全满足得42分") == [
        "项目人员配置方案", "实施进度计划", "售后服务方案"]
    assert split_points("根据投标人的配送服务方案(包括但不限于项目的管理、配送、仓储等)进行评审") == [
        "项目的管理", "配送", "仓储"]
    assert split_points("1.800平方米以上的得8分；2.600平方米得6分、400平方米得4分、不提供不得分") == []
    assert split_points("") == []


def test_default_category_by_the_factor_words() -> None:
    assert default_category("投标单位综合实力情况")[0] == ScoreCategory.COMMERCIAL
    assert default_category("服务方案")[0] == ScoreCategory.TECHNICAL
    assert default_category("报价")[0] == ScoreCategory.PRICE
    assert default_category("企业管理方案")[0] == ScoreCategory.TECHNICAL  # a plan, whatever it is about


@pytest.mark.real_tender
async def test_real_tenders_table_first_analysis(tenders_dir: Path) -> None:
    sichuan = await analyze_tender(None, load_tender(tenders_dir / "sichuan-iptv-metadata.docx"))
    assert [(g.title, g.points) for g in sichuan.technical_groups] == [("服务方案", 42.0), ("服务人员要求", 20.0)]
    assert sichuan.technical_groups[0].detail_points[:2] == ["项目人员配置方案", "实施进度计划"]
    assert len(sichuan.technical_groups[0].detail_points) == 6
    yangjiang = await analyze_tender(None, load_tender(tenders_dir / "yangjiang-tax-canteen.pdf"))
    tech = yangjiang.technical_groups
    assert len(tech) == 8 and sum(g.points or 0 for g in tech) == 50
    assert len(yangjiang.groups) == 12 and [t.used for t in yangjiang.scoring_tables].count(True) == 3
    pku = await analyze_tender(None, load_tender(tenders_dir / "pku-library-excerpt.pdf"))
    assert not pku.has_technical_scoring and pku.technical_requirements

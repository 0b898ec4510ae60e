"""One-to-one chapters from scoring factors: any number of items, titles as the tender writes them,
point-bearing sub-rows as level-2 seeds (the model is the loopback server)."""

from __future__ import annotations

from pathlib import Path

from app.core.analysis import Analysis, ScoringGroup, renumber_groups
from app.core.outline import OutlineNode
from app.core.rules.outline import check_outline
from app.core.tender_titles import display_title
from app.documents.loader import load_tender
from app.pipeline.analysis.tender import analyze_tender
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.run import generate_outline, locked_chapters
from tests.openai_server import OpenAIServer
from tests.pipeline_support import Router, chapter_title_of, make_client
from tests.scoring_fixtures import build

NAMES = [*(f"子系统{i}实施方案" for i in range(1, 14)), "服务方案……", "技术方案(含{考核})", "BIM", "售后服务（10分）"]


def test_tender_titles_are_cleaned_for_display() -> None:
    assert [display_title(n) for n in NAMES[-4:]] == ["服务方案", "技术方案(含考核)", "BIM", "售后服务"]
    assert display_title("1.深化设计能力") == "深化设计能力" and display_title("……") == ""


def test_locked_chapter_titles_are_never_rule_violations() -> None:
    kids = [OutlineNode(title=t, children=[OutlineNode(title=t + "措施"), OutlineNode(title=t + "计划")])
            for t in ("组织", "实施")]
    locked = OutlineNode(title="Bim", source_requirement_id="R1", source_requirement_title="Bim", children=kids)
    assert not [i for i in check_outline([locked, locked.model_copy(update={"title": "质量", "source_requirement_id": "R2",
                                                                         "source_requirement_title": "质量（5分）"})])
                if i.code == "bad_title"]
    free = locked.model_copy(update={"source_requirement_id": None})
    assert [i.code for i in check_outline([free]) if i.pointer == "/outline/0/title"] == ["bad_title"]  # the rule still holds
    typed = locked.model_copy(update={"title": "B…"})  # not the tender's name: checked like any title
    assert [i.code for i in check_outline([typed]) if i.pointer == "/outline/0/title"] == ["bad_title"]


async def test_more_than_twelve_items_and_tender_titles_make_a_valid_outline(llm_server: OpenAIServer) -> None:
    groups = renumber_groups([ScoringGroup(id="", title=n, points=5.0, description=f"{n}：内容完整、措施具体的得5分。")
                              for n in NAMES])
    analysis = Analysis(groups=groups)
    assert [c.title for c in locked_chapters(analysis.technical_groups)][-4:] == [
        "服务方案", "技术方案(含考核)", "BIM", "售后服务"]
    llm_server.handler = Router()
    async with make_client(llm_server) as client:
        result = await generate_outline(client, analysis, OutlineSettings(mode="aligned", review=False))
    assert result.valid, (result.failure, result.issues)
    assert len(result.chapters) == 17
    assert [c.source_requirement_id for c in result.chapters] == [g.id for g in groups]
    assert [c.title for c in result.chapters][-4:] == ["服务方案", "技术方案(含考核)", "BIM", "售后服务"]


async def test_point_bearing_sub_rows_are_the_level_two_seeds(llm_server: OpenAIServer, tmp_path: Path) -> None:
    path, _ = build("nameless_subrows", tmp_path)
    analysis = await analyze_tender(None, load_tender(path))
    plan = next(g for g in analysis.technical_groups if g.title == "项目实施方案")
    assert [s.points for s in plan.sub_items] == [8, 7, 5]
    assert plan.detail_points[:3] == ["总体思路", "实施步骤", "风险控制措施"]
    llm_server.handler = Router()
    async with make_client(llm_server) as client:
        result = await generate_outline(client, analysis, OutlineSettings(mode="aligned", review=False))
    assert result.valid and [c.title for c in result.chapters] == ["项目实施方案", "人员配置", "售后服务"]
    prompt = next(r.prompt_text for r in llm_server.completion_requests if chapter_title_of(r) == "项目实施方案")
    assert all(seed in prompt for seed in ("总体思路", "实施步骤", "风险控制措施"))

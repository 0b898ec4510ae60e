"""The matcher picks the library entries a bid writer would use for a scoring item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.analysis import ScoringGroup
from app.pipeline.headings.candidates import chapter_entries
from app.pipeline.headings.library import default_library
from app.pipeline.headings.match import distinct_parts, match_group, match_item, rank_variants

TABLE = Path(__file__).parent / "data" / "heading_matches.json"


def _expected() -> list[tuple[str, str, object]]:
    data = json.loads(TABLE.read_text("utf-8"))
    return [(tender, name, want) for tender, items in data.items() if not tender.startswith("_")
            for name, want in items.items()]


def test_table_names_only_library_entries() -> None:
    ids = {e.id for e in default_library()}
    for _, _, want in _expected():
        names = want if isinstance(want, list) else [*want["first"], *want["also"]]  # type: ignore[index]
        assert set(names) <= ids


@pytest.mark.real_tender
@pytest.mark.parametrize(("tender", "name", "want"), _expected())
def test_labelled_items_match_the_expected_entries(tenders_dir: Path, tender: str, name: str, want: object) -> None:
    labels = json.loads((tenders_dir / "labels.json").read_text("utf-8"))
    if tender in labels:  # the table speaks of the labelled items, as written in the label
        label = labels[tender]
        written = {r["name"] for r in label.get("rows", [])} | {f["name"] for f in label.get("factors", [])}
        assert name in written, f"{name} is not an item of {tender}"
    matches = chapter_entries(name)  # what a chapter of this item is built from (a vague name falls back)
    assert matches, f"nothing matched {name}"
    first = want if isinstance(want, list) else want["first"]  # type: ignore[index]
    assert matches[0].entry.id in first, [(m.entry.id, m.score) for m in matches]
    if isinstance(want, dict):
        assert set(want["also"]) <= {m.entry.id for m in distinct_parts(matches)}


@pytest.mark.parametrize(("name", "entry"), [
    ("售后服务方案", "after_sales"), ("服务方案", "service_plan"), ("食品安全管理保障", "food_safety"),
    ("信息安全能力", "information_security"), ("安全措施", "safety"), ("突发事件应急预案", "emergency"),
    ("项目进度计划及保证措施", "schedule"), ("保密措施", "confidentiality"), ("运维服务方案", "operations"),
    ("合理化建议", "suggestions"), ("项目重难点分析", "key_difficulties"), ("环境保护及文明施工措施", "environment"),
])
def test_specific_entries_beat_generic_ones(name: str, entry: str) -> None:
    assert match_item(name)[0].entry.id == entry


def test_criteria_and_project_words_decide_a_bare_name() -> None:
    group = ScoringGroup(id="R1", title="方案", description="针对本项目的应急预案：火灾、停电、食物中毒等突发事件的处置")
    assert match_group(group)[0].entry.id == "emergency"
    assert match_item("项目具体内容") == []
    assert match_item("项目具体内容", criteria="物业管理服务内容：保洁、保安、绿化、设施设备维修")[0].entry.id == "property"


def test_compound_item_keeps_both_parts() -> None:
    parts = [m.entry.id for m in distinct_parts(match_item("人员培训及应急预案"))]
    assert set(parts) == {"training", "emergency"}


@pytest.mark.parametrize(("entry_id", "text", "first", "last"), [
    # a service contract trains its own staff: not the 操作使用培训 of a delivered system (Gemma's huangpu run)
    ("training", "对所有项目人员的培训方案综合评审：培训方案内容全面针对性强", "by_system", "for_client"),
    ("training", "针对本项目服务人员的培训方案", "by_system", "for_client"),
    ("training", "对采购人的系统管理员和用户进行操作使用培训", "for_client", None),
    ("environment", "保洁作业的环境保护措施、节能环保", "green_service", "by_measure"),
    ("environment", "施工现场环境保护与文明施工措施", "by_measure", None),
])
def test_a_variant_written_for_one_audience_or_trade_comes_last_where_the_item_does_not_call_for_it(
        entry_id: str, text: str, first: str, last: str | None) -> None:
    entry = default_library().get(entry_id)
    assert entry is not None
    ranked = [v.id for v in rank_variants(entry, text)]
    assert ranked[0] == first
    if last:
        assert ranked[-1] == last


def test_variants_are_ranked_by_shared_wording() -> None:
    entry = default_library().get("canteen")
    assert entry is not None
    best = rank_variants(entry, "原料采购；菜品制作；客户反馈管理")[0]
    assert any(s.title == "客户反馈管理" for s in best.sections)


def test_the_items_name_and_the_project_call_for_a_variant_too() -> None:
    """安全文明施工措施 of a landscaping works tender, with no criteria text: its name says 施工, so the
    construction variant (扬尘控制, 文明施工措施) is planned, not 绿色采购原则 (a human outline's replay)."""
    from app.core.analysis import Analysis, ProjectOverview
    from app.pipeline.headings.candidates import TitleRegistry, plan_chapter

    analysis = Analysis(overview=ProjectOverview(project_name="某大桥桥堍绿地工程", summary="绿地施工"))
    plan = plan_chapter("安全文明施工措施", None, analysis, TitleRegistry())
    titles = [n.title for n in plan.nodes]
    assert "文明施工措施" in titles or "污染防治措施" in titles, titles
    assert "绿色采购原则" not in titles
    entry = default_library().get("environment")
    assert entry is not None
    assert rank_variants(entry, "", "安全文明施工措施")[0].id == "by_measure"
    assert rank_variants(entry, "", "保洁服务环境保护")[0].id == "green_service"


def test_a_service_tenders_scored_parts_get_no_construction_headings() -> None:
    """Gemma's huangpu run: 服务质量保证措施 (a part of a customs service tender's item) got 质量目标与创优规划
    and 关键工序质量控制 from the works-only 保证措施 entry, found by the heading's own words without the
    tender's kind. Every library lookup for a heading now keeps to the tender's kind."""
    from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
    from app.pipeline.headings.candidates import TitleRegistry, plan_chapter

    works_only = {h for e in default_library() if e.kinds == ("works",) for h in e.headings()}
    group = ScoringGroup(id="R1", title="针对本项目的服务方案", points=30.0,
                         description="根据服务特点、难点分析、应急服务方案、服务质量保证措施、服务质量承诺、考核及奖惩办法等进行评审",
                         detail_points=["应急服务方案", "服务质量保证措施", "服务质量承诺", "考核及奖惩办法"])
    analysis = Analysis(overview=ProjectOverview(project_name="某海关辅助服务采购项目", summary="后勤辅助服务"),
                        groups=[group], source="table")
    plan = plan_chapter(group.title, group, analysis, TitleRegistry(), levels=3)
    titles = {n.title for top in plan.nodes for _, n in top.walk()}
    assert titles and not titles & works_only, titles & works_only

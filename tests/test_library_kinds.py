"""Code fill stays in its domain: library structures are used only for the kind of tender they were written for."""

from __future__ import annotations

import pytest

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.core.outline import OutlineNode
from app.pipeline.headings.candidates import plan_outline
from app.pipeline.headings.library import default_library
from app.pipeline.headings.tender_kind import tender_kind


@pytest.mark.parametrize(("project", "kind"), [
    ("某市综合管廊（沟）工程", "works"), ("10kV线路改造工程施工", "works"), ("湖滨路改造工程监理", "services"),
    ("数据中心信创基础软硬件采购", "goods"), ("开关柜设备采购及安装", "goods"), ("某银行渗透测试服务项目", "services"),
    ("某学校物业管理服务", "services"), ("某图书馆期刊", None),
])
def test_the_kind_of_a_tender_is_read_from_its_project_words(project: str, kind: str | None) -> None:
    assert tender_kind(project) == kind


def _headings(project: str, items: list[str]) -> dict[str, list[str]]:
    analysis = Analysis(overview=ProjectOverview(project_name=project),
                        groups=[ScoringGroup(id=f"R{i + 1}", title=t, points=10.0) for i, t in enumerate(items)],
                        source="table")
    plans = plan_outline([(g.title, g) for g in analysis.groups], analysis)
    return {p.chapter: [n.title for top in p.nodes for _, n in OutlineNode(title="r", children=[top]).walk()]
            for p in plans}


def _entry_titles(*ids: str) -> set[str]:
    """Headings only these entries have (a heading other entries share, 设计原则, says nothing of the domain)."""
    lib = default_library()
    own = {t for i in ids if (e := lib.get(i)) is not None for t in e.headings()}
    return own - {t for e in lib if e.id not in ids for t in e.headings()}


def test_a_goods_tender_gets_no_service_timeliness_or_building_design_headings() -> None:
    got = _headings("数据中心信创基础软硬件采购", ["技术响应情况", "技术设计方案", "售后服务"])
    foreign = _entry_titles("response", "design", "property", "service_plan")
    assert all(got[c] for c in got)
    for chapter, titles in got.items():
        assert not set(titles) & foreign, (chapter, set(titles) & foreign)


def test_a_construction_tenders_guarantees_are_quality_safety_schedule_and_site() -> None:
    got = _headings("某市综合管廊（沟）工程", ["保证措施", "施工组织设计"])
    sections = got["保证措施"]
    for word in ("质量", "安全", "工期", "文明施工"):
        assert any(word in t for t in sections), (word, sections)
    assert not set(sections) & _entry_titles("service_plan", "property", "response")


def test_a_service_tender_gets_no_property_headings_unless_it_is_property() -> None:
    got = _headings("某银行渗透测试服务项目", ["人员资格与能力", "项目实施方案", "服务质量保障"])
    foreign = _entry_titles("property", "cleaning", "canteen", "construction_org", "construction_guarantees")
    for chapter, titles in got.items():
        assert not set(titles) & foreign, (chapter, set(titles) & foreign)

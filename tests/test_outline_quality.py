"""tests/eval/outline_quality.py labels headings by evidence and flags what the issue saw from Gemma 3 270M."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.core.outline import OutlineNode
from app.pipeline.headings.candidates import plan_outline
from tests.eval.outline_quality import evaluate, main


def node(title: str, *children: OutlineNode, origin: str | None = None, description: str = "") -> OutlineNode:
    return OutlineNode(title=title, children=list(children), origin=origin, description=description)  # type: ignore[arg-type]


def template_chapter(title: str) -> OutlineNode:
    """What the old template fill-in produced: the parent's title plus the same suffixes everywhere."""
    return node(title, *[node(f"{title}{s}", node(f"{title}{s}要点"), node(f"{title}{s}做法"))
                         for s in ("目标与原则", "具体措施", "保障与考核")])


def test_template_fill_in_is_generic_and_repeated() -> None:
    report = evaluate([template_chapter("纳税资格"), template_chapter("配送车辆"), template_chapter("期刊目录")])
    assert report.count("generic") == len(report.headings) == 27
    assert not report.ok


def test_fragments_from_the_criteria_are_flagged() -> None:
    criteria = "期刊目录数量大、专业性强、覆盖面广；岗位包括如拣货、收银、营业员等"
    chapter = node("服务方案", node("数量大", node("如拣货"), node("收银")), node("专业性强", node("覆盖面广"), node("理货")),
                   description=criteria)
    report = evaluate([chapter])
    flagged = {h.title for h in report.headings if h.fragment}
    assert {"数量大", "如拣货", "专业性强", "覆盖面广"} <= flagged and "收银" not in flagged  # a two-character role is a heading
    assert not report.ok


def test_labels_by_evidence() -> None:
    criteria = "方案内容包含但不限于：①项目人员配置方案；②实施进度计划"
    chapter = node("服务方案", node("项目人员配置方案", node("岗位设置与人数"), node("夜班轮值与交接")),
                   node("实施进度计划", node("进度计划编排"), node("关键节点控制")), description=criteria)
    labels = {h.title: h.label for h in evaluate([chapter]).headings}
    assert labels == {"项目人员配置方案": "tender", "岗位设置与人数": "library", "夜班轮值与交接": "model",
                      "实施进度计划": "tender", "进度计划编排": "library", "关键节点控制": "library"}


def test_a_heading_under_two_chapters_breaks_distinctness() -> None:
    a = node("服务方案", node("服务质量控制", node("巡查记录"), node("整改回访")), node("人员保障", node("人员招聘"), node("人员排班")))
    b = node("质量保证", node("服务质量控制", node("抽查制度"), node("考核评分表")), node("质量目标", node("目标分解"), node("目标考核")))
    report = evaluate([a, b])
    assert report.shared == ["服务质量控制"] and not report.distinct


def test_a_grounded_outline_meets_the_targets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    groups = [ScoringGroup(id="R1", title="服务方案", description="①人员配置方案；②进度计划；③质量保障机制"),
              ScoringGroup(id="R2", title="应急预案", description="对火灾、停电、食物中毒等突发事件提出预案"),
              ScoringGroup(id="R3", title="培训方案", description="培训方案完整的得5分")]
    analysis = Analysis(overview=ProjectOverview(project_name="某单位后勤服务"), groups=groups)
    plans = plan_outline([(g.title, g) for g in groups], analysis)
    chapters = [node(p.chapter, *p.nodes, description=g.description) for p, g in zip(plans, groups, strict=True)]
    report = evaluate(chapters)
    assert report.ok and report.count("model") == 0
    assert report.count("tender") > 0 and report.count("library") > 0
    out = tmp_path / "x.aligned.outline.json"
    out.write_text(json.dumps({"outline": [c.model_dump(mode="json") for c in chapters]}, ensure_ascii=False), "utf-8")
    assert main([str(out), "--sample"]) == 0
    printed = capsys.readouterr().out
    assert "targets" in printed and "met" in printed and "[招标文件]" in printed and "[标题库]" in printed


def test_library_headings_under_a_tender_heading_they_are_not_about_are_misfits() -> None:
    from app.pipeline.headings.library import default_library

    section = next(s for e in default_library() for v in e.variants for s in v.sections if s.title == "核心人员介绍")
    kids = [node(c, origin="library") for c in section.children[:3]]
    wrong = evaluate([node("服务团队", node("总体服务思路", *kids, origin="tender"),
                           node("保密措施", node("保密管理制度", origin="library"), node("人员保密管理", origin="library"),
                                origin="tender"))])
    assert wrong.misfits == 3 and not wrong.ok
    right = evaluate([node("服务团队", node("核心人员情况", *kids, origin="tender"),
                           node("保密措施", node("保密管理制度", origin="library"), node("人员保密管理", origin="library"),
                                origin="tender"))])
    assert right.misfits == 0

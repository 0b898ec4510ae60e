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


# ---- issue 38: the script sees fragments and misfits by its own reading, and the points an evaluator looks for


@pytest.mark.parametrize("title", ["科学合理技术措施", "可执行性强售后保障", "性售后保障", "在此基础上", "在此基础上技术措施",
                                   "从以下两个安全措施", "详细项目开发计划（", "以上资料均要求提供扫描件加盖公章",
                                   "注明证明材料在投标文件中具体位置实现", "应答人提供技术方案"])
def test_the_fragments_code_made_from_fresh_criteria_are_read_as_fragments(title: str) -> None:
    from tests.eval.outline_quality import reads_as_fragment

    assert reads_as_fragment(title) is not None
    report = evaluate([node("技术方案", node("系统设计", node(title, origin="tender"), node("接口设计", origin="library")))])
    assert report.fragments >= 1 and not report.ok


def test_what_a_writer_writes_is_not_read_as_a_fragment() -> None:
    from tests.eval.outline_quality import reads_as_fragment

    common = [line.strip() for line in (Path(__file__).parent / "data" / "common_headings.txt").read_text("utf-8")
              .splitlines() if line.strip() and not line.startswith("#")]
    assert [t for t in common if reads_as_fragment(t)] == []


@pytest.mark.parametrize(("title", "foreign", "own"), [
    ("安全员配置", {"it"}, {"works"}), ("作业安全交底", {"it"}, {"facility"}), ("劳动防护用品配备", {"it"}, {"catering"}),
    ("节能降耗建议", {"it"}, {"facility"}), ("资源循环利用", {"it", "consulting"}, {"works"}),
    ("重点时段服务安排", {"it"}, {"ops", "it"}), ("排班与轮岗安排", {"it"}, {"staffing"}),
    ("设计联络会安排", {"it"}, {"goods"}), ("安装指导", {"it", "consulting"}, {"goods", "works"}),
    ("投运保障", {"it"}, {"goods"}), ("质保期内服务", {"catering"}, {"goods"}),
])
def test_a_heading_of_another_trade_is_a_misfit(title: str, foreign: set[str], own: set[str]) -> None:
    from tests.eval.outline_quality import trade_misfit

    assert trade_misfit(title, frozenset(foreign)) is not None
    assert trade_misfit(title, frozenset(own)) is None
    assert trade_misfit("项目组织架构", frozenset(foreign)) is None  # a heading of no one trade fits all


def test_judge_prints_the_share_of_criteria_points_the_headings_answer(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from tests.eval.outline_quality import judge

    group = ScoringGroup(id="R1", title="培训方案", description="培训方案包括培训计划、培训内容、培训考核等，方案完整的得10分。")
    analysis = Analysis(overview=ProjectOverview(project_name="某单位保洁服务项目"), groups=[group])
    chapter = OutlineNode(title="培训方案", source_requirement_id="R1", source_requirement_title="培训方案", children=[
        node("培训计划", node("年度培训计划"), node("岗前培训安排")), node("培训内容", node("岗位技能"), node("安全知识"))])
    report = judge([chapter], analysis, "x")
    assert (report.points_covered, report.points_total) == (2, 3) and not report.ok
    assert report.coverage[0].missing == ["培训考核"]
    out = tmp_path / "x.outline.json"
    out.write_text(json.dumps({"outline": [chapter.model_dump(mode="json")]}, ensure_ascii=False), "utf-8")
    (tmp_path / "x.analysis.json").write_text(analysis.model_dump_json(), "utf-8")
    assert main([str(out)]) == 1
    printed = capsys.readouterr().out
    assert "2/3 (67%)" in printed and "未覆盖：培训考核" in printed


def test_the_script_flags_what_the_issue_saw_on_unseen_tenders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 38's examples, in generated tenders of the kinds they came from: a model's 建设管理部 and 服务员管理
    and the library's 节能降耗建议 in a penetration test, 安全员配置 under a data service's 安全性 item, code's
    在此基础上 and 详细项目开发计划（ from a software project's criteria. The script finds each, by the path
    tests/eval/code_only.py takes (outline and analysis written side by side), and a fitting outline passes."""
    def tender(project: str, *items: tuple[str, str]) -> Analysis:
        return Analysis(overview=ProjectOverview(project_name=project), source="table",
                        groups=[ScoringGroup(id=f"R{i + 1}", title=t, description=d, points=10.0, category="technical")
                                for i, (t, d) in enumerate(items)])

    def chapter(title: str, rid: str, *kids: OutlineNode) -> OutlineNode:
        return OutlineNode(title=title, source_requirement_id=rid, source_requirement_title=title, children=list(kids))

    cases = [
        (tender("某银行2026年度渗透测试服务采购项目", ("项目组织", "项目组织架构及人员分工合理的得10分"),
                ("增值服务", "提供增值服务方案的得5分")),
         [chapter("项目组织", "R1", node("组织架构", node("建设管理部", origin=None), node("测试实施组")),
                  node("人员分工", node("服务员管理", origin=None), node("渗透测试工程师"))),
          chapter("增值服务", "R2", node("增值服务内容", node("节能降耗建议", origin="library"), node("安全意识培训")),
                  node("服务承诺", node("响应时限", origin="library"), node("保密承诺", origin="library")))],
         {"建设管理部", "服务员管理", "节能降耗建议"}),
        (tender("某市数据核验服务项目", ("安全性、稳定性管理", "提供安全性、稳定性管理措施，措施完善可行的得8分。")),
         [chapter("安全性、稳定性管理", "R1",
                  node("安全性管理措施", node("安全员配置", origin="library"), node("数据访问控制", origin="library"),
                       origin="tender"),
                  node("稳定性管理措施", node("系统监控"), node("故障切换"), origin="tender"))],
         {"安全员配置"}),
        (tender("某大学教务管理软件开发项目",
                ("实施方案", "在此基础上提出技术措施；提供详细项目开发计划（含里程碑）的得10分")),
         [chapter("实施方案", "R1", node("技术措施", node("在此基础上", origin="tender"), node("技术路线", origin="library")),
                  node("开发计划", node("详细项目开发计划（", origin="tender"), node("里程碑安排", origin="tender")))],
         {"在此基础上", "详细项目开发计划（"}),
    ]
    for i, (analysis, chapters, bad) in enumerate(cases):
        from tests.eval.outline_quality import judge

        report = judge(chapters, analysis, f"t{i}")
        flagged = {h.title for h in report.headings if h.misfit or h.fragment}
        assert bad <= flagged, (bad - flagged, [(h.title, h.misfit, h.fragment) for h in report.headings])
        assert not (flagged - bad), flagged - bad  # the fitting headings beside them pass
        assert not report.ok
        out = tmp_path / f"t{i}.outline.json"
        out.write_text(json.dumps({"outline": [c.model_dump(mode="json") for c in chapters]}, ensure_ascii=False), "utf-8")
        (tmp_path / f"t{i}.analysis.json").write_text(analysis.model_dump_json(), "utf-8")
    assert main([str(tmp_path), "--sample", "3"]) == 1
    printed = capsys.readouterr().out
    for title in ("建设管理部", "服务员管理", "节能降耗建议", "安全员配置", "在此基础上", "详细项目开发计划（"):
        line = next(x for x in printed.splitlines() if x.strip().startswith(title))
        assert "⚠" in line, line
    fitting = [chapter("项目组织", "R1", node("组织架构", node("项目管理组"), node("测试实施组")),
                       node("人员分工", node("项目经理职责"), node("渗透测试工程师")))]
    assert judge(fitting, cases[0][0], "fit").misfits == 0


def test_a_point_the_criteria_put_after_a_preposition_is_answered_by_its_heading() -> None:
    """Code drops the criteria's 对 in front of a point (对产品运输… → 产品运输建议); the point an evaluator looks
    for does not ask the heading to repeat it."""
    from app.pipeline.evaluation.matching import coverage
    from app.pipeline.evaluation.terms import point_terms
    from app.pipeline.headings.criteria_points import point_heading

    for point, criteria in (("对本采购服务涉及的重点", "要求对本采购服务涉及的重点"), ("对产品运输的建议", "对产品运输的建议")):
        heading = point_heading(point)
        terms = point_terms(criteria)
        assert heading and not heading.startswith("对") and terms is not None
        assert coverage(terms, heading) >= 1.0, (criteria, heading, terms)
    assert point_heading("对外协调机制") == "对外协调机制"  # 对外 is a word: kept

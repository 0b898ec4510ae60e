"""The length budget: split by points, fixed chapters, section shares in the prompt, the page report."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.core.analysis import Analysis, ScoringGroup
from app.core.length_budget import (
    LengthBudget,
    PageLine,
    chapter_budgets,
    chapter_page_counts,
    chapter_points,
    find_page_limit,
    outline_targets,
    page_report,
    split,
)
from app.core.outline import Outline, OutlineDocument, OutlineNode
from app.core.project import Project, load_project, save_project
from app.export import ExportOptions, export_bid
from app.pipeline.drafting.context import draft_messages, section_requests
from tests.export_sample import sample_chapters, sample_meta


def _chapters() -> list[OutlineNode]:
    return [
        OutlineNode(title="实施方案", source_requirement_id="R1",
                    children=[OutlineNode(title="总体思路"), OutlineNode(title="技术路线"), OutlineNode(title="进度")]),
        OutlineNode(title="质量保证", source_requirement_id="R2", children=[OutlineNode(title="质量体系")]),
        OutlineNode(title="售后服务", children=[OutlineNode(title="响应时间", scoring_refs=["R3"])]),
        OutlineNode(title="其他", children=[OutlineNode(title="补充说明")]),
    ]


def _analysis() -> Analysis:
    return Analysis(groups=[ScoringGroup(id="R1", title="实施方案", points=30), ScoringGroup(id="R2", title="质量", points=10),
                            ScoringGroup(id="R3", title="售后", points=20)])


def test_split_is_proportional_and_sums_to_the_total() -> None:
    assert split(100, [3, 1]) == [75, 25]
    assert split(10, [1, 1, 1]) == [4, 3, 3] and sum(split(10, [1, 1, 1])) == 10
    assert split(7, [0, 0]) == [4, 3]  # no weights: even
    assert split(5, []) == []


def test_chapters_share_by_points_and_fixed_chapters_keep_their_number() -> None:
    chapters = _chapters()
    points = chapter_points(chapters, _analysis())
    assert points == [30, 10, 20, None]
    shares = chapter_budgets(LengthBudget(total=100), chapters, points)
    # no points: the average (20) as weight -> 30:10:20:20 of 100
    assert [s.amount for s in shares] == [38, 12, 25, 25]
    fixed = chapter_budgets(LengthBudget(total=100, fixed={"实施方案": 20}), chapters, points)
    assert fixed[0].amount == 20 and fixed[0].fixed and sum(s.amount for s in fixed) == 100
    assert [s.amount for s in fixed[1:]] == [16, 32, 32]


def test_each_leaf_gets_its_share_in_characters_and_the_prompt_says_so() -> None:
    chapters = _chapters()
    budget = LengthBudget(unit="pages", total=40, chars_per_page=700)
    targets = outline_targets(budget, chapters, _analysis())
    assert set(targets) == {(0, 0), (0, 1), (0, 2), (1, 0), (2, 0), (3, 0)}
    assert sum(targets[(0, i)] for i in range(3)) == 15 * 700  # chapter 1: 15 of 40 pages
    assert targets[(1, 0)] == 5 * 700
    outline = Outline(chapters)
    outline.renumber()
    requests = section_requests(outline, _analysis(), targets=targets)
    by_key = {r.key: r for r in requests}
    assert by_key["2.1"].target_chars == 3500
    prompt = "\n".join(m["content"] for m in draft_messages(by_key["2.1"]))
    assert "篇幅约 3500 字" in prompt
    plain = section_requests(outline, _analysis())
    assert {r.target_chars for r in plain} == {plain[0].target_chars}  # without a budget: the default


@pytest.mark.parametrize(("text", "limit"), [
    ("技术标不超过200页（含附件）。", 200),
    ("投标文件（技术部分）页数不得超过 150 页，超出部分不予评审。", 150),
    ("技术方案篇幅控制在80页以内。", 80),
    ("技术响应文件不多于 60 页；商务文件不超过 40 页", 60),
    ("供应商应于投标截止前 3 日提交样品，资格文件不超过 30 日有效。", None),
    ("", None),
])
def test_find_page_limit(text: str, limit: int | None) -> None:
    assert find_page_limit(text) == limit


def test_page_report_flags_the_limit_and_chapters_far_off_budget() -> None:
    assert chapter_page_counts([1, 4, 10], 12) == [3, 6, 3]
    lines = [PageLine("实施方案", 30, 20.0), PageLine("质量保证", 11, 10.0), PageLine("售后服务", 2, 8.0)]
    notes = page_report(lines, 43, 40)
    assert notes[0] == "正文共 43 页，超过招标文件规定的 40 页上限（超出 3 页）"
    assert "“实施方案”30 页，超出预算 20 页" in notes and "“售后服务”2 页，少于预算 8 页" in notes
    assert not any("质量保证" in n for n in notes)  # within 20 %
    assert page_report(lines[1:2], 11, 40) == []


def test_budget_is_saved_with_the_project(tmp_path: Path) -> None:
    budget = LengthBudget(unit="chars", total=120000, page_limit=200, fixed={"实施方案": 50000})
    path = tmp_path / "p.bidproj"
    save_project(Project(outline=OutlineDocument(outline=_chapters()), length_budget=budget), path)
    assert load_project(path).length_budget == budget


@pytest.mark.libreoffice
def test_export_reports_pages_per_chapter_against_the_budget(tmp_path: Path) -> None:
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    options = ExportOptions(layout_pass=True, length_budget=LengthBudget(total=30, page_limit=2))
    report = export_bid(sample_chapters(), tmp_path / "b.docx", sample_meta(), options, soffice=soffice)
    assert report.laid_out and report.body_pages is not None
    assert [t for t, _, _ in report.chapter_pages] == [c.title for c in sample_chapters()]
    assert all(n >= 1 for _, n, _ in report.chapter_pages)
    assert sum(p for _, _, p in report.chapter_pages if p is not None) == pytest.approx(30)
    assert any("超过招标文件规定的 2 页上限" in w for w in report.warnings)
    assert any("少于预算" in n for n in report.notes)  # three short chapters against 30 pages

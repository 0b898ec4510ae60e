"""The 评分索引表 and 技术偏离表 in the exported .docx: rows, section references and PAGEREF fields."""

from __future__ import annotations

import re
from pathlib import Path

import docx
import pytest
from docx.oxml.ns import qn

from app.core.response_map import (
    criteria_summary,
    deviation_entries,
    find_section,
    index_entries,
    unanswered_groups,
)
from app.export import ExportOptions, export_docx
from app.export.docx_writer import export_bid
from tests.export_sample import sample_analysis, sample_breakdown, sample_mapped_chapters, sample_meta

BOTH = {"index_table": True, "deviation_table": True}


def _export(tmp_path: Path, name: str = "t.docx", **opts: object) -> docx.document.Document:
    path = export_docx(sample_mapped_chapters(), tmp_path / name, sample_meta(), ExportOptions(**opts),  # type: ignore[arg-type]
                       analysis=sample_analysis(), breakdown=sample_breakdown())
    return docx.Document(str(path))


def _cell_refs(cell: object) -> list[str]:
    """Bookmarks the PAGEREF fields of a cell point at."""
    xml = cell._tc.xml  # type: ignore[attr-defined]
    return re.findall(r"PAGEREF (_Toc\d+) \\h", xml)


def _bookmarks(doc: docx.document.Document) -> dict[str, str]:
    """Bookmark name -> the text of the heading paragraph it sits on."""
    out = {}
    for p in doc.paragraphs:
        for start in p._p.findall(qn("w:bookmarkStart")):
            out[start.get(qn("w:name"))] = p.text
    return out


def test_response_map_rows_from_one_to_one_chapters_and_user_mappings() -> None:
    chapters = sample_mapped_chapters()
    entries = {e.group.id: e for e in index_entries(sample_analysis(), chapters)}
    assert list(entries) == ["R1", "R2", "R3", "R4", "R5", "B1"]  # price never; B2 unmapped: left out
    assert entries["R1"].paths == ((0,),) and entries["R1"].automatic == {(0,)}
    assert entries["R4"].paths == ((2, 0, 1), (2, 1))
    assert entries["B1"].paths == ((2, 0, 1),)
    assert not entries["R5"].answered
    assert [g.id for g in unanswered_groups(sample_analysis(), chapters)] == ["R5"]
    rows = deviation_entries(sample_breakdown(), chapters)
    assert [(r.risk_index, r.path) for r in rows] == [(0, (2, 1)), (2, (1, 0, 1)), (3, None)]
    assert find_section(chapters, "第3章") == (2,) and find_section(chapters, "3.9") is None
    assert find_section(chapters, "abc") is None and find_section(chapters, "0.1") is None


def test_criteria_summary_is_short_and_ends_at_a_sentence() -> None:
    from app.core.analysis import ScoringGroup, ScoringSubItem

    groups = {g.id: g for g in sample_analysis().groups}
    assert criteria_summary(groups["R2"]) == "总体架构；功能设计；部署方案"
    long = criteria_summary(groups["R3"], limit=30)
    assert len(long) <= 30 and long.endswith(("；", "。", "…"))
    subs = ScoringGroup(id="R9", title="服务方案", sub_items=[ScoringSubItem(name="人员配置", points=5),
                                                            ScoringSubItem(name="进度计划", points=3.5)])
    assert criteria_summary(subs) == "人员配置（5分）；进度计划（3.5分）"
    noted = ScoringGroup(id="R8", title="车辆", description="每备一台车得 3 分，最高 6 分。注：须提供行驶证复印件。")
    assert criteria_summary(noted) == "每备一台车得3分，最高6分。"


def test_index_table_lists_every_item_with_sections_and_page_fields(tmp_path: Path) -> None:
    doc = _export(tmp_path, **BOTH)
    titles = [p.text for p in doc.paragraphs if p.style.name == "目录标题"]
    assert titles == ["目  录", "评分索引表", "技术偏离表"]
    index = doc.tables[0]
    header = [c.text for c in index.rows[0].cells]
    assert header == ["序号", "评分项", "分值", "评分标准（摘要）", "响应章节", "页码"]
    rows = [[c.text for c in r.cells] for r in index.rows[1:]]
    assert [r[1] for r in rows] == ["需求理解", "技术方案", "实施方案", "质量保障与人员", "培训方案", "项目团队"]
    assert [r[2] for r in rows] == ["10", "20", "15", "8", "5", "6"]
    assert rows[0][4] == "第一章 项目理解与需求分析"
    assert rows[3][4] == "3.1.2 人员组织\n3.2 质量保障措施"  # one line per section
    assert rows[4][4] == "—" and rows[4][5] == "—"  # unanswered: kept, never dropped
    marks = _bookmarks(doc)
    refs = [_cell_refs(r.cells[5]) for r in index.rows[1:]]
    assert [[marks[b] for b in r] for r in refs] == [
        ["第一章 项目理解与需求分析"], ["第二章 总体技术方案"], ["第三章 项目实施与质量保障"],
        ["3.1.2 人员组织", "3.2 质量保障措施"], [], ["3.1.2 人员组织"],
    ]
    assert index.rows[0]._tr.trPr.find(qn("w:tblHeader")) is not None


def test_deviation_table_rows_defaults_and_typed_responses(tmp_path: Path) -> None:
    doc = _export(tmp_path, **BOTH)
    table = doc.tables[1]
    assert [c.text for c in table.rows[0].cells] == ["序号", "条款", "招标要求", "投标响应", "偏离\n情况", "说明", "页码"]
    rows = [[c.text for c in r.cells] for r in table.rows[1:]]
    assert len(rows) == 3  # only ★/▲ clauses
    assert rows[0][:6] == ["1", "★\n第12页", "★投标人须提供 7×24 小时运维服务，故障 2 小时内到场。",
                           "待确认（相关章节：“3.2 质量保障措施”）", "待确认", ""]
    assert rows[1][3:6] == ["支持 500 个并发用户，优于招标要求。", "正偏离", "见压力测试报告"]
    assert rows[2][3] == "待确认" and rows[2][6] == "—"
    marks = _bookmarks(doc)
    assert [[marks[b] for b in _cell_refs(r.cells[6])] for r in table.rows[1:]] == [
        ["3.2 质量保障措施"], ["2.1.2 部署方案"], []]


def test_tables_sit_between_the_toc_and_the_first_chapter(tmp_path: Path) -> None:
    doc = _export(tmp_path, **BOTH)
    body = list(doc.element.body.iterchildren())
    tables = [i for i, el in enumerate(body) if el.tag == qn("w:tbl")]

    def styled(style: str) -> int:
        return next(i for i, el in enumerate(body) if el.xpath(f"./w:pPr/w:pStyle[@w:val='{style}']"))

    toc_title = styled(doc.styles["目录标题"].style_id)
    first_heading = styled(doc.styles["Heading 1"].style_id)
    assert toc_title < tables[0] < tables[1] < first_heading


def test_tables_follow_the_exported_numbering_and_selection(tmp_path: Path) -> None:
    doc = _export(tmp_path, chapters=(0, 2), numbering="chinese", **BOTH)
    rows = [[c.text for c in r.cells] for r in doc.tables[0].rows[1:]]
    sections = {r[1]: r[4] for r in rows}
    assert sections["技术方案"] == "—"  # chapter 2 was not exported
    assert sections["实施方案"] == "二、项目实施与质量保障"
    assert sections["质量保障与人员"] == "2. 人员组织\n（二）质量保障措施"
    deviation = [[c.text for c in r.cells] for r in doc.tables[1].rows[1:]]
    assert deviation[1][3] == "支持 500 个并发用户，优于招标要求。" and deviation[1][6] == "—"


def test_tables_are_optional_and_need_their_data(tmp_path: Path) -> None:
    assert len(_export(tmp_path, "none.docx").tables) == 2  # the sample's own two tables
    only = export_docx(sample_mapped_chapters(), tmp_path / "x.docx", sample_meta(), ExportOptions(**BOTH))
    assert len(docx.Document(str(only)).tables) == 2  # no analysis or breakdown given: nothing to list


def test_every_page_reference_has_a_bookmark_on_a_heading(tmp_path: Path) -> None:
    doc = _export(tmp_path, **BOTH)
    xml = doc.element.body.xml
    refs = set(re.findall(r"PAGEREF (_\w+) \\h", xml))
    marks = _bookmarks(doc)
    assert refs and refs <= set(marks)
    headings = {p.text for p in doc.paragraphs if p.style.name.startswith("Heading")}
    assert {marks[r] for r in refs} <= headings


def test_without_libreoffice_the_file_keeps_fields_and_the_report_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no soffice on PATH
    report = export_bid(sample_mapped_chapters(), tmp_path / "n.docx", sample_meta(),
                        ExportOptions(layout_pass=True, **BOTH), analysis=sample_analysis(),
                        breakdown=sample_breakdown())
    assert report.path.is_file() and not report.laid_out
    assert "未安装 LibreOffice" in report.summary_zh()
    xml = docx.Document(str(report.path)).element.body.xml
    assert len(re.findall(r"PAGEREF _Toc\d+ \\h", xml)) == 21 + 6 + 2  # TOC, index, deviation
    assert "更新域" not in "".join(p.text for p in docx.Document(str(report.path)).paragraphs)


def test_a_failing_or_hanging_libreoffice_never_fails_the_export(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "soffice-broken"
    broken.write_text("#!/bin/sh\necho 'cannot start' >&2\nexit 3\n", encoding="utf-8")
    broken.chmod(0o755)
    report = export_bid(sample_mapped_chapters(), tmp_path / "b.docx", sample_meta(),
                        ExportOptions(layout_pass=True), soffice=str(broken))
    assert report.path.is_file() and not report.laid_out
    assert "退出码 3" in report.summary_zh() and "cannot start" in report.summary_zh()
    hanging = tmp_path / "soffice-hangs"
    hanging.write_text("#!/bin/sh\nsleep 30 &\nwait\n", encoding="utf-8")
    hanging.chmod(0o755)
    monkeypatch.setattr("app.export.layout_pass.BASE_TIMEOUT_S", 0.5)
    monkeypatch.setattr("app.export.layout_pass.TIMEOUT_PER_100KB_S", 0.0)
    report = export_bid(sample_mapped_chapters(), tmp_path / "h.docx", sample_meta(),
                        ExportOptions(layout_pass=True), soffice=str(hanging))
    assert report.path.is_file() and not report.laid_out and "超过" in report.summary_zh()
    texts = [p.text for p in docx.Document(str(report.path)).paragraphs]
    assert "第一章 项目理解与需求分析" in texts


def test_mappings_and_deviation_rows_survive_save_and_load(tmp_path: Path) -> None:
    import json

    from app.core.outline import OutlineDocument
    from app.core.project import FORMAT_VERSION, Project, load_project, save_project

    project = Project(analysis=sample_analysis(), breakdown=sample_breakdown(),
                      outline=OutlineDocument(outline=sample_mapped_chapters()))
    save_project(project, tmp_path / "p.bidproj")
    loaded = load_project(tmp_path / "p.bidproj")
    assert loaded.format_version == FORMAT_VERSION >= 2  # v2 brought scoring_refs and deviations
    assert loaded.outline.outline[2].children[1].scoring_refs == ["R4"]
    assert loaded.breakdown is not None and loaded.breakdown.risks[2].deviation == "正偏离"
    assert index_entries(loaded.analysis or sample_analysis(), loaded.outline.outline) == index_entries(
        sample_analysis(), sample_mapped_chapters())
    # A v1 file (before these fields) opens, upgraded, with the defaults.
    data = json.loads((tmp_path / "p.bidproj").read_text(encoding="utf-8"))
    data["format_version"] = 1
    for risk in data["breakdown"]["risks"]:
        for key in ("response", "deviation", "deviation_note"):
            risk.pop(key)
    (tmp_path / "v1.bidproj").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    old = load_project(tmp_path / "v1.bidproj")
    assert old.migrated_from == 1 and old.breakdown is not None
    assert [r.deviation for r in old.breakdown.risks] == ["待确认"] * 4  # never assumed


def test_a_kept_libreoffice_profile_is_used_by_one_export_at_a_time(tmp_path: Path) -> None:
    import os
    import time

    from app.export.layout_pass import STALE_LOCK_S, _claimed

    profile = tmp_path / "data" / "lo-profile"
    with _claimed(profile) as first:
        assert first == profile
        with _claimed(profile) as second:
            assert second is None  # busy: the second export uses a fresh profile
    assert not profile.with_name("lo-profile.lock").exists()
    lock = profile.with_name("lo-profile.lock")
    lock.write_text("", encoding="utf-8")
    old = time.time() - STALE_LOCK_S - 60
    os.utime(lock, (old, old))  # left over from a crash long ago
    with _claimed(profile) as taken:
        assert taken == profile
    with _claimed(None) as none:
        assert none is None

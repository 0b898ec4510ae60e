"""The user's past bids (历史标书) in the outline run: a chapter whose scoring item matches a past section
gets that section's headings, marked with their source, before the heading library's; a past bid about
something else changes nothing; a weak model's chapter is filled from the past structure; ``--library``."""

from __future__ import annotations

import json
from pathlib import Path

import docx
import pytest

from app.cli import main
from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.library.bid_import import import_bid
from app.library.store import LibraryStore
from app.pipeline.headings.candidates import TitleRegistry, about_item, plan_chapter, plan_outline
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.run import generate_outline
from tests.library_fixtures import OWN_OUTLINES, PAST_QUALITY, QUALITY_BID, make_bid, write_docx
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router, make_client

PROJECT = ProjectOverview(project_name="某市政务服务中心运维项目", summary="为政务服务中心提供运维服务")
GARBAGE = json.dumps({"children": [{"title": "一级目录", "children": [{"title": "二级目录"}, {"title": "二级目录"}]},
                                   {"title": "一级目录", "children": [{"title": "二级目录"}, {"title": "二级目录"}]}]},
                     ensure_ascii=False)


def _analysis(*items: tuple[str, str]) -> Analysis:
    return Analysis(overview=PROJECT, source="table",
                    groups=[ScoringGroup(id=f"R{i + 1}", title=t, description=d, points=10.0)
                            for i, (t, d) in enumerate(items)])


def _store(tmp_path: Path, *outlines: str) -> LibraryStore:
    store = LibraryStore(tmp_path / "lib.sqlite3")
    for i, text in enumerate(outlines):
        out = import_bid(store, write_docx(make_bid(i + 1, text), tmp_path / f"past{i}.docx"))
        assert out.status == "added", out.message
    return store


def _plans(analysis: Analysis, store: LibraryStore | None) -> list[dict[str, object]]:
    chapters = [(g.title, g) for g in analysis.groups]
    return [{"nodes": [n.model_dump() for n in p.nodes], "options": [c.title for c in p.options()]}
            for p in plan_outline(chapters, analysis, past=store)]


def test_a_matching_past_section_gives_the_chapter_its_headings_marked_with_their_source(tmp_path: Path) -> None:
    store = _store(tmp_path, QUALITY_BID)
    [bid] = store.bids()
    group = ScoringGroup(id="R1", title="质量保证措施", description="质量管理体系健全、质量检查制度完善的得10分")
    plan = plan_chapter("质量保证措施", group, _analysis(), TitleRegistry(["质量保证措施"]), past=store)
    first = plan.nodes[: len(PAST_QUALITY)]
    assert [n.title for n in first] == PAST_QUALITY  # the user's own sections first, verbatim, in their order
    source = f"历史标书“{bid.name}” › 质量保证措施"
    assert all(n.origin == "history" and n.origin_source == source and not n.description for n in first)
    assert [c.title for c in first[1].children] == ["自检互检", "验收程序"]
    assert all(c.origin == "history" and c.origin_source == source for c in first[1].children)
    titles = [t for n in plan.nodes for _, x in [((), n), *n.walk()] for t in [x.title]]
    assert not any("复印件" in t or "扫描件" in t for t in titles)  # the defect rules refuse attachments here too
    assert "人员招聘" not in titles  # another chapter of the past bid stays out
    assert "（历史标书）" in plan.guidance() and plan.history  # a capable model sees them, labelled
    store.close()


def test_a_past_bid_about_something_else_changes_nothing(tmp_path: Path) -> None:
    analysis = _analysis(("质量管理方案", "质量目标明确、质量控制措施有效"), ("应急预案", "包括应急组织、应急响应流程"))
    without = _plans(analysis, None)
    # 人员管理方案 shares only common words (管理/方案) with 质量管理方案; the others are about other things
    store = _store(tmp_path, "第一章 人员管理方案\n一、人员招聘\n二、人员考核\n三、人员培训", OWN_OUTLINES[1], OWN_OUTLINES[2])
    assert _plans(analysis, store) == without
    store.close()


@pytest.mark.parametrize(("item", "past", "fits"), [
    ("质量保证措施", "质量保证措施", True), ("质量保证措施", "质量保证体系", True), ("实施计划", "项目实施计划", True),
    ("售后服务", "售后服务体系", True),
    ("质量保证措施", "保证措施", False),  # a broader past chapter (quality, safety, schedule …) is not about quality
    ("质量管理方案", "人员管理方案", False),  # common words only (管理/方案)
    ("服务方案", "培训方案", False), ("应急预案", "质量保证措施", False),
])
def test_a_past_section_fits_an_item_only_when_each_names_what_the_other_does(item: str, past: str, fits: bool) -> None:
    assert about_item(item, past) is fits


async def test_a_weak_models_chapter_is_filled_from_the_past_structure(tmp_path: Path,
                                                                      llm_server: OpenAIServer) -> None:
    store = _store(tmp_path, QUALITY_BID)
    [bid] = store.bids()
    router = Router(lambda kind, req: Reply.text(GARBAGE))
    llm_server.handler = router
    analysis = _analysis(("质量保证措施", "质量管理体系健全、质量检查制度完善的得10分"),
                         ("应急预案", "包括应急组织、应急响应流程、应急演练"))
    async with make_client(llm_server) as client:
        res = await generate_outline(client, analysis, OutlineSettings(mode="aligned", review=False, library=store))
    assert res.valid
    quality = res.chapters[0].children
    past = [n for n in quality if n.origin == "history"]
    assert [n.title for n in past] == PAST_QUALITY
    assert all(n.origin_source.startswith(f"历史标书“{bid.name}”") for n in past)
    assert not any("来源" in n.description for n in past)  # the source is no longer written into the description
    assert [c.title for c in past[1].children] == ["自检互检", "验收程序"]
    assert all(n.origin != "history" for _, n in res.chapters[1].walk())  # 应急预案: nothing in this past bid
    assert res.heading_sources["history"] == sum(1 for _, n in res.chapters[0].walk() if n.origin == "history")
    assert res.report()["filled_nodes"] == sum(res.heading_sources.values())
    assert any("取自历史标书" in w for w in res.warnings)
    chapter_prompts = [r.prompt_text for r in llm_server.completion_requests if "现在只写其中一章“质量保证措施”" in r.prompt_text]
    assert chapter_prompts and "质量管理体系（历史标书）" in chapter_prompts[0]  # offered to the model first
    picks = [r.prompt_text for r in llm_server.completion_requests if '"picks"' in r.prompt_text]
    assert any("质量检查与验收（历史标书）" in p for p in picks)  # the small question shows the source too
    store.close()


async def test_a_model_that_copies_past_headings_keeps_them_marked_with_their_source(
        tmp_path: Path, llm_server: OpenAIServer) -> None:
    store = _store(tmp_path, QUALITY_BID)
    [bid] = store.bids()
    own = iter(["质量例会制度", "质量月活动安排", "巡检记录表", "验收签认", "整改时限", "复查销项", "应急值守", "事后评估"])

    def copy(kind: str, req: RecordedRequest) -> Reply:
        if kind.startswith("chapter:"):
            listed = req.prompt_text.split("可参考的二级标题", 1)[-1].splitlines()[1:]
            cands = [x[2:].split("（", 1)[0] for x in listed if x.startswith("- ")][:3]
            sections = [{"title": t, "children": [{"title": next(own)}, {"title": next(own)}]} for t in cands[:2]]
            return Reply.text(json.dumps({"children": sections}, ensure_ascii=False))
        return Reply.text('{"passed": true, "suggestions": []}')

    llm_server.handler = Router(copy)
    analysis = _analysis(("质量保证措施", "质量管理体系健全、质量检查制度完善的得10分"), ("应急预案", "包括应急组织"))
    async with make_client(llm_server) as client:
        res = await generate_outline(client, analysis, OutlineSettings(mode="aligned", review=False, library=store))
    assert res.ok
    first = res.chapters[0].children
    assert [n.title for n in first] == PAST_QUALITY[:2]
    assert all(n.origin == "history" and n.origin_source == f"历史标书“{bid.name}” › 质量保证措施" for n in first)
    assert all(c.origin == "model" for n in first for c in n.children)  # what it wrote itself is its own
    store.close()


async def test_without_a_library_the_chapter_comes_from_the_tender_and_heading_library(
        llm_server: OpenAIServer) -> None:
    llm_server.handler = Router(lambda kind, req: Reply.text(GARBAGE))
    analysis = _analysis(("质量保证措施", "质量管理体系健全、质量检查制度完善的得10分"), ("应急预案", "包括应急组织"))
    async with make_client(llm_server) as client:
        res = await generate_outline(client, analysis, OutlineSettings(mode="aligned", review=False))
    assert res.valid and "history" not in res.heading_sources
    assert not any("历史标书" in r.prompt_text for r in llm_server.completion_requests)


# --------------------------------------------------------------------------- CLI


def _tender(tmp_path: Path) -> Path:
    d = docx.Document()
    d.add_heading("第一章 招标公告", level=1)
    d.add_paragraph("项目名称：某区政务服务中心运维服务项目")
    d.add_heading("第三章 评标办法", level=1)
    d.add_paragraph("技术评分表（30分）")
    table = d.add_table(rows=1, cols=4)
    for cell, head in zip(table.rows[0].cells, ["序号", "评分因素", "分值", "评分标准"], strict=True):
        cell.text = head
    items = [("质量保证措施", "20", "质量管理体系健全、质量检查制度完善的得20分"), ("应急预案", "10", "包括应急组织、应急响应流程")]
    for i, (factor, points, criteria) in enumerate(items, 1):
        for cell, value in zip(table.add_row().cells, [str(i), factor, points, criteria], strict=True):
            cell.text = value
    path = tmp_path / "tender.docx"
    d.save(str(path))
    return path


def _cli_answer(kind: str, req: RecordedRequest) -> Reply:
    if kind == "overview":
        return Reply.text(json.dumps({"project_name": "某区政务服务中心运维服务项目"}, ensure_ascii=False))
    return Reply.text(GARBAGE)


def _cli(server: OpenAIServer, tmp_path: Path, *extra: str) -> list[str]:
    return ["outline", str(_tender(tmp_path)), "--mode", "aligned", "--base-url", server.base_url, "--model", "m",
            "--no-review", "-o", str(tmp_path / "outline.json"), "--report",
            str(tmp_path / "report.json"), "--quiet", *extra]


def test_cli_library_option_marks_past_headings(llm_server: OpenAIServer, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIDSTUDIO_API_KEY", "k")
    store = _store(tmp_path, QUALITY_BID)
    store.close()
    llm_server.handler = Router(_cli_answer)
    assert main(_cli(llm_server, tmp_path, "--library", str(tmp_path / "lib.sqlite3"))) == 0
    outline = json.loads((tmp_path / "outline.json").read_text(encoding="utf-8"))["outline"]
    quality = next(c for c in outline if c["title"] == "质量保证措施")
    assert [n["title"] for n in quality["children"] if n.get("origin") == "history"] == PAST_QUALITY
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["heading_sources"]["history"] >= 3 + 6
    # a missing library file is a usage error in Chinese, and nothing is created in its place
    missing = tmp_path / "none.sqlite3"
    assert main(_cli(llm_server, tmp_path, "--library", str(missing))) == 2
    assert "资料库文件不存在" in capsys.readouterr().err and not missing.exists()
    # a file that is not a library is refused the same way
    bad = tmp_path / "bad.sqlite3"
    bad.write_text("不是数据库", encoding="utf-8")
    assert main(_cli(llm_server, tmp_path, "--library", str(bad))) == 2
    assert "无法打开资料库文件" in capsys.readouterr().err

"""The library (资料库): import of each heading style, re-import, retrieval, 查重, report, crash safety."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.core.outline import Outline, OutlineNode
from app.library.bid_import import import_bid, import_files
from app.library.checks import compare_with_bid, copied_passages, outline_sections, stale_names
from app.library.report import write_findings_xlsx
from app.library.search import search_sections
from app.library.store import LibraryStore, fts_trigram_available
from tests.library_fixtures import (
    OWN_OUTLINES,
    SHARED_OUTLINES,
    make_bid,
    outline_texts,
    write_docx,
    write_pdf,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def store(tmp_path: Path) -> LibraryStore:
    s = LibraryStore(tmp_path / "lib.sqlite3")
    yield s  # type: ignore[misc]
    s.close()


def _tree(store: LibraryStore, bid_id: int) -> list[tuple[int, str]]:
    return [(s.level, s.title) for s in store.sections_of(bid_id)]


@pytest.mark.parametrize("kind", ["docx-styles", "docx-numbering", "pdf-bookmarks", "pdf-numbering"])
def test_import_each_heading_style(store: LibraryStore, tmp_path: Path, kind: str) -> None:
    bid = make_bid(0, OWN_OUTLINES[0])
    path = tmp_path / f"past.{kind.split('-')[0]}"
    if kind.startswith("docx"):
        write_docx(bid, path, styles=kind == "docx-styles")
    else:
        write_pdf(bid, path, bookmarks=kind == "pdf-bookmarks")
    out = import_bid(store, path)
    assert out.status == "added", out.message
    assert out.bid_id is not None
    want = [(3 if t in ("日常巡检", "故障处理") else 1 if t in ("项目理解", "服务方案", "质量保证措施", "应急预案", "培训方案") else 2, t)
            for t in ["项目理解", "项目背景", "需求分析", "服务方案", "服务内容", "服务流程", "日常巡检", "故障处理",
                      "质量保证措施", "质量目标", "质量控制流程", "应急预案", "应急组织", "应急响应流程", "培训方案"]]
    assert _tree(store, out.bid_id) == want
    [info] = store.bids()
    assert (info.project, info.client, info.date) == (bid.project, bid.client, bid.date)
    assert info.place == bid.place
    first = store.sections_of(out.bid_id)[1]
    assert "项目背景" in first.body and bid.manager in first.body
    if kind.startswith("docx"):
        assert store.sections_of(out.bid_id)[0].tables[0][1] == [bid.manager, "项目经理", "一级建造师"]


def test_reimport_is_recognised_even_renamed(store: LibraryStore, tmp_path: Path) -> None:
    bid = make_bid(1)
    a = write_docx(bid, tmp_path / "a.docx")
    assert import_bid(store, a).status == "added"
    b = tmp_path / "副本.docx"
    b.write_bytes(a.read_bytes())
    again = import_bid(store, b)
    assert again.status == "duplicate" and "已有" in again.message
    assert store.counts()[0] == 1


def test_folder_import_reports_bad_files_and_cancel(store: LibraryStore, tmp_path: Path) -> None:
    folder = tmp_path / "bids"
    (folder / "sub").mkdir(parents=True)
    for i in range(3):
        write_docx(make_bid(i), folder / "sub" / f"bid{i}.docx")
    (folder / "broken.docx").write_bytes(b"no zip")
    (folder / "notes.txt").write_text("x", encoding="utf-8")
    outcomes = import_files(store, [folder])
    assert sorted(o.status for o in outcomes) == ["added", "added", "added", "failed"]
    assert "损坏" in next(o.message for o in outcomes if o.status == "failed")
    store2 = LibraryStore(tmp_path / "other.sqlite3")
    seen: list[int] = []
    done = import_files(store2, [folder], progress=lambda i, n, name: seen.append(i), cancelled=lambda: len(seen) >= 2)
    assert [o.status for o in done] == ["failed", "added"] and store2.counts()[0] == 1  # stopped between files
    store2.close()


@pytest.mark.parametrize("use_fts", [True, False])
def test_retrieval_ranks_the_right_past_section_first(tmp_path: Path, use_fts: bool) -> None:
    if use_fts and not fts_trigram_available():
        pytest.skip("this SQLite has no FTS5 trigram tokenizer")
    store = LibraryStore(tmp_path / f"lib{use_fts}.sqlite3", use_fts=use_fts)
    assert store.fts is use_fts
    for i in range(8):
        write_docx(make_bid(i), tmp_path / f"b{i}.docx")
    import_files(store, [tmp_path])
    cases = {"应急预案及响应": "应急预案", "质量控制流程": "质量控制流程", "施工进度计划安排": "施工进度计划",
             "备品备件供应": "备品备件", "安全管理体系建设": "安全管理体系"}
    for query, title in cases.items():
        hits = search_sections(store, query, 5)
        assert hits and hits[0].section.title == title, (query, [h.section.title for h in hits])
        assert hits[0].source.startswith("历史标书：")
    assert search_sections(store, "量子计算芯片") == []
    store.close()


def _current(bid_text: dict[str, str]) -> Outline:
    return Outline([OutlineNode(title=t, content=c) for t, c in bid_text.items()])


def test_stale_names_and_copied_passages_found_and_clean_bid_gives_nothing(store: LibraryStore, tmp_path: Path) -> None:
    past = [make_bid(i) for i in range(3)]
    for i, b in enumerate(past):
        write_docx(b, tmp_path / f"p{i}.docx")
    import_files(store, [tmp_path])
    own = ["新区智慧停车项目", "新区城市管理局"]
    clean = _current({"服务方案": "我方将为新区智慧停车项目提供全天候的运维服务，建立完善的巡检制度。",
                      "质量保证": "新区城市管理局对质量的要求将逐条落实，质量目标为一次验收合格。"})
    sections = outline_sections(clean)
    assert stale_names(sections, store, own) == [] and copied_passages(sections, store) == []

    copied = past[1].sections[0].children[0].paragraphs
    dirty = _current({"服务方案": "我方将提供全天候运维服务。" + "".join(copied[:2]),
                      "质量保证": f"本项目服务对象为{past[2].client}，质量目标为一次验收合格。"})
    sections = outline_sections(dirty)
    stale = stale_names(sections, store, own)
    assert {(f.text, f.path) for f in stale} >= {(past[2].client, (1,))}
    assert all(f.source.startswith("历史标书：") for f in stale)
    found = copied_passages(sections, store)
    assert [f.path for f in found] == [(0,)] and found[0].source.startswith("历史标书：p1 ›")
    # the copied sentences name the old project and manager too: both are flagged as stale
    assert {past[1].project, past[1].manager} <= {f.text for f in stale}

    report = write_findings_xlsx([*stale, *found], tmp_path / "out" / "查重.xlsx")
    from openpyxl import load_workbook

    rows = list(load_workbook(report).active.iter_rows(values_only=True))
    assert rows[0][:3] == ("序号", "类别", "内容") and len(rows) == 1 + len(stale) + len(found)
    assert any(r[2] == past[2].client for r in rows)


def test_another_bidders_file_shares_sentences_and_metadata(tmp_path: Path) -> None:
    from docx import Document

    from app.documents.outlines.bid_reader import read_bid

    shared = "我方承诺在接到故障报告后三十分钟内到达现场并在四小时内排除全部故障。"
    other = Document()
    other.core_properties.author = "办公室电脑"
    other.add_heading("售后服务", level=1)
    other.add_paragraph(shared + "其他内容各不相同的一句话在这里出现。")
    other.add_paragraph("设备按装完成后通知业主，联系电话13912345678。")
    path = tmp_path / "other.docx"
    other.save(str(path))
    mine = _current({"售后服务": "售后服务体系完善。" + shared, "联系方式": "服务热线13912345678，设备按装由专人负责。"})
    found = compare_with_bid(outline_sections(mine), read_bid(path), {"author": "办公室电脑"})
    kinds = {f.kind for f in found}
    assert kinds == {"shared_sentence", "metadata", "shared_contact", "shared_typo"}
    assert {(f.kind, f.text, f.path) for f in found if f.kind in ("shared_contact", "shared_typo")} == {
        ("shared_contact", "13912345678", (1,)), ("shared_typo", "按装", (1,))}
    assert compare_with_bid(outline_sections(_current({"售后服务": "完全不同的内容写在这里，没有任何相同的句子出现。"})),
                            read_bid(path), {"author": "另一台电脑"}) == []


_KILL_SCRIPT = """
import sys, time
from pathlib import Path
from app.library.store import LibraryStore
from app.library.bid_import import import_bid
store = LibraryStore(Path(sys.argv[1]))
for p in sorted(Path(sys.argv[2]).glob('*.docx')):
    import_bid(store, p)
    print('done', p.name, flush=True)
"""


def test_library_survives_kill_during_import(tmp_path: Path) -> None:
    """A process killed (SIGKILL) mid-import leaves a database that opens and holds only whole bids."""
    src = tmp_path / "bids"
    src.mkdir()
    for i in range(40):
        write_docx(make_bid(i, paragraphs=6), src / f"b{i:02d}.docx", table=False)
    db = tmp_path / "lib.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", _KILL_SCRIPT, str(db), str(src)], stdout=subprocess.PIPE, env=env,
                            text=True)
    assert proc.stdout is not None
    for _ in range(3):
        proc.stdout.readline()
    time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    con = sqlite3.connect(str(db))
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    bids = con.execute("SELECT id, section_count FROM bids").fetchall()
    con.close()
    assert 3 <= len(bids) < 40
    store = LibraryStore(db)
    for bid_id, count in bids:
        assert len(store.sections_of(bid_id)) == count > 0
    assert store.counts()[1] == sum(c for _, c in bids)
    assert import_bid(store, src / "b39.docx").status == "added"  # and it keeps working
    store.close()


async def test_drafting_gets_past_sections_as_reference_and_records_sources(tmp_path: Path,
                                                                           llm_server: object) -> None:
    """With a model: the best past sections go into the drafting prompt; the draft lists their sources."""
    from app.core.analysis import Analysis, ScoringGroup
    from app.llm.client.llm_client import EndpointConfig, LLMClient
    from app.pipeline.drafting.context import section_requests
    from app.pipeline.drafting.engine import DraftingEngine
    from tests.openai_server import OpenAIServer, Reply

    assert isinstance(llm_server, OpenAIServer)
    store = LibraryStore(tmp_path / "lib.sqlite3")
    past = make_bid(3, OWN_OUTLINES[0], paragraphs=3)
    import_bid(store, write_docx(past, tmp_path / "p.docx"))
    outline = Outline([OutlineNode(id="1", title="应急保障", source_requirement_id="R1", children=[
        OutlineNode(id="1.1", title="应急响应流程"), OutlineNode(id="1.2", title="无关的小节标题甲乙丙")])])
    analysis = Analysis(groups=[ScoringGroup(id="R1", title="应急预案", description="应急响应及时得5分")])
    reqs = section_requests(outline, analysis, library=store)
    first, second = reqs
    assert first.reference_sources and first.reference_sources[0].startswith("历史标书：p › ")
    assert "应急响应流程" in first.reference_sources[0] and second.reference_sources == []
    llm_server.push(Reply.text("我公司建立应急响应流程，接报后立即启动预案，由值班负责人统一调度各岗位人员到位处置。" * 3))
    client = LLMClient(EndpointConfig(base_url=llm_server.base_url, api_key="k", model="m", max_retries=0))
    try:
        state = await DraftingEngine(client).run([first])
    finally:
        await client.aclose()
    prompt = llm_server.completion_requests[0].prompt_text
    assert "【参考材料" in prompt and past.sections[3].children[1].paragraphs[0][:20] in prompt
    assert state.sections["1.1"].status == "done" and state.sections["1.1"].sources == first.reference_sources
    assert state.sections["1.1"].to_section_state().sources == first.reference_sources
    store.close()


@pytest.mark.skipif(not SHARED_OUTLINES.is_dir(), reason="../shared/outlines not present")
@pytest.mark.parametrize("styles", [True, False])
def test_past_bids_built_from_real_outlines_keep_their_trees(tmp_path: Path, styles: bool) -> None:
    """Every real outline, written as a past bid (heading styles, or numbered lines), imports with its tree intact."""
    from app.documents.outlines.sections import iter_sections

    store = LibraryStore(tmp_path / "lib.sqlite3")
    texts = outline_texts()[len(OWN_OUTLINES):]
    assert texts
    for i, text in enumerate(texts):
        bid = make_bid(i, text, paragraphs=1)
        out = import_bid(store, write_docx(bid, tmp_path / f"real{i}.docx", styles=styles, table=False))
        assert out.status == "added", out.message
        want = [(d, s.title) for d, s in iter_sections(bid.sections)]
        assert _tree(store, out.bid_id) == want, text.splitlines()[0]  # type: ignore[arg-type]
    store.close()


def test_near_copies_are_found_but_not_what_the_tender_says_nor_a_different_sentence() -> None:
    from app.library.near_copies import near_copies

    mine = ("我方针对本项目组建了专业的运维服务团队，由项目经理统一负责，每月组织一次全面巡检并形成书面报告，"
            "对发现的问题在二十四小时内完成整改并报采购人复核确认后存档备查。")
    theirs = mine.replace("每月", "每周").replace("报告", "记录")
    found = near_copies([((0, 1), "1.2 运维团队", mine)], "前言。" + theirs)
    assert [(n.path, n.where, n.mine, n.theirs) for n in found] == [((0, 1), "1.2 运维团队", mine[:-1], theirs[:-1])]
    assert 0.9 < found[0].ratio < 1
    assert near_copies([((0,), "1", mine)], theirs, tender="采购需求：" + theirs) == []  # both quote the tender
    assert near_copies([((0,), "1", mine)], mine) == []  # identical: reported as a shared sentence instead
    other = "我方将严格按照国家和行业标准开展各项服务工作，确保安全、优质、高效地完成本项目的全部服务内容并接受考核。"
    assert near_copies([((0,), "1", other)], theirs) == []

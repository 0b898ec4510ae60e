"""围标: identical unusual strings (shared typos) in two bidders' files, found without a list of misspellings."""

from __future__ import annotations

from pathlib import Path

from docx import Document

from app.core.outline import Outline, OutlineNode
from app.documents.outlines.bid_reader import read_bid
from app.documents.outlines.sections import iter_sections
from app.library.checks import COMMON_MISSPELLINGS, compare_with_bid, outline_sections
from app.library.store import LibraryStore
from app.library.typos import shared_typos
from tests.library_fixtures import OWN_OUTLINES, make_bid

#: Sentences both bidders write (the usual forms of the planted slips are frequent in both files).
USUAL = ["设备到场后立即组织安装调试，安装调试完成后提交记录。", "运维人员每日巡检机房，巡检结果录入台账。",
         "系统上线前完成联合调试，调试记录由双方签字确认。", "应急队伍定期开展应急演练，演练后总结改进。"]
#: Slips of those sentences, in neither file's usual text nor in COMMON_MISSPELLINGS.
SLIPS = {"装调式": "安装调式", "巡捡": "巡捡机房", "应急演炼": "应急演炼"}


def _text(index: int, extra: list[str]) -> str:
    bid = make_bid(index, OWN_OUTLINES[index % len(OWN_OUTLINES)], paragraphs=4)
    body = [p for _, s in iter_sections(bid.sections) for p in [s.title, *s.paragraphs]]
    return "\n".join([*body[:20], *USUAL, *body[20:], *USUAL, *extra])


def _planted() -> list[str]:
    return [f"{s}。" for s in ("本项目设备安装调式由专人负责", "夜间安排人员巡捡机房并记录", "每季度组织一次应急演炼")]


def test_shared_slips_not_in_any_list_are_found_and_a_clean_pair_gives_nothing() -> None:
    assert not any(s in m or m in s for s in SLIPS for m in COMMON_MISSPELLINGS)
    mine_clean, theirs_clean = _text(0, []), _text(1, [])
    assert shared_typos(mine_clean, theirs_clean) == []
    mine, theirs = _text(0, _planted()), _text(1, _planted())
    found = shared_typos(mine, theirs)
    texts = [f.text for f in found]
    assert len(found) == 3, texts
    for slip in SLIPS:
        assert any(slip in t or t in slip for t in texts), (slip, texts)
    by_slip = {next(s for s in SLIPS if s in f.text or f.text in s): f.usual for f in found}
    assert "试" in by_slip["装调式"] and "检" in by_slip["巡捡"] and "练" in by_slip["应急演炼"]
    # only one file has the slip: nothing shared
    assert shared_typos(mine, theirs_clean) == []


def test_a_slip_the_tender_or_the_library_also_writes_is_not_a_signal(tmp_path: Path) -> None:
    mine, theirs = _text(0, _planted()), _text(1, _planted())
    tender = "投标人须每日巡捡机房。"  # the tender itself writes it: the bidders copied the tender
    texts = [f.text for f in shared_typos(mine, theirs, tender=tender)]
    assert len(texts) == 2 and not any("捡" in t for t in texts)
    store = LibraryStore(tmp_path / "lib.sqlite3")
    try:
        from app.library.bid_import import import_bid

        doc = Document()
        doc.add_heading("应急预案", level=1)
        doc.add_paragraph("每季度组织一次应急演炼，并形成总结报告。")  # an old bid of the library has it too
        doc.add_heading("人员培训", level=1)
        doc.add_paragraph("培训内容包括安全操作规程。")
        path = tmp_path / "old.docx"
        doc.save(str(path))
        assert import_bid(store, path).status == "added"
        texts = [f.text for f in shared_typos(mine, theirs, known=store.contains_text)]
        assert len(texts) == 2 and not any("炼" in t for t in texts)
    finally:
        store.close()


def test_compare_with_bid_reports_shared_slips_with_where_and_usual_form(tmp_path: Path) -> None:
    doc = Document()
    doc.add_heading("实施方案", level=1)
    for line in _text(1, _planted()).splitlines():
        doc.add_paragraph(line)
    path = tmp_path / "other.docx"
    doc.save(str(path))
    mine = Outline([OutlineNode(title="实施方案", content=_text(0, [])),
                    OutlineNode(title="运维服务", content="\n".join(_planted()))])
    typos = [f for f in compare_with_bid(outline_sections(mine), read_bid(path)) if f.kind == "shared_typo"]
    assert len(typos) == 3 and all(f.path == (1,) and "常见写法" in f.detail for f in typos)
    clean = Outline([OutlineNode(title="实施方案", content=_text(0, []))])
    assert [f for f in compare_with_bid(outline_sections(clean), read_bid(path)) if f.kind == "shared_typo"] == []

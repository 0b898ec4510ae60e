"""PDF past bids keep their ruled tables as tables; the table finder runs only on pages with a grid."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from app.documents.outlines.bid_reader import read_bid
from app.documents.outlines.pdf_items import TableBudget, has_ruled_grid, page_items
from app.library.bid_import import import_bid
from app.library.store import LibraryStore
from tests.library_fixtures import OWN_OUTLINES, draw_pdf_table, make_bid, staff_rows, write_pdf


def _all_sections(bid_path: Path) -> list[tuple[str, list[str], list[list[list[str]]]]]:
    doc = read_bid(bid_path)
    out = []
    for root in doc.sections:
        for _, s in root.walk():
            out.append((s.title, s.paragraphs, s.tables))
    return out


@pytest.mark.parametrize("bookmarks", [True, False])
def test_a_ruled_table_in_a_pdf_bid_stays_a_table_and_is_not_also_prose(tmp_path: Path, bookmarks: bool) -> None:
    bid = make_bid(2, OWN_OUTLINES[0])
    path = write_pdf(bid, tmp_path / "past.pdf", bookmarks=bookmarks, table=True)
    sections = _all_sections(path)
    with_tables = [(t, paras, tabs) for t, paras, tabs in sections if tabs]
    assert len(with_tables) == 1
    title, paras, tables = with_tables[0]
    assert title == bid.sections[0].title  # the table sits under the chapter it was drawn in
    assert tables == [staff_rows(bid)]
    prose = "\n".join(p for _, ps, _ in sections for p in ps)
    for cell in ("一级建造师", "高级工程师", "技术负责人", staff_rows(bid)[2][0]):
        assert cell not in prose  # cell text is read once, as the table
    assert paras  # the chapter keeps its own prose


def test_a_pdf_bid_without_tables_has_none_and_no_page_is_searched(tmp_path: Path) -> None:
    bid = make_bid(3, OWN_OUTLINES[1])
    path = write_pdf(bid, tmp_path / "plain.pdf", table=False)
    assert all(not tabs for _, _, tabs in _all_sections(path))
    budget = TableBudget()
    with pymupdf.open(str(path)) as doc:
        for page in doc:
            page_items(page, budget)
    assert budget.searched == 0 and budget.tables == 0


def test_only_a_page_with_a_grid_passes_the_prefilter(tmp_path: Path) -> None:
    doc = pymupdf.open()
    plain = doc.new_page()
    plain.insert_text((50, 60), "本页只有文字，没有表格。", fontname="china-s", fontsize=10.5)
    plain.draw_line((50, 800), (545, 800))  # a footer rule alone is not a table
    framed = doc.new_page()
    framed.draw_rect(pymupdf.Rect(40, 40, 555, 800))  # a page frame: two rules each way
    framed.insert_text((50, 60), "带边框的页面。", fontname="china-s", fontsize=10.5)
    ruled = doc.new_page()
    ruled.insert_text((50, 60), "人员配置如下表：", fontname="china-s", fontsize=10.5)
    draw_pdf_table(ruled, 80, [["姓名", "岗位"], ["王某某", "项目经理"], ["李某某", "安全员"]])
    assert [has_ruled_grid(p) for p in doc] == [False, False, True]
    budget = TableBudget()
    items = page_items(doc[2], budget)
    assert items == [("p", "人员配置如下表："), ("t", [["姓名", "岗位"], ["王某某", "项目经理"], ["李某某", "安全员"]])]
    assert budget.searched == 1 and budget.tables == 1
    doc.close()


def test_an_imported_pdf_bid_stores_its_table(tmp_path: Path) -> None:
    bid = make_bid(4, OWN_OUTLINES[0])
    path = write_pdf(bid, tmp_path / "past.pdf", table=True)
    store = LibraryStore(tmp_path / "lib.sqlite3")
    try:
        outcome = import_bid(store, path)
        assert outcome.status == "added" and outcome.bid_id is not None
        stored = [s.tables for s in store.sections_of(outcome.bid_id) if s.tables]
        assert stored == [[staff_rows(bid)]]
    finally:
        store.close()


def test_letters_drawn_as_filled_shapes_are_not_a_grid() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    for row in range(4):  # a block of "口"-like glyph outlines: filled polygons, no strokes
        for col in range(6):
            x, y = 60 + col * 14, 80 + row * 14
            page.draw_polyline([(x, y), (x + 10, y), (x + 10, y + 10), (x, y + 10), (x, y)], color=None, fill=(0, 0, 0))
    assert not has_ruled_grid(page)
    draw_pdf_table(page, 200, [["姓名", "岗位"], ["王某某", "项目经理"]])  # a real ruled table on the same page
    assert has_ruled_grid(page)
    doc.close()


def test_a_table_opening_a_bookmarked_page_whose_title_is_not_printed_is_kept(tmp_path: Path) -> None:
    doc = pymupdf.open()
    first = doc.new_page()
    first.insert_text((50, 60), "第一章 项目理解", fontname="china-s", fontsize=13)
    first.insert_text((50, 90), "我方对本项目的理解如下。", fontname="china-s", fontsize=10.5)
    annex = doc.new_page()  # the bookmark's title is not printed on its page: the page opens with the table
    rows = [["姓名", "岗位"], ["王某某", "项目经理"], ["李某某", "安全员"]]
    draw_pdf_table(annex, 40, rows)
    annex.insert_text((50, 150), "以上人员均为本单位在职人员。", fontname="china-s", fontsize=10.5)
    doc.set_toc([[1, "第一章 项目理解", 1], [1, "附表 人员名单", 2]])
    path = tmp_path / "annex.pdf"
    doc.save(str(path))
    doc.close()
    sections = _all_sections(path)
    assert [t for t, _, _ in sections] == ["项目理解", "附表 人员名单"]
    assert sections[1][2] == [rows] and sections[1][1] == ["以上人员均为本单位在职人员。"]

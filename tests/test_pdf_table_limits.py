"""Table search in PDFs is bounded (pages, lines per page, rows per table, time) and says what it left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.documents import pdf_tables
from app.documents.loader import load_tender
from app.documents.model import DiagnosticCode
from tests.document_fixtures import composer


def _pdf(path: Path, pages: int = 3, rows: int = 8) -> Path:
    c = composer()
    for p in range(pages):
        if p:
            c.new_page()
        c.heading(f"评分表{p + 1}")
        body = [["序号", "评分因素", "评分标准", "分值"]]
        body += [[str(i + 1), f"因素{p}-{i}", "按方案完整程度评分。", "2"] for i in range(rows)]
        c.table([40, 90, 280, 50], body)
    c.save(path)
    return path


def _limited(path: Path) -> list[tuple[str, list[int]]]:
    doc = load_tender(path)
    return [(d.message_zh, d.pages) for d in doc.diagnostics if d.code == DiagnosticCode.TABLES_LIMITED]


def test_unbounded_file_reports_nothing(tmp_path: Path) -> None:
    path = _pdf(tmp_path / "ok.pdf")
    assert _limited(path) == []
    assert len(load_tender(path).tables) == 3


def test_rows_beyond_the_cap_are_cut_and_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_tables, "MAX_ROWS_PER_TABLE", 4)
    path = _pdf(tmp_path / "rows.pdf", pages=1, rows=10)
    doc = load_tender(path)
    assert [len(t.rows) for t in doc.tables] == [4]
    (message, pages), = _limited(path)
    assert pages == [1] and "只读取了" in message


def test_pages_beyond_the_cap_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_tables, "MAX_TABLE_PAGES", 1)
    path = _pdf(tmp_path / "pages.pdf", pages=3)
    doc = load_tender(path)
    assert len(doc.tables) == 1
    (message, pages), = _limited(path)
    assert pages == [2, 3] and "第2–3页的表格没有读取" in message


def test_pages_with_too_many_lines_are_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_tables, "MAX_PAGE_LINES", 5)
    path = _pdf(tmp_path / "lines.pdf", pages=2)
    assert load_tender(path).tables == []
    (_message, pages), = _limited(path)
    assert pages == [1, 2]


def test_time_budget_stops_the_search(tmp_path: Path) -> None:
    import pymupdf

    path = _pdf(tmp_path / "time.pdf", pages=2)
    doc = load_tender(path)
    with pymupdf.open(str(path)) as pdf:
        scan = pdf_tables.extract_scoring_candidate_tables(pdf, doc.pages, time_budget_s=0.0)
    assert scan.tables == [] and scan.skipped_pages == [1, 2]


def _long_table_pdf(path: Path, rows: int) -> tuple[Path, int]:
    """One scoring table of ``rows`` items flowing over many pages (only the first says 评分)."""
    c = composer()
    c.heading("技术评分表")
    body = [["序号", "评分因素", "评分标准", "分值"]]
    body += [[str(i + 1), f"方案要点{i + 1}", "内容完整、措施具体。", "1"] for i in range(rows)]
    first, last = c.table([40, 90, 280, 50], body)
    c.save(path)
    return path, last - first + 1


def test_a_ten_page_table_is_read_to_its_end(tmp_path: Path) -> None:
    path, pages = _long_table_pdf(tmp_path / "long.pdf", 500)
    assert pages >= 10
    doc = load_tender(path)
    assert sum(len(t.rows) for t in doc.tables) == 501  # the header and every item
    assert _limited(path) == []


def test_a_join_stopped_by_a_limit_says_where_and_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_tables, "MAX_FOLLOW_PAGES", 2)
    path, pages = _long_table_pdf(tmp_path / "long.pdf", 300)
    assert pages > 3
    (message, where), = _limited(path)
    assert where == [3] and "从第1页开始的表格到第3页底仍未结束" in message and "最多连读 3 页" in message
    assert "第4页起的部分没有读取" in message


def test_a_table_that_gives_way_to_another_is_not_followed(tmp_path: Path) -> None:
    """A table running to the page foot, then another table with other columns on the next page (an
    equipment list over many pages): the next table is read on its own page, not followed further."""
    c = composer()
    c.heading("技术评分表")
    body = [["序号", "评分因素", "评分标准", "分值"]]
    body += [[str(i + 1), f"方案要点{i + 1}", "内容完整、措施具体。", "1"] for i in range(40)]
    c.table([40, 90, 280, 50], body)
    c.new_page()
    listing = [["名称", "规格", "数量"]] + [[f"设备{i}", "标准型", "2"] for i in range(120)]
    first, last = c.table([200, 200, 60], listing)
    c.save(tmp_path / "two.pdf")
    doc = load_tender(tmp_path / "two.pdf")
    assert last - first >= 2
    assert max(t.page for t in doc.tables) == first  # the list's first page is read, the rest is not followed


def test_open_sides_close_a_table_without_side_rules_only() -> None:
    """Rules across three rows from x=60 to 540 with inner verticals at 110 and 480 only: both sides
    are closed. Two tables of the same width stacked with a gap, each with its own side rules: nothing
    is added (the gap between them is not joined)."""
    from app.documents.pdf_tables import open_sides

    rows = [(60.0, y, 540.0, y) for y in (100.0, 150.0, 300.0)]
    inner = [(110.0, 100.0, 110.0, 300.0), (480.0, 100.0, 480.0, 300.0)]
    added = sorted((round(a[0]), round(a[1]), round(b[1])) for a, b in open_sides(rows + inner))
    assert added == [(60, 100, 300), (540, 100, 300)]

    def table(top: float, bottom: float) -> list[tuple[float, float, float, float]]:
        mid = (top + bottom) / 2
        return [(60.0, top, 540.0, top), (60.0, mid, 540.0, mid), (60.0, bottom, 540.0, bottom),
                *[(x, top, x, bottom) for x in (60.0, 200.0, 540.0)]]

    assert open_sides(table(100.0, 300.0) + table(400.0, 600.0)) == []

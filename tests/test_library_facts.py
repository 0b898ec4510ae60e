"""Company facts (企业资料): .xlsx import by column names, expiry flags, tables for drafting, 查重 of expired certificates."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from app.core.outline import Outline, OutlineNode
from app.library.checks import expired_certificates_used, outline_sections
from app.library.facts import (
    Fact,
    expired_certificates,
    load_facts,
    read_facts_xlsx,
    save_facts,
    table_for_heading,
)
from app.library.store import LibraryStore


def _workbook(path: Path) -> Path:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "资质"
    ws.append(["企业资质一览"])  # a title row above the header
    ws.append(["序号", "证书名称", "证书编号", "有效期至"])
    ws.append([1, "安全生产许可证", "(苏)JZ安许证字[2019]001234", dt.datetime(2020, 5, 31)])
    ws.append([2, "质量管理体系认证证书", "00121Q34567R1M", "2099-12-31"])
    staff = wb.create_sheet("人员")
    staff.append(["姓名", "拟任岗位", "证书", "工作年限"])
    staff.append(["王建国", "项目经理", "一级建造师", 15])
    staff.append(["李明华", "技术负责人", "高级工程师", 12.0])
    refs = wb.create_sheet("业绩")
    refs.append(["项目名称", "采购人", "合同金额（万元）", "签订日期"])
    refs.append(["东湖市政务服务中心运维项目", "东湖市人民政府办公室", 320, "2022年3月1日"])
    wb.create_sheet("说明").append(["这里是说明文字"])
    wb.save(str(path))
    return path


@pytest.fixture
def store(tmp_path: Path) -> LibraryStore:
    s = LibraryStore(tmp_path / "lib.sqlite3")
    yield s  # type: ignore[misc]
    s.close()


def test_xlsx_sheets_are_recognised_by_their_columns(store: LibraryStore, tmp_path: Path) -> None:
    got = read_facts_xlsx(_workbook(tmp_path / "企业资料.xlsx"))
    assert got.skipped == ["说明"]
    by_kind = {k: [f.data for f in got.facts if f.kind == k] for k in ("certificate", "staff", "reference")}
    assert by_kind["certificate"][0] == {"name": "安全生产许可证", "number": "(苏)JZ安许证字[2019]001234",
                                         "valid_until": "2020-05-31"}
    assert by_kind["staff"][1] == {"name": "李明华", "role": "技术负责人", "certificates": "高级工程师", "years": "12"}
    assert by_kind["reference"][0]["amount"] == "320" and by_kind["reference"][0]["client"] == "东湖市人民政府办公室"
    assert save_facts(store, got.facts) == 5 and save_facts(store, got.facts) == 0  # the same rows are not added twice
    assert [f.data["name"] for f in expired_certificates(store, dt.date(2026, 1, 1))] == ["安全生产许可证"]
    assert not Fact("certificate", {"valid_until": "2099-12-31"}).expired()


def test_bad_xlsx_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.xlsx"
    bad.write_bytes(b"not a workbook")
    with pytest.raises(ValueError, match="无法打开 Excel 文件"):
        read_facts_xlsx(bad)


def test_staff_and_reference_tables_for_drafting(store: LibraryStore, tmp_path: Path) -> None:
    assert table_for_heading("人员配置", store) is None  # nothing stored yet: nothing invented
    save_facts(store, read_facts_xlsx(_workbook(tmp_path / "a.xlsx")).facts)
    label, table = table_for_heading("项目人员配置表", store)  # type: ignore[misc]
    assert label == "人员配置表" and table.splitlines()[0] == "| 姓名 | 岗位 | 证书 | 工作年限 |"
    assert "| 王建国 | 项目经理 | 一级建造师 | 15 |" in table
    label, table = table_for_heading("类似项目业绩", store)  # type: ignore[misc]
    assert label == "业绩表" and "东湖市政务服务中心运维项目" in table
    assert table_for_heading("质量保证措施", store) is None


def test_expired_certificate_in_the_bid_is_flagged(store: LibraryStore, tmp_path: Path) -> None:
    save_facts(store, read_facts_xlsx(_workbook(tmp_path / "a.xlsx")).facts)
    bid = Outline([OutlineNode(title="资质", content="我公司持有安全生产许可证，编号(苏)JZ安许证字[2019]001234。"),
                   OutlineNode(title="质量", content="我公司通过质量管理体系认证证书。")])
    found = expired_certificates_used(outline_sections(bid), store)
    assert [(f.path, f.label) for f in found] == [((0,), "证书已过有效期")]
    assert load_facts(store, "equipment") == []


def test_company_staff_named_in_a_past_bid_is_not_a_stale_name(store: LibraryStore, tmp_path: Path) -> None:
    from app.library.bid_import import import_bid
    from app.library.checks import stale_names
    from tests.library_fixtures import make_bid, write_docx

    past = make_bid(0)  # its project manager is 王建国, who is also on the company's staff sheet
    import_bid(store, write_docx(past, tmp_path / "p.docx"))
    bid = Outline([OutlineNode(title="人员", content=f"项目经理由{past.manager}担任。")])
    assert [f.text for f in stale_names(outline_sections(bid), store)] == [past.manager]
    save_facts(store, read_facts_xlsx(_workbook(tmp_path / "a.xlsx")).facts)
    assert stale_names(outline_sections(bid), store) == []


def test_a_sheet_past_the_row_limit_is_cut_and_the_count_it_declares_is_said(tmp_path: Path) -> None:
    """Issue 37 §3.5: the rows are read as a stream up to the limit; a sheet stating its size is named with it."""
    from openpyxl import Workbook

    from app.library.xlsx_rows import MAX_SHEET_ROWS

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "业绩"
    ws.append(["项目名称", "采购人", "合同金额", "签订日期"])
    for i in range(MAX_SHEET_ROWS + 200):
        ws.append([f"运维项目{i}", "某某局", 100, "2024-01-01"])
    path = tmp_path / "业绩.xlsx"
    wb.save(str(path))  # the normal writer states <dimension ref="A1:D5201"/>
    got = read_facts_xlsx(path)
    assert len(got.facts) == MAX_SHEET_ROWS - 1
    assert got.notes == [f"工作表“业绩”共 {MAX_SHEET_ROWS + 201:,} 行，只读取了前 {MAX_SHEET_ROWS:,} 行（每个工作表的上限），"
                         "其余未导入；请把表格拆分后分批导入"]


def test_a_workbook_bomb_is_refused_before_it_is_read(tmp_path: Path) -> None:
    from tests.hostile_files import docx_bomb

    bomb = docx_bomb(tmp_path / "企业资料.xlsx", inflated_mb=200)  # a zip whose one part inflates past the limits
    with pytest.raises(ValueError, match="解压后过大"):
        read_facts_xlsx(bomb)

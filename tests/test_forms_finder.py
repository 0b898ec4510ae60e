"""Reading a tender's format chapter into its forms and blanks (generated DOCX and PDF tenders)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.bid_forms import FormTable
from app.documents.forms.blanks import paragraph_blanks, table_blanks
from app.documents.forms.finder import find_forms
from app.documents.forms.titles import parse_title
from tests.forms_tenders import FORMS, docx_tender, pdf_tender


@pytest.fixture(scope="module")
def docx_reading(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return find_forms(docx_tender(tmp_path_factory.mktemp("forms") / "tender.docx"))


def test_docx_forms_in_the_tenders_order_without_its_list_or_the_instructions(docx_reading) -> None:  # type: ignore[no-untyped-def]
    assert docx_reading.chapter_title == "第二章投标文件格式"
    assert [f.name for f in docx_reading.forms] == FORMS
    kinds = [f.kind for f in docx_reading.forms]
    assert kinds[:5] == ["bid_letter", "price_summary", "legal_rep", "authorization", "references"]
    assert docx_reading.forms[0].page > 1 and len({f.key for f in docx_reading.forms}) == len(FORMS)


def test_conditional_self_drafted_and_copies_are_read(docx_reading) -> None:  # type: ignore[no-untyped-def]
    by_name = {f.name: f for f in docx_reading.forms}
    assert by_name["联合体协议书"].requirement == "conditional" and by_name["联合体协议书"].condition == "如有"
    assert by_name["服务方案"].self_drafted
    assert "营业执照副本复印件" in by_name["营业执照副本复印件"].copies
    assert "法定代表人身份证复印件" in by_name["法定代表人身份证明"].copies
    assert all(f.requirement == "required" for f in docx_reading.forms if f.name != "联合体协议书")


def test_docx_blanks_say_what_they_ask(docx_reading) -> None:  # type: ignore[no-untyped-def]
    letter = docx_reading.forms[0]
    fields = [b.field for b in letter.blanks]
    assert fields[:2] == ["buyer", "project_name"]  # （采购人名称）, then underlined spaces before （项目名称…）
    assert {"bidder_name", "price_words", "price", "period", "address", "phone", "fax", "signature", "date"} <= set(fields)
    underlined = next(b for b in letter.blanks if b.field == "project_name")
    assert underlined.placeholder.strip() == "" and len(underlined.placeholder) >= 10  # a run of underlined spaces
    table = docx_reading.forms[1]
    cells = [(b.row, b.col, b.field) for b in table.blanks if b.kind == "cell"]
    assert cells == [(1, 0, "bidder_name"), (1, 1, "price"), (1, 2, "period")]
    person = docx_reading.forms[3]
    assert [b.field for b in person.blanks][:3] == ["legal_rep", "bidder_name", "authorized_rep"]


def test_a_tender_without_a_format_chapter_says_so(tmp_path: Path) -> None:
    reading = find_forms(docx_tender(tmp_path / "none.docx", with_chapter=False))
    assert reading.forms == [] and "没有找到" in reading.message


def test_pdf_forms_blanks_and_ruled_table(tmp_path: Path) -> None:
    reading = find_forms(pdf_tender(tmp_path / "tender.pdf"))
    assert [f.name for f in reading.forms] == ["投标函", "开标一览表", "法定代表人身份证明"]
    letter, table, person = reading.forms
    assert [b.field for b in letter.blanks][:3] == ["buyer", "project_name", "project_number"]
    assert {"price_words", "price", "date"} <= {b.field for b in letter.blanks}
    assert any(isinstance(it, FormTable) for it in table.items)  # the ruled table is a table again
    assert [b.field for b in table.blanks if b.kind == "cell"] == ["bidder_name", "price", "period"]
    assert [b.field for b in person.blanks] == ["bidder_name", "legal_rep", "legal_rep_gender", "legal_rep_title"]


@pytest.mark.parametrize(("line", "name"), [
    ("格式6.投标函", "投标函"), ("附件2  开标一览表；", None), ("附件2  开标一览表", "开标一览表"),
    ("三、法定代表人身份证明书", "法定代表人身份证明书"), ("2-1-1 中小企业证明文件", "中小企业证明文件"),
    ("中小企业声明函（货物）格式（不适用）", "中小企业声明函（货物）"), ("投标书（实质性格式）", "投标书"),
    ("9、《联合响应协议书》格式（如需）", "联合响应协议书"), ("项目名称：某项目", None), ("特此证明", None),
    ("1. 投标人应按照招标文件要求提供资料。", None), ("日期：____年____月____日", None), ("2025年  月  日", None),
    ("附件2：政府采购供应商质疑函范本", None),
])
def test_title_lines(line: str, name: str | None) -> None:
    title = parse_title(line)
    assert (title.name if title is not None and not title.weak else None) == name  # a group candidate too: the
    # chapter's structure decides (hierarchy.keep_forms)


@pytest.mark.parametrize(("text", "expected"), [
    ("致：（采购人名称）", [("bracket", "buyer")]),
    ("本人________（姓名）系________（投标人名称）的法定代表人。", [("underline", "legal_rep"), ("underline", "bidder_name")]),
    ("现委托________（姓名）为我方代理人。", [("underline", "authorized_rep")]),
    ("地    址：", [("colon", "address")]),
    ("供应商名称(盖章)：                 ", [("colon", "bidder_name")]),
    ("法定代表人(签字或盖章)：           ", [("colon", "signature")]),
    ("投标有效期为自开标之日起______个日历日。", [("underline", "validity")]),
    ("日期：    年   月   日", [("date", "date")]),
    ("法定代表人（单位负责人）身份证明", []),
    ("注：本表由投标人填写。", []),
    ("以上事项具体情况如下：", []),
])
def test_paragraph_blanks(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(b.kind, b.field) for b in paragraph_blanks(text)] == expected


def test_table_blanks_use_row_labels_in_two_column_tables_and_headers_in_lists() -> None:
    kv = table_blanks([["投标人名称", ""], ["投标总价（元）", ""]])
    assert [(b.row, b.col, b.field) for b in kv] == [(0, 1, "bidder_name"), (1, 1, "price")]
    listing = table_blanks([["序号", "姓名", "职务"], ["1", "", ""]])
    assert [(b.col, b.label) for b in listing] == [(1, "姓名"), (2, "职务")]

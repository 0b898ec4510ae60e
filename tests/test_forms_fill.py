"""Filling the forms: sources, the price typed once and copied, 大写 by code, signatures left, lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.bid_forms import BidFormsState, FilledBlank, blank_key
from app.documents.forms.fill import FillInput, fill_forms
from app.documents.forms.finder import find_forms
from app.library.forms_facts import company_values_from, list_rows_from
from tests.forms_fixtures import COMPANY, sample_facts
from tests.forms_tenders import docx_tender


@pytest.fixture(scope="module")
def reading(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return find_forms(docx_tender(tmp_path_factory.mktemp("fill") / "tender.docx"))


def _input(state: BidFormsState | None = None) -> FillInput:
    facts = sample_facts()
    tender = {"project_name": FilledBlank(value="某市图书馆物业管理服务项目", source="tender", source_label="招标分析"),
              "buyer": FilledBlank(value="某市图书馆", source="tender", source_label="招标分析", confirmed=False,
                                   note="只在第1页读到，请核对")}
    return FillInput(tender=tender, company=company_values_from(facts), lists=list_rows_from(facts),
                     state=state or BidFormsState())


def _values(reading, fill, form_name: str) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    form = next(f for f in reading.forms if f.name == form_name)
    return [(b.field, fill.value(form, b).value, fill.value(form, b).source) for b in form.blanks]


def test_each_value_is_marked_by_its_source(reading) -> None:  # type: ignore[no-untyped-def]
    fill = fill_forms(reading, _input())
    letter = dict((f, (v, s)) for f, v, s in _values(reading, fill, "投标函"))
    assert letter["buyer"] == ("某市图书馆", "tender")
    assert letter["project_name"] == ("某市图书馆物业管理服务项目", "tender")
    assert letter["bidder_name"] == (COMPANY["name"], "company")
    assert letter["address"] == (COMPANY["address"], "company")
    assert letter["signature"] == ("", "none")  # the pen's place
    assert letter["price"] == ("", "none") and letter["date"] == ("", "none")  # never invented
    buyer = next(v for k, v in fill.values.items() if v.value == "某市图书馆")
    assert not buyer.confirmed and "核对" in buyer.note  # the tender's 待确认 travels with the value


def test_price_typed_once_is_copied_and_written_in_capitals(reading) -> None:  # type: ignore[no-untyped-def]
    state = BidFormsState(values={"price": "1,286,500", "date": "2026-06-30", "period": "三年"})
    fill = fill_forms(reading, _input(state))
    letter = _values(reading, fill, "投标函")
    words = next(v for f, v, _s in letter if f == "price_words")
    figure = next(v for f, v, _s in letter if f == "price")
    assert words == "壹佰贰拾捌万陆仟伍佰"  # the form prints 元 after the blank itself
    assert figure == "1,286,500.00"
    assert ("date", "2026年6月30日", "user") in letter and ("period", "三年", "user") in letter
    table = _values(reading, fill, "开标一览表")
    assert ("price", "1,286,500.00", "user") in table  # the same figure in the 开标一览表


def test_a_value_typed_for_one_blank_wins(reading) -> None:  # type: ignore[no-untyped-def]
    form = reading.forms[0]
    first = form.blanks[0]
    state = BidFormsState(blank_values={blank_key(form, first): "某市图书馆采购办公室"})
    fill = fill_forms(reading, _input(state))
    assert fill.value(form, first) == FilledBlank(value="某市图书馆采购办公室", source="user", source_label="用户填写")


def test_list_tables_take_rows_of_facts(reading) -> None:  # type: ignore[no-untyped-def]
    fill = fill_forms(reading, _input())
    form = next(f for f in reading.forms if f.name == "类似项目业绩表")
    rows: dict[int, list[str]] = {}
    for b in form.blanks:
        rows.setdefault(b.row, []).append(fill.value(form, b).value)
    assert rows[1] == ["西湖区行政中心物业服务项目", "杭州市西湖区机关事务服务中心", "286万元", "2024-03-01"]
    assert rows[2][0] == "滨江区人民医院保洁服务项目"
    assert rows[3] == ["", "", "", ""]  # two references, three rows: the third stays empty
    assert all(fill.value(form, b).source_label == "企业资料 › 业绩" for b in form.blanks if b.row < 3)


def test_empty_blanks_are_listed_with_what_they_ask(reading) -> None:  # type: ignore[no-untyped-def]
    facts = [f for f in sample_facts() if f.kind != "company"]  # no 企业基本信息 sheet
    fill = fill_forms(reading, FillInput(company=company_values_from(facts), lists=list_rows_from(facts)))
    asked = {label for _form, _key, label in fill.unfilled}
    assert {"地址", "传真"} <= asked
    assert not any(label == "签字" for _f, _k, label in fill.unfilled)  # signatures are not "missing"


def test_expired_certificates_do_not_fill_lists(tmp_path: Path) -> None:
    rows = list_rows_from(sample_facts())
    certs = next(r for r in rows if r.kind == "certificate")
    assert "安全生产许可证" not in [r["name"] for r in certs.rows]  # valid until 2024-12-31

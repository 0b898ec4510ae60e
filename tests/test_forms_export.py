"""The 商务 volume: forms copied (DOCX) or rebuilt (PDF) in the tender's order, blanks filled underlined,
empty ones kept visibly, certificates where a copy is asked for, the office template, one file with the
technical part."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from app.core.bid_forms import BidFormsState, FilledBlank, blank_key
from app.documents.forms.fill import FillInput, fill_forms
from app.documents.forms.finder import find_forms
from app.export.forms.copies import CertificateCopy
from app.export.forms.runs import replace_span
from app.export.forms.volume import FormsVolumeOptions, export_forms_volume
from app.export.options import ExportError
from app.library.forms_facts import company_values_from, list_rows_from
from tests.forms_fixtures import COMPANY, sample_facts
from tests.forms_tenders import FORMS, docx_tender, pdf_tender

TENDER = {"project_name": FilledBlank(value="某市图书馆物业管理服务项目", source="tender"),
          "buyer": FilledBlank(value="某市图书馆", source="tender")}


def _certs(facts):  # type: ignore[no-untyped-def]
    return [CertificateCopy(f.data["name"], f.data.get("number", ""), f.data.get("valid_until", ""),
                            f.data.get("file", ""), f.expired()) for f in facts if f.kind == "certificate"]


def _volume(src: Path, out: Path, **options):  # type: ignore[no-untyped-def]
    facts = sample_facts(out.parent / "files")
    reading = find_forms(src)
    fill = fill_forms(reading, FillInput(tender=TENDER, company=company_values_from(facts), lists=list_rows_from(facts),
                                         state=BidFormsState(values={"price": "1286500", "date": "2026-06-30"})))
    opts = FormsVolumeOptions(project_name="某市图书馆物业管理服务项目", bidder_name=COMPANY["name"], layout_pass=False,
                              **options)
    report = export_forms_volume(reading, fill.values, out, certificates=_certs(facts), options=opts)
    return reading, fill, report, docx.Document(str(report.path))


def _underlined(doc) -> list[str]:  # type: ignore[no-untyped-def]
    runs = [r for p in doc.paragraphs for r in p.runs]
    runs += [r for t in doc.tables for row in t.rows for c in row.cells for p in c.paragraphs for r in p.runs]
    return [r.text for r in runs if r.underline]


def test_docx_forms_are_copied_in_order_with_their_blanks_filled(tmp_path: Path) -> None:
    _reading, _fill, report, doc = _volume(docx_tender(tmp_path / "t.docx"), tmp_path / "商务.docx")
    headings = [p.text for p in doc.paragraphs if p.style.name == "Heading 1"]
    assert len(headings) == len(FORMS) and all(name in h for name, h in zip(FORMS, headings, strict=True))
    text = "\n".join(p.text for p in doc.paragraphs)
    assert "根据贵方某市图书馆物业管理服务项目（项目名称、项目编号）的招标文件" in text  # the tender's words kept around it
    assert "致：某市图书馆" in text and f"地址：{COMPANY['address']}" in text
    underlined = _underlined(doc)
    assert {"某市图书馆物业管理服务项目", COMPANY["name"], "壹佰贰拾捌万陆仟伍佰", "1,286,500.00", "2026年6月30日"} <= set(underlined)
    assert "西湖区行政中心物业服务项目" in underlined  # the 业绩 list table's first row
    assert report.forms == len(FORMS) and report.filled > 20 and report.copies == 1
    assert "法定代表人或授权代表（签字）：" in text  # the signature place is left for the pen
    assert len(doc.inline_shapes) == 1  # the 营业执照 image where its copy is asked for


def test_a_blank_nobody_fills_keeps_the_tenders_placeholder(tmp_path: Path) -> None:
    _reading, _fill, report, doc = _volume(docx_tender(tmp_path / "t.docx"), tmp_path / "商务.docx")
    text = "\n".join(p.text for p in doc.paragraphs)
    assert "服务期：________。" in text  # the user typed no period
    assert report.empty > 0 and any("无人填写" in n for n in report.notes)


def test_not_applicable_forms_are_left_out(tmp_path: Path) -> None:
    src = docx_tender(tmp_path / "t.docx")
    key = next(f.key for f in find_forms(src).forms if f.name == "联合体协议书")
    _r, _f, report, doc = _volume(src, tmp_path / "商务.docx", left_out=frozenset({key}))
    assert report.forms == len(FORMS) - 1
    assert not any("联合体协议书" in p.text for p in doc.paragraphs if p.style.name == "Heading 1")


def test_pdf_forms_are_rebuilt_with_ruled_tables(tmp_path: Path) -> None:
    _reading, _fill, _report, doc = _volume(pdf_tender(tmp_path / "t.pdf"), tmp_path / "商务.docx")
    assert [p.text for p in doc.paragraphs if p.style.name == "Heading 1"] == ["1、投标函", "2、开标一览表", "3、法定代表人身份证明"]
    table = doc.tables[0]
    assert [c.text for c in table.rows[0].cells] == ["投标人名称", "投标总价（元）", "服务期"]
    assert table.rows[1].cells[0].text == COMPANY["name"] and table.rows[1].cells[1].text == "1,286,500.00"
    assert table._tbl.tblPr.find("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}tblBorders") is not None
    assert "壹佰贰拾捌万陆仟伍佰" in _underlined(doc)


def test_expired_certificates_are_not_inserted_and_said(tmp_path: Path) -> None:
    src = docx_tender(tmp_path / "t.docx")
    facts = sample_facts(tmp_path / "files")
    certs = [c if c.name != "营业执照" else CertificateCopy(c.name, c.number, "2020-01-01", c.file, True) for c in _certs(facts)]
    reading = find_forms(src)
    report = export_forms_volume(reading, {}, tmp_path / "v.docx", certificates=certs,
                                 options=FormsVolumeOptions(layout_pass=False))
    assert report.copies == 0 and any("已过有效期" in n for n in report.notes)


def test_office_template_gives_the_styles(tmp_path: Path) -> None:
    template = docx.Document()
    template.styles["Heading 1"].font.size = docx.shared.Pt(22)
    template.add_paragraph("{项目名称}")
    template.add_paragraph("{投标人}")
    template.save(str(tmp_path / "office.docx"))
    _r, _f, _rep, doc = _volume(docx_tender(tmp_path / "t.docx"), tmp_path / "商务.docx",
                                template=str(tmp_path / "office.docx"))
    assert doc.paragraphs[0].text == "某市图书馆物业管理服务项目" and doc.paragraphs[1].text == COMPANY["name"]
    assert doc.styles["Heading 1"].font.size == docx.shared.Pt(22)


def test_no_forms_is_a_clear_error(tmp_path: Path) -> None:
    reading = find_forms(docx_tender(tmp_path / "t.docx", with_chapter=False))
    with pytest.raises(ExportError) as info:
        export_forms_volume(reading, {}, tmp_path / "v.docx", options=FormsVolumeOptions(layout_pass=False))
    assert "没有可导出" in info.value.message_zh


def test_replace_span_keeps_the_runs_around_it() -> None:
    d = docx.Document()
    p = d.add_paragraph()
    p.add_run("根据贵方")
    blank = p.add_run("          ")
    blank.underline = True
    tail = p.add_run("（项目名称）的招标文件")
    tail.bold = True
    replace_span(p._p, 4, 14, "某项目")
    assert p.text == "根据贵方某项目（项目名称）的招标文件"
    assert [r.text for r in p.runs] == ["根据贵方", "某项目", "（项目名称）的招标文件"]
    assert p.runs[1].underline and p.runs[2].bold
    replace_span(p._p, 2, 2, "X")  # an empty span inserts
    assert p.text == "根据X贵方某项目（项目名称）的招标文件"


def test_values_key_by_form_and_blank(tmp_path: Path) -> None:
    reading = find_forms(docx_tender(tmp_path / "t.docx"))
    form = reading.forms[0]
    key = blank_key(form, form.blanks[0])
    report = export_forms_volume(reading, {key: FilledBlank(value="甲采购单位", source="user")}, tmp_path / "v.docx",
                                 options=FormsVolumeOptions(layout_pass=False))
    text = "\n".join(p.text for p in docx.Document(str(report.path)).paragraphs)
    assert "致：甲采购单位" in text and report.filled == 1

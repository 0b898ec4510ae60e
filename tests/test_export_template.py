"""Export into an office's own Word template: its styles, page setup, header and cover are kept."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import docx
import pymupdf
import pytest
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml.ns import qn
from docx.shared import Cm, Pt, RGBColor

from app.export import ExportError, ExportOptions, export_bid
from app.export.template import load_template
from tests.export_sample import PROJECT, sample_chapters, sample_meta
from tests.figure_samples import org_figure

HEADER = "华远工程咨询有限公司 技术标（内部模板）"


def make_template(path: Path, heading_names: tuple[str, ...] = ("Heading 1", "Heading 2", "Heading 3"),
                  cover: bool = True) -> Path:
    """An office template: custom margins, a header, 正文 and heading looks, and a cover with placeholders."""
    doc = docx.Document()
    section = doc.sections[0]
    section.left_margin, section.right_margin, section.top_margin = Cm(3.5), Cm(2.2), Cm(3.0)
    section.header.paragraphs[0].text = HEADER
    doc.styles["Normal"].font.size = Pt(13)
    for level, name in enumerate(heading_names, start=1):
        try:
            style = doc.styles[name]
        except KeyError:
            style = doc.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
        style.font.size = Pt(20 - 2 * level)
        style.font.color.rgb = RGBColor(0x1F, 0x4E, 0x79)
    if cover:
        doc.add_paragraph("{项目名称}")
        doc.add_paragraph("投标人：【投标人】")
        doc.add_paragraph("日期：{日期}")
    doc.save(str(path))
    return path


def as_dotx(docx_path: Path, target: Path) -> Path:
    """The same package declared as a Word template (.dotx)."""
    with zipfile.ZipFile(docx_path) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "[Content_Types].xml":
                data = data.replace(b"document.main+xml", b"template.main+xml")
            zout.writestr(item, data)
    return target


def _export(tmp_path: Path, template: Path, **opts: object) -> Path:
    chapters = sample_chapters()
    chapters[0].figures = [org_figure(6)]
    options = ExportOptions(template=str(template), **opts)  # type: ignore[arg-type]
    return export_bid(chapters, tmp_path / "bid.docx", sample_meta(), options).path


def test_export_keeps_the_templates_styles_page_header_and_cover(tmp_path: Path) -> None:
    out = _export(tmp_path, make_template(tmp_path / "office.docx"))
    doc = docx.Document(str(out))
    body = doc.sections[-1]
    assert round(body.left_margin.cm, 1) == 3.5 and round(body.right_margin.cm, 1) == 2.2
    assert body.header.paragraphs[0].text == HEADER  # the template's header, not the preset's
    assert doc.styles["Normal"].font.size == Pt(13)
    assert doc.styles["Heading 1"].font.size == Pt(18)
    assert doc.styles["Heading 1"].font.color.rgb == RGBColor(0x1F, 0x4E, 0x79)
    texts = [p.text for p in doc.paragraphs]
    assert texts[:3] == [PROJECT, "投标人：【投标人名称】", "日期：2026年12月8日"]  # cover filled in
    headings = [p for p in doc.paragraphs if p.style.name.startswith("Heading")]
    assert headings[0].text == "第一章 项目理解与需求分析" and headings[0].style.name == "Heading 1"
    assert {p.style.name for p in headings} >= {"Heading 1", "Heading 2", "Heading 3"}
    assert any(p.text.startswith("图 1-1") for p in doc.paragraphs) and len(doc.inline_shapes) == 1
    assert len(doc.sections) == 2  # cover, then the numbered body
    footer_xml = body.footer._element.xml
    assert "PAGE" in footer_xml  # page numbers added where the template had no footer


def test_dotx_template_is_read(tmp_path: Path) -> None:
    dotx = as_dotx(make_template(tmp_path / "office.docx"), tmp_path / "office.dotx")
    doc = docx.Document(str(_export(tmp_path, dotx)))
    assert doc.sections[-1].header.paragraphs[0].text == HEADER


def test_differently_named_heading_styles_need_a_mapping(tmp_path: Path) -> None:
    template = make_template(tmp_path / "odd.docx", ("章标题", "节标题", "条标题"), cover=False)
    odd = load_template(template)
    assert "章标题" in [s.name for s in odd.styles]
    out = _export(tmp_path, template, template_headings=("章标题", "节标题", "条标题", "条标题"))
    doc = docx.Document(str(out))
    names = [p.style.name for p in doc.paragraphs if p.text.startswith("第一章") and not p.style.name.startswith("toc")]
    assert names == ["章标题"]
    level = doc.styles["章标题"].element.pPr.find(qn("w:outlineLvl"))
    assert level is not None and level.get(qn("w:val")) == "0"  # the TOC and navigation find it
    with pytest.raises(ExportError, match="模板中没有名为“不存在”的段落样式"):
        _export(tmp_path, template, template_headings=("不存在", "节标题", "条标题"))


def test_template_without_any_heading_style_asks_for_a_mapping(tmp_path: Path) -> None:
    bare = tmp_path / "bare.docx"
    doc = docx.Document()
    styles = doc.styles
    for name in ("Heading 1", "Heading 2", "Heading 3", "Heading 4"):
        styles[name].element.getparent().remove(styles[name].element)
    doc.save(str(bare))
    with pytest.raises(ExportError) as info:
        _export(tmp_path, bare)
    assert "找不到第 1 级、2 级、3 级标题的样式" in info.value.message_zh


def test_not_a_word_file_is_refused_in_chinese(tmp_path: Path) -> None:
    fake = tmp_path / "fake.dotx"
    fake.write_text("not a zip", "utf-8")
    with pytest.raises(ExportError, match="不是 Word 模板"):
        _export(tmp_path, fake)
    with pytest.raises(ExportError, match="找不到 Word 模板"):
        _export(tmp_path, tmp_path / "missing.docx")


@pytest.mark.libreoffice
def test_template_export_is_laid_out_with_page_numbers(tmp_path: Path) -> None:
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    chapters = sample_chapters()
    options = ExportOptions(template=str(make_template(tmp_path / "office.docx")), layout_pass=True)
    report = export_bid(chapters, tmp_path / "laid.docx", sample_meta(), options, soffice=soffice)
    assert report.laid_out and report.body_pages is not None and report.body_pages >= 3


@pytest.mark.libreoffice
def test_template_export_with_figures_and_tables_has_right_page_numbers(tmp_path: Path) -> None:
    """Into a template, with figures, the 评分索引表 and 技术偏离表: every page reference is the rendered page."""
    from tests.export_sample import sample_analysis, sample_breakdown, sample_mapped_chapters
    from tests.figure_samples import flow_figure, gantt_figure
    from tests.test_export_layout import _fields, _render, _soffice

    chapters = sample_mapped_chapters()
    chapters[0].children[0].figures = [org_figure(20)]
    chapters[1].figures = [flow_figure(12), gantt_figure(10)]
    options = ExportOptions(template=str(make_template(tmp_path / "office.docx")), index_table=True,
                            deviation_table=True, layout_pass=True)
    report = export_bid(chapters, tmp_path / "bid.docx", sample_meta(), options, analysis=sample_analysis(),
                        breakdown=sample_breakdown(), soffice=_soffice())
    assert report.laid_out, report.summary_zh()
    doc = docx.Document(str(report.path))
    assert doc.sections[-1].header.paragraphs[0].text == HEADER
    heading_of = {start.get(qn("w:name")): "".join(p.text.split())
                  for p in doc.paragraphs for start in p._p.findall(qn("w:bookmarkStart"))}
    with pymupdf.open(str(_render(report.path, tmp_path))) as pdf:
        # the template's cover is one unnumbered page: body page = PDF page - 1
        rendered = {"".join(str(title).split()): page - 1 for _level, title, page in pdf.get_toc(simple=True)}
        assert pdf.page_count - 1 == report.body_pages
    refs = [(m.group(1), cached) for instr, cached in _fields(doc.element.body)
            if (m := re.match(r"PAGEREF (\S+)", instr))]
    assert len(refs) >= 21 + 6 + 2  # the TOC, the 评分索引表 and the 技术偏离表
    wrong = [(heading_of[b], cached) for b, cached in refs if cached != str(rendered[heading_of[b]])]
    assert not wrong

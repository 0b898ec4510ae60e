"""Read exported .docx files back with python-docx and check what a bid office relies on."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import docx
import pytest
from docx.oxml.ns import qn
from docx.shared import Cm

from app.core.outline import Outline, OutlineNode
from app.export import PRESETS, ExportError, ExportMeta, ExportOptions, export_docx
from tests.export_sample import PROJECT, sample_chapters, sample_meta

ALL_PRESETS = list(PRESETS)
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _export(tmp_path: Path, name: str = "out.docx", **opts: object) -> Path:
    return export_docx(sample_chapters(), tmp_path / name, sample_meta(), ExportOptions(**opts))  # type: ignore[arg-type]


def _zip_text(path: Path, member: str) -> str:
    with zipfile.ZipFile(path) as zf:
        return zf.read(member).decode("utf-8")


def _count(text: str, needle: str) -> int:
    """Occurrences of ``needle``; asserting on the count keeps pytest from diffing huge XML strings."""
    return text.count(needle)


def _heading_texts(doc: docx.document.Document) -> list[tuple[int, str]]:
    out = []
    for p in doc.paragraphs:
        m = re.fullmatch(r"Heading (\d)", p.style.name)
        if m:
            out.append((int(m.group(1)), p.text))
    return out


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_heading_styles_have_outline_levels_black_bold_and_east_asian_fonts(
    tmp_path: Path, preset: str
) -> None:
    doc = docx.Document(str(_export(tmp_path, preset=preset)))
    for level in (1, 2, 3):
        style = doc.styles[f"Heading {level}"]
        ppr = style.element.pPr
        assert ppr.find(qn("w:outlineLvl")).get(qn("w:val")) == str(level - 1)
        rpr = style.element.rPr
        rfonts = rpr.find(qn("w:rFonts"))
        expected = PRESETS[preset].headings[level - 1]
        assert rfonts.get(qn("w:eastAsia")) == expected.east_asia
        assert rfonts.get(qn("w:ascii")) == expected.latin
        assert not [a for a in rfonts.attrib if a.endswith("Theme") or a.endswith("theme")]
        assert style.font.bold is True
        assert str(style.font.color.rgb) == "000000"
        assert style.font.size.pt == pytest.approx(expected.size_pt)
    # Headings in the body use those styles, with literal numbers.
    headings = _heading_texts(doc)
    assert headings[0] == (1, "第一章 项目理解与需求分析")
    assert (2, "1.1 项目背景") in headings
    assert (3, "2.1.2 部署方案") in headings


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_body_style_and_language_are_chinese(tmp_path: Path, preset: str) -> None:
    path = _export(tmp_path, preset=preset)
    doc = docx.Document(str(path))
    normal = doc.styles["Normal"]
    body = PRESETS[preset].body
    assert normal.font.size.pt == 12.0  # 小四
    assert normal.paragraph_format.line_spacing == 1.5
    ind = normal.element.pPr.find(qn("w:ind"))
    assert ind.get(qn("w:firstLineChars")) == "200"
    assert normal.element.rPr.find(qn("w:rFonts")).get(qn("w:eastAsia")) == body.east_asia
    styles_xml = _zip_text(path, "word/styles.xml")
    assert _count(styles_xml, 'w:eastAsia="zh-CN"') >= 1
    assert _count(styles_xml, "ja-JP") == 0
    assert [_count(styles_xml, s) for s in ("Theme=", "w:cstheme", "themeColor")] == [0, 0, 0]
    settings = _zip_text(path, "word/settings.xml")
    assert re.search(r'<w:themeFontLang [^>]*w:eastAsia="zh-CN"', settings)
    assert _count(settings, "ja-JP") == 0
    fonts = _zip_text(path, "word/fontTable.xml")
    assert [_count(fonts, s) > 0 for s in ("宋体", "SimSun", "ＭＳ")] == [True, True, False]


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_toc_field_update_on_open_and_placeholder(tmp_path: Path, preset: str) -> None:
    path = _export(tmp_path, preset=preset)
    document_xml = _zip_text(path, "word/document.xml")
    assert _count(document_xml, 'TOC \\o "1-3" \\h \\z \\u') == 1
    # No instruction text in a document that gets handed in (提示：目录页码需更新…).
    texts = [p.text for p in docx.Document(str(path)).paragraphs]
    assert not [t for t in texts if "更新" in t or "提示" in t]
    # The field opens in the first TOC line and closes in the last one: no extra lines.
    doc = docx.Document(str(path))
    toc_lines = [p for p in doc.paragraphs if p.style.name.startswith("toc ")]
    assert len(toc_lines) == 3 + 6 + 12
    assert toc_lines[0]._p.xpath("./w:r/w:fldChar/@w:fldCharType") == ["begin", "separate"]
    assert toc_lines[-1]._p.xpath("./w:r/w:fldChar/@w:fldCharType") == ["end"]
    assert _count(_zip_text(path, "word/settings.xml"), '<w:updateFields w:val="true"/>') == 1
    # Cached entries link to bookmarks that exist on the headings.
    anchors = set(re.findall(r'w:anchor="(_Toc\d+)"', document_xml))
    bookmarks = set(re.findall(r'w:bookmarkStart w:id="\d+" w:name="(_Toc\d+)"', document_xml))
    assert anchors and anchors == bookmarks
    assert len(anchors) == 3 + 6 + 12  # chapters, sections, subsections of the sample


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_sections_page_numbers_and_footer_fields(tmp_path: Path, preset: str) -> None:
    path = _export(tmp_path, preset=preset)
    doc = docx.Document(str(path))
    assert len(doc.sections) == 2
    cover, body = doc.sections
    # The cover has no header/footer of its own and no page number.
    cover_refs = cover._sectPr.findall(qn("w:footerReference")) + cover._sectPr.findall(
        qn("w:headerReference")
    )
    assert cover_refs == []
    assert cover._sectPr.find(qn("w:pgNumType")) is None
    pg = body._sectPr.find(qn("w:pgNumType"))
    assert pg.get(qn("w:start")) == "1" and pg.get(qn("w:fmt")) == "decimal"
    assert body.footer.is_linked_to_previous is False
    footer_xml = body.footer._element.xml
    instructions = [t.strip() for t in re.findall(r"<w:instrText[^>]*>([^<]*)</w:instrText>", footer_xml)]
    assert instructions == ["PAGE", "SECTIONPAGES"]  # the body's pages: the cover is not counted
    assert "第 " in body.footer.paragraphs[0].text and " 页 共 " in body.footer.paragraphs[0].text
    page = PRESETS[preset].page
    for section in doc.sections:
        assert (section.page_width.twips, section.page_height.twips) == (11906, 16838)  # A4
        assert abs(section.left_margin.twips - page.left_cm * 1440 / 2.54) <= 1
        assert abs(section.gutter.twips - page.gutter_cm * 1440 / 2.54) <= 1
    if preset == "正式装订版":
        assert body.gutter > Cm(0.9)


def test_without_cover_the_total_is_plain_numpages(tmp_path: Path) -> None:
    doc = docx.Document(str(_export(tmp_path, include_cover=False)))
    assert len(doc.sections) == 1
    footer_xml = doc.sections[0].footer._element.xml
    instructions = [t.strip() for t in re.findall(r"<w:instrText[^>]*>([^<]*)</w:instrText>", footer_xml)]
    assert instructions == ["PAGE", "NUMPAGES"]


def test_with_cover_the_total_excludes_the_cover(tmp_path: Path) -> None:
    doc = docx.Document(str(_export(tmp_path)))
    footer_xml = doc.sections[1].footer._element.xml
    instructions = [t.strip() for t in re.findall(r"<w:instrText[^>]*>([^<]*)</w:instrText>", footer_xml)]
    # SECTIONPAGES, not a "= NUMPAGES - 1" formula, which LibreOffice does not evaluate.
    assert instructions == ["PAGE", "SECTIONPAGES"]


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_core_properties_never_show_python_docx_defaults(tmp_path: Path, preset: str) -> None:
    path = _export(tmp_path, preset=preset)
    props = docx.Document(str(path)).core_properties
    core_xml = _zip_text(path, "docProps/core.xml")
    app_xml = _zip_text(path, "docProps/app.xml")
    assert [_count(core_xml + app_xml, s) for s in ("python-docx", "2013", "Macintosh")] == [0, 0, 0]
    assert props.author == "" and props.comments == "" and props.last_modified_by == ""
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
    assert not [n for n in names if "thumbnail" in n]
    assert "word/stylesWithEffects.xml" not in names
    if PRESETS[preset].anonymous:
        assert props.title == "" and props.subject == "" and props.keywords == ""
        assert props.created is None and props.modified is None
        assert _count(app_xml, "BidStudio") == 0
    else:
        assert props.title == f"{PROJECT} 技术投标文件"
        assert props.created is not None and props.created.year >= 2024


def test_real_bidder_name_becomes_author_except_in_anonymous(tmp_path: Path) -> None:
    meta = ExportMeta(project_name=PROJECT, bidder_name="江城水务科技有限公司")
    normal = export_docx(sample_chapters(), tmp_path / "a.docx", meta, ExportOptions())
    assert docx.Document(str(normal)).core_properties.author == "江城水务科技有限公司"
    anon = export_docx(sample_chapters(), tmp_path / "b.docx", meta, ExportOptions(preset="暗标"))
    doc = docx.Document(str(anon))
    assert doc.core_properties.author == ""
    with zipfile.ZipFile(anon) as zf:
        everything = "".join(zf.read(n).decode("utf-8", "ignore") for n in zf.namelist())
    assert _count(everything, "江城水务科技有限公司") == 0


def test_anonymous_is_all_black_without_header_or_names(tmp_path: Path) -> None:
    path = _export(tmp_path, preset="暗标", include_descriptions=True)
    doc = docx.Document(str(path))
    for name in ("word/document.xml", "word/styles.xml", "word/numbering.xml"):
        xml = _zip_text(path, name)
        colours = set(re.findall(r'<w:color w:val="([0-9A-Fa-f]{6}|auto)"', xml))
        assert colours <= {"000000", "auto"}, (name, colours)
        if name == "word/document.xml":  # no shaded cells (the template's unused table styles may shade)
            assert _count(xml.replace('w:fill="auto"', ""), 'w:fill="') == 0
    texts = "\n".join(p.text for p in doc.paragraphs)
    assert "投标人" not in texts and "日　期" not in texts
    body = doc.sections[1]
    assert body.header.is_linked_to_previous is True  # no header of its own
    assert not [p.text for p in body.header.paragraphs if p.text.strip()]
    assert "编写提示" in texts  # guidance present, but black (checked above)


def test_anonymous_refuses_bidder_name_in_text(tmp_path: Path) -> None:
    chapters = sample_chapters()
    chapters[1].children[0].children[0].content += "\n本方案由江城水务科技有限公司编制。"
    meta = ExportMeta(project_name=PROJECT, bidder_name="江城水务科技有限公司")
    with pytest.raises(ExportError) as err:
        export_docx(chapters, tmp_path / "x.docx", meta, ExportOptions(preset="暗标"))
    assert "江城水务科技有限公司" in err.value.message_zh and "2.1.1 分层架构" in err.value.message_zh
    assert not (tmp_path / "x.docx").exists()


def test_standard_header_names_the_project(tmp_path: Path) -> None:
    doc = docx.Document(str(_export(tmp_path)))
    header = doc.sections[1].header
    assert header.is_linked_to_previous is False
    assert PROJECT in header.paragraphs[0].text
    cover_text = "\n".join(p.text for p in doc.paragraphs[:6])
    assert PROJECT in cover_text and "【投标人名称】" in cover_text and "2026年12月8日" in cover_text


def test_tables_are_real_and_fit_the_text_width(tmp_path: Path) -> None:
    path = _export(tmp_path)
    doc = docx.Document(str(path))
    assert len(doc.tables) == 2
    table = doc.tables[0]
    assert [c.text for c in table.rows[0].cells] == ["序号", "服务器用途", "配置", "数量"]
    assert table.rows[2].cells[2].text == "32 核 CPU / 128 GB 内存 / 4 TB SSD"
    assert all(run.bold for run in table.rows[0].cells[1].paragraphs[0].runs)
    assert table.rows[0]._tr.trPr.find(qn("w:tblHeader")) is not None
    grid = [int(g.get(qn("w:w"))) for g in table._tbl.tblGrid.findall(qn("w:gridCol"))]
    text_width_twips = round(PRESETS["标准投标版"].page.text_width_cm * 1440 / 2.54)
    assert sum(grid) == text_width_twips
    assert grid[2] == max(grid)  # the long "配置" column gets the room
    assert table._tbl.tblPr.find(qn("w:tblLayout")).get(qn("w:type")) == "fixed"
    document_xml = _zip_text(path, "word/document.xml")
    assert [_count(document_xml, s) for s in ("| 序号", "|---")] == [0, 0]


def test_lists_are_real_word_lists_restarting_per_list(tmp_path: Path) -> None:
    path = _export(tmp_path)
    doc = docx.Document(str(path))
    listed = [p for p in doc.paragraphs if p._p.pPr is not None and p._p.pPr.numPr is not None]
    texts = [p.text for p in listed]
    assert "感知层：压力计、流量计、水质仪等前端设备，按 5 分钟周期上报数据；" in texts
    assert not [t for t in texts if t.startswith(("- ", "1. "))]
    num_ids = {p._p.pPr.numPr.numId.val for p in listed}
    assert len(num_ids) == 2  # one shared bullet instance + one numbered list
    numbering = _zip_text(path, "word/numbering.xml")
    assert _count(numbering, "（%1）") == 1 and _count(numbering, "startOverride") == 1
    bold = [r.text for p in doc.paragraphs for r in p.runs if r.bold]
    assert "10% 的控制目标" in bold and "180 日历天" in bold


def test_selected_chapters_only(tmp_path: Path) -> None:
    doc = docx.Document(str(_export(tmp_path, chapters=(2, 0))))
    level1 = [t for lvl, t in _heading_texts(doc) if lvl == 1]
    assert level1 == ["第一章 项目理解与需求分析", "第二章 项目实施与质量保障"]
    assert _count("\n".join(p.text for p in doc.paragraphs), "总体技术方案") == 0
    kept = docx.Document(str(_export(tmp_path, "k.docx", chapters=(2,), keep_original_numbers=True)))
    assert _heading_texts(kept)[0] == (1, "第三章 项目实施与质量保障")
    assert (2, "3.1 实施计划") in _heading_texts(kept)


@pytest.mark.parametrize("indexes", [(5,), (-1,), ()])
def test_bad_selection_is_a_chinese_error(tmp_path: Path, indexes: tuple[int, ...]) -> None:
    with pytest.raises(ExportError) as err:
        _export(tmp_path, chapters=indexes)
    assert "章" in err.value.message_zh


def test_descriptions_on_and_off(tmp_path: Path) -> None:
    on = docx.Document(str(_export(tmp_path, "on.docx", include_descriptions=True)))
    off = docx.Document(str(_export(tmp_path, "off.docx", include_descriptions=False)))
    guidance_on = [p.text for p in on.paragraphs if p.style.name == "编写提示"]
    assert "【编写提示】概述滨江市供水现状与建设必要性。" in guidance_on
    assert len(guidance_on) == sum(1 for c in sample_chapters() for _ in _descr(c))
    assert not [p for p in off.paragraphs if "编写提示" in p.text]
    assert [t for _, t in _heading_texts(on)] == [t for _, t in _heading_texts(off)]


def _descr(node: OutlineNode) -> list[str]:
    own = [node.description] if node.description.strip() else []
    return own + [d for c in node.children for d in _descr(c)]


def test_chinese_numbering_scheme_and_outline_input(tmp_path: Path) -> None:
    outline = Outline(sample_chapters())
    path = export_docx(outline, tmp_path / "cn", sample_meta(), ExportOptions(numbering="chinese"))
    assert path.suffix == ".docx" and path.exists()
    headings = _heading_texts(docx.Document(str(path)))
    assert headings[:3] == [(1, "一、项目理解与需求分析"), (2, "（一）项目背景"), (3, "1. 供水现状")]


def test_page_break_before_chapters_option(tmp_path: Path) -> None:
    on = docx.Document(str(_export(tmp_path, "on.docx")))
    off = docx.Document(str(_export(tmp_path, "off.docx", page_break_before_chapters=False)))
    assert on.styles["Heading 1"].paragraph_format.page_break_before is True
    assert not off.styles["Heading 1"].paragraph_format.page_break_before
    # Without per-chapter breaks the TOC still ends with a page break.
    assert _count(off.element.body.xml, 'w:type="page"') == 1


def test_numbers_typed_into_titles_are_not_doubled(tmp_path: Path) -> None:
    chapters = [
        OutlineNode(
            title="1. 总体方案", children=[OutlineNode(title="1.1 设计原则"), OutlineNode(title="二、安全")]
        ),
        OutlineNode(title="第二章 服务承诺"),
    ]
    path = export_docx(chapters, tmp_path / "n.docx", sample_meta(), ExportOptions())
    assert [t for _, t in _heading_texts(docx.Document(str(path)))] == [
        "第一章 总体方案",
        "1.1 设计原则",
        "1.2 安全",
        "第二章 服务承诺",
    ]


def test_atomic_write_replaces_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "bid.docx"
    target.write_bytes(b"old")
    _export(tmp_path, "bid.docx")
    assert zipfile.is_zipfile(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bid.docx"]


def test_failed_export_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "bid.docx"
    target.write_bytes(b"old")
    with pytest.raises(ExportError):
        _export(tmp_path, "bid.docx", preset="不存在的样式")
    assert target.read_bytes() == b"old"
    with pytest.raises(ExportError) as err:
        _export(tmp_path / "missing", "x.docx")
    assert "保存位置不存在" in err.value.message_zh


def test_empty_outline_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExportError) as err:
        export_docx([], tmp_path / "e.docx", sample_meta(), ExportOptions())
    assert err.value.message_zh == "目录为空，没有可导出的章节"


def test_control_characters_from_models_do_not_break_the_file(tmp_path: Path) -> None:
    chapters = [
        OutlineNode(
            title="总体\x0b方案",
            description="要点\x00",
            content="正文\x1b含控制字符\n| a\x07 | b |",
            children=[OutlineNode(title="子节\x0c一"), OutlineNode(title="子节二")],
        ),
        OutlineNode(title="服务承诺"),
    ]
    meta = ExportMeta(project_name="项目\x01名称", bidder_name="投标\x02人")
    path = export_docx(chapters, tmp_path / "c.docx", meta, ExportOptions(include_descriptions=True))
    doc = docx.Document(str(path))
    assert [t for _, t in _heading_texts(doc)][:2] == ["第一章 总体方案", "1.1 子节一"]
    assert "正文含控制字符" in [p.text for p in doc.paragraphs]
    assert doc.tables[0].rows[0].cells[0].text == "a"


def test_fourth_level_headings_use_heading_4_and_stay_out_of_the_toc(tmp_path: Path) -> None:
    deep = OutlineNode(
        title="总体方案",
        children=[
            OutlineNode(
                title="设计",
                children=[
                    OutlineNode(title="原则", children=[OutlineNode(title="安全"), OutlineNode(title="可靠")])
                ],
            ),
            OutlineNode(title="实施"),
        ],
    )
    path = export_docx([deep, OutlineNode(title="服务")], tmp_path / "d.docx", sample_meta(), ExportOptions())
    doc = docx.Document(str(path))
    assert (4, "1.1.1.1 安全") in _heading_texts(doc)
    assert doc.styles["Heading 4"].element.pPr.find(qn("w:outlineLvl")).get(qn("w:val")) == "3"
    toc_entries = re.findall(r'w:anchor="(_Toc\d+)"', _zip_text(path, "word/document.xml"))
    assert len(toc_entries) == 5  # levels 1-3 only

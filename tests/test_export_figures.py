"""Figures in the Word export: pictures after their section's text, captions numbered by chapter."""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
import pytest

from app.core.figures import Figure, OrgChart, OrgUnit
from app.core.outline import OutlineNode
from app.export import ExportOptions, export_bid
from app.export.figures.writer import caption_text
from tests.export_sample import sample_chapters, sample_meta
from tests.figure_samples import flow_figure, gantt_figure, org_figure


def _chapters_with_figures() -> list[OutlineNode]:
    chapters = sample_chapters()
    chapters[0].children[0].figures = [org_figure(8)]
    chapters[2].figures = [flow_figure(6)]
    chapters[2].children[0].figures = [gantt_figure(5)]
    return chapters


def _body_texts(path: Path) -> list[tuple[str, str, bool]]:
    """(style name, text, holds a picture) for every body paragraph."""
    doc = docx.Document(str(path))
    return [(p.style.name, p.text, bool(p._p.xpath(".//pic:pic"))) for p in doc.paragraphs]


def test_figures_become_pictures_with_chapter_numbered_captions(tmp_path: Path) -> None:
    report = export_bid(_chapters_with_figures(), tmp_path / "bid.docx", sample_meta(), ExportOptions())
    paragraphs = _body_texts(report.path)
    captions = [text for style, text, _ in paragraphs if style == "题注"]
    assert captions == ["图 1-1 项目组织机构图", "图 3-1 应急处置流程图", "图 3-2 项目实施进度计划横道图"]
    for caption in captions:  # each caption sits right under its picture
        i = next(k for k, p in enumerate(paragraphs) if p[1] == caption)
        assert paragraphs[i - 1][2] and paragraphs[i - 1][0] == "图片"
    with zipfile.ZipFile(report.path) as zf:
        media = [n for n in zf.namelist() if n.startswith("word/media/") and n.endswith(".png")]
    assert len(media) == 3
    # the org chart follows its section's heading and text, before the next heading
    headings = [k for k, p in enumerate(paragraphs) if p[0].startswith("Heading")]
    org_at = next(k for k, p in enumerate(paragraphs) if p[1] == captions[0])
    owner = max(h for h in headings if h < org_at)
    assert paragraphs[owner][1].endswith(sample_chapters()[0].children[0].title)


def test_pictures_fit_the_text_width(tmp_path: Path) -> None:
    chapters = sample_chapters()
    chapters[0].figures = [org_figure(40)]  # drawn wider than an A4 text column
    report = export_bid(chapters, tmp_path / "wide.docx", sample_meta(), ExportOptions())
    doc = docx.Document(str(report.path))
    section = doc.sections[-1]
    text_width = section.page_width - section.left_margin - section.right_margin - section.gutter
    shapes = list(doc.inline_shapes)
    assert len(shapes) == 1 and 0 < shapes[0].width <= text_width
    assert shapes[0].height < section.page_height - section.top_margin - section.bottom_margin


def test_a_broken_figure_is_a_placeholder_and_a_warning_not_a_failed_export(tmp_path: Path) -> None:
    chapters = _chapters_with_figures()
    two_roots = Figure(title="岗位设置", data=OrgChart(units=[OrgUnit(name="甲"), OrgUnit(name="乙")]))
    chapters[1].figures = [two_roots]
    report = export_bid(chapters, tmp_path / "bid.docx", sample_meta(), ExportOptions())
    texts = [t for _, t, _ in _body_texts(report.path)]
    assert any("组织机构图无法绘制" in t and "最上级岗位只能有一个" in t for t in texts)
    assert any("图 2-1 岗位设置" in w and "未能绘制" in w for w in report.warnings)
    assert len(docx.Document(str(report.path)).inline_shapes) == 3  # the others are all there


@pytest.mark.parametrize(("chapter", "number", "title", "expected"), [
    (3, 1, "项目组织机构图", "图 3-1 项目组织机构图"), (12, 4, " 进度计划 ", "图 12-4 进度计划")])
def test_caption_text(chapter: int, number: int, title: str, expected: str) -> None:
    assert caption_text(chapter, number, title) == expected


def test_without_a_chinese_font_figures_are_still_drawn_and_the_report_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.export.figures import canvas, fonts, render

    none = fonts.find_cjk_font({"DejaVu Sans": "DejaVuSans.ttf"})  # what a machine without CJK fonts finds
    monkeypatch.setattr(canvas, "cjk_font", lambda: none)
    monkeypatch.setattr(render, "cjk_font", lambda: none)
    render.clear_cache()
    chapters = sample_chapters()
    chapters[0].figures = [org_figure(6)]
    report = export_bid(chapters, tmp_path / "nofont.docx", sample_meta(), ExportOptions())
    assert fonts.NO_CJK_FONT_NOTE in report.notes
    assert len(docx.Document(str(report.path)).inline_shapes) == 1
    render.clear_cache()


@pytest.mark.libreoffice
def test_layout_with_blank_pictures_gives_the_pages_of_the_real_file(tmp_path: Path) -> None:
    """The layout pass lays out a copy whose pictures are 1x1 blanks: the real file has the same pages."""
    import fitz

    from tests.test_export_layout import _render, _soffice

    chapters = _chapters_with_figures()
    chapters[1].children[0].figures = [org_figure(40), flow_figure(20)]
    report = export_bid(chapters, tmp_path / "laid.docx", sample_meta(), ExportOptions(layout_pass=True),
                        soffice=_soffice())
    assert report.laid_out and report.body_pages is not None
    with zipfile.ZipFile(report.path) as zf:
        sizes = [zf.getinfo(n).file_size for n in zf.namelist() if n.startswith("word/media/")]
    assert len(sizes) == 5 and min(sizes) > 10_000  # the saved file keeps the real pictures
    pdf = fitz.open(str(_render(report.path, tmp_path)))
    assert pdf.page_count == report.body_pages + 1  # the cover, then the laid-out pages
    # every chapter starts on the page the TOC (filled from the blank copy's layout) says
    doc = docx.Document(str(report.path))
    toc_pages = [int(p.text.rsplit("\t", 1)[-1]) for p in doc.paragraphs
                 if p.style.name == "toc 1" and p.text.rsplit("\t", 1)[-1].isdigit()]
    titles = [c.title for c in sample_chapters()]

    def heading_page(title: str) -> int:  # a line that is the heading itself (TOC lines carry dots and a page)
        return next(i for i in range(1, pdf.page_count)
                    if any(line.replace(" ", "").endswith(title) and "…" not in line and "." not in line
                           for line in pdf[i].get_text().splitlines()))

    assert toc_pages == [heading_page(t) for t in titles]  # PDF index = body page (the cover is index 0)

"""Figures in the Word export: pictures after their section's text, captions numbered by chapter."""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
import pytest

from app.core.figures import Figure, OrgChart, OrgUnit
from app.core.outline import OutlineNode
from app.export import ExportOptions, export_bid
from app.export.figure_writer import caption_text
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

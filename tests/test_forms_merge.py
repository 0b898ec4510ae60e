"""One file for the whole bid: the 商务 volume first, then the technical part, each a volume of its own.

The merged file keeps two tables of contents, each titled with its volume and scoped to it (``TOC \\b``,
so Word's field update keeps it so), and each volume numbers its own pages after its own cover. With
LibreOffice the merged file is laid out once: rendered again independently, every TOC line, every
PAGEREF cell and every footer shows the page as that volume prints it, and the technical part's cover
carries no page number.
"""

from __future__ import annotations

import re
from pathlib import Path

import docx
import pymupdf
import pytest
from docx.oxml.ns import qn

from app.export import ExportOptions
from app.export.docx_writer import export_bid
from app.export.fields import BODY_START_BOOKMARK
from app.export.forms.merge import FORMS_PART, TECHNICAL_PART, fields_in, place_before
from app.export.forms.volume import FORMS_BODY_START
from tests.export_sample import sample_analysis, sample_breakdown, sample_mapped_chapters, sample_meta
from tests.forms_tenders import FORMS, docx_tender
from tests.test_export_layout import FOOTER, TOC_LINE, _render, _soffice
from tests.test_forms_export import _volume


def _parts(tmp_path: Path) -> tuple[Path, Path]:
    _r, _f, forms, _doc = _volume(docx_tender(tmp_path / "t.docx"), tmp_path / "商务.docx")
    options = ExportOptions(layout_pass=False, index_table=True, deviation_table=True)
    technical = export_bid(sample_mapped_chapters(), tmp_path / "技术.docx", sample_meta(), options,
                           analysis=sample_analysis(), breakdown=sample_breakdown())
    return forms.path, technical.path


def _merge(tmp_path: Path, layout: bool) -> Path:
    forms, technical = _parts(tmp_path)
    report = place_before(forms, technical, tmp_path / "投标文件.docx", forms_start=FORMS_BODY_START,
                          technical_start=BODY_START_BOOKMARK, layout_pass=layout, soffice=_soffice() if layout else None)
    assert report.laid_out is layout, report.notes
    return report.path


def test_each_volume_keeps_its_own_toc_sections_and_footers(tmp_path: Path) -> None:
    doc = docx.Document(str(_merge(tmp_path, layout=False)))
    tocs = [f.instruction for f in fields_in(doc.element.body) if f.instruction.startswith("TOC")]
    assert tocs == [f'TOC \\o "1-3" \\h \\z \\u \\b {FORMS_PART}', f'TOC \\o "1-3" \\h \\z \\u \\b {TECHNICAL_PART}']
    titles = [p.text for p in doc.paragraphs if p.text.startswith("目  录")]
    assert titles == ["目  录（商务部分）", "目  录（技术部分）"]
    names = {b.get(qn("w:name")) for b in doc.element.body.iter(qn("w:bookmarkStart"))}
    assert {FORMS_PART, TECHNICAL_PART, FORMS_BODY_START, BODY_START_BOOKMARK} <= names
    ids = [b.get(qn("w:id")) for b in doc.element.body.iter(qn("w:bookmarkStart"))]
    assert len(ids) == len(set(ids))
    # 商务: cover, body; 技术: cover, body — the technical cover has a footer of its own, and it is empty
    assert len(doc.sections) == 4
    cover, body = doc.sections[2], doc.sections[3]
    assert not cover.footer.is_linked_to_previous and not "".join(p.text for p in cover.footer.paragraphs).strip()
    assert [f.instruction for f in fields_in(body.footer._element)] == ["PAGE", "SECTIONPAGES"]
    assert body._sectPr.find(qn("w:pgNumType")).get(qn("w:start")) == "1"
    assert "技术投标文件" in "".join(p.text for p in body.header.paragraphs)


@pytest.mark.libreoffice
def test_the_merged_file_prints_each_volumes_page_numbers(tmp_path: Path) -> None:
    path = _merge(tmp_path, layout=True)
    pdf_path = _render(path, tmp_path)
    with pymupdf.open(pdf_path) as pdf:
        pages = [[ln.strip() for ln in page.get_text().splitlines() if ln.strip()] for page in pdf]
        outline = pdf.get_toc(simple=True)
    footers = [next((FOOTER.fullmatch(ln.replace(" ", "")) for ln in lines[-2:] if FOOTER.fullmatch(ln.replace(" ", ""))),
                    None) for lines in pages]
    technical_cover = next(k for k, lines in enumerate(pages) if "技术投标文件" in lines and k > 0)
    assert footers[0] is None and footers[technical_cover] is None  # the covers carry no number
    volumes = {"商务": range(1, technical_cover), "技术": range(technical_cover + 1, len(pages))}
    printed: dict[str, dict[str, int]] = {}
    for name, span in volumes.items():
        numbers = [footers[k] for k in span]
        assert all(m is not None for m in numbers), name
        assert [int(m.group(1)) for m in numbers if m] == list(range(1, len(span) + 1)), name
        assert {int(m.group(2)) for m in numbers if m} == {len(span)}, name
        printed[name] = {"".join(str(title).split()): int(footers[page - 1].group(1))  # type: ignore[union-attr]
                         for _level, title, page in outline if page - 1 in span}
    assert len(printed["商务"]) == len(FORMS) and len(printed["技术"]) >= 20
    for name, span in volumes.items():
        toc_page = pages[span.start]
        assert any(ln.startswith("目") and name in ln for ln in toc_page), toc_page[:3]
        lines = {"".join(m.group(1).split()): int(m.group(2)) for ln in toc_page if (m := TOC_LINE.match(ln))}
        assert lines and {t: n for t, n in lines.items() if t in printed[name]} == {
            t: printed[name][t] for t in lines if t in printed[name]}, name
        assert set(lines) <= set(printed[name])  # each TOC lists its own volume only
    # every PAGEREF's cached result (both TOCs, the 评分索引表, the 技术偏离表) is the page as printed
    doc = docx.Document(str(path))
    heading_of = {}
    for p in doc.paragraphs:
        for start in p._p.findall(qn("w:bookmarkStart")):
            heading_of[start.get(qn("w:name"))] = "".join(p.text.split())
    both = {**printed["商务"], **printed["技术"]}
    refs = [(re.match(r"PAGEREF (\S+)", f.instruction).group(1), "".join(t.text or "" for t in f.results))  # type: ignore[union-attr]
            for f in fields_in(doc.element.body) if f.instruction.startswith("PAGEREF")]
    assert len(refs) >= len(FORMS) + 21 + 6
    assert [(heading_of[b], c) for b, c in refs if c != str(both[heading_of[b]])] == []

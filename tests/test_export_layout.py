"""Page numbers are right when the file is opened without updating fields.

Export with the layout pass, then render the delivered file *again*, independently, with
LibreOffice and read the PDF with PyMuPDF: the page each heading is on (the PDF outline plus
the footer's "第 N 页") must equal the number the TOC prints in the rendered PDF and the
cached result of every PAGEREF field in the .docx (TOC, 评分索引表, 技术偏离表), and the
footer's "共 M 页" must count the numbered pages. Skipped without LibreOffice; the real
tenders only with ../shared.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docx
import pymupdf
import pytest
from docx.oxml.ns import qn

from app.core.analysis import Analysis
from app.core.breakdown import Breakdown
from app.core.outline import OutlineNode
from app.export import ExportMeta, ExportOptions
from app.export.docx_writer import ExportReport, export_bid
from tests.export_sample import sample_analysis, sample_breakdown, sample_mapped_chapters, sample_meta

pytestmark = pytest.mark.libreoffice

FOOTER = re.compile(r"第\s*(\d+)\s*页\s*共\s*(\d+)\s*页")
TOC_LINE = re.compile(r"^(.+?)\s*\.{4,}\s*(\d+)$")


def _soffice() -> str:
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if not exe:
        pytest.skip("LibreOffice (soffice) is not installed")
    return exe


def _render(docx_path: Path, out_dir: Path) -> Path:
    """A plain headless conversion (not the exporter's code path), with its own profile."""
    result = subprocess.run(
        [_soffice(), f"-env:UserInstallation={(out_dir / 'render-profile').resolve().as_uri()}", "--headless",
         "--norestore", "--convert-to", "pdf", "--outdir", str(out_dir.resolve()), str(docx_path.resolve())],
        capture_output=True, timeout=300, check=False)
    pdf = out_dir / (docx_path.stem + ".pdf")
    assert pdf.is_file(), result.stderr.decode("utf-8", "replace")
    return pdf


def _fields(root: Any) -> Iterator[tuple[str, str]]:
    """``(instruction, cached result)`` of every complex field under ``root``, nested ones included."""
    stack: list[list[str]] = []  # per open field: [instruction, result, phase]
    for el in root.iter(qn("w:fldChar"), qn("w:instrText"), qn("w:t")):
        if el.tag == qn("w:fldChar"):
            kind = el.get(qn("w:fldCharType"))
            if kind == "begin":
                stack.append(["", "", "instr"])
            elif kind == "separate" and stack:
                stack[-1][2] = "result"
            elif kind == "end" and stack:
                instr, result, _ = stack.pop()
                yield instr.strip(), result
        elif stack:
            top = stack[-1]
            if el.tag == qn("w:instrText") and top[2] == "instr":
                top[0] += el.text or ""
            elif el.tag == qn("w:t") and top[2] == "result":
                top[1] += el.text or ""


def _rendered(pdf_path: Path) -> tuple[dict[str, int], dict[str, int], list[tuple[int, int]]]:
    """Headings -> printed page, TOC lines -> printed number, and every page's (N, M) footer."""
    with pymupdf.open(pdf_path) as pdf:
        footers: list[tuple[int, int] | None] = []
        toc_numbers: dict[str, int] = {}
        for page in pdf:
            lines = [ln.strip() for ln in page.get_text().splitlines() if ln.strip()]
            found = [FOOTER.fullmatch(ln.replace(" ", "")) for ln in lines[-2:]]
            match = next((m for m in found if m), None)
            footers.append((int(match.group(1)), int(match.group(2))) if match else None)
            for ln in lines:
                m = TOC_LINE.match(ln)
                if m:
                    toc_numbers["".join(m.group(1).split())] = int(m.group(2))
        headings = {}
        for _level, title, page in pdf.get_toc(simple=True):
            printed = footers[page - 1]
            assert printed is not None, f"heading {title!r} on an unnumbered page"
            headings["".join(str(title).split())] = printed[0]
    return headings, toc_numbers, [f for f in footers if f is not None]


def _check(report: ExportReport, tmp_path: Path, min_refs: int) -> None:
    assert report.laid_out, report.summary_zh()
    doc = docx.Document(str(report.path))
    heading_of = {}
    for p in doc.paragraphs:
        for start in p._p.findall(qn("w:bookmarkStart")):
            heading_of[start.get(qn("w:name"))] = "".join(p.text.split())
    headings, toc_numbers, footers = _rendered(_render(report.path, tmp_path))
    # The footer: numbered from 1 without gaps, and the total counts exactly those pages.
    assert [n for n, _ in footers] == list(range(1, len(footers) + 1))
    assert {m for _, m in footers} == {len(footers)} and report.body_pages == len(footers)
    # The TOC as rendered (LibreOffice shows the cached lines) carries the heading pages.
    toc_checked = [t for t in toc_numbers if t in headings]
    assert len(toc_checked) >= 10 or len(toc_checked) == len(headings)
    assert {t: toc_numbers[t] for t in toc_checked} == {t: headings[t] for t in toc_checked}
    # Every PAGEREF's cached result (TOC, 评分索引表, 技术偏离表) is the page its heading is on.
    refs = [(m.group(1), cached) for instr, cached in _fields(doc.element.body)
            if (m := re.match(r"PAGEREF (\S+)", instr))]
    assert len(refs) >= min_refs
    wrong = [(heading_of[b], cached, headings[heading_of[b]]) for b, cached in refs
             if cached != str(headings[heading_of[b]])]
    assert not wrong
    # The footer total's cached result too (what Word shows before it recomputes).
    totals = [cached for instr, cached in _fields(doc.sections[-1].footer._element)
              if instr in ("SECTIONPAGES", "NUMPAGES")]
    assert totals == [str(len(footers))]


def test_generated_project_page_numbers_match_the_rendered_pages(tmp_path: Path) -> None:
    # Guidance lines and chapters running on (no page breaks) make the pages less regular.
    options = ExportOptions(index_table=True, deviation_table=True, layout_pass=True, include_descriptions=True,
                            page_break_before_chapters=False)
    report = export_bid(sample_mapped_chapters(), tmp_path / "-bid.docx", sample_meta(), options,
                        analysis=sample_analysis(), breakdown=sample_breakdown(), soffice=_soffice())
    assert report.path.name == "-bid.docx"
    _check(report, tmp_path, min_refs=21 + 6 + 2)


@pytest.mark.real_tender
def test_real_tender_page_numbers_match_the_rendered_pages(tenders_dir: Path, tmp_path: Path) -> None:
    """yangjiang: one-to-one with 8 technical items and 24 ★/▲ clauses (sichuan is rendered by
    ``tests/tools/render_response_tables.py``; two real tenders here would double the time)."""
    from tests.tender_projects import tender_project

    project = tender_project(tenders_dir / "yangjiang-tax-canteen.pdf")
    assert len(project.analysis.technical_groups) == 8
    assert {r.mark for r in project.breakdown.risks} == {"★", "▲"}
    report = _export(project.chapters, project.analysis, project.breakdown, project.meta, tmp_path / "bid.docx")
    groups = len(project.analysis.technical_groups)
    _check(report, tmp_path, min_refs=groups * 4 + groups + len(project.breakdown.risks))


def _export(chapters: list[OutlineNode], analysis: Analysis, breakdown: Breakdown, meta: ExportMeta,
            target: Path) -> ExportReport:
    options = ExportOptions(index_table=True, deviation_table=True, layout_pass=True)
    return export_bid(chapters, target, meta, options, analysis=analysis, breakdown=breakdown, soffice=_soffice())

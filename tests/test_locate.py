"""Locating overview/requirements/scoring sections and budgeting model input."""

from __future__ import annotations

from pathlib import Path

from app.documents.ingest import ingest_tender
from app.documents.loader import load_tender
from app.documents.locate import budget_text, chars_for_context, locate_sections, section_text
from app.documents.scoring.table import parse_scoring
from tests.document_fixtures import SAMPLE_PDF, image_page_pdf


def test_sample_sections_have_the_right_pages() -> None:
    doc = load_tender(SAMPLE_PDF)
    sections = locate_sections(doc, parse_scoring(doc))
    assert sections.overview is not None and sections.overview.first_page == 1
    assert sections.requirements is not None and sections.requirements.first_page == 2
    assert "采购需求" in sections.requirements.title
    assert sections.scoring is not None
    assert (sections.scoring.first_page, sections.scoring.last_page) == (3, 4)
    text = section_text(doc, sections.requirements, 5000)
    assert "★1.故障响应" in text and "▲3.设备巡检" in text


def test_scoring_section_without_tables_comes_from_headings() -> None:
    doc = load_tender(SAMPLE_PDF)
    sections = locate_sections(doc)  # no parsed tables given
    assert sections.scoring is not None and sections.scoring.first_page == 3
    assert sections.scoring.reason == "heading"


def test_budget_text_is_cut_and_skips_unreadable_pages(tmp_path: Path) -> None:
    doc = load_tender(image_page_pdf(tmp_path / "mixed.pdf"))
    full = budget_text(doc, 1, 3, 100_000)
    assert "【第1页】" in full and "【第3页】" in full and "【第2页】" not in full
    assert "第2页无法读取文字" in full
    short = budget_text(doc, 1, 3, 60)
    assert len(short) <= 60 and short.endswith("……（后略）")
    assert chars_for_context(8192) > chars_for_context(4096) >= 500


def test_ingest_tender_reports_progress_and_collects_diagnostics(tmp_path: Path) -> None:
    seen: list[tuple[str, float]] = []
    result = ingest_tender(image_page_pdf(tmp_path / "m.pdf"), progress=lambda m, f: seen.append((m, f)))
    assert [f for _, f in seen] == sorted(f for _, f in seen) and seen[-1][1] == 1.0
    codes = [d.code.value for d in result.diagnostics]
    assert codes == ["no_text_layer", "no_scoring_table"] and not result.unreadable
    assert result.sections.overview is not None and result.sections.overview.first_page == 1

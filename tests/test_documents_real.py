"""Ingestion of the real tenders in ../shared/tenders (skipped when the folder is absent)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from app.documents.loader import load_tender
from app.documents.locate import budget_text, locate_sections
from app.documents.model import DiagnosticCode, TenderDocument
from app.documents.scoring.model import ScoreCategory, ScoringResult
from app.documents.scoring.table import parse_scoring

pytestmark = pytest.mark.real_tender


@cache
def _load(path: Path) -> tuple[TenderDocument, ScoringResult]:
    doc = load_tender(path)
    return doc, parse_scoring(doc)


def _points(result: ScoringResult, word: str) -> float:
    """Points of the one row whose factor contains ``word``."""
    rows = [r for r in result.rows if word in r.factor]
    assert len(rows) == 1, (word, [r.factor for r in result.rows])
    assert rows[0].points is not None
    return rows[0].points


def test_sichuan_rows_and_weights(tenders_dir: Path) -> None:
    _, result = _load(tenders_dir / "sichuan-iptv-metadata.docx")
    assert [r.factor for r in result.rows] == ["报价", "服务方案", "服务人员要求", "履约经验"]
    assert [r.points for r in result.rows] == [30, 42, 20, 8]
    assert result.total_points == 100 and not result.issues
    plan = result.rows[1]
    for part in ("①项目人员配置方案", "②实施进度计划", "⑥售后服务方案"):
        assert part in plan.criteria
    assert result.rows[0].category == ScoreCategory.PRICE


def test_huangpu_merged_cells(tenders_dir: Path) -> None:
    _doc, result = _load(tenders_dir / "huangpu-customs-services.docx")
    assert len(result.tables) == 1  # the 考核项目 assessment table is not a scoring table
    assert _points(result, "服务方案") == 30
    assert _points(result, "人员的配备") == 30
    assert _points(result, "培训方案") == 10
    assert _points(result, "综合实力") == 20
    assert _points(result, "报价") == 10
    plan = next(r for r in result.rows if "服务方案" in r.factor)
    assert [i.points for i in plan.items] == [15, 5, 10]
    assert result.total_points == 100 and result.confidence >= 0.9


def test_yangjiang_technical_table_of_50_points(tenders_dir: Path) -> None:
    doc, result = _load(tenders_dir / "yangjiang-tax-canteen.pdf")
    assert doc.page_count == 111 and not doc.unreadable_pages
    tech = next(t for t in result.tables if t.category == ScoreCategory.TECHNICAL)
    assert tech.stated_total == 50 and tech.points_sum == 50
    assert tech.pages[0] == 67 and "技术评分细则表（50分）" in tech.label
    names = [r.factor for r in tech.rows]
    assert "配送加工场地情况" in names and "冷藏库仓储能力" in names and len(names) == 8
    cold = next(r for r in tech.rows if r.factor == "冷藏库仓储能力")
    assert cold.pages == [67, 68] and "不提供的，不得分" in cold.criteria  # text continued on page 68
    assert result.points_by_category() == {"商务": 40, "技术": 50, "价格": 10}
    assert not result.issues


def test_shanxi_table_across_pages(tenders_dir: Path) -> None:
    doc, result = _load(tenders_dir / "shanxi-35kv-switchgear.pdf")
    assert len(result.tables) == 1
    table = result.tables[0]
    assert table.pages == [34, 35]
    assert result.points_by_category() == {"商务": 20, "技术": 40, "价格": 40}
    price = result.rows_in(ScoreCategory.PRICE)
    assert len(price) == 1 and price[0].pages == [35] and price[0].points == 40
    assert _points(result, "对投标设备整体评价") == 23
    assert not result.issues and result.confidence >= 0.9
    sections = locate_sections(doc, result)
    assert sections.scoring is not None and sections.scoring.first_page <= 34 <= sections.scoring.last_page


def test_garbled_text_layer_is_detected(tenders_dir: Path) -> None:
    doc, _result = _load(tenders_dir / "garbled-text-layer.pdf")
    codes = {d.code for d in doc.diagnostics}
    assert DiagnosticCode.GARBLED_TEXT in codes and DiagnosticCode.NO_READABLE_TEXT in codes
    assert doc.unreadable_pages == [1, 2, 3, 4]
    assert doc.text() == ""  # nothing of the mojibake reaches model input
    budget = budget_text(doc, 1, 4, 2000)
    assert "第1–4页无法读取" in budget and "䇴" not in budget
    assert "䇴" in doc.text(include_unreadable=True)  # kept for display, never for the model


def test_text_as_outlines_is_detected(tenders_dir: Path) -> None:
    doc, _ = _load(tenders_dir / "text-as-outlines.pdf")
    diag = next(d for d in doc.diagnostics if d.code == DiagnosticCode.TEXT_AS_OUTLINES)
    assert diag.pages == [1, 2, 3, 4] and "需 OCR" in diag.message_zh
    assert DiagnosticCode.BLANK_PAGES not in {d.code for d in doc.diagnostics}


def test_pku_has_no_scoring_table(tenders_dir: Path) -> None:
    doc, result = _load(tenders_dir / "pku-library-excerpt.pdf")
    assert doc.has_readable_text and not doc.unreadable_pages
    assert not result.found and result.absence == "announcement" and "招标公告" in result.message_zh


def test_yangjiang_sections(tenders_dir: Path) -> None:
    doc, result = _load(tenders_dir / "yangjiang-tax-canteen.pdf")
    sections = locate_sections(doc, result)
    assert sections.requirements is not None
    assert (sections.requirements.first_page, sections.requirements.last_page) == (9, 36)
    assert sections.scoring is not None and sections.scoring.first_page == 66
    text = budget_text(doc, sections.scoring.first_page, sections.scoring.last_page, 3000)
    assert len(text) <= 3000 and text.startswith("【第66页】")

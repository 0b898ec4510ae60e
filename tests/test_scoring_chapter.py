"""The 评标办法 chapter read as one reading (issue 36): lots, tidy PDF grids, and what reconciles.

Generated tenders only (``tests/scoring_fixtures_chapter.py``); the pattern test in
``test_scoring_patterns.py`` checks their rows, these check what a row list cannot show.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.documents.loader import load_tender
from app.documents.pdf_grid import Grid, tidy
from app.documents.scoring.table import parse_scoring, select_lot
from tests.scoring_fixtures_unseen import build_any


@pytest.mark.parametrize(("name", "lots", "second"), [
    ("lots_docx", ["A包", "B包"], [("报价得分", 30.0), ("系统功能", 56.0), ("同类业绩", 4.0), ("实施与培训方案", 10.0)]),
    ("lots_pdf", ["第1-3包", "第4包"], [("评标价", 10.0), ("业绩", 10.0), ("总体服务方案", 40.0), ("设备配置情况", 40.0)]),
])
def test_each_lot_is_a_reading_of_its_own(tmp_path: Path, name: str, lots: list[str],
                                          second: list[tuple[str, float]]) -> None:
    path, _ = build_any(name, tmp_path)
    doc = load_tender(path)
    result = parse_scoring(doc)
    assert [lot.name for lot in result.lots] == lots
    assert [lot.total for lot in result.lots] == [100.0, 100.0]
    assert result.lot == 0 and result.lot_name == lots[0]
    assert result.total_points == 100  # the first lot alone, never the lots added up
    assert "table" not in result.uncertain  # another lot is not a rival scheme
    assert all(lot.confirmed for lot in result.lots), [lot.doubt_zh for lot in result.lots]
    other = select_lot(doc, result, 1)
    assert [(r.factor, r.points) for r in other.rows] == second
    assert other.lot_name == lots[1] and other.confirmed and other.lots == result.lots
    assert other.options[0] == result.lots[1].tables


def test_one_lot_named_alone_is_no_lot_split(tmp_path: Path) -> None:
    """A single table titled for a lot ("包1 评分规则") is the scheme; no lot selector is offered."""
    path, _ = build_any("split", tmp_path)
    result = parse_scoring(load_tender(path))
    assert result.found and result.lots == []


def _cell(x0: float, x1: float, y: float) -> tuple[float, float, float, float]:
    return (x0, y, x1, y + 10)


def test_a_pdf_grid_keeps_the_columns_of_its_own_table() -> None:
    """Rules that are not the table's (a blank form under it, a header rule past its edge) hold no text."""
    rows = [
        [_cell(0, 30, 0), None, _cell(40, 90, 0), None, _cell(100, 300, 0), _cell(300, 320, 0)],
        [_cell(0, 30, 10), None, None, None, _cell(100, 300, 10), None],
        [_cell(0, 20, 20), _cell(20, 40, 20), _cell(40, 60, 20), _cell(60, 100, 20), _cell(100, 300, 20), None],
    ]
    texts = [["1", None, "服务方案", None, "方案完整的得10分", ""], ["", None, None, None, "（接上）", None],
             ["", "", "", "", "", None]]
    got = tidy(Grid(rects=rows, texts=texts))
    assert got.texts == [["1", "服务方案", "方案完整的得10分"], ["", None, "（接上）"]]
    assert got.bbox == (0, 0, 300, 20)


def test_a_summary_table_is_a_check_of_the_detail_never_the_scheme(tmp_path: Path) -> None:
    path, _ = build_any("summary", tmp_path)
    doc = load_tender(path)
    result = parse_scoring(doc)
    summary = next(c for c in result.candidates if c.rejected)
    assert summary.rejected.startswith("汇总表") and [r.factor for r in summary.rows] == ["投标报价", "商务部分", "技术部分"]
    assert any("汇总表" in c and "一致" in c for c in result.checks_passed)
    assert result.total_points == 100 and result.confirmed, result.doubt_zh
    assert sum(r.points or 0 for r in result.technical_rows) == 40


def test_a_summary_the_details_contradict_is_not_set_aside(tmp_path: Path) -> None:
    """Details whose parts do not carry the summary's points reconcile nothing: no part is explained away."""
    path, _ = build_any("summary", tmp_path)
    doc = load_tender(path)
    detail = doc.tables[1]
    detail.rows[4][1] = "应急保障方案（10分）"  # the technical part now holds 35, the summary says 40
    result = parse_scoring(doc)
    assert not any(c.rejected.startswith("汇总表") for c in result.candidates)
    assert not result.confirmed


def test_weighted_parts_are_worth_their_weight_and_keep_what_they_print(tmp_path: Path) -> None:
    path, _ = build_any("weighted_parts", tmp_path)
    result = parse_scoring(load_tender(path))
    assert [t.weight for t in result.tables] == [20.0, 50.0, 30.0]
    assert [r.raw_points for r in result.rows] == [80, 10, 10, 40, 40, 20, 100]
    assert result.points_by_category() == {"商务": 20, "技术": 50, "价格": 30}
    assert sum(1 for c in result.checks_passed if "按权重" in c) == 2
    assert result.confirmed, result.doubt_zh


def test_one_weighted_technical_table_stays_as_printed(tmp_path: Path) -> None:
    """A single 100-point table weighted beside a price formula is the scale the writer sees."""
    path, _ = build_any("form_block", tmp_path)
    result = parse_scoring(load_tender(path))
    assert all(t.weight is None for t in result.tables) and all(r.raw_points is None for r in result.rows)
    assert result.total_points == 100


def _write(tmp_path: Path, name: str, paragraphs: list[str], rows: list[list[str]]) -> Path:
    from tests.scoring_fixtures import _doc, _table

    d = _doc(*paragraphs)
    _table(d, rows)
    path = tmp_path / name
    d.save(str(path))
    return path


def test_a_method_without_points_is_confirmed_only_when_no_table_has_points(tmp_path: Path) -> None:
    plain = _write(tmp_path, "lowest.docx", ["第三章 评标办法（经评审的最低投标价法）", "评标办法前附表"],
                   [["条款号", "评审因素", "评审标准"], ["2.1.1", "投标人名称", "与营业执照一致"],
                    ["2.1.2", "投标报价", "不超过最高限价"]])
    result = parse_scoring(load_tender(plain))
    assert result.absence == "lowest_price" and result.confirmed
    scored = _write(tmp_path, "lowest_scored.docx", ["第三章 评标办法（经评审的最低投标价法）", "详细评审表"],
                    [["序号", "评分因素", "分值", "评分标准"], ["1", "实施方案", "20", "方案完整得20分。"],
                     ["2", "售后服务", "15", "响应及时得15分。"], ["3", "同类业绩", "10", "每个得2分。"]])
    result = parse_scoring(load_tender(scored))
    assert not result.found and result.absence == "lowest_price"
    assert not result.confirmed and "另有带分值的表格" in result.doubt_zh


def test_a_single_source_procurement_has_no_scoring_and_says_so(tmp_path: Path) -> None:
    path = _write(tmp_path, "single.docx", ["第三章 评审办法和成交原则", "本项目采用单一来源采购方式，与供应商协商确定成交价格。"],
                  [["序号", "审查要求"], ["1", "具有独立承担民事责任的能力"], ["2", "报价不超过预算"]])
    result = parse_scoring(load_tender(path))
    assert result.absence == "single_source" and "单一来源" in result.message_zh and result.confirmed


def test_a_table_with_points_in_any_column_is_no_blank_template(tmp_path: Path) -> None:
    from app.documents.scoring.absence import absence_reason

    path = _write(tmp_path, "ranges.docx", ["第四章 评标办法（范本）", "评分标准"],
                  [["序号", "评分因素", "分值", "评分标准", "分值范围"], ["1", "施工组织设计", "", "……", "0-8分"],
                   ["2", "项目管理机构", "", "……", "0-6分"]])
    code, message = absence_reason(load_tender(path))
    assert code != "template" and "模板" not in message


def test_a_summary_whose_price_no_detail_scores_gives_the_price_row(tmp_path: Path) -> None:
    from tests.scoring_fixtures import _criteria, _doc, _table

    d = _doc("第四章 评标办法", "评分因素及分值分配表")
    _table(d, [["序号", "评分因素", "满分"], ["1", "投标报价", "30分"], ["2", "商务部分", "20分"],
               ["3", "技术部分", "50分"], ["合计", "", "100分"]])
    d.add_paragraph("商务评分标准（20分）")
    _table(d, [["序号", "评分因素", "分值", "评分标准"], ["1", "同类业绩", "12", "每个得3分。"],
               ["2", "企业认证", "8", "每项得4分。"]])
    d.add_paragraph("技术评分标准（50分）")
    _table(d, [["序号", "评分因素", "分值", "评分标准"], ["1", "实施方案", "30", _criteria("实施方案")],
               ["2", "售后服务", "20", _criteria("售后服务")]])
    path = tmp_path / "summary_price.docx"
    d.save(str(path))
    result = parse_scoring(load_tender(path))
    assert [(r.factor, r.points, r.category.value) for r in result.rows] == [
        ("投标报价", 30, "价格"), ("同类业绩", 12, "商务"), ("企业认证", 8, "商务"), ("实施方案", 30, "技术"),
        ("售后服务", 20, "技术")]
    assert any(c.rejected.startswith("汇总表") for c in result.candidates)


def test_analyze_says_the_lots_and_which_one_it_shows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from app.cli import main

    path, _ = build_any("lots_docx", tmp_path)
    assert main(["analyze", str(path)]) == 0
    assert "各包分别评分：A包（100 分，第1页）、B包（100 分，第1页）；以下为A包" in capsys.readouterr().out
    assert main(["analyze", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["scoring"]
    assert [lot["name"] for lot in data["lots"]] == ["A包", "B包"] and data["lot"] == "A包"

"""Calibrated confidence on generated tenders: a reading is confirmed only when independent checks agree.

Readings made wrong on purpose (a row dropped, points changed, the price row lost) must never
stay confirmed; a table the prose contradicts, a table whose only check is its own sum and a
"no table" that nothing explains are unconfirmed, with one Chinese sentence saying where to look.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from app.documents.loader import load_tender
from app.documents.model import TenderDocument
from app.documents.scoring.model import ScoreCategory, ScoringResult, ScoringTable
from app.documents.scoring.table import parse_scoring, settle
from tests.scoring_fixtures import _criteria, _doc, _table
from tests.scoring_fixtures_unseen import ALL_FIXTURES, build_any

CONFIRMED = ["three_tables", "form_subheader", "prose_price", "part_subtotal", "parts_as_factors", "lowest_price",
             "template", "negotiation"]


def _read(name: str, tmp_path: Path) -> tuple[TenderDocument, ScoringResult]:
    path, _ = build_any(name, tmp_path)
    doc = load_tender(path)
    return doc, parse_scoring(doc)


@pytest.mark.parametrize("name", CONFIRMED)
def test_right_readings_with_independent_checks_are_confirmed(tmp_path: Path, name: str) -> None:
    _, result = _read(name, tmp_path)
    assert result.confirmed, result.doubt_zh
    assert not result.doubt_zh and not any(r.doubt for r in result.rows)


def _drop_row(tables: list[ScoringTable]) -> None:
    table = next(t for t in tables if len(t.rows) > 1)
    table.rows.pop(len(table.rows) // 2)


def _more_points(tables: list[ScoringTable]) -> None:
    row = next(r for t in tables for r in t.rows if r.points)
    row.points = (row.points or 0) + 5


def _drop_price(tables: list[ScoringTable]) -> None:
    for t in tables:
        t.rows = [r for r in t.rows if r.category != ScoreCategory.PRICE]


def _criteria_as_name(tables: list[ScoringTable]) -> None:
    row = next(r for t in tables for r in t.rows if r.category == ScoreCategory.TECHNICAL)
    row.factor = "方案完整可行的得满分，基本可行的得一半分，未提供的不得分"


CORRUPTIONS: dict[str, Callable[[list[ScoringTable]], None]] = {
    "drop_row": _drop_row, "more_points": _more_points, "drop_price": _drop_price,
    "criteria_as_name": _criteria_as_name,
}


@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
@pytest.mark.parametrize("name", sorted(n for n in ALL_FIXTURES if n not in ("lowest_price", "template",
                                                                               "negotiation", "numbers_only")))
def test_a_reading_made_wrong_is_never_confirmed(tmp_path: Path, name: str, how: str) -> None:
    doc, result = _read(name, tmp_path)
    tables = [t.model_copy(deep=True) for t in result.tables]
    before = [(r.factor, r.points) for t in tables for r in t.rows]
    CORRUPTIONS[how](tables)
    if [(r.factor, r.points) for t in tables for r in t.rows] == before:
        pytest.skip("nothing to corrupt this way")
    wrong = settle(doc, tables, result.candidates)
    assert not wrong.confirmed, (how, [(r.factor, r.points, r.category.value) for r in wrong.rows])
    assert wrong.doubt_zh.startswith("评分表未能确认：") and "请核对" in wrong.doubt_zh


def test_prose_contradicting_the_table_is_an_issue_and_unconfirmed(tmp_path: Path) -> None:
    d = _doc("第三章 评审办法", "本项目满分100分，其中技术部分为60分、价格部分为40分。", "评分标准（100分）")
    _table(d, [["序号", "评分因素", "分值", "评分标准"], ["1", "实施方案", "45", _criteria("实施方案")],
               ["2", "运维保障", "40", _criteria("运维保障")], ["3", "投标报价", "15", "基准价法。"]])
    path = tmp_path / "contradiction.docx"
    d.save(str(path))
    result = parse_scoring(load_tender(path))
    assert result.found and result.points_by_category()["技术"] == 85
    assert not result.confirmed
    assert "正文规定技术部分 60 分" in result.doubt_zh and "85" in result.doubt_zh
    assert any("正文规定技术部分 60 分" in i for i in result.issues) and result.confidence < 1.0


def test_a_sum_alone_does_not_confirm(tmp_path: Path) -> None:
    d = _doc("第三章 评审办法", "评分如下。")
    _table(d, [["序号", "评分因素", "分值", "评分标准"], ["1", "实施方案", "50", _criteria("实施方案")],
               ["2", "运维保障", "20", _criteria("运维保障")], ["3", "投标报价", "30", "基准价法。"]])
    path = tmp_path / "sum_only.docx"
    d.save(str(path))
    result = parse_scoring(load_tender(path))
    assert result.found and result.total_points == 100 and not result.issues
    assert not result.confirmed and "没有标明的总分" in result.doubt_zh


def test_an_unexplained_absence_is_not_confirmed(tmp_path: Path) -> None:
    d = _doc("第三章 评审办法", "评审委员会对响应文件进行评审。", "评分因素包括方案、人员和业绩。")
    path = tmp_path / "unexplained.docx"
    d.save(str(path))
    result = parse_scoring(load_tender(path))
    assert not result.found and not result.confirmed
    assert result.doubt_zh.startswith("未能确认文件中没有评分表")


def test_doubtful_rows_are_marked(tmp_path: Path) -> None:
    d = _doc("第三章 评审办法", "评分标准（100分）")
    _table(d, [["序号", "评分因素", "分值", "评分标准"], ["1", "实施方案", "50", _criteria("实施方案")],
               ["2", "同类业绩", "20", "每个得5分。"], ["3", "投标报价", "30", "基准价法。"]])
    path = tmp_path / "guessed.docx"
    d.save(str(path))
    result = parse_scoring(load_tender(path))
    doubtful = {r.factor: r.doubt for r in result.rows if r.doubt}
    assert doubtful == {"同类业绩": "类别“商务”是按名称推断的"}
    assert not result.confirmed and "同类业绩" in result.doubt_zh


def test_a_part_that_adds_up_to_its_own_total_still_warns_when_not_100(tmp_path: Path) -> None:
    d = _doc("第三章 评审办法", "商务评审表（35分）")
    _table(d, [["序号", "评审因素", "分值", "评审标准"], ["1", "同类业绩", "20", "每个得5分。"],
               ["2", "资质证书", "15", "每项得5分。"]])
    path = tmp_path / "part_only.docx"
    d.save(str(path))
    result = parse_scoring(load_tender(path))
    assert result.found and result.total_points == 35
    assert any("不是 100 分" in i for i in result.issues) and "不是 100 分" in result.message_zh
    assert not result.confirmed


def test_a_stated_technical_weight_is_checked(tmp_path: Path) -> None:
    d = _doc("第三章 评审办法", "技术分权重为40%，价格分权重为60%。", "评审因素及权重（满分100分）")
    _table(d, [["序号", "评审因素", "权重", "评分标准"], ["1", "实施方案", "25%", _criteria("实施方案")],
               ["2", "运维保障", "15%", _criteria("运维保障")], ["3", "投标报价", "60%", "基准价法。"]])
    path = tmp_path / "weights_agree.docx"
    d.save(str(path))
    result = parse_scoring(load_tender(path))
    assert "正文规定技术部分权重 40%，与评分表一致" in result.checks_passed and result.confirmed
    d = _doc("第三章 评审办法", "技术分权重为50%，价格分权重为50%。", "评审因素及权重（满分100分）")
    _table(d, [["序号", "评审因素", "权重", "评分标准"], ["1", "实施方案", "25%", _criteria("实施方案")],
               ["2", "运维保障", "15%", _criteria("运维保障")], ["3", "投标报价", "60%", "基准价法。"]])
    path = tmp_path / "weights_disagree.docx"
    d.save(str(path))
    result = parse_scoring(load_tender(path))
    assert not result.confirmed and "正文规定技术部分权重 50%" in result.doubt_zh


def test_benchmark_calibration_table_counts_right_and_confirmed() -> None:
    from tests.eval.score_tables import Unit, Verdict, calibration

    right = Verdict(tender="a", has_table=True, units=[Unit("方案", 10, "技术", found="ok")], tech_label=10,
                    tech_found=10, confirmed=True)
    wrong = Verdict(tender="b", has_table=True, units=[Unit("方案", 10, "技术", found="分值 5")], confirmed=True)
    absent = Verdict(tender="c", has_table=False, reason_fits=True)
    assert calibration([right, wrong, absent]) == {(True, True): 1, (True, False): 1, (False, True): 1,
                                                    (False, False): 0}

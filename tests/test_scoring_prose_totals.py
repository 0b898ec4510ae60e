"""The totals the 评标办法 prose states choose between candidate schemes and hold back a confirmation
(issue 36 §2): the reading that explains ``价格分30分、商务部分20分、技术部分50分`` wins; one that leaves
a stated number unexplained is not confirmed; a number another lot's scheme explains is that lot's.

Generated DOCX tenders only (invented names and numbers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.documents.loader import load_tender
from app.documents.scoring.explain import Numbers, explain, stated_numbers
from app.documents.scoring.model import ScoreCategory, ScoringRow, ScoringTable
from app.documents.scoring.prose import PartStatement, part_statements
from app.documents.scoring.table import parse_scoring, select_lot
from tests.scoring_fixtures import _criteria, _doc, _table

HEAD = ["评分类别", "评分因素", "分值", "评分标准"]


def _scheme(price: int, record: int, plan: int, service: int) -> list[list[str]]:
    """A table grouped by a merged category column: 价格 / 商务 (业绩) / 技术 (two plans), and its 合计 row."""
    return [HEAD, ["价格部分", "投标报价", str(price), f"满足要求且报价最低的为基准价，价格分=基准价/报价×{price}。"],
            ["商务部分", "同类项目业绩", str(record), "每提供一个同类项目合同得2分，最多得满分。"],
            ["技术部分", "实施方案", str(plan), _criteria("实施方案")],
            ["", "运维服务方案", str(service), _criteria("运维服务方案")], ["合计", "", "100", ""]]


def _write(path: Path, paragraphs: list[str], *schemes: list[list[str]], titles: tuple[str, ...] = ()) -> Path:
    d = _doc("第三章 评标办法", *paragraphs)
    for i, rows in enumerate(schemes):
        d.add_paragraph(titles[i] if i < len(titles) else "评分标准")
        _table(d, rows, merges=((0, 3, 4),))
    d.add_paragraph("第四章 合同条款")
    d.save(str(path))
    return path


STATED = "本项目采用综合评分法，评标总分100分，其中价格分30分、商务部分20分、技术部分50分。"
EXPLAINS = _scheme(30, 20, 25, 25)  # 价格 30 / 商务 20 / 技术 50: what the sentence states
CONTRADICTS = _scheme(10, 30, 30, 30)  # 价格 10 / 商务 30 / 技术 60: adds up to 100 as well


@pytest.mark.parametrize("explaining_first", [True, False])
def test_the_scheme_that_explains_the_stated_parts_is_chosen(tmp_path: Path, explaining_first: bool) -> None:
    """Two tables that each add up to 100 under the same chapter: the prose decides, wherever it stands."""
    schemes = (EXPLAINS, CONTRADICTS) if explaining_first else (CONTRADICTS, EXPLAINS)
    path = _write(tmp_path / "two.docx", [STATED], *schemes, titles=("评分标准表（一）", "评分标准表（二）"))
    result = parse_scoring(load_tender(path))
    assert result.points_by_category() == {"价格": 30, "商务": 20, "技术": 50}
    assert "table" not in result.uncertain  # the other table explains none of the stated numbers
    assert any("正文规定各部分分值" in c for c in result.checks_passed)
    assert result.confirmed, result.doubt_zh
    assert len(result.options) == 2  # the other table stays one click away


def test_without_the_statement_two_alike_schemes_stay_a_question(tmp_path: Path) -> None:
    """The same two tables with no stated parts: code cannot choose for certain."""
    path = _write(tmp_path / "two.docx", ["本项目采用综合评分法。"], CONTRADICTS, EXPLAINS,
                  titles=("评分标准表（一）", "评分标准表（二）"))
    result = parse_scoring(load_tender(path))
    assert "table" in result.uncertain and not result.confirmed


def test_a_stated_number_left_unexplained_holds_back_the_confirmation(tmp_path: Path) -> None:
    """One table grouped and adding up to 100, but the prose gives the price part another number."""
    plain = parse_scoring(load_tender(_write(tmp_path / "plain.docx", ["本项目采用综合评分法。"], CONTRADICTS)))
    assert plain.confirmed, plain.doubt_zh  # the table alone would be confirmed
    said = _write(tmp_path / "said.docx", ["本项目采用综合评分法，评标总分为100分，其中价格分为30分。"], CONTRADICTS)
    result = parse_scoring(load_tender(said))
    assert not result.confirmed
    assert "正文规定价格部分 30 分" in result.doubt_zh and "第1页" in result.doubt_zh


def test_a_stated_number_another_lot_explains_is_that_lots(tmp_path: Path) -> None:
    """Lots scored apart, the prose states lot B's parts: lot A is not held back by them, lot B is checked by them."""
    d = _doc("第三章 评标办法", "本项目采用综合评分法，各包分别评标。",
             "B包评分：价格部分30分，技术部分56分，商务部分14分。", "A包：")
    _table(d, _scheme(30, 20, 25, 25), merges=((0, 3, 4),))
    d.add_paragraph("B包：")
    _table(d, _scheme(30, 14, 28, 28), merges=((0, 3, 4),))
    d.add_paragraph("第四章 合同条款")
    d.save(str(tmp_path / "lots.docx"))
    doc = load_tender(tmp_path / "lots.docx")
    result = parse_scoring(doc)
    assert [lot.name for lot in result.lots] == ["A包", "B包"]
    assert result.confirmed, result.doubt_zh
    other = select_lot(doc, result, 1)
    assert other.confirmed, other.doubt_zh
    assert any("正文规定各部分分值" in c for c in other.checks_passed)
    assert not any("正文规定" in c for c in result.checks_passed)


def table_of(rows: list[tuple[str, float, ScoreCategory, str]]) -> ScoringTable:
    """A table whose rows already carry their categories (as a settled reading's do)."""
    return ScoringTable(table_ids=["t"], pages=[1], rows=[
        ScoringRow(factor=name, points=points, category=cat, category_source="group" if group else "user",
                   group=group, table_id="t", pages=[1]) for name, points, cat, group in rows])


def test_what_explains_a_number() -> None:
    """A category's points, a group's total, the price the prose adds, a 商务标 that is only the price."""
    def numbers(*parts: tuple[ScoreCategory, float], lead: bool = False) -> Numbers:
        return Numbers(firm=() if lead else tuple(PartStatement(c, v, c.value, 1) for c, v in parts),
                       headings=tuple(PartStatement(c, v, c.value, 1, lead=True) for c, v in parts) if lead else ())

    tech = ScoreCategory.TECHNICAL
    scheme = [table_of([("实施方案", 40, tech, "技术部分"), ("运维方案", 30, tech, "技术部分"),
                        ("同类业绩", 30, ScoreCategory.COMMERCIAL, "商务部分")])]
    assert explain(scheme, numbers((tech, 70))).explained
    assert explain(scheme, numbers((tech, 40))).unexplained  # a row's points are no part's total
    assert explain(scheme, numbers((tech, 55))).unexplained
    assert explain(scheme, numbers((ScoreCategory.PRICE, 0.5))).unexplained
    assert explain(scheme, numbers((tech, 40), lead=True)).headings == 0  # a heading's number is its part's
    assert explain(scheme, numbers((tech, 70), lead=True)).headings == 1
    without_price = [table_of([("实施方案", 70, tech, ""), ("同类业绩", 10, ScoreCategory.COMMERCIAL, "")])]
    assert explain(without_price, numbers((ScoreCategory.PRICE, 20))).explained  # the prose's own price row
    price_only = [table_of([("实施方案", 40, tech, ""), ("投标报价", 60, ScoreCategory.PRICE, "")])]
    assert explain(price_only, numbers((ScoreCategory.COMMERCIAL, 60))).explained  # 商务标 (60分) = the price


def test_statements_of_a_chapter_are_read_once_each(tmp_path: Path) -> None:
    """Firm statements (a breakdown sentence) and headings (a part named alone) are told apart, one per number."""
    path = _write(tmp_path / "s.docx", [STATED, "一、技术部分（50分）", "二、价格分（30分）"], EXPLAINS)
    numbers = stated_numbers(part_statements(load_tender(path)))
    assert sorted((s.category.value, s.points) for s in numbers.firm) == [("价格", 30), ("商务", 20), ("技术", 50)]
    assert numbers.headings == ()  # the headings repeat the sentence's numbers

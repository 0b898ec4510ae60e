"""The deterministic scoring-table parser on generated documents and hand-built grids."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.documents.loader import load_tender
from app.documents.model import DiagnosticCode, Table, TenderDocument
from app.documents.scoring.model import ScoreCategory
from app.documents.scoring.table import parse_points, parse_scoring, scoring_diagnostics
from tests.document_fixtures import SAMPLE_PDF, merged_docx, sample_module, split_table_pdf


def _doc(*tables: Table) -> TenderDocument:
    return TenderDocument(source_path="mem", kind="docx", tables=list(tables))


@pytest.mark.parametrize("repeat_header", [False, True])
def test_table_split_across_two_pdf_pages_is_joined(tmp_path: Path, repeat_header: bool) -> None:
    doc = load_tender(split_table_pdf(tmp_path / "split.pdf", repeat_header=repeat_header))
    result = parse_scoring(doc)
    tech = next(t for t in result.tables if t.category == ScoreCategory.TECHNICAL)
    assert tech.pages == [1, 2] and len(tech.table_ids) == 2
    assert [r.factor for r in tech.rows] == ["系统总体设计方案", "数据迁移方案", "安全保障方案", "运维服务方案",
                                            "培训与交付计划", "项目进度计划"]
    assert tech.stated_total == 60 and tech.points_sum == 60
    assert all(r.category == ScoreCategory.TECHNICAL and r.category_source == "caption" for r in tech.rows)
    assert result.total_points == 100 and not result.issues and result.confidence >= 0.9


def test_bundled_sample_tender_parses_and_matches_its_generator() -> None:
    module = sample_module()
    result = parse_scoring(load_tender(SAMPLE_PDF))
    by_cat = result.points_by_category()
    assert by_cat == {"商务": 20, "技术": 60, "价格": 20}
    expected = [(row[1], float(row[3])) for row in module.TECHNICAL[1:]]
    assert [(r.factor, r.points) for r in result.technical_rows] == expected
    tech = next(t for t in result.tables if t.category == ScoreCategory.TECHNICAL)
    assert len(tech.pages) == 2  # the sample's technical table crosses a page break
    assert "平台功能实现方案" in [r.factor for r in tech.rows]  # wrapped in its narrow cell


def test_merged_docx_cells_fold_into_one_factor(tmp_path: Path) -> None:
    result = parse_scoring(load_tender(merged_docx(tmp_path / "m.docx")))
    assert result.found and not result.issues
    rows = {r.factor: r for r in result.rows}
    assert list(rows) == ["服务方案", "人员配备", "培训方案", "企业业绩", "报价"]
    plan = rows["服务方案"]
    assert [i.points for i in plan.items] == [15, 5, 10] and plan.points == 30 == plan.stated_points
    assert "应急预案" in plan.criteria and "（5分）" in plan.criteria
    assert rows["人员配备"].points == 20
    assert rows["报价"].category == ScoreCategory.PRICE
    assert result.tables[0].stated_total == 100  # from the header "评审要求（100分）"
    assert result.tables[0].notes == ["说明：评分保留两位小数。"]


def test_header_variants_category_column_and_subtotals() -> None:
    rows: list[list[str | None]] = [
        ["条款号", None, "评分因素", "评分标准"],
        ["2.2.4(1)", "商务评分标准\n20分", "企业业绩（12分）", "每项得2分"],
        [None, None, "财务状况（8分）", "良好得8分"],
        ["2.2.4(2)", "技术评分标准\n50分", "设备整体\n评价（30分）", "先进得30分"],
        [None, None, "售后服务（15分）", "完善得15分"],
        ["2.2.4(3)", "投标报价评分标准\n30分", "投标总价（30分）", "基准价得满分"],
    ]
    result = parse_scoring(_doc(Table(id="t1", page=5, rows=rows)))
    cats = [(r.factor, r.category.value, r.category_source, r.points) for r in result.rows]
    assert cats == [
        ("企业业绩", "商务", "column", 12), ("财务状况", "商务", "column", 8),
        ("设备整体评价", "技术", "column", 30), ("售后服务", "技术", "column", 15),
        ("投标总价", "价格", "column", 30),
    ]
    assert result.total_points == 95
    assert any("技术评分标准50分" in m and "45" in m for m in result.issues)  # 30 + 15 ≠ 50
    assert any("95" in m and "100" in m for m in result.issues)
    assert result.confidence < 0.9
    diags = scoring_diagnostics(result)
    assert len(diags) == len(result.issues) and all(d.code == DiagnosticCode.SCORING_MISMATCH for d in diags)
    assert diags[0].pages == [5]


def test_weights_in_factor_names_and_points_column() -> None:
    rows: list[list[str | None]] = [
        ["序号", "评审因素及权重", "分值", "评分标准", "说明"],
        ["1", "报价\n（30%）", "30分", "最低价为基准价", "客观评分项"],
        ["2", "服务方案（50%）", "50分", "方案完整", "主观评分项"],
        ["3", "履约经验（20%）", "0～20分", "每个得5分", "客观评分项"],
    ]
    result = parse_scoring(_doc(Table(id="t1", page=1, rows=rows)))
    assert [(r.factor, r.points, r.note) for r in result.rows] == [
        ("报价", 30, "客观评分项"), ("服务方案", 50, "主观评分项"), ("履约经验", 20, "客观评分项")
    ]
    assert result.rows[0].category == ScoreCategory.PRICE and result.total_points == 100


def test_page_split_row_continues_the_previous_criteria() -> None:
    header: list[str | None] = ["序号", "评分项", "评审细则", "分值"]
    first = Table(id="a", page=7, bbox=(80, 100, 510, 800), ends_page=True,
                  caption="附表2：技术评分细则表（20分）",
                  rows=[header, ["1", "冷藏库仓储\n能力", "根据仓储能力评审：\n1.500立方米以上得8分；", "8"]])
    second = Table(id="b", page=8, bbox=(80, 70, 510, 400), starts_page=True,
                   rows=[["", "", "2.不提供的不得分。", ""], ["2", "应急方案", "合理的得12分", "12"]])
    result = parse_scoring(_doc(first, second))
    assert [(r.factor, r.points, r.pages) for r in result.rows] == [("冷藏库仓储能力", 8, [7, 8]), ("应急方案", 12, [8])]
    assert result.rows[0].criteria.endswith("2.不提供的不得分。")
    assert result.tables[0].label == "技术评分细则表（20分）"


def test_tables_without_points_or_scoring_header_are_ignored() -> None:
    formal: list[list[str | None]] = [["条款号", "评审因素", "评审标准"], ["2.1.1", "投标人名称", "与营业执照一致"],
                                       [None, "投标函签字盖章", "有法定代表人签字"]]
    staff: list[list[str | None]] = [["序号", "姓名", "职称"], ["1", "张三", "工程师"]]
    result = parse_scoring(_doc(Table(id="t1", page=3, rows=formal), Table(id="t2", page=4, rows=staff)))
    assert not result.found and result.confidence == 0
    assert "未找到评分表" in result.message_zh
    assert [d.code for d in scoring_diagnostics(result)] == [DiagnosticCode.NO_SCORING_TABLE]


@pytest.mark.parametrize(("text", "points"), [("30分", 30), ("10", 10), ("0～5分", 5), ("0.5", 0.5), ("/", None),
                                              ("---", None), ("分 值", None)])
def test_parse_points(text: str, points: float | None) -> None:
    assert parse_points(text) == points


def test_total_row_is_a_check_not_a_factor_and_merged_label_is_the_factor() -> None:
    rows: list[list[str | None]] = [
        ["序号", "类别", "评分因素", "评分标准", "分值"],
        ["1", "技术部分", "实施方案", "方案完整得40分", "40"],
        [None, None, "质量保证", "措施具体得20分", "20"],
        ["2", "价格部分", None, "最低价得满分", "40"],  # category cell merged over the factor cell
        ["合计", None, None, None, "100"],
    ]
    result = parse_scoring(_doc(Table(id="t1", page=2, rows=rows)))
    assert [(r.factor, r.points, r.category.value) for r in result.rows] == [
        ("实施方案", 40, "技术"), ("质量保证", 20, "技术"), ("价格部分", 40, "价格")
    ]
    assert result.tables[0].stated_total == 100 and result.total_points == 100 and not result.issues


@pytest.mark.parametrize(("caption", "decoy"), [
    ("附件1：甲方对乙方服务质量评价标准", True),  # the buyer rating the contractor's service (a contract annex)
    ("物业服务满意度测评表", True),
    ("采购人对供应商履约评价表", True),
    ("第四章 评标办法 评分标准", False),
    ("服务方案评审细则（60分）", False),
    ("技术评分表（服务质量、售后服务）", False),
])
def test_service_evaluation_tables_are_decoys(caption: str, decoy: bool) -> None:
    from app.documents.scoring.model import ScoringTable
    from app.documents.scoring.select import decoy_reason

    reason = decoy_reason(ScoringTable(table_ids=["t1"], pages=[1], caption=caption, header=["评分项", "分值"]))
    assert bool(reason) is decoy, reason
    if decoy:
        assert "履约" in reason


def test_a_response_index_whose_only_other_column_is_the_page_is_never_the_scheme() -> None:
    """A 评分索引表 repeats the items with their points in the names and asks for the bid's page; its header
    has one scoring word and a page column, and the real table below it has no header at all."""
    index = Table(id="t1", page=1, caption="附件5（加盖公章）", rows=[
        ["评分细则", None, "对应投标文件页码"],
        ["类似业绩（25分）", "每提供一个同类业绩合同得5分，最高25分。", ""],
        ["服务方案（45分）", "方案完整、针对性强的得45分，较完整的得30分，一般的得15分。", ""],
        ["应急预案（30分）", "预案完善可行的得30分，较完善的得20分，一般的得10分。", ""],
    ])
    scheme = Table(id="t2", page=2, caption="第四章 评标办法 评分细则", rows=[
        ["类似业绩（25分）", "每提供一个同类业绩合同得5分，最高25分。"],
        ["服务方案（40分）", "方案完整、针对性强的得40分，较完整的得30分，一般的得15分。"],
        ["应急预案（35分）", "预案完善可行的得35分，较完善的得20分，一般的得10分。"],
    ])
    result = parse_scoring(_doc(index, scheme))
    chosen = [(r.factor, r.points) for t in result.tables for r in t.rows]
    assert chosen == [("类似业绩", 25), ("服务方案", 40), ("应急预案", 35)], result.message_zh
    rejected = [c for c in result.candidates if c.table_ids == ["t1"]]
    assert rejected and "索引" in rejected[0].rejected


def test_a_name_with_an_unpaired_bracket_is_not_confirmed() -> None:
    """A name that closes a bracket it never opened ("进行评价）") is the end of a name cut by a page break
    that was not joined: the reading adds up, but it is not confirmed and the row says why."""
    rows = [
        ["序号", "评审因素", "评分标准", "分值"],
        ["1", "服务方案（根据方案评价）", "方案完整、针对性强的得40分，较完整的得30分，一般的得15分。", "40"],
        ["2", "进行评价）", "措施完善可行的得30分，较完善的得20分，一般的得10分。", "30"],
        ["3", "报价", "价格分=评标基准价/投标报价×30", "30"],
    ]
    result = parse_scoring(_doc(Table(id="t1", page=1, caption="第四章 评标办法 评分标准", rows=rows)))
    assert [r.points for r in result.rows] == [40, 30, 30]
    assert not result.confirmed
    doubts = {r.factor: r.doubt for r in result.rows}
    assert "括号" in doubts["进行评价）"] and "括号" not in doubts["服务方案（根据方案评价）"]

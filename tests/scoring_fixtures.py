"""Small generated tenders, one per hard scoring-table pattern, each with what a parser must read.

Written for this project (header words, names and layouts differ on purpose from the
real tenders in ../shared) so that a bare checkout exercises every pattern the parser
claims to handle: split tables, a merged category label over rows named in the criteria,
points only in names, ranges, subtotal rows, nameless sub-rows, look-alike tables,
a paragraph scheme, a PDF table crossing pages without a header, a scoring block inside
a form table, the lowest-price method and a template without points.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import docx

from tests.document_fixtures import composer

Row = tuple[str, float, str]  # (factor name, points, category 技术/商务/价格/其他)


@dataclass
class Expect:
    """What a parser must find in one fixture."""

    rows: list[Row] = field(default_factory=list)
    absence: str = ""  # when no scheme: lowest_price, template, …
    kind: str = "table"
    rejected: list[str] = field(default_factory=list)  # words of the decoys' reasons
    sub_points: dict[str, list[float]] = field(default_factory=dict)  # factor -> its sub-items' points

    @property
    def technical(self) -> float:
        """The technical subtotal."""
        return sum(p for _, p, c in self.rows if c == "技术")


def _doc(*paragraphs: str) -> Any:
    d = docx.Document()
    for p in paragraphs:
        d.add_paragraph(p)
    return d


def _table(d: Any, rows: list[list[str]], merges: tuple[tuple[int, int, int], ...] = (),
           spans: tuple[tuple[int, int, int], ...] = ()) -> None:
    """A grid table; ``merges`` (col, first row, last row) vertical, ``spans`` (row, first col, last col)."""
    width = max(len(r) for r in rows)
    table = d.add_table(rows=len(rows), cols=width)
    table.style = "Table Grid"
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            if text:
                table.cell(i, j).text = text
    for col, first, last in merges:
        table.cell(first, col).merge(table.cell(last, col))
    for row_i, first, last in spans:
        table.cell(row_i, first).merge(table.cell(row_i, last))


def _criteria(topic: str) -> str:
    return f"对{topic}进行评审：内容完整、措施具体、针对性强的得满分；基本完整的得一半；缺项的酌情扣分，未提供的不得分。"


def split_docx(path: Path) -> Expect:
    """One logical table split into three DOCX tables (header only in the first), ranges, stray spaces."""
    d = _doc("第三章 评审办法", "本项目采用综合评分法。", "包1 评审细则如下：")
    _table(d, [["评审要素", "分值范围", "评审细则"],
               ["投标报价", "0-10分", "满足要求的最低报价为基准价，价格分=基准价/投标报价×10。"],
               ["实施方案 设计", "0～20", _criteria("实施方案")]])
    _table(d, [["", "", "方案中对关键节点的安排另行评议。"],
               ["设备 保障措施", "0~15", _criteria("设备保障")],
               ["驻场人员安排", "0~25", _criteria("驻场人员")]])
    _table(d, [["", "", "人员须提供社保证明。"],
               ["同类项目经验", "0~10", "近三年每个同类项目得2分，最多10分。"],
               ["应急响应", "0~20", _criteria("应急响应")]])
    d.add_paragraph("第四章 合同条款")
    d.save(str(path))
    return Expect(rows=[("投标报价", 10, "价格"), ("实施方案设计", 20, "技术"), ("设备保障措施", 15, "技术"),
                        ("驻场人员安排", 25, "技术"), ("同类项目经验", 10, "商务"), ("应急响应", 20, "技术")])


def merged_category_docx(path: Path) -> Expect:
    """A category label merged over rows whose names sit in the criteria column ("运维方案：…")."""
    d = _doc("第五章 评标方法和标准", "评分标准（总分100分）")
    _table(d, [["评分要素", "评分内容", "分值"],
               ["技术部分（60分）", "运维方案：" + _criteria("运维方案"), "30"],
               ["", "故障处理流程：" + _criteria("故障处理流程"), "20"],
               ["", "巡检计划：" + _criteria("巡检计划"), "10"],
               ["商务部分（25分）", "类似业绩：近三年每个类似项目得5分，最高15分。", "15"],
               ["", "资质证书：具有相关体系认证的每个得5分，最高10分。", "10"],
               ["价格部分（15分）", "投标报价：最低有效报价得满分，其余按比例计算。", "15"]],
           merges=((0, 1, 3), (0, 4, 5)))
    d.save(str(path))
    return Expect(rows=[("运维方案", 30, "技术"), ("故障处理流程", 20, "技术"), ("巡检计划", 10, "技术"),
                        ("类似业绩", 15, "商务"), ("资质证书", 10, "商务"), ("投标报价", 15, "价格")])


def points_in_name_docx(path: Path) -> Expect:
    """No points column: points only in the names, as percentages and as （N分）."""
    d = _doc("第四章 评标办法", "详细评审标准")
    _table(d, [["评审项目", "评审标准"],
               ["报价（30%）", "以满足要求的最低报价为基准，按比例得分。"],
               ["服务方案（40%）", _criteria("服务方案")],
               ["项目团队（20分）", _criteria("项目团队")],
               ["企业资信（10分）", "具有有效的质量管理体系认证得5分，信用评价A级得5分。"]])
    d.save(str(path))
    return Expect(rows=[("报价", 30, "价格"), ("服务方案", 40, "技术"), ("项目团队", 20, "技术"),
                        ("企业资信", 10, "商务")])


def subtotal_rows_docx(path: Path) -> Expect:
    """Full-width group rows with subtotals, 小计 rows and a 合计 row; "其他" group."""
    d = _doc("第三章 评标办法", "综合评分明细表")
    rows = [["序号", "评分因素", "分值", "评分标准"],
            ["一、技术评分（50分）", "", "", ""],
            ["1", "总体设计", "20", _criteria("总体设计")],
            ["2", "质量控制", "18", _criteria("质量控制")],
            ["3", "进度安排", "12", _criteria("进度安排")],
            ["小计", "", "50", ""],
            ["二、商务评分（20分）", "", "", ""],
            ["4", "业绩", "12", "每个同类业绩得3分。"],
            ["5", "信用记录", "8", "无不良记录得8分。"],
            ["三、报价评分（25分）", "", "", ""],
            ["6", "投标报价", "25", "低价优先法。"],
            ["四、节能环保（5分）", "", "", ""],
            ["7", "节能产品", "5", "提供节能产品认证的得5分。"],
            ["合计", "", "100", ""]]
    _table(d, rows, spans=((1, 0, 3), (6, 0, 3), (9, 0, 3), (11, 0, 3)))
    d.save(str(path))
    return Expect(rows=[("总体设计", 20, "技术"), ("质量控制", 18, "技术"), ("进度安排", 12, "技术"),
                        ("业绩", 12, "商务"), ("信用记录", 8, "商务"), ("投标报价", 25, "价格"),
                        ("节能产品", 5, "其他")])


def nameless_subrows_docx(path: Path) -> Expect:
    """A factor merged over sub-rows that have their own points but no names."""
    d = _doc("第六章 评审方法", "评审因素及标准（满分100分）")
    _table(d, [["序号", "评审因素", "评审标准", "分值"],
               ["1", "项目实施方案", "1.总体思路清晰的得8分。", "8"],
               ["", "", "2.实施步骤合理的得7分。", "7"],
               ["", "", "3.风险控制措施有效的得5分。", "5"],
               ["2", "人员配置", "1.项目负责人具有高级职称的得6分。", "6"],
               ["", "", "2.技术人员持证上岗的得9分。", "9"],
               ["3", "售后服务", _criteria("售后服务"), "15"],
               ["4", "履约能力", "近三年承担过同类项目的每个得4分，最高20分。", "20"],
               ["5", "价格", "最低报价得满分。", "30"]],
           merges=((0, 1, 3), (1, 1, 3), (0, 4, 5), (1, 4, 5)))
    d.save(str(path))
    return Expect(rows=[("项目实施方案", 20, "技术"), ("人员配置", 15, "技术"), ("售后服务", 15, "技术"),
                        ("履约能力", 20, "商务"), ("价格", 30, "价格")],
                  sub_points={"项目实施方案": [8, 7, 5], "人员配置": [6, 9]})


def merge_cut_docx(path: Path) -> Expect:
    """A factor merged over sub-rows, its table cut into two Word tables inside the merge: the lower
    table's first rows continue a vertical merge that starts in the table above (no header repeated)."""
    from docx.oxml.ns import qn

    d = _doc("第三章 评审方法", "评审因素及标准（满分100分）")
    _table(d, [["序号", "评审因素", "评审标准", "分值"],
               ["1", "服务实施方案", _criteria("服务实施方案"), "25"],
               ["2", "人员配置", "1.项目负责人具有高级职称的得6分。", "6"],
               ["", "", "2.技术人员持证上岗的得9分。", "9"],
               ["", "", "3.人员稳定措施得当的得5分。", "5"],
               ["3", "同类业绩", "近三年每个同类项目得5分，最高15分。", "15"],
               ["4", "投标报价", "最低报价得满分。", "40"]],
           merges=((0, 2, 4), (1, 2, 4)))
    upper = d.tables[0]._tbl
    lower = copy.deepcopy(upper)
    for tr in lower.findall(qn("w:tr")):
        lower.remove(tr)
    for tr in upper.findall(qn("w:tr"))[3:]:  # cut after the merge's first sub-row
        upper.remove(tr)
        lower.append(tr)
    gap = upper.makeelement(qn("w:p"), {})
    upper.addnext(gap)
    gap.addnext(lower)
    d.save(str(path))
    return Expect(rows=[("服务实施方案", 25, "技术"), ("人员配置", 20, "技术"), ("同类业绩", 15, "商务"),
                        ("投标报价", 40, "价格")],
                  sub_points={"人员配置": [6, 9, 5]})


def part_headings_docx(path: Path) -> Expect:
    """Part rows across the table (商务部分, 技术部分) with unnumbered headings inside them ("售后服务：")
    over point rows named in the criteria: the rows under a heading belong to the part above it."""
    d = _doc("第四章 评标办法", "评分细则（满分100分）")
    _table(d, [["评审内容及标准", "分值"],
               ["商务部分", ""],
               ["质保期限：质保期满足要求的得2分，每延长一年加1分，最高4分。", "4分"],
               ["售后服务：", ""],
               ["服务方案：" + _criteria("售后服务方案"), "6分"],
               ["备件储备：" + _criteria("备品备件储备"), "5分"],
               ["技术部分", ""],
               ["参数响应：完全满足的得35分，每负偏离一项扣2分。", "35分"],
               ["培训安排：", ""],
               ["操作培训：" + _criteria("操作培训"), "10分"],
               ["维修培训：" + _criteria("维修培训"), "10分"],
               ["价格部分：价格分=评标基准价/投标报价×30", "30分"]],
           spans=((1, 0, 1), (3, 0, 1), (6, 0, 1), (8, 0, 1)))
    d.save(str(path))
    return Expect(rows=[("质保期限", 4, "商务"), ("服务方案", 6, "商务"), ("备件储备", 5, "商务"),
                        ("参数响应", 35, "技术"), ("操作培训", 10, "技术"), ("维修培训", 10, "技术"),
                        ("价格部分", 30, "价格")])


def cn_numbers_docx(path: Path) -> Expect:
    """Factors counted in Chinese numerals, the first of them the price ("一 | 报价 | 30"): a numeral
    that numbers parts elsewhere numbers siblings here, so the price opens no part over the rest."""
    d = _doc("第三章 评审办法", "综合评分明细（满分100分）")
    _table(d, [["序号", "评审因素", "分值", "评分标准"],
               ["一", "报价", "30", "满足要求的最低报价为基准价，价格分=基准价/投标报价×30。"],
               ["二", "服务方案", "40", _criteria("服务方案")],
               ["三", "应急保障措施", "18", _criteria("应急保障措施")],
               ["四", "履约经验", "12", "近三年每个同类项目得3分，最多得12分。"]])
    d.save(str(path))
    return Expect(rows=[("报价", 30, "价格"), ("服务方案", 40, "技术"), ("应急保障措施", 18, "技术"),
                        ("履约经验", 12, "商务")])


def decoys_docx(path: Path) -> Expect:
    """Look-alikes before and after the scoring table: 考核细则, 符合性审查, 响应索引, 自评表."""
    d = _doc("第二章 服务需求", "服务质量月度考核细则")
    _table(d, [["考核内容", "分值", "考核标准"], ["保洁质量", "40", "每发现一处不合格扣2分。"],
               ["安全管理", "30", "发生事故扣10分。"], ["服务态度", "30", "有效投诉每次扣5分。"]])
    d.add_paragraph("第三章 评标办法")
    d.add_paragraph("符合性审查表")
    _table(d, [["序号", "审查项目", "审查结论"], ["1", "投标函签字盖章", "合格/不合格"],
               ["2", "投标有效期", "合格/不合格"]])
    d.add_paragraph("评分细则")
    _table(d, [["序号", "评分项", "评分说明", "满分"],
               ["1", "保洁作业方案", _criteria("保洁作业方案"), "35"],
               ["2", "人员培训计划", _criteria("人员培训计划"), "15"],
               ["3", "应急处置预案", _criteria("应急处置预案"), "10"],
               ["4", "企业荣誉", "获得市级以上荣誉的每项得2分，最高10分。", "10"],
               ["5", "报价得分", "低价优先法，最低报价得满分。", "30"]])
    d.add_paragraph("第六章 投标文件格式")
    d.add_paragraph("附件：评分响应索引表")
    _table(d, [["序号", "评分项", "分值", "对应投标文件页码"], ["1", "保洁作业方案", "35", ""],
               ["2", "人员培训计划", "15", ""], ["3", "应急处置预案", "10", ""], ["4", "企业荣誉", "10", ""],
               ["5", "报价得分", "30", ""]])
    d.add_paragraph("投标人自评表")
    _table(d, [["评分项", "满分", "自评得分"], ["保洁作业方案", "35", ""], ["人员培训计划", "15", ""],
               ["应急处置预案", "10", ""], ["企业荣誉", "10", ""], ["报价得分", "30", ""]])
    d.save(str(path))
    return Expect(rows=[("保洁作业方案", 35, "技术"), ("人员培训计划", 15, "技术"), ("应急处置预案", 10, "技术"),
                        ("企业荣誉", 10, "商务"), ("报价得分", 30, "价格")],
                  rejected=["考核", "索引", "自评"])


def paragraph_docx(path: Path) -> Expect:
    """A scheme written as paragraphs: "（一）…（N分）" sections and "1、…（N分）：" items."""
    d = _doc("第三章 评分办法（总分100分）",
             "（一）价格分（20分）",
             "以最低有效报价为基准价，价格分=基准价/报价×20。",
             "（二）技术分（50分）",
             "1、总体方案（20分）：方案完整、可行的得20分；",
             "2、技术措施（18分）：措施具体的得18分；",
             "3、服务承诺（12分）：承诺明确的得12分。",
             "（三）商务分（30分）",
             "1、类似业绩（20分）：每个得5分；",
             "2、企业信誉（10分）：无不良记录得10分。",
             "第四章 合同条款")
    d.save(str(path))
    return Expect(kind="paragraphs",
                  rows=[("价格分", 20, "价格"), ("总体方案", 20, "技术"), ("技术措施", 18, "技术"),
                        ("服务承诺", 12, "技术"), ("类似业绩", 20, "商务"), ("企业信誉", 10, "商务")])


def crossing_pdf(path: Path) -> Expect:
    """A PDF table crossing a page break without a repeated header; a criteria cell split by the break."""
    c = composer()
    c.heading("第四章 评标办法")
    c.text("本项目采用综合评分法，满分100分。")
    c.space_to(600)
    c.heading("评分标准", size=11)
    long = _criteria("技术方案") * 3
    rows = [["评分项目", "分值区间", "评分办法"],
            ["价格分", "0~10", "价格分=评标基准价/投标报价×10。"],
            ["技术方案", "0~30", long],
            ["服务保障", "0~20", _criteria("服务保障")],
            ["团队配置", "0~20", _criteria("团队配置")],
            ["质量承诺", "0~10", _criteria("质量承诺")],
            ["业绩", "0~10", "每个同类业绩得2分，最多10分。"]]
    first, last = c.table([110, 60, 305], rows)
    assert last > first, (first, last)
    c.save(path)
    return Expect(rows=[("价格分", 10, "价格"), ("技术方案", 30, "技术"), ("服务保障", 20, "技术"),
                        ("团队配置", 20, "技术"), ("质量承诺", 10, "技术"), ("业绩", 10, "商务")])


def form_block_docx(path: Path) -> Expect:
    """A scoring block inside a large form table, points only in names, weights making it the 技术标."""
    d = _doc("第二章 投标人须知", "评标办法前附表")
    _table(d, [["资格审查", "营业执照、资质证书有效。", ""],
               ["评标方法", "综合评分法，综合得分=技术得分×60%+商务得分×40%。商务得分即价格分。", ""],
               ["技术评审（满分100分）", "", ""],
               ["技术评审", "运营方案（40分）", "方案完整可行的得40分，基本可行的得20分。"],
               ["", "人员配置（30分）", "人员配备充足、资质齐全的得30分。"],
               ["", "企业认证（30分）", "具有三项体系认证的得30分，每缺一项扣10分。"],
               ["价格分计算", "价格分=(1-|1-评标价/基准价|)×100。", ""],
               ["中标候选人", "按综合得分由高到低排序。", ""]],
           merges=((0, 3, 5),), spans=((2, 0, 2),))
    d.save(str(path))
    return Expect(rows=[("运营方案", 40, "技术"), ("人员配置", 30, "技术"), ("企业认证", 30, "技术")])


def lowest_price_docx(path: Path) -> Expect:
    """经评审的最低投标价法 with pass/fail review tables that look like scoring tables."""
    d = _doc("第三章 评标办法", "本项目采用经评审的最低投标价法。", "详细评审表")
    _table(d, [["序号", "评审因素", "评审标准"], ["1", "技术响应", "满足采购需求，否则否决投标。"],
               ["2", "交货期", "满足要求，否则否决投标。"]])
    d.save(str(path))
    return Expect(absence="lowest_price")


def template_docx(path: Path) -> Expect:
    """A model tender whose scoring table lists factors with "……" and no points."""
    d = _doc("第三章 评标办法（综合评估法）", "评分标准")
    _table(d, [["条款号", "评分因素", "评分标准"], ["2.2.4(1)", "类似项目业绩", "……"],
               ["", "项目负责人资历", "……"], ["2.2.4(2)", "设计方案", "……"], ["", "……", "……"]])
    d.save(str(path))
    return Expect(absence="template")


def three_tables_docx(path: Path) -> Expect:
    """商务 / 服务 / 价格 tables, the technical one called 服务, staffing filed under 商务."""
    d = _doc("第四章 评审办法", "附表A：商务评审表（35分）")
    _table(d, [["序号", "评审项", "评审细则", "分值"], ["1", "同类业绩", "每个得5分，最高15分。", "15"],
               ["2", "项目负责人", "具有高级职称的得10分。", "10"], ["3", "体系认证", "每项认证得2.5分。", "10"]])
    d.add_paragraph("附表B：服务评审表（45分）")
    _table(d, [["序号", "评审项", "评审细则", "分值"], ["1", "服务流程", _criteria("服务流程"), "25"],
               ["2", "质量保障", _criteria("质量保障"), "20"]])
    d.add_paragraph("附表C：价格评审表（20分）")
    _table(d, [["评审项", "评审细则", "分值"], ["价格", "低价优先法计算。", "20"]])
    d.save(str(path))
    return Expect(rows=[("同类业绩", 15, "商务"), ("项目负责人", 10, "商务"), ("体系认证", 10, "商务"),
                        ("服务流程", 25, "技术"), ("质量保障", 20, "技术"), ("价格", 20, "价格")])


def names_in_points_docx(path: Path) -> Expect:
    """A merged category column; each row's name and points sit together in the 分值 column."""
    d = _doc("第三章 评标办法", "评分标准")
    _table(d, [["评分类别", "分值", "评分标准"],
               ["技术部分（60分）", "运维方案（30分）", _criteria("运维方案")],
               ["", "巡检计划（30分）", _criteria("巡检计划")],
               ["商务部分（20分）", "类似业绩（20分）", "每个类似项目得5分。"],
               ["价格部分（20分）", "投标报价（20分）", "最低报价得满分。"]],
           merges=((0, 1, 2),))
    d.save(str(path))
    return Expect(rows=[("运维方案", 30, "技术"), ("巡检计划", 30, "技术"), ("类似业绩", 20, "商务"),
                        ("投标报价", 20, "价格")])


def unknown_header_docx(path: Path) -> Expect:
    """Header words no list knows, the points column first and no 序号: structure alone must tell."""
    d = _doc("第四章 比选办法", "比选打分表")
    _table(d, [["上限", "考量点", "判定依据"],
               ["25", "供货组织", _criteria("供货组织")],
               ["20", "安装调试", _criteria("安装调试")],
               ["15", "售后响应", _criteria("售后响应")],
               ["15", "过往合同", "每份同类合同得3分，最多15分。"],
               ["25", "报价", "以最低报价为基准按比例计算。"]])
    d.save(str(path))
    return Expect(rows=[("供货组织", 25, "技术"), ("安装调试", 20, "技术"), ("售后响应", 15, "技术"),
                        ("过往合同", 15, "商务"), ("报价", 25, "价格")])


def unknown_header_pdf(path: Path) -> Expect:
    """A PDF whose table header uses words no list knows: found by its many "N分" near 比选."""
    c = composer()
    c.heading("第四章 比选办法")
    c.text("比选委员会按下表对响应文件打上限以内的分，合计100。")
    rows = [["考量点", "判定依据", "上限"],
            ["供货组织", "组织严密的得25分，较好的得15分，一般的得5分。", "25"],
            ["安装调试", "措施具体的得20分，较具体的得10分，一般的得5分。", "20"],
            ["售后响应", "2小时内到场的得15分，4小时内的得8分。", "15"],
            ["过往合同", "每份同类合同得3分，最多15分。", "15"],
            ["报价", "以最低报价为基准按比例计算，最高25分。", "25"]]
    c.table([90, 320, 60], rows)
    c.save(path)
    return Expect(rows=[("供货组织", 25, "技术"), ("安装调试", 20, "技术"), ("售后响应", 15, "技术"),
                        ("过往合同", 15, "商务"), ("报价", 25, "价格")])


def sub_names_docx(path: Path) -> Expect:
    """A factor merged over named sub-items (评分子项) with their own points; a points cell with a note."""
    d = _doc("第三章 评标办法", "详细评审表")
    _table(d, [["序号", "评分因素", "评分子项", "分值", "评分标准"],
               ["1", "实施方案", "总体部署", "10", _criteria("总体部署")],
               ["", "", "进度计划", "8", _criteria("进度计划")],
               ["", "", "质量保证", "12", _criteria("质量保证")],
               ["2", "人员配备", "项目负责人", "10（客观）", "具有高级职称的得10分。"],
               ["", "", "技术团队", "15", _criteria("技术团队")],
               ["3", "类似业绩", "", "15", "每个得5分。"],
               ["4", "投标报价", "", "30", "最低报价得满分。"]],
           merges=((0, 1, 3), (1, 1, 3), (0, 4, 5), (1, 4, 5)))
    d.save(str(path))
    return Expect(rows=[("实施方案", 30, "技术"), ("人员配备", 25, "技术"), ("类似业绩", 15, "商务"),
                        ("投标报价", 30, "价格")],
                  sub_points={"实施方案": [10, 8, 12], "人员配备": [10, 15]})


def section_heading_docx(path: Path) -> Expect:
    """Categories from the document's own section headings, away from the tables' captions."""
    d = _doc("第三章 评标办法", "（一）商务评分标准", "注：以下各项由商务专家评审。", "评分明细如下：")
    _table(d, [["序号", "评审因素", "分值", "评审标准"], ["1", "项目负责人资历", "10", "高级职称得10分。"],
               ["2", "投标报价", "30", "基准价法。"]])
    d.add_paragraph("（二）技术评分标准")
    d.add_paragraph("注：以下各项由技术专家评审。")
    d.add_paragraph("评分明细如下：")
    _table(d, [["序号", "评审因素", "分值", "评审标准"], ["1", "实施方案", "40", _criteria("实施方案")],
               ["2", "企业资质证书", "20", "每项证书得5分。"]])
    d.save(str(path))
    return Expect(rows=[("项目负责人资历", 10, "商务"), ("投标报价", 30, "价格"), ("实施方案", 40, "技术"),
                        ("企业资质证书", 20, "技术")])


FIXTURES: dict[str, tuple[str, Callable[[Path], Expect]]] = {
    "split": ("split.docx", split_docx),
    "merged_category": ("merged_category.docx", merged_category_docx),
    "points_in_name": ("points_in_name.docx", points_in_name_docx),
    "subtotal_rows": ("subtotal_rows.docx", subtotal_rows_docx),
    "nameless_subrows": ("nameless_subrows.docx", nameless_subrows_docx),
    "decoys": ("decoys.docx", decoys_docx),
    "merge_cut": ("merge_cut.docx", merge_cut_docx),
    "part_headings": ("part_headings.docx", part_headings_docx),
    "cn_numbers": ("cn_numbers.docx", cn_numbers_docx),
    "paragraphs": ("paragraphs.docx", paragraph_docx),
    "crossing": ("crossing.pdf", crossing_pdf),
    "form_block": ("form_block.docx", form_block_docx),
    "lowest_price": ("lowest_price.docx", lowest_price_docx),
    "template": ("template.docx", template_docx),
    "three_tables": ("three_tables.docx", three_tables_docx),
    "names_in_points": ("names_in_points.docx", names_in_points_docx),
    "unknown_header": ("unknown_header.docx", unknown_header_docx),
    "unknown_header_pdf": ("unknown_header.pdf", unknown_header_pdf),
    "sub_names": ("sub_names.docx", sub_names_docx),
    "section_heading": ("section_heading.docx", section_heading_docx),
}


def build(name: str, folder: Path) -> tuple[Path, Expect]:
    """Generate one fixture into ``folder``; returns its path and what must be read from it."""
    filename, make = FIXTURES[name]
    path = folder / filename
    return path, make(path)

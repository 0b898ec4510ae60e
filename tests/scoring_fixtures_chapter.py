"""Generated tenders for the layout classes of issue 36 (the whole 评标办法 chapter as one reading).

Written for this project (names, words and numbers are invented), DOCX here and PDF in
``scoring_fixtures_pages``: lots with a table each; a summary table above the detail it sums up;
a third part the buyer names otherwise beside 技术 and 价格; numbered headings over point rows
and parts as numbered rows; parts scored out of 100 and weighted into the total. ``CHAPTER``
holds both sets.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.scoring_fixtures import Expect, _criteria, _doc, _table
from tests.scoring_fixtures_pages import PAGES


def lots_docx(path: Path) -> Expect:
    """Two lots, each with its own 100-point table of the same layout and other points; the total in
    a row "总分 100" without 分; plans filed under 商务 by the table's own group column."""
    d = _doc("第三章 评标办法", "本项目采用综合评分法，各包分别评标。", "附件：评分标准", "A包：")
    head = ["项目", "分项名称", "满分分值", "评分标准"]
    for lot, (tech, record, plan, total) in (("A包", (50, 6, 14, "总分 100")), ("B包", (56, 4, 10, "总分 100"))):
        if lot == "B包":
            d.add_paragraph("B包：")
        _table(d, [head, ["价格部分", "报价得分", "30", "满足要求且报价最低的为基准价，报价得分=基准价/报价×30。"],
                   ["技术部分", "系统功能", str(tech), _criteria("系统功能")],
                   ["商务部分", "同类业绩", str(record), "每个同类业绩得2分。"],
                   ["", "实施与培训方案", str(plan), _criteria("实施与培训方案")], [total, "", "", ""]],
               merges=((0, 3, 4),), spans=((5, 0, 3),))
    d.add_paragraph("加分项：节能产品按规定给予价格扣除，不另计分。")
    d.save(str(path))
    return Expect(rows=[("报价得分", 30, "价格"), ("系统功能", 50, "技术"), ("同类业绩", 6, "商务"),
                        ("实施与培训方案", 14, "商务")])


def summary_docx(path: Path) -> Expect:
    """A summary table of the parts (价格 40 / 商务 20 / 技术 40 / 合计 100) above the detail table whose
    part cells (headed 条款) state the same points and whose names carry their own points."""
    d = _doc("第四章 评标办法", "评标分值构成与评分标准表", "评分因素及分值分配表")
    _table(d, [["序号", "评分因素", "满分"], ["1", "投标报价", "40分"], ["2", "商务部分", "20分"],
               ["3", "技术部分", "40分"], ["合计", "", "100分"]])
    d.add_paragraph("评分标准")
    _table(d, [["条款", "评分因素", "评分标准"],
               ["投标报价评分标准", "投标报价（40分）", "满足要求且报价最低的为基准价，价格分=基准价/报价×40。"],
               ["商务评分标准（20分）", "同类业绩（8分）", "每个同类业绩得2分，最多得8分。"],
               ["", "仓储与配送能力（12分）", _criteria("仓储与配送能力")],
               ["技术评分标准（40分）", "供货组织方案（15分）", _criteria("供货组织方案")],
               ["", "应急保障方案（15分）", _criteria("应急保障方案")],
               ["", "质量保证措施（10分）", _criteria("质量保证措施")]],
           merges=((0, 2, 3), (0, 4, 6)))
    d.save(str(path))
    return Expect(rows=[("投标报价", 40, "价格"), ("同类业绩", 8, "商务"), ("仓储与配送能力", 12, "商务"),
                        ("供货组织方案", 15, "技术"), ("应急保障方案", 15, "技术"), ("质量保证措施", 10, "技术")],
                  rejected=["汇总表"])


def remaining_part_docx(path: Path) -> Expect:
    """Parts numbered 1./2./3.: 投标报价, 技术部分 and a third the buyer calls 综合部分 (业绩, 承诺):
    with 技术 and 价格 named and no 商务 part, the third part is the 商务 one, plans and all."""
    d = _doc("第四章 评标方法和评标标准", "评分表")
    _table(d, [["序号", "评分因素", "分值", "评分标准"],
               ["1.投标报价", "投标报价", "30分", "满足要求的最低报价为基准价，报价得分=基准价/报价×30。"],
               ["2.技术部分", "供货方案", "25分", _criteria("供货方案")],
               ["", "技术培训方案", "20分", _criteria("技术培训方案")],
               ["3.综合部分", "同类业绩", "10分", "每个同类业绩得2分，最多得10分。"],
               ["", "优惠服务承诺", "10分", _criteria("优惠服务承诺")],
               ["", "信用评价", "5分", "信用等级为A的得5分。"]],
           merges=((0, 2, 3), (0, 4, 6)))
    d.save(str(path))
    return Expect(rows=[("投标报价", 30, "价格"), ("供货方案", 25, "技术"), ("技术培训方案", 20, "技术"),
                        ("同类业绩", 10, "商务"), ("优惠服务承诺", 10, "商务"), ("信用评价", 5, "商务")])


def numbered_parents_docx(path: Path) -> Expect:
    """Parts as numbered rows ("（一） | 商务部分 |"), headings without points over their point rows
    (sub-rows numbered 2.1/2.2 or merged), names after a 【主观分】 tag, and the price part stated in a
    paragraph after the table ("2）价格分（30分）")."""
    d = _doc("第四章 评标办法", "1）商务技术分（70分）")
    _table(d, [["序号", "评审内容及标准", "分值"],
               ["（一）", "商务部分", ""],
               ["1、", "【客观分】供货业绩：每个同类供货业绩得1分，最多得5分。", "5分"],
               ["2、", "交货期承诺：", "/"],
               ["2.1", "【客观分】常规供货交货期满足要求的得2分。", "2分"],
               ["2.2", "【客观分】紧急供货交货期满足要求的得3分。", "3分"],
               ["（二）", "技术部分", ""],
               ["1、", "【客观分】技术参数响应：每负偏离一项扣2分，扣完为止。", "30分"],
               ["2、", "配送服务方案：", ""],
               ["", "【主观分】分批次配送方案：配送方式、人员安排合理的得10分。", "10分"],
               ["", "【主观分】应急供货措施：措施完善可行的得10分。", "10分"],
               ["3、", "【主观分】售后服务方案：" + _criteria("售后服务方案"), "10分"]],
           merges=((0, 8, 10),))
    d.add_paragraph("2）价格分（30分）")
    d.add_paragraph("以满足要求的最低报价为基准价，价格分=基准价/报价×30。")
    d.save(str(path))
    return Expect(rows=[("供货业绩", 5, "商务"), ("交货期承诺", 5, "商务"), ("技术参数响应", 30, "技术"),
                        ("配送服务方案", 20, "技术"), ("售后服务方案", 10, "技术"), ("价格分", 30, "价格")],
                  kind="mixed", sub_points={"交货期承诺": [2, 3], "配送服务方案": [10, 10]})


def weighted_parts_docx(path: Path) -> Expect:
    """Each part scored out of 100 and weighted into the total (资信 20%, 技术 50%, 商务 30%), the weights
    in the part headings and the final formula; the 商务 part is only the bid-price formula in the text;
    the 资信 rows are named only by their criteria; grade bands (优/良/一般) beside the points."""
    d = _doc("第三章 评标办法", "四、详细评审标准", "（一）技术资信标评审", "1.资信分（100分），权重20%。")
    _table(d, [["内容", "评分标准", "分值"],
               ["资信分（100分），权重20%", "投标人统一得基本分80分", "80"],
               ["", "投标人拟派项目负责人具有高级工程师证书得10分，中级得5分。", "10"],
               ["", "投标人近三年具有同类项目业绩的，每个得5分，最多得10分。", "10"]],
           merges=((0, 1, 3),))
    d.add_paragraph("2.技术分（100分），权重50%。")
    _table(d, [["内容", "评分标准", "分值", "优", "良", "一般"],
               ["技术分（100分），权重50%", "总体实施方案：" + _criteria("总体实施方案"), "40", "[40-32)", "[32-24)", "[24-0]"],
               ["", "运维保障方案：" + _criteria("运维保障方案"), "40", "[40-32)", "[32-24)", "[24-0]"],
               ["", "培训方案：" + _criteria("培训方案"), "20", "[20-16)", "[16-12)", "[12-0]"],
               ["合计", "", "100", "", "", ""]],
           merges=((0, 1, 3),))
    d.add_paragraph("（二）商务标评审（满分100分，权重30%）")
    d.add_paragraph("评标基准价＝有效投标报价的算术平均值。投标报价等于评标基准价的，商务标得分100分。")
    d.add_paragraph("（三）投标文件的综合得分（满分100分）")
    d.add_paragraph("综合得分=资信分*20%+技术分*50%+商务分*30%。")
    d.save(str(path))
    return Expect(rows=[("投标人统一得基本分", 16, "商务"), ("投标人拟派项目负责人具有高级工程师证书", 2, "商务"),
                        ("投标人近三年具有同类项目业绩的", 2, "商务"), ("总体实施方案", 20, "技术"),
                        ("运维保障方案", 20, "技术"), ("培训方案", 10, "技术"), ("商务标", 30, "价格")], kind="mixed")


CHAPTER: dict[str, tuple[str, Callable[[Path], Expect]]] = {
    "lots_docx": ("lots.docx", lots_docx),
    "summary": ("summary.docx", summary_docx),
    "remaining_part": ("remaining_part.docx", remaining_part_docx),
    "numbered_parents": ("numbered_parents.docx", numbered_parents_docx),
    "weighted_parts": ("weighted_parts.docx", weighted_parts_docx),
    **PAGES,
}

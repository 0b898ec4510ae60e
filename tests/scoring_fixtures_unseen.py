"""Generated tenders for the layouts seen among publishers the reader was not tuned on.

Written for this project (names, words and numbers are invented) so that each pattern is
tested without ../shared: a 分值 column of part subtotals beside a 权重 column of row points
in a table cut into three by a conversion; a scoring block behind a mid-table sub-header in
a long form table, under part labels merged over rows and two grid columns; two levels with
points only in the names and the price part stated only in prose; a PDF table continued
under a running page header; parts as factors with their items named in the criteria; a
negotiation that ranks by the lowest final offer; a table scored by weights.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.scoring_fixtures import FIXTURES, Expect, _criteria, _doc, _table, composer


def part_subtotal_docx(path: Path) -> Expect:
    """分值 holds the part subtotal, 权重 the row points; one table cut into three with spacer rows."""
    d = _doc("第五章 评审方法", "评分按下表进行。", "评审细则（满分100分）")
    _table(d, [["类型", "分值", "评审内容", "权重", "评审方法"],
               ["报价部分", "20", "报价得分（20分）", "20", "有效最低报价/评审报价×20。"],
               ["方案部分", "80", "总体思路", "15", _criteria("总体思路")],
               ["", "", "作业组织", "25", _criteria("作业组织")]],
           merges=((0, 2, 3), (1, 2, 3)))
    _table(d, [["", "", "质量控制", "20", _criteria("质量控制")], ["", "", "", "", ""],
               ["", "", "人员稳定措施", "10", _criteria("人员稳定措施")]])
    _table(d, [["", "", "同类服务经历", "10", "每个同类服务经历得2分，最多10分。"],
               ["合计", "100", "总得分", "", ""]])
    d.save(str(path))
    return Expect(rows=[("报价得分", 20, "价格"), ("总体思路", 15, "技术"), ("作业组织", 25, "技术"),
                        ("质量控制", 20, "技术"), ("人员稳定措施", 10, "技术"), ("同类服务经历", 10, "技术")])


def form_subheader_docx(path: Path) -> Expect:
    """Scoring rows after pass/fail rows in a 前附表, behind a numbered mid-table sub-header."""
    d = _doc("第四章 评审办法", "评审办法前附表")
    _table(d, [["条款号", "", "评审内容", "评审因素", "", "评审标准", ""],
               ["3.1", "初步审查", "形式审查", "投标人名称", "", "与营业执照一致。", ""],
               ["", "", "", "签字盖章", "", "按要求签字盖章。", ""],
               ["", "", "资格审查", "营业执照", "", "有效。", ""],
               ["3.2", "详细评审", "评分因素", "", "", "分值", "评分标准"],
               ["", "", "技术得分（60分）", "", "系统架构设计", "35", _criteria("系统架构设计")],
               ["", "", "", "", "部署与迁移计划", "15", _criteria("部署与迁移计划")],
               ["", "", "", "", "培训安排", "10", _criteria("培训安排")],
               ["", "", "商务得分（40分）", "", "厂商资质", "10", "每项有效认证得2分，最多10分。"],
               ["", "", "", "", "评审报价", "30", "评审基准价/评审报价×30。"],
               ["综合得分", "", "", "", "", "100", "综合得分=技术得分+商务得分"],
               ["3.3", "分值计算", "", "", "", "", "保留两位小数。"]],
           merges=((0, 1, 3), (1, 1, 3), (2, 1, 2), (0, 5, 9), (1, 5, 9)))
    grid = d.tables[-1]
    for first, last in ((5, 7), (8, 9)):  # each part label merged over its rows and two grid columns
        grid.cell(first, 2).merge(grid.cell(last, 3))
    d.save(str(path))
    return Expect(rows=[("系统架构设计", 35, "技术"), ("部署与迁移计划", 15, "技术"), ("培训安排", 10, "技术"),
                        ("厂商资质", 10, "商务"), ("评审报价", 30, "价格")])


def prose_price_docx(path: Path) -> Expect:
    """Two levels, points only in names; company items filed under the technical title; price only in prose."""
    d = _doc("第三章 评审办法", "本项目满分100分，其中价格部分为60分、技术部分为40分。",
             "一、价格部分评分办法", "以有效报价的平均值为基准价，等于基准价的得60分，每偏离1%扣1分。",
             "二、技术部分评分标准：")
    _table(d, [["序号", "大项", "小项", "评审要点"],
               ["1", "企业信誉（5分）", "经营资格与信用（5分）", "依法设立、信用良好的得5分。"],
               ["2", "作业方案（20分）", "日常作业安排（8分）", _criteria("日常作业安排")],
               ["", "", "设备物料配置（6分）", _criteria("设备物料配置")],
               ["", "", "突发情况处置（6分）", _criteria("突发情况处置")],
               ["3", "管理制度（15分）", "岗位职责（7分）", _criteria("岗位职责")],
               ["", "", "考勤奖惩（8分）", _criteria("考勤奖惩")]],
           merges=((0, 2, 4), (1, 2, 4), (0, 5, 6), (1, 5, 6)))
    d.save(str(path))
    return Expect(rows=[("经营资格与信用", 5, "技术"), ("日常作业安排", 8, "技术"), ("设备物料配置", 6, "技术"),
                        ("突发情况处置", 6, "技术"), ("岗位职责", 7, "技术"), ("考勤奖惩", 8, "技术"),
                        ("价格部分", 60, "价格")], kind="mixed")


def _with_running_header(c: Any, text: str) -> Any:
    plain = c.new_page

    def new_page() -> None:
        plain()
        c.page.insert_text((c.margin, 64.0), text, fontname="china-s", fontsize=10)
        c.y = 80.0

    c.new_page = new_page
    c.page.insert_text((c.margin, 64.0), text, fontname="china-s", fontsize=10)
    c.y = 80.0
    return c


def running_header_pdf(path: Path) -> Expect:
    """A PDF table that continues under a running page header (so it does not start the page)."""
    c = _with_running_header(composer(), "某某物业服务采购项目 磋商文件")
    c.heading("第三章 磋商办法")
    c.text("综合评分法，满分100分。")
    c.space_to(520)
    c.heading("评审因素一览表", size=11)
    rows = [["序号", "评审因素", "分值", "评审标准"],
            ["1", "磋商报价", "25", "满足要求的最低报价为基准价，报价分=基准价/报价×25。"],
            ["2", "保洁作业方案", "15", _criteria("日常保洁") * 3],
            ["", "", "10", _criteria("专项保洁") * 3],
            ["", "", "10", _criteria("保洁质量检查") * 2],
            ["3", "绿化养护方案", "20", _criteria("绿化养护方案")],
            ["4", "秩序维护方案", "10", _criteria("秩序维护方案")],
            ["5", "类似项目经验", "10", "每个类似项目得2分，最多10分。"]]
    first, last = c.table([40, 100, 40, 295], rows)
    assert last > first, (first, last)
    c.save(path)
    return Expect(rows=[("磋商报价", 25, "价格"), ("保洁作业方案", 35, "技术"), ("绿化养护方案", 20, "技术"),
                        ("秩序维护方案", 10, "技术"), ("类似项目经验", 10, "商务")],
                  sub_points={"保洁作业方案": [15, 10, 10]})


def parts_as_factors_docx(path: Path) -> Expect:
    """Parts in the factor column over items named in the criteria; the last part's items in the points column."""
    d = _doc("第四章 评审办法", "评审因素及分值")
    _table(d, [["序号", "评分因素", "分值", "评分标准"],
               ["1", "报价（30分）", "30", "最低有效报价为基准价，报价分=基准价/报价×30。"],
               ["2", "技术部分（60分）", "25", "运维服务方案（25分）" + _criteria("运维服务方案")],
               ["", "", "20", "故障响应机制（20分）" + _criteria("故障响应机制")],
               ["", "", "15", "备品备件保障（15分）" + _criteria("备品备件保障")],
               ["3", "商务部分（10分）", "资质证书（4分）", "具有相关认证的每项得2分。"],
               ["", "", "同类业绩（6分）", "每个同类业绩得2分。"]],
           merges=((0, 2, 4), (1, 2, 4), (0, 5, 6), (1, 5, 6)))
    d.save(str(path))
    return Expect(rows=[("报价", 30, "价格"), ("技术部分", 60, "技术"), ("商务部分", 10, "商务")],
                  sub_points={"技术部分": [25, 20, 15], "商务部分": [4, 6]})


def negotiation_docx(path: Path) -> Expect:
    """A negotiation ranked by the lowest final offer; its review tables have no points."""
    d = _doc("第五章 谈判程序与评审方法", "（一）评审说明",
             "谈判结束后，谈判小组从满足全部实质性要求的供应商中，按照最后报价由低到高的顺序推荐成交候选人。",
             "资格及实质性要求响应表")
    _table(d, [["序号", "审查项", "要求", "是否响应"], ["1", "服务期", "一年", ""], ["2", "人员", "不少于6人", ""]])
    d.add_paragraph("人员配置要求")
    _table(d, [["序号", "岗位", "人数", "工作内容"], ["1", "洗碗工", "6", "负责餐具清洗、消毒和摆放，保持操作间整洁卫生。"],
               ["2", "领班", "1", "负责排班、考勤和质量检查，处理突发情况并向采购人汇报。"],
               ["3", "保洁员", "2", "负责餐厅地面、桌椅和垃圾的清理，按规定分类处置。"]])
    d.save(str(path))
    return Expect(absence="lowest_offer")


UNSEEN: dict[str, tuple[str, Callable[[Path], Expect]]] = {
    "part_subtotal": ("part_subtotal.docx", part_subtotal_docx),
    "form_subheader": ("form_subheader.docx", form_subheader_docx),
    "prose_price": ("prose_price.docx", prose_price_docx),
    "running_header": ("running_header.pdf", running_header_pdf),
    "parts_as_factors": ("parts_as_factors.docx", parts_as_factors_docx),
    "negotiation": ("negotiation.docx", negotiation_docx),
}

ALL_FIXTURES = {**FIXTURES, **UNSEEN}


def build_any(name: str, folder: Path) -> tuple[Path, Expect]:
    """Generate one fixture (of either set) into ``folder``; its path and what must be read from it."""
    filename, make = ALL_FIXTURES[name]
    path = folder / filename
    return path, make(path)


def weighted_docx(path: Path) -> Expect:
    """Each factor scored 0–100 and multiplied by its 权重 (%): the weights are the points."""
    d = _doc("第四章 评审办法", "综合得分=∑（各评审因素得分×该因素权重），各因素按百分制打分。", "评审因素及权重表")
    _table(d, [["序号", "评审因素", "权重", "评分标准（各因素满分100分）"],
               ["1", "服务实施方案", "35%", "优：90–100分；良：75–89分；中：60–74分；差：0–59分。"],
               ["2", "项目团队", "25%", "团队稳定、资质齐全得90–100分；基本满足得60–89分。"],
               ["3", "同类项目业绩", "10%", "每个同类项目得20分，最高100分。"],
               ["4", "评审价格", "30%", "价格得分=评审基准价/评审价格×100。"]])
    d.save(str(path))
    return Expect(rows=[("服务实施方案", 35, "技术"), ("项目团队", 25, "技术"), ("同类项目业绩", 10, "商务"),
                        ("评审价格", 30, "价格")])


def allowed_scores_docx(path: Path) -> Expect:
    """No points column: each name lists the scores the panel may give; the largest is the item's points."""
    d = _doc("第四章 评审办法", "技术评审（共60分）")
    _table(d, [["编号", "评审项", "评审要求"],
               ["1", "巡检方案 可选分值：0.0;4.0;8.0;12.0", _criteria("巡检方案")],
               ["2", "应急处置 可选分值：0;5;10;15;20", _criteria("应急处置")],
               ["3", "工具配备 可选分值：0.0;5.0;10.0", _criteria("工具配备")],
               ["4", "培训计划 可选分值：0;6;12;18", _criteria("培训计划")]])
    d.add_paragraph("商务评审（共10分）")
    _table(d, [["编号", "评审项", "评审要求"], ["1", "同类项目 可选分值：0;5;10", "每个得5分。"]])
    d.add_paragraph("价格评审（共30分）")
    _table(d, [["编号", "评审项", "评审要求"], ["1", "报价 可选分值：0-30", "基准价/报价×30。"]])
    d.save(str(path))
    return Expect(rows=[("巡检方案", 12, "技术"), ("应急处置", 20, "技术"), ("工具配备", 10, "技术"),
                        ("培训计划", 18, "技术"), ("同类项目", 10, "商务"), ("报价", 30, "价格")])


def bonus_and_deduction_docx(path: Path) -> Expect:
    """A bonus table outside the 100 points and a price-deduction table shaped like scoring tables."""
    d = _doc("第四章 评审办法", "评分标准（满分100分）")
    _table(d, [["序号", "评审因素", "分值", "评审标准"], ["1", "实施方案", "40", _criteria("实施方案")],
               ["2", "服务保障", "30", _criteria("服务保障")], ["3", "投标报价", "30", "基准价法。"]])
    d.add_paragraph("附加加分项（在100分之外另计）")
    _table(d, [["序号", "加分因素", "分值", "加分标准"], ["1", "节能产品", "2", "每项加1分。"],
               ["2", "环境标志产品", "3", "每项加1分。"]])
    d.add_paragraph("小微企业价格扣除表")
    _table(d, [["序号", "企业类型", "扣除比例", "说明"], ["1", "小型企业", "10%", "价格扣除后参与评审。"],
               ["2", "微型企业", "10%", "价格扣除后参与评审。"]])
    d.save(str(path))
    return Expect(rows=[("实施方案", 40, "技术"), ("服务保障", 30, "技术"), ("投标报价", 30, "价格")],
                  rejected=["加分", "价格扣除"])


UNSEEN.update({
    "weighted": ("weighted.docx", weighted_docx),
    "allowed_scores": ("allowed_scores.docx", allowed_scores_docx),
    "bonus_and_deduction": ("bonus_and_deduction.docx", bonus_and_deduction_docx),
})
ALL_FIXTURES.update(UNSEEN)


def weight_and_max_docx(path: Path) -> Expect:
    """A 满分 column of 100 beside the 权重 column: the weights are the points, not the 100s."""
    d = _doc("第四章 评审办法", "各评审因素按百分制打分，乘以权重后相加为综合得分。", "评审因素表")
    _table(d, [["序号", "评审因素", "满分", "权重", "评分标准"],
               ["1", "技术方案", "100", "40%", _criteria("技术方案")],
               ["2", "运维服务", "100", "20%", _criteria("运维服务")],
               ["3", "同类业绩", "100", "10%", "每个同类业绩得25分，最高100分。"],
               ["4", "投标报价", "100", "30%", "价格得分=基准价/报价×100。"]])
    d.save(str(path))
    return Expect(rows=[("技术方案", 40, "技术"), ("运维服务", 20, "技术"), ("同类业绩", 10, "商务"),
                        ("投标报价", 30, "价格")])


def converted_pages_docx(path: Path) -> Expect:
    """A PDF→DOCX conversion: page furniture between the pieces, the header and a sub-header repeated, spacers."""
    d = _doc("第三章 评审办法", "评分表（100分）")
    head = ["序号", "评审因素", "分值", "评审标准"]
    _table(d, [head, ["", "价格部分", "", ""], ["1", "投标报价", "30", "基准价法。"],
               ["", "技术部分", "", ""], ["2", "项目实施方案", "25", _criteria("项目实施方案")]])
    d.add_paragraph("- 23 -")
    _table(d, [head, ["", "", "", ""], ["", "技术部分", "", ""], ["3", "人员配备方案", "20", _criteria("人员配备方案")],
               ["4", "质量保证措施", "15", _criteria("质量保证措施")]])
    d.add_paragraph("第 24 页 共 60 页")
    _table(d, [head, ["5", "售后服务承诺", "10", _criteria("售后服务承诺")], ["", "", "", ""],
               ["合计", "", "100", ""]])
    d.save(str(path))
    return Expect(rows=[("投标报价", 30, "价格"), ("项目实施方案", 25, "技术"), ("人员配备方案", 20, "技术"),
                        ("质量保证措施", 15, "技术"), ("售后服务承诺", 10, "技术")])


def lead_price_docx(path: Path) -> Expect:
    """The price factor stated only in its own paragraph; the table holds the other 75 points."""
    d = _doc("第四章 评审办法", "一、价格分（25分）",
             "以满足磋商文件要求的最低最后报价为基准价，价格分=基准价/最后报价×25。", "二、其他评审因素（75分）")
    _table(d, [["序号", "评审因素", "分值", "评审标准"], ["1", "服务方案", "40", _criteria("服务方案")],
               ["2", "人员安排", "20", _criteria("人员安排")], ["3", "企业业绩", "15", "每个得5分。"]])
    d.save(str(path))
    return Expect(rows=[("服务方案", 40, "技术"), ("人员安排", 20, "技术"), ("企业业绩", 15, "商务"),
                        ("价格分", 25, "价格")], kind="mixed")


def three_levels_docx(path: Path) -> Expect:
    """Three levels with points at each: part (60分) → factor (30分) → items with their own points."""
    d = _doc("第四章 评审办法", "评分细则")
    _table(d, [["类别", "评分因素", "分值", "评分细则"],
               ["技术部分（60分）", "运维方案（30分）", "10", "巡检制度完善的得10分。"],
               ["", "", "12", "故障处理流程清晰的得12分。"],
               ["", "", "8", "备件管理合理的得8分。"],
               ["", "团队配置（30分）", "30", "团队成员资质齐全的得30分。"],
               ["商务部分（10分）", "企业业绩（10分）", "10", "每个得5分。"],
               ["价格部分（30分）", "投标报价（30分）", "30", "基准价法。"]],
           merges=((0, 1, 4), (1, 1, 3)))
    d.save(str(path))
    return Expect(rows=[("运维方案", 30, "技术"), ("团队配置", 30, "技术"), ("企业业绩", 10, "商务"),
                        ("投标报价", 30, "价格")], sub_points={"运维方案": [10, 12, 8]})


def narrow_pdf(path: Path) -> Expect:
    """PDF name cells one character wide (names wrap a character a line) and points broken over lines."""
    c = composer()
    c.heading("第三章 评审办法")
    c.text("综合评分法，评审表如下（满分100分）。")
    c.heading("评审表", size=11)
    rows = [["序号", "评审因素", "分值", "评审标准"],
            ["1", "报价", "30", "基准价/报价×30。"],
            ["2", "作业方案", "40.0", _criteria("作业方案")],
            ["3", "质量措施", "20", _criteria("质量措施")],
            ["4", "同类业绩", "10", "每个得2分。"]]
    c.table([40, 22, 22, 330], rows, size=9.0)
    c.save(path)
    return Expect(rows=[("报价", 30, "价格"), ("作业方案", 40, "技术"), ("质量措施", 20, "技术"), ("同类业绩", 10, "商务")])


UNSEEN.update({
    "weight_and_max": ("weight_and_max.docx", weight_and_max_docx),
    "converted_pages": ("converted_pages.docx", converted_pages_docx),
    "lead_price": ("lead_price.docx", lead_price_docx),
    "three_levels": ("three_levels.docx", three_levels_docx),
    "narrow": ("narrow.pdf", narrow_pdf),
})
ALL_FIXTURES.update(UNSEEN)


def numbers_only_docx(path: Path) -> Expect:
    """No scoring table, but a staffing table of numbers (人数) that is shaped like one: nothing is claimed."""
    d = _doc("第四章 项目说明", "一、人员配置", "供应商应按下表配置驻场人员：")
    _table(d, [["序号", "岗位", "人数", "工作内容"], ["1", "秩序维护员", "8", "负责门岗值守、巡逻和车辆引导，做好交接班记录。"],
               ["2", "保洁员", "5", "负责公共区域日常保洁和垃圾清运，按标准消杀。"],
               ["3", "工程维修工", "2", "负责水电设施日常巡检和小修，及时处理报修。"]])
    d.add_paragraph("二、服务期限：一年。")
    d.save(str(path))
    return Expect(absence="none")


UNSEEN["numbers_only"] = ("numbers_only.docx", numbers_only_docx)
ALL_FIXTURES.update(UNSEEN)

from tests.scoring_fixtures_chapter import CHAPTER  # noqa: E402  (issue 36's classes; that module imports none of these)

ALL_FIXTURES.update(CHAPTER)

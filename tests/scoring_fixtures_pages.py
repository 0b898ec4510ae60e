"""Generated PDF tenders for the layout classes of issue 36 (tables drawn page by page).

Written for this project (names, words and numbers are invented): tables drawn with a filled box
behind each run of text (white, which a line finder takes for cell borders, or a highlight colour);
a per-product table whose names span several point rows and run onto the next page; lots titled
above their tables; part totals in their own column; groups the buyer names beside a 类型 column;
names that describe their items; three levels on pages with different columns; a scheme written
as paragraphs over a page break.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymupdf

from tests.document_fixtures import composer
from tests.scoring_fixtures import Expect, _criteria

FONT = "china-s"
Cell = str | tuple[str, int] | None  # None: merged with the cell above; (text, k): spans k columns


WHITE = (1.0, 1.0, 1.0)
HIGHLIGHT = (0.96, 0.77, 0.67)


def _runs(page: Any, x: float, y: float, text: str, size: float, fill: tuple[float, float, float]) -> None:
    """Text over filled boxes, one per run of a few characters (as some converters write it)."""
    step = 5
    for k in range(0, len(text), step):
        run = text[k : k + step]
        left = x + k * size
        page.draw_rect(pymupdf.Rect(left, y - size, left + len(run) * size, y + size * 0.4),
                       color=None, fill=fill, width=0)
        page.insert_text((left, y), run, fontname=FONT, fontsize=size)


def draw_grid(c: Any, widths: list[float], rows: list[list[Cell]], size: float = 9.0,
              fill: tuple[float, float, float] = WHITE, sides: bool = True) -> None:
    """Rows drawn without gaps at the composer's cursor, each cell's text over boxes of ``fill``
    (white: invisible text backgrounds; a colour: highlighted text).

    A row of one cell spans the whole width (a label row); ``None`` leaves the cell open to the
    one above (a merged name cell); text wraps a character per ``size`` points. ``sides=False``
    leaves out the table's outer vertical rules (a table drawn without side borders).
    """
    pad = 3.0
    total = sum(widths)
    for row in rows:
        cols = [total] if len(row) == 1 else _spans(row, widths)
        texts = [cell[0] if isinstance(cell, tuple) else cell for cell in row]
        wraps = [_wrap(text or "", w - 2 * pad, size) for text, w in zip(texts, cols, strict=True)]
        height = max(len(w) for w in wraps) * size * 1.5 + 2 * pad
        x = c.margin
        for cell, lines, w in zip(texts, wraps, cols, strict=True):
            top = c.y
            if sides or x > c.margin:
                c.page.draw_line((x, top), (x, top + height), width=0.6)
            if sides or x + w < c.margin + total - 0.5:
                c.page.draw_line((x + w, top), (x + w, top + height), width=0.6)
            if cell is not None:  # a merged cell has no rule between it and the one above
                c.page.draw_line((x, top), (x + w, top), width=0.6)
            for k, line in enumerate(lines):
                _runs(c.page, x + pad, top + pad + size + k * size * 1.5, line, size, fill)
            x += w
        c.y += height
    c.page.draw_line((c.margin, c.y), (c.margin + total, c.y), width=0.6)


def _spans(row: list[Cell], widths: list[float]) -> list[float]:
    out: list[float] = []
    j = 0
    for cell in row:
        k = cell[1] if isinstance(cell, tuple) else 1
        out.append(sum(widths[j : j + k]))
        j += k
    return out


def _wrap(text: str, width: float, size: float) -> list[str]:
    per = max(1, int(width // size))
    return [part[i : i + per] for part in text.split("\n") for i in range(0, len(part), per)] or [""]


def product_rows_pdf(path: Path) -> Expect:
    """Per-product rows over two pages: names spanning several point rows, white runs behind the text,
    the last character of a name carried onto the next page, punctuation spilled into points cells,
    and a price part whose only points are in its label above one formula row."""
    c = composer()
    c.heading("第三章 评标办法")
    c.text("本项目采用综合评分法。")
    c.heading("二、评分标准", size=11)
    c.text("评审因素、评分标准及分值见下表，评分项按评审内容逐项打分。")
    widths = [90, 300, 60]
    draw_grid(c, [90, 360], [["评审指标", "评审内容"], ["一、价格分（10分）"],
                             ["投标报价", "价格分采用低价优先法计算，投标报价得分=（评标基准价/投标报价）×10%×100。"]])
    c.new_page()
    tail = "每项功能完全满足得分，不满足不得分；须提供检测报告。"
    draw_grid(c, widths, [
        ["二、技术部分（80分）"],
        ["评分项", "评分标准", "分数"],
        ["符合性条款", "完全响应招标文件技术参数的得基本分，否则投标无效。" * 2, "40分"],
        ["不间断电源主机", "输入功率因数不低于0.99的得分。" + tail, "8分"],
        [None, "支持发电机联动与智能休眠配置的得分。" + tail, "。\n6分"],
        [None, "操作面板可显示一万条历史记录的得分。" + tail, "4分\n，"],
        ["录播一体", "核心软件具有著作权登记证书的得分。" + tail * 3, "12分"],
    ])
    c.new_page()
    draw_grid(c, widths, [
        ["主机", "（接上页）未提供或不符合要求的不得分。", ""],
        ["机房空调", "制冷量与能效比满足要求的得分。" + tail, "10分"],
        ["三、商务部分（10分）"],
        ["评分项", "评分标准", "分数"],
        ["人员要求", "拟派人员每具有一项相关认证得1分，最多得6分。", "6分"],
        ["业绩要求", "每个类似业绩得1分，最多得4分。", "，\n4分"],
    ])
    c.save(path)
    return Expect(rows=[("投标报价", 10, "价格"), ("符合性条款", 40, "技术"), ("不间断电源主机", 18, "技术"),
                        ("录播一体主机", 12, "技术"), ("机房空调", 10, "技术"), ("人员要求", 6, "商务"),
                        ("业绩要求", 4, "商务")],
                  sub_points={"不间断电源主机": [8, 6, 4]})


def lots_pdf(path: Path) -> Expect:
    """Two lots in a PDF: the first lot's title far above its table, group labels with points in a
    merged column beside a short column headed 评标内容 that holds the names, an empty grid drawn
    right under the first table; the second lot titled in the line above its table."""
    c = composer()
    c.heading("第四章 评标方法和评标标准")
    c.text("本项目采用综合评分法，评审因素及分值见评标标准。")
    c.heading("二、评标标准", size=11)
    c.text("1.第1-3 包评审标准")
    c.space_to(c.y + 120)
    widths = [30, 80, 80, 40, 220]
    draw_grid(c, widths, [
        ["序号", "评分因素", "评标内容", "分值", "评标依据"],
        ["1", "价格部分（10分）", "价格评审", "10", "价格分=评标基准价/投标报价×10。"],
        ["2", "商务部分（30分）", "投标人业绩", "5分", "同类施工业绩每个得1分，最多得5分。"],
        [None, None, None, "10分", "同类维护业绩每个得2分，最多得10分。"],
        [None, None, "服务团队", "15分", _criteria("服务团队")],
        ["3", "技术部分（60分）", "需求分析", "20分", _criteria("需求分析")],
        [None, None, "服务方案", "25分", _criteria("服务方案")],
        [None, None, "应急方案", "15分", _criteria("应急方案")],
        ["总分100分"],
    ])
    draw_grid(c, [60, 60, 90, 60, 80, 100], [["", "", "", "", "", ""]] * 3)  # a blank form right under it
    c.new_page()
    c.text("2.第4 包（高压配电设备）评审标准")
    draw_grid(c, [30, 110, 40, 270], [
        ["序号", "评分因素", "分值", "评标依据"],
        ["价格及商务部分20分"],
        ["1", "评标价", "10", "价格分=评标基准价/投标报价×10。"],
        ["2", "业绩", "10", "同类业绩每个得2分，最多得10分。"],
        ["技术部分80分"],
        ["3", "总体服务方案", "40", _criteria("总体服务方案")],
        ["4", "设备配置情况", "40", _criteria("设备配置情况")],
        ["总分100分"],
    ])
    c.save(path)
    return Expect(rows=[("价格评审", 10, "价格"), ("投标人业绩", 15, "商务"), ("服务团队", 15, "商务"),
                        ("需求分析", 20, "技术"), ("服务方案", 25, "技术"), ("应急方案", 15, "技术")],
                  sub_points={"投标人业绩": [5, 10]})


def part_totals_pdf(path: Path) -> Expect:
    """Parts in a 类别 column with their totals in a 总分 column, the names only as the first clause of
    the numbered criteria, the price part's text spanning the number cell, the header on every page."""
    c = composer()
    c.heading("第五章 评标方法")
    c.text("附件2：评标因素及权重分值表")
    widths = [40, 40, 20, 280, 40, 30]
    head: list[Cell] = ["类别", "总分", ("评标因素", 2), "最高得分", "备注"]
    price = "1.通过符合性审查的投标报价为有效报价。2.有效最低报价为基准价得30分。3.其余按（基准价/报价）×30计算。"
    first: list[list[Cell]] = [head, ["投标价格", "30分", (price, 2), "30分", "按响应程度计分"],
                               ["技术评审", "70分", "1", "技术指标：所投产品完全符合要求得30分；" + _criteria("技术指标") * 4, "30分", None],
                               [None, None, "2", "实施方案：" + _criteria("实施方案") * 3, "20分", None]]
    draw_grid(c, widths, first)
    c.new_page()
    draw_grid(c, widths, [head, ["", "", "3", "售后服务：" + _criteria("售后服务"), "12分", ""],
                          [None, None, "4", "类似业绩：每个同类供货业绩得2分，最多得8分。", "8分", None]])
    c.save(path)
    return Expect(rows=[("投标价格", 30, "价格"), ("技术指标", 30, "技术"), ("实施方案", 20, "技术"),
                        ("售后服务", 12, "技术"), ("类似业绩", 8, "技术")])


def scored_by_type_pdf(path: Path) -> Expect:
    """Groups named by the buyer (资质经验, 服务质量) beside 技术部分 and 投标报价; a 类型 column of
    客观分/主观分 between the names and the points; highlighted text in the criteria; a factor with
    three point rows."""
    c = composer()
    c.heading("第七章 评审办法")
    c.text("十一、评审细则表")
    widths = [30, 40, 80, 30, 30, 240]
    draw_grid(c, widths, [
        ["序号", "计分项目", "内容", "类型", "分值", "评分标准和计算依据"],
        ["1", "资质经验", "公司资质", "客观分", "5", "具有信息安全管理体系认证的得5分。需提供有效证明文件。"],
        ["2", None, "运维经验", "客观分", "10", "每个同类运维项目得2分，最高10分。需提供合同。"],
        ["3", "技术部分", "需求理解", "主观分", "20", _criteria("需求理解")],
        ["4", None, "运维方案", "主观分", "25", _criteria("运维方案")],
        ["5", "服务质量", "售后服务", "主观分", "6", "培训及其他售后服务项目齐全、计划完整的，综合打分，0-6分。"],
        [None, None, None, "主观分", "5", "驻场服务人数、巡检次数合理的，综合打分，0-5分。"],
        [None, None, None, "主观分", "4", "应急响应及时、处置得当的，综合打分，0-4分。"],
        ["6", "投标报价", "价格情况", "客观分", "25", "以最低有效报价为基准价，报价分=基准价/报价×25。"],
        [("合计", 4), "100分", ""],
    ], fill=HIGHLIGHT)
    c.save(path)
    return Expect(rows=[("公司资质", 5, "商务"), ("运维经验", 10, "商务"), ("需求理解", 20, "技术"),
                        ("运维方案", 25, "技术"), ("售后服务", 15, "技术"), ("价格情况", 25, "价格")],
                  sub_points={"售后服务": [6, 5, 4]})


def described_names_pdf(path: Path) -> Expect:
    """Points only as ranges (0~35, 1~5) in a 分值区间 column; name cells that describe the item with
    numbered sub-points that are no rows; a description carried onto the next page; the total only
    in prose; the bid's completeness scored as its own item."""
    c = composer()
    c.heading("第四章 评标办法及评分标准")
    c.text("本次评标总分为100分。")
    c.text("特保服务包1 评分规则：")
    widths = [120, 50, 280]
    draw_grid(c, widths, [
        ["评分项目", "分值区间", "评分办法"],
        ["报价得分", "0~10", "有效最低报价/投标报价×10"],
        ["整体服务方案：1.服务定位和思路；2.各阶段服务的实施安排；3.重点难点分析。", "0~40",
         "方案出色、切实可行的得30-40分；方案较好的得20-29分；方案一般的得1-19分。"],
        ["管理机构及管理水平：1.管理机构及其运作方法；2.各项管理制度。", "0~20",
         "组织架构完善、制度健全的得15-20分；较完善的得8-14分；一般的得1-7分。"],
        ["人员配备：根据服务人员是否配备齐全、分工明确、能否满足本项目需求等情", "0~20",
         "人员配备齐全、分工明确的得15-20分；" + "较齐全的得8-14分；" * 4],
    ])
    c.new_page()
    draw_grid(c, widths, [
        ["况进行综合打分。", "", "配备不齐全的得1-7分。"],
        ["类似业绩：提供近三年类似项目业绩（须提供合同复印件）。", "0~5", "每个业绩得1分，最多5分。"],
        ["投标文件响应程度和完整性：根据投标文件响应程度和完整性酌情给分。", "1~5", "优秀得5分；良好得3分；一般得1分。"],
    ])
    c.save(path)
    return Expect(rows=[("报价得分", 10, "价格"), ("整体服务方案", 40, "技术"), ("管理机构及管理水平", 20, "技术"),
                        ("人员配备", 20, "技术"), ("类似业绩", 5, "商务"), ("投标文件响应程度和完整性", 5, "商务")])


def three_levels_pdf(path: Path) -> Expect:
    """Part, factor and sub-factor with points only in their names ("技术部分（60分）", "收运方案（15分）",
    "隔离管控：5分"), some factors without sub-factors; the page without any sub-factor has one column
    fewer, so its cells must be lined up by where they are, not by their index."""
    c = composer()
    c.heading("第四章 评标办法（综合评分法）")
    c.text("评标办法前附表")
    widths = [50, 50, 90, 70, 190]
    crit = _criteria("方案")
    draw_grid(c, widths, [
        ["条款号", "类别", "评分因素", "评分子项", "评分标准"],
        ["2.2.2（1）", "报价得分（30分）", ("投标报价", 2), "满足要求的最低报价为基准价，报价得分=基准价/报价×30。"],
        ["2.2.2（2）", "技术部分（60分）", "收运方案（15分）", "隔离管控：5分", crit],
        [None, None, None, "储存管理：5分", crit],
        [None, None, None, "专用运输：5分", crit],
        [None, None, "工艺方案（20分）", "工艺要求：10分", crit * 2],
        [None, None, None, "污染防治：10分", crit * 2],
    ])
    c.new_page()
    draw_grid(c, widths, [
        ["", "", "", ("（接上页）方案仅做简单描述的得1分。", 2)],
        [None, None, "合规与管理方案（10分）", (crit, 2)],
        [None, None, "风险防控措施（15分）", (crit, 2)],
        ["2.2.2（3）", "商务部分（10分）", "企业业绩（6分）", ("每个同类业绩得2分，最多得6分。", 2)],
        [None, None, "服务承诺（4分）", ("承诺全面、可行的得4分。", 2)],
    ])
    c.save(path)
    return Expect(rows=[("投标报价", 30, "价格"), ("收运方案", 15, "技术"), ("工艺方案", 20, "技术"),
                        ("合规与管理方案", 10, "技术"), ("风险防控措施", 15, "技术"), ("企业业绩", 6, "商务"),
                        ("服务承诺", 4, "商务")], sub_points={"收运方案": [5, 5, 5], "工艺方案": [10, 10]})


def long_paragraph_items_pdf(path: Path) -> Expect:
    """A scheme in paragraphs: parts "1、…（共20分）" over items "（1）…（3-10分）" whose names run over
    lines and a page break (with its page number), the price part only a formula, the total at the end."""
    c = composer()
    c.heading("第六部分 养护项目招标评标办法")
    c.text("三、“综合评分法”评标细则")
    c.text("1、商务标部分评分（共20分）")
    c.text("（1）首先确定评标基准价：满足招标文件要求且投标价格最低的投标报价为评标基准价，其报价分为满分20分。")
    c.text("（2）其他投标报价得分=评标基准价/投标报价×20%×100。")
    c.text("2、技术标部分评分（共80分）")
    names = ["保证达到道路、桥梁、各类附属设施等养护要求及质量标准的技术措施、组织措施和信息化措施等",
             "相关设施巡视检查、掌握设施动态情况及时解决病害问题的组织安排等",
             "为满足本项目需求，拟投入的机械设备配置及劳动力安排等"]
    for k, (name, low, high) in enumerate(zip(names, (3, 3, 5), (30, 25, 20), strict=True), start=1):
        c.text(f"（{k}）{name}（{low}-{high}分）评审内容：投标人提供的相关方案。评审标准：" + _criteria("方案") * 6)
        if k == 1:
            c.space_to(700)
    c.text("（4）其他（0~5分）在本区范围内有作业场地并提供证明的得5分；没有的不得分。")
    c.text("累计最高得分100分。")
    c.save(path)
    return Expect(kind="paragraphs", rows=[("商务标部分评分", 20, "价格"), (names[0], 30, "技术"), (names[1], 25, "技术"),
                                           (names[2], 20, "技术"), ("其他", 5, "技术")])


def blank_gap_pdf(path: Path, header: str = "") -> Expect:
    """One table over three pages whose middle page holds only its page number (a section break or a
    conversion left it empty), and whose second piece splits the criteria into graded sub-columns, so it
    has two more columns than the first piece while keeping its outer and inner edges. With ``header``,
    every page carries it as a running header, the empty page too."""
    c = composer()
    c.heading("第四章 评标办法")
    c.text("本项目采用综合评分法，满分100分。评分因素及分值见下表。")
    c.space_to(430)
    draw_grid(c, [40, 110, 250, 50], [
        ["序号", "评审因素", "评分标准", "分值"],
        ["1", "总体服务方案", _criteria("总体服务方案") * 2, "30"],
        ["2", "项目实施计划", _criteria("项目实施计划") * 2, "20"],
        ["3", "质量保证措施", _criteria("质量保证措施") * 2, "15"],
    ])
    c.new_page()  # nothing on it but "- 2 -"
    c.new_page()
    draw_grid(c, [40, 110, 100, 50, 100, 50], [
        ["4", "人员培训方案", "培训计划完整、课时充足的得5分", "较完整的得3分", "内容简单的得1分", "5"],
        ["5", "售后服务承诺", "响应及时、措施具体的得10分", "较具体的得6分", "一般的得2分", "10"],
        ["6", "投标报价", "价格分=评标基准价/投标报价×20", "", "", "20"],
    ])
    c.text("以上各项得分相加为投标人的综合得分。")
    for page in c.doc if header else []:
        page.insert_text((c.margin + 60, 40), header, fontname=FONT, fontsize=9)
    c.save(path)
    return Expect(rows=[("总体服务方案", 30, "技术"), ("项目实施计划", 20, "技术"), ("质量保证措施", 15, "技术"),
                        ("人员培训方案", 5, "技术"), ("售后服务承诺", 10, "技术"), ("投标报价", 20, "价格")])


def _furniture(c: Any, header: str, footer: str) -> None:
    """A running header and footer on every page, set further from the edges than a page margin."""
    for n, page in enumerate(c.doc, start=1):
        page.insert_text((c.margin, 58), header, fontname=FONT, fontsize=9)
        page.insert_text((c.margin + 150, page.rect.height - 62), f"{footer} 第{n}页", fontname=FONT, fontsize=9)


def high_footer_pdf(path: Path) -> Expect:
    """A table over a page break where a running footer stands above the usual margin and a running
    header above the second piece: both repeat on every page, so the table still runs to the page foot."""
    c = composer(footer=False)
    c.heading("第四章 评标办法")
    c.text("本项目采用综合评分法，满分100分。")
    c.new_page()
    c.text("评分标准如下表。")
    c.space_to(360)
    widths = [40, 120, 240, 50]
    draw_grid(c, widths, [
        ["序号", "评审因素", "评分标准", "分值"],
        ["1", "服务实施方案", _criteria("服务实施方案") * 3, "35"],
        ["2", "应急保障措施", _criteria("应急保障措施") * 3, "20"],
    ])
    c.new_page()
    c.y = 80
    draw_grid(c, widths, [
        ["3", "人员培训计划", _criteria("人员培训计划"), "15"],
        ["4", "投标报价", "价格分=评标基准价/投标报价×30", "30"],
    ])
    c.new_page()
    c.text("第五章 合同条款")
    _furniture(c, "第四章 评标办法及评分标准", "某区公共服务项目招标文件")
    c.save(path)
    return Expect(rows=[("服务实施方案", 35, "技术"), ("应急保障措施", 20, "技术"), ("人员培训计划", 15, "技术"),
                        ("投标报价", 30, "价格")])


def spaced_header_pdf(path: Path) -> Expect:
    """A running header written in pieces with runs of spaces between them (as Word's PDF export writes a
    header with spaces in it), a little below the top margin, over a table continued on the next page
    in the middle of a factor whose name cell is merged over the page break."""
    c = composer()
    c.heading("第三章 评标办法")
    c.text("采用综合评分法，满分100分，评分因素见下表。")
    c.space_to(420)
    widths = [50, 110, 240, 50]
    draw_grid(c, widths, [
        ["序号", "评分项目", "评分标准", "分值"],
        ["1", "类似项目业绩", "每个类似业绩得2分，最多得10分。", "10"],
        ["2", "技术参数响应", "完全满足技术参数的得50分，每负偏离一项扣2分。", "50"],
        ["3", "安装调试与培训", "安装调试方案：" + _criteria("安装调试方案") * 2, "5"],
    ])
    c.new_page()
    c.y = 76
    draw_grid(c, widths, [
        [None, None, "操作培训方案：" + _criteria("操作培训方案") * 2, "5"],
        ["4", "投标报价", "价格分=评标基准价/投标报价×30", "30"],
    ])
    c.new_page()
    c.text("第四章 合同条款")
    for page in c.doc:
        x = c.margin + 40
        for piece in ("某市人民医院", " PCR", "检验设备采购项目", "      ", "公开招标文件"):
            font = "helv" if piece.strip().isascii() else FONT  # Latin letters and spaces in other fonts:
            font = "cour" if not piece.strip() else font  # other text lines, one of nothing but spaces
            page.insert_text((x, 56), piece, fontname=font, fontsize=9)
            x += (9 if font == FONT else 5) * len(piece) + 12
    c.save(path)
    return Expect(rows=[("类似项目业绩", 10, "商务"), ("技术参数响应", 50, "技术"), ("安装调试与培训", 10, "技术"),
                        ("投标报价", 30, "价格")])


def group_tail_pdf(path: Path) -> Expect:
    """A part cell ("商务部分") cut by the page break: "商务" ends the first page, "部分" opens the next
    with the rest of the previous row's criteria, and the part's cell runs on, merged, beside its rows."""
    c = composer()
    c.heading("第五章 评标办法")
    c.text("本项目采用综合评分法。评分标准如下：")
    c.space_to(380)
    widths = [50, 80, 50, 270]
    draw_grid(c, widths, [
        ["项目", "分项名称", "满分分值", "评分标准"],
        ["价格部分", "报价得分", "30", "满足招标文件要求且投标价格最低的投标报价为评标基准价，其价格分为满分。"],
        ["技术部分", "主要产品", "50", "满足产品技术参数要求的得50分，每负偏离一项扣2分。"],
        ["商务", "业绩", "5", "自2023年1月1日至投标截止时间投标人完成的与"],
    ])
    c.new_page()
    draw_grid(c, widths, [
        ["部分", "", "", "本项目同类的业绩，每提供一项得1分，满分5分。"],
        [None, "供货安装方案", "5", _criteria("供货安装方案")],
        [None, "培训方案", "5", _criteria("培训方案")],
        [None, "售后服务方案", "5", _criteria("售后服务方案")],
        ["总分100"],
    ])
    c.save(path)
    return Expect(rows=[("报价得分", 30, "价格"), ("主要产品", 50, "技术"), ("业绩", 5, "商务"), ("供货安装方案", 5, "商务"),
                        ("培训方案", 5, "商务"), ("售后服务方案", 5, "商务")])


def row_split_pdf(path: Path) -> Expect:
    """Points only in the names, and one row cut by the page break under a header repeated on the next
    page: its part cell ("企业业绩和履约能力" + "（9分）") and its name cell both end on the new page."""
    c = composer()
    c.heading("第六章 评标办法")
    c.text("投标报价得分满分70分，按低价优先法计算。")
    c.space_to(380)
    c.text("第十一条 技术部分评分标准：")
    widths = [30, 80, 100, 240]
    head = ["序号", "项目", "内容", "评分标准"]
    draw_grid(c, widths, [
        head,
        ["1", "企业资信（2分）", "经营资质（2分）", "实缴资本不低于三百万元的得2分。"],
        ["2", "人员管理（4分）", "人员储备（2分）", _criteria("人员储备")],
        [None, None, "入职培训方案（2分）", _criteria("入职培训方案")],
        ["3", "企业业绩和履约能力", "具有良好的业绩和履", "1.企业持续经营且履约能力强，经营年限三年以上的得3"],
    ])
    c.new_page()
    draw_grid(c, widths, [
        head,
        ["", "（9分）", "约能力（9分）", "分。2.每个类似业绩得2分，最多得6分。"],
        ["4", "管理思路（15分）", "安全管理（8分）", _criteria("安全管理")],
        [None, None, "生产组织（7分）", _criteria("生产组织")],
    ])
    c.save(path)
    return Expect(rows=[("经营资质", 2, "技术"), ("人员储备", 2, "技术"), ("入职培训方案", 2, "技术"),
                        ("具有良好的业绩和履约能力", 9, "技术"), ("安全管理", 8, "技术"), ("生产组织", 7, "技术"),
                        ("投标报价得分", 70, "价格")], kind="mixed")


def header_at_foot_pdf(path: Path) -> Expect:
    """The header row alone at the foot of a page that says little about scoring (so it is not searched
    for tables), the rows on the next page: parts as numbered rows spanning the name column."""
    c = composer()
    c.heading("第五章 评标办法")
    c.text("评标委员会按下列内容及标准对投标文件进行评审。" * 3)
    c.space_to(700)
    c.text("五、评审内容及标准")
    widths = [50, 330, 60]
    draw_grid(c, widths, [["序号", "评审内容及标准", "分值"]])
    c.new_page()
    draw_grid(c, widths, [
        ["（一）", "商务部分", ""],
        ["1、", "【客观分】保修期：全部产品保修期满足招标文件要求的得2分，每延长一年加1分，最高得4分。", "4 分"],
        ["2、", "【主观分】售后服务方案：" + _criteria("售后服务方案"), "6 分"],
        ["（二）", "技术部分", ""],
        ["1、", "【客观分】技术需求符合度：完全满足的得50分，每负偏离一项扣2分。", "50 分"],
        ["2、", "【主观分】安装调试方案：" + _criteria("安装调试方案"), "10 分"],
        ["（三）", "价格部分：价格分=评标基准价/投标报价×30", "30 分"],
    ])
    c.save(path)
    return Expect(rows=[("保修期", 4, "商务"), ("售后服务方案", 6, "商务"), ("技术需求符合度", 50, "技术"),
                        ("安装调试方案", 10, "技术"), ("价格部分", 30, "价格")])


_TECH_AND_PRICE: list[list[Cell]] = [  # the numbered scheme's technical and price parts, after its 商务 part
    ["（二）", "技术部分", ""],
    ["1、", "【客观分】技术需求符合度：完全满足的得45分，每负偏离一项扣2分。", "45 分"],
    ["2、", "【主观分】安装调试方案：" + _criteria("安装调试方案"), "10 分"],
    ["（三）", "价格部分：价格分=评标基准价/投标报价×30", "30 分"],
]
_TECH_AND_PRICE_ROWS = [("技术需求符合度", 45, "技术"), ("安装调试方案", 10, "技术"), ("价格部分", 30, "价格")]


def cut_text_pdf(path: Path) -> Expect:
    """A row's text cut by the page break: the next page opens with a row of its own cells holding only
    the rest of that text, which is no part label, so the rows after it stay in the part above."""
    _two_pages(path, "第五章 评标办法", "五、评审内容及标准", 520, [50, 330, 60], [
        ["序号", "评审内容及标准", "分值"],
        ["（一）", "商务部分", ""],
        ["1、", "【客观分】保修期：全部产品保修期满足招标文件要求的得2分，每延长一年加1分，最高得4分。", "4 分"],
        ["2、", "【主观分】售后服务方案：提供详细的售后服务方案，包括对售后服", "6 分"],
    ], [
        ["", "务体系、技术支持和服务措施的描述，综合评审。", ""],
        ["3、", "【客观分】销售业绩：每提供一个同类产品销售业绩得1分，最高得5分。", "5 分"],
        *_TECH_AND_PRICE,
    ])
    return Expect(rows=[("保修期", 4, "商务"), ("售后服务方案", 6, "商务"), ("销售业绩", 5, "商务"), *_TECH_AND_PRICE_ROWS])


_HEADED = ([30, 90, 270, 50], ["序号", "评审因素", "评审要求（100分）", "分值"])


def _two_pages(path: Path, heading: str, intro: str, top: float, widths: list[float],
               first: list[list[Cell]], second: list[list[Cell]]) -> None:
    """A 评标办法 page whose table (rows ``first``) starts at ``top`` and goes on with ``second`` on the next page."""
    c = composer()
    c.heading(heading)
    c.text(intro)
    c.space_to(top)
    draw_grid(c, widths, first)
    c.new_page()
    draw_grid(c, widths, second)
    c.save(path)


def _headed_pages(path: Path, intro: str, top: float, first: list[list[Cell]], second: list[list[Cell]]) -> None:
    """:func:`_two_pages` with a 序号/评审因素/评审要求/分值 header repeated on the second page."""
    widths, head = _HEADED
    _two_pages(path, "第四章 评标办法", intro, top, widths, [head, *first], [head, *second])


def cut_gap_pdf(path: Path) -> Expect:
    """One table printed as two pieces on one page, a blank line between them and nothing written
    there (a table cut in two Word tables, then printed): the lower piece opens with the rest of a
    factor merged over sub-rows, its name cell empty, and no header."""
    widths, head = _HEADED
    c = composer()
    c.heading("第四章 评标办法")
    c.text("本项目采用综合评分法，满分100分。")
    draw_grid(c, widths, [head,
                          ["1", "实施方案", _criteria("实施方案"), "25分"],
                          ["2", "人员配备（30分）", "项目负责人具有高级职称的得10分。", "10分"]])
    c.y += 16
    draw_grid(c, widths, [["", "", "技术人员持证上岗的得10分。", "10分"],
                          ["", "", "人员稳定措施得当的得10分。", "10分"],
                          ["3", "类似业绩", "近三年每个同类项目得3分，最多得15分。", "15分"],
                          ["4", "报价", "价格分=评标基准价/投标报价×30", "30分"]])
    c.save(path)
    return Expect(rows=[("实施方案", 25, "技术"), ("人员配备", 30, "技术"), ("类似业绩", 15, "商务"),
                        ("报价", 30, "价格")],
                  sub_points={"人员配备": [10, 10, 10]})


def open_sides_pdf(path: Path) -> Expect:
    """A table ruled across its rows but drawn without its outer vertical rules: the names stand in
    the first column and the notes in the last, both outside the inner rules."""
    c = composer()
    c.heading("第四章 评标办法")
    c.text("本项目采用综合评分法，满分100分，评分标准见下表。")
    draw_grid(c, [90, 260, 50, 50], [
        ["评审项目", "评审内容及规则", "分值", "说明"],
        ["服务方案", _criteria("服务方案"), "40", "主观"],
        ["人员配置", _criteria("人员配置"), "20", "主观"],
        ["同类业绩", "近三年每个同类项目得2分，最多得10分。", "10", "客观"],
        ["价格评审", "价格分=评标基准价/投标报价×30", "30", "客观"],
    ], sides=False)
    c.save(path)
    return Expect(rows=[("服务方案", 40, "技术"), ("人员配置", 20, "技术"), ("同类业绩", 10, "商务"),
                        ("价格评审", 30, "价格")])


def name_cut_pdf(path: Path) -> Expect:
    """A merged name cell with its points in the name cut mid-word by the page break, under a header
    repeated on the next page: "针对本" ends the first page with the first sub-row's text cut
    mid-sentence; the next page opens with an unnumbered row holding "项目的实施方案（30分）" and the
    rest of that text, then the factor's other sub-rows."""
    _headed_pages(path, "本项目采用综合评分法，满分100分。", 640, [
        ["1", "针对本", "根据投标单位所提供的实施方案，对项目特点、难点的分析", "15分"],
    ], [
        ["", "项目的实施方案（30分）", "是否清晰完整、针对性强进行评审：清晰完整的得15分，较完整的得8分。", ""],
        [None, None, "根据投标单位的应急保障方案进行评审：完善的得5分，一般的得2分。", "5分"],
        [None, None, "根据投标单位的进度计划进行评审：合理可行的得10分，一般的得5分。", "10分"],
        ["2", "人员配备（30分）", _criteria("人员配备"), "30分"],
        ["3", "培训方案（10分）", _criteria("培训方案"), "10分"],
        ["4", "报价（30分）", "价格分=评标基准价/投标报价×30", "30分"],
    ])
    return Expect(rows=[("针对本项目的实施方案", 30, "技术"), ("人员配备", 30, "技术"), ("培训方案", 10, "技术"),
                        ("报价", 30, "价格")])


def open_parts_pdf(path: Path) -> Expect:
    """Part subtotals in the column headed 分值 and the row points under 权重, the part cells merged
    down the pages: the middle page's piece has no rule across the two part columns (only their sides
    go on), so the line finder finds the last three columns alone there; the third page's piece is
    whole again. The two part columns add up to 100 on the first page alone."""
    c = composer()
    c.heading("第六章 评审办法")
    c.text("响应文件其他评分因素及分值设置详见《评分细则》。")
    c.space_to(560)
    widths = [60, 30, 110, 30, 220]
    draw_grid(c, widths, [
        ["类别", "分值", "项目", "权重", "评分办法"],
        ["商务部分", "10", "报价得分", "10", "有效最低报价/投标报价×10"],
        ["技术部分", "90", "重点难点分析及对策", "15", _criteria("重点难点分析及对策")],
    ])
    c.new_page()
    left = c.margin
    top = c.y
    c.margin = left + 90  # the piece the line finder sees: 项目 | 权重 | 评分办法
    draw_grid(c, widths[2:], [
        ["工作内容及流程", "30", _criteria("工作内容及流程")],
        ["服务承诺", "5", _criteria("服务承诺")],
        ["人员招选方案", "20", _criteria("人员招选方案")],
    ])
    for x in (left, left + 60):  # the part cells' sides carry on, with no rule across them
        c.page.draw_line((x, top), (x, c.y), width=0.6)
    c.margin = left
    c.new_page()
    draw_grid(c, widths, [
        ["", "", "应急预案", "10", _criteria("应急预案")],
        [None, None, "质量保障措施", "10", _criteria("质量保障措施")],
        ["合计", "100", "总得分", "", ""],
    ])
    c.save(path)
    return Expect(rows=[("报价得分", 10, "价格"), ("重点难点分析及对策", 15, "技术"), ("工作内容及流程", 30, "技术"),
                        ("服务承诺", 5, "技术"), ("人员招选方案", 20, "技术"), ("应急预案", 10, "技术"),
                        ("质量保障措施", 10, "技术")])


def spill_pdf(path: Path) -> Expect:
    """A row taller than the room left on its page: its last words spill below the table's bottom rule,
    beneath the page number set higher than the usual margin; the table goes on on the next page."""
    c = composer(footer=False)
    c.heading("第五章 评标办法")
    c.text("评分项目及分值如下（满分100分）。")
    c.space_to(672)
    widths = [110, 60, 270]
    draw_grid(c, widths, [
        ["评分项目", "分值区间", "评分办法"],
        ["报价分", "0~10", "价格分=评标基准价/投标报价×10"],
        ["整体服务方案", "0~30", _criteria("整体服务方案")],
    ])
    page_number_y = c.y + 14
    c.page.insert_text((290, page_number_y), "- 12 -", fontname=FONT, fontsize=9)
    c.page.insert_text((c.margin + 173, page_number_y + 12), "评审。", fontname=FONT, fontsize=9)
    c.new_page()
    c.page.insert_text((290, page_number_y), "- 13 -", fontname=FONT, fontsize=9)
    draw_grid(c, widths, [
        ["人员配备", "0~30", _criteria("人员配备")],
        ["应急预案", "0~20", _criteria("应急预案")],
        ["类似业绩", "0~10", "每提供一个类似项目业绩得2分，最多得10分。"],
    ])
    c.save(path)
    return Expect(rows=[("报价分", 10, "价格"), ("整体服务方案", 30, "技术"), ("人员配备", 30, "技术"),
                        ("应急预案", 20, "技术"), ("类似业绩", 10, "商务")])


def points_cut_pdf(path: Path) -> Expect:
    """Points only in the names, inside a larger form table, and the first name's points cut by the page
    break: "类似业绩（25" ends the page, "分）" opens the next with the rest of the criteria."""
    c = composer()
    c.heading("第三章 评标办法")
    c.space_to(600)
    widths = [70, 110, 260]
    draw_grid(c, widths, [
        ["评标方法", ("综合评分法，满分100分，价格分另计。", 2)],
        [("评分细则（满分100分）", 3)],
        ["评分细则", "类似业绩（25", "每提供一个同类项目业绩合同得5分，最高可得25分。业绩要求如下：1.业绩时间"],
    ])
    c.new_page()
    draw_grid(c, widths, [
        ["", "分）", "自2022年1月1日起；2.业绩类型为同类服务合同。"],
        [None, "公司认证情况（15分）", "具备质量管理体系认证的得5分，具备环境管理体系认证的得5分，具备职业健康安全管理体系认证的得5分。"],
        [None, "服务方案（40分）", _criteria("服务方案")],
        [None, "应急预案（20分）", _criteria("应急预案")],
        ["注意事项", ("投标文件有下列情形之一的，作否决投标处理。", 2)],
    ])
    c.save(path)
    return Expect(rows=[("类似业绩", 25, "商务"), ("公司认证情况", 15, "商务"), ("服务方案", 40, "技术"),
                        ("应急预案", 20, "技术")])


def landscape_title_pdf(path: Path) -> Expect:
    """A scoring table set on a landscape page between portrait ones: the running header stands as far
    from the top edge as on the portrait pages (a larger share of the shorter page), and the table's
    title ("第十一条 技术部分评分标准：") is left alone at the foot of the portrait page before it."""
    header = "某某公司保洁服务项目招标文件"

    def running(c: Any) -> None:
        c.page.insert_text((c.margin + 60, 74), header, fontname=FONT, fontsize=9)

    c = composer()
    running(c)
    c.y = 90
    c.heading("第四章 评标办法")
    c.text("投标报价得分满分70分，按低价优先法计算，技术部分30分。" + "评标委员会对投标文件进行评审。" * 20)
    c.space_to(720)
    c.text("第十一条 技术部分评分标准：")
    c.page = c.doc.new_page(width=842, height=595)
    c.page.insert_text((421, 570), f"- {c.doc.page_count} -", fontname=FONT, fontsize=9)
    running(c)
    c.y = 84
    draw_grid(c, [40, 120, 160, 400], [
        ["序号", "项目", "内容", "评分标准"],
        ["1", "企业资信（2分）", "依法登记，有相应的经营资质（2分）", "实缴资本不低于三百万元的得2分。"],
        ["2", "人员管理（4分）", "人员储备（2分）", _criteria("人员储备")],
        [None, None, "入职培训方案（2分）", _criteria("入职培训方案")],
        ["3", "企业业绩（9分）", "具有良好的业绩和履约能力（9分）", "每个类似业绩得3分，最多得9分。"],
        ["4", "管理思路（15分）", "安全管理（8分）", _criteria("安全管理")],
        [None, None, "生产组织（7分）", _criteria("生产组织")],
    ])
    c.new_page()
    running(c)
    c.y = 90
    c.text("第十二条 评标结果按综合得分由高到低排序。")
    c.save(path)
    return Expect(rows=[("依法登记，有相应的经营资质", 2, "技术"), ("人员储备", 2, "技术"), ("入职培训方案", 2, "技术"),
                        ("具有良好的业绩和履约能力", 9, "技术"), ("安全管理", 8, "技术"), ("生产组织", 7, "技术"),
                        ("投标报价得分", 70, "价格")], kind="mixed")


def tag_cut_pdf(path: Path) -> Expect:
    """Sub-items under a numbered heading row, each cell opening with its scoring-type tag; the page
    breaks right after the last sub-item's tag, so its name and text open the next page in a row of
    their own."""
    _two_pages(path, "第五章 评标办法", "五、评审内容及标准", 560, [50, 330, 60], [
        ["序号", "评审内容及标准", "分值"],
        ["（一）", "技术部分", ""],
        ["1、", "【客观分】技术需求符合度：完全满足的得60分，每负偏离一项扣2分。", "60 分"],
        ["2、", "技术服务、技术培训：", ""],
        [None, "【主观分】操作应用培训：" + _criteria("操作应用培训"), "5 分"],
        [None, "【主观分】", "5 分"],
    ], [
        ["", "维修保养培训：" + _criteria("维修保养培训"), ""],
        ["（二）", "价格部分：价格分=评标基准价/投标报价×30", "30 分"],
    ])
    return Expect(rows=[("技术需求符合度", 60, "技术"), ("技术服务、技术培训", 10, "技术"), ("价格部分", 30, "价格")],
                  sub_points={"技术服务、技术培训": [5, 5]})


def tag_cut_first_pdf(path: Path) -> Expect:
    """The same heading row, but the break comes right after its first sub-item's tag and points, so the
    one item the row holds at the break is named by the text the next page opens with."""
    _two_pages(path, "第五章 评标办法", "五、评审内容及标准", 560, [50, 330, 60], [
        ["序号", "评审内容及标准", "分值"],
        ["（一）", "技术部分", ""],
        ["1、", "【客观分】技术需求符合度：完全满足的得60分，每负偏离一项扣2分。", "60 分"],
        ["2、", "技术服务、技术培训：", ""],
        [None, "【主观分】", "4 分"],
    ], [
        ["", "操作应用培训：" + _criteria("操作应用培训"), ""],
        ["", "【主观分】维修保养培训：" + _criteria("维修保养培训"), "6 分"],
        ["（二）", "价格部分：价格分=评标基准价/投标报价×30", "30 分"],
    ])
    return Expect(rows=[("技术需求符合度", 60, "技术"), ("技术服务、技术培训", 10, "技术"), ("价格部分", 30, "价格")],
                  sub_points={"技术服务、技术培训": [4, 6]})


def points_tail_pdf(path: Path) -> Expect:
    """A name cut by the page break after a row that already has its points ("针对本项目服" | 10分); the
    next page, under the repeated header, opens with an unnumbered row holding the name's end with the
    same points ("务人员的培训方案（10分）") and a new numbered paragraph of its criteria."""
    _headed_pages(path, "本项目采用综合评分法。", 560, [
        ["1", "服务方案（40分）", _criteria("服务方案"), "40分"],
        ["2", "人员配备（30分）", _criteria("人员配备"), "30分"],
        ["3", "针对本项目服", "对所有项目人员的培训方案综合评审：", "10分"],
    ], [
        ["", "务人员的培训方案（10分）", "1、培训方案内容全面针对性强的，得10分；2、内容较全面的，得7分。", ""],
        ["4", "应急预案（10分）", _criteria("应急预案"), "10分"],
        ["5", "报价（10分）", "价格分=评标基准价/投标报价×10", "10分"],
    ])
    return Expect(rows=[("服务方案", 40, "技术"), ("人员配备", 30, "技术"), ("针对本项目服务人员的培训方案", 10, "技术"),
                        ("应急预案", 10, "技术"), ("报价", 10, "价格")])


def framed_pdf(path: Path) -> Expect:
    """A table set inside a frame (an empty column on each side, as a table pasted into a cell): the next
    page's piece has only the frame's sides, no rule across them, so the line finder finds the inner
    columns alone there; a heading row's numbered sub-items (3.1, 3.2 …) and a cut text run over."""
    c = composer()
    c.heading("第四章 评标办法")
    c.text("详细评审采用综合评分法，满分100分。")
    c.space_to(520)
    widths = [30, 40, 230, 50, 40, 30]
    draw_grid(c, widths, [
        ["", "序号", "评标内容", "说明", "分值", ""],
        [None, "1", "业绩：每提供一个同类业绩得1分，最多得5分。", "客观分", "5", None],
        [None, "2", "偏离度：对应于采购文件第四章的技术要求，技术参数每负偏离一项扣1分，扣完为止。", "客观分", "25", None],
        [None, "3", "样品评分：", "/", "/", None],
        [None, "3.1", "色泽：根据样品色泽的均一程度、光泽进行打分。【分", "主观分", "5", None],
    ])
    c.new_page()
    left, top = c.margin, c.y
    c.margin = left + widths[0]
    draw_grid(c, widths[1:-1], [
        ["", "值范围：5、3、1、0】", "", ""],
        ["3.2", "口感：根据样品口感进行打分。【分值范围：5、3、1、0】", "主观分", "5"],
        ["3.3", "气味：根据样品气味进行打分。【分值范围：5、3、1、0】", "主观分", "5"],
        ["4", "配送方案：" + _criteria("配送方案"), "主观分", "25"],
        ["5", "价格分：价格分=评标基准价/投标报价×30", "客观分", "30"],
    ])
    for x in (left, left + sum(widths)):
        c.page.draw_line((x, top), (x, c.y), width=0.6)
    c.margin = left
    c.save(path)
    return Expect(rows=[("业绩", 5, "商务"), ("偏离度", 25, "技术"), ("样品评分", 15, "技术"), ("配送方案", 25, "技术"),
                        ("价格分", 30, "价格")], sub_points={"样品评分": [5, 5, 5]})


def cut_points_text_pdf(path: Path) -> Expect:
    """A name-and-criteria cell cut mid-sentence by the page break right before the points it states
    ("…本项最" + "高得4分"): the next page's row holding only that end is no part label, so the rows
    after it stay in the part above."""
    _two_pages(path, "第五章 评标办法", "五、评审内容及标准", 560, [50, 330, 60], [
        ["序号", "评审内容及标准", "分值"],
        ["（一）", "商务部分", ""],
        ["1、", "【客观分】保修期：全部产品保修期满足招标文件要求的得2分，每延长一年加1分。本项最", "4 分"],
    ], [
        ["", "高得4分", ""],
        ["2、", "【主观分】售后服务方案：" + _criteria("售后服务方案"), "6 分"],
        ["3、", "【客观分】销售业绩：每提供一个同类产品销售业绩得1分，最高得5分。", "5 分"],
        *_TECH_AND_PRICE,
    ])
    return Expect(rows=[("保修期", 4, "商务"), ("售后服务方案", 6, "商务"), ("销售业绩", 5, "商务"), *_TECH_AND_PRICE_ROWS])


def unit_cut_pdf(path: Path) -> Expect:
    """A merged name cell cut mid-word ("人员配备、专业素" + "养（30分）") where the sub-row's text is cut
    between a number and its unit ("…得10" + "分；2、…"), under a header repeated on the next page."""
    _headed_pages(path, "本项目采用综合评分法，满分100分。", 600, [
        ["1", "服务方案（40分）", _criteria("服务方案"), "40分"],
        ["2", "人员配备、专业素", "根据项目负责人的工作经验综合评审：1、经验丰富的，得10", "10分"],
    ], [
        ["", "养（30分）", "分；2、经验一般的，得5分。", ""],
        [None, None, "对驾驶员的配备情况进行评分：证照齐全的得10分，不全的得5分。", "10分"],
        [None, None, "根据其他辅助服务人员的配备综合评审：合理的得10分，一般的得5分。", "10分"],
        ["3", "报价（30分）", "价格分=评标基准价/投标报价×30", "30分"],
    ])
    return Expect(rows=[("服务方案", 40, "技术"), ("人员配备、专业素养", 30, "技术"), ("报价", 30, "价格")],
                  sub_points={"人员配备、专业素养": [10, 10, 10]})


def bracket_cut_pdf(path: Path) -> Expect:
    """A name with a bracketed note cut by the page break inside the bracket ("服务方案（根据投标人提供的
    详细" + "服务方案进行评价）"), the next page's criteria opening a numbered list; part rows span the table."""
    c = composer()
    c.heading("第四章 评标办法")
    c.space_to(560)
    widths = [30, 80, 280, 50]
    draw_grid(c, widths, [
        ["序号", "评审因素", "评分标准", "满分值"],
        ["一、价格部分（50分）"],
        ["1", "价格", "报价得分=评标基准价/投标报价×50", "50"],
        ["二、商务部分（18分）"],
        ["2", "业绩经验", "每提供一个同类业绩得2分，最多得6分。", "6"],
        ["3", "企业认证情况", "具有质量管理体系认证的得6分，具有环境管理体系认证的得6分。", "12"],
        ["三、技术部分（32分）"],
        ["4", "服务方案（根据投标人提供的详细", "1.总体运作方案：" + _criteria("总体运作方案"), "28"],
    ])
    c.new_page()
    draw_grid(c, widths, [
        ["", "服务方案进行评价）", "（1）人员招聘：招聘渠道多、措施可行的得满分。", ""],
        [None, None, "2.服务承诺事项：承诺完整可行的得4分，一般的得2分。", "4"],
        ["合计", "", "综合得分", "100"],
    ])
    c.save(path)
    return Expect(rows=[("价格", 50, "价格"), ("业绩经验", 6, "商务"), ("企业认证情况", 12, "商务"),
                        ("服务方案（根据投标人提供的详细服务方案进行评价）", 32, "技术")],
                  sub_points={"服务方案（根据投标人提供的详细服务方案进行评价）": [28, 4]})


def part_cut_pdf(path: Path) -> Expect:
    """A part cell and a factor cell both cut by the page break ("技术分" + "(50分)", "产品技术参数" +
    "满足度"), with the factor's text cut between a number and its unit ("满分32" + "分：…")."""
    _two_pages(path, "第三章 评标办法", "详细评审：评委独立打分，综合评分得分=技术评审得分+商务评审得分。", 640,
               [60, 80, 40, 260], [
                   ["评分因素", "项目", "分值", "评分标准"],
                   ["技术分", "产品技术参数", "32", "对产品功能参数要求的响应程度进行评分，满分32"],
               ], [
                   ["(50分)", "满足度", "", "分：全部满足的得32分，每负偏离一项扣2分。"],
                   [None, "实施方案", "10", _criteria("实施方案")],
                   [None, "培训方案", "8", _criteria("培训方案")],
                   ["商务分(50分)", "企业综合实力", "8", "具有质量管理体系认证的得4分，具有信息安全管理体系认证的得4分。"],
                   [None, "投标报价", "42", "价格分=评标基准价/投标报价×42"],
               ])
    return Expect(rows=[("产品技术参数满足度", 32, "技术"), ("实施方案", 10, "技术"), ("培训方案", 8, "技术"),
                        ("企业综合实力", 8, "商务"), ("投标报价", 42, "价格")])


def name_alone_pdf(path: Path) -> Expect:
    """Points as ranges in a 分值区间 column; the page breaks inside a row after its name, so the next page
    opens with the name alone in its cell ("拟派人员能力" | | ) and its range and text in the row below."""
    c = composer()
    c.heading("第三章 评审办法")
    c.text("包1评分规则：")
    c.space_to(600)
    widths = [110, 60, 270]
    draw_grid(c, widths, [
        ["评分项目", "分值区间", "评分办法"],
        ["报价得分10分", "0~10", "报价分=评标基准价/投标报价×10。"],
    ])
    c.new_page()
    draw_grid(c, widths, [
        ["拟派人员能力", "", ""],
        [None, "0~30", "拟派人员专业对口、经验丰富的得22-30分，一般的得14-22分，欠缺的得0-14分。"],
        ["管理机构设置", "0~30", _criteria("管理机构设置")],
        ["风险处理方案", "0~20", _criteria("风险处理方案")],
        ["投标人业绩", "0~10", "每提供一个类似项目业绩得2分，最多得10分。"],
    ])
    c.save(path)
    return Expect(rows=[("报价得分", 10, "价格"), ("拟派人员能力", 30, "技术"), ("管理机构设置", 30, "技术"),
                        ("风险处理方案", 20, "技术"), ("投标人业绩", 10, "商务")])


PAGES: dict[str, tuple[str, Callable[[Path], Expect]]] = {
    "product_rows": ("product_rows.pdf", product_rows_pdf),
    "lots_pdf": ("lots.pdf", lots_pdf),
    "part_totals": ("part_totals.pdf", part_totals_pdf),
    "scored_by_type": ("scored_by_type.pdf", scored_by_type_pdf),
    "described_names": ("described_names.pdf", described_names_pdf),
    "three_levels_pdf": ("three_levels.pdf", three_levels_pdf),
    "long_paragraph_items": ("long_paragraph_items.pdf", long_paragraph_items_pdf),
    "blank_gap": ("blank_gap.pdf", blank_gap_pdf),
    "blank_gap_header": ("blank_gap_header.pdf", lambda path: blank_gap_pdf(path, "招标文件  第四章 评标方法与程序")),
    "high_footer": ("high_footer.pdf", high_footer_pdf),
    "spaced_header": ("spaced_header.pdf", spaced_header_pdf),
    "group_tail": ("group_tail.pdf", group_tail_pdf),
    "row_split": ("row_split.pdf", row_split_pdf),
    "header_at_foot": ("header_at_foot.pdf", header_at_foot_pdf),
    "cut_text": ("cut_text.pdf", cut_text_pdf),
    "name_cut": ("name_cut.pdf", name_cut_pdf),
    "open_parts": ("open_parts.pdf", open_parts_pdf),
    "spill": ("spill.pdf", spill_pdf),
    "points_cut": ("points_cut.pdf", points_cut_pdf),
    "landscape_title": ("landscape_title.pdf", landscape_title_pdf),
    "tag_cut": ("tag_cut.pdf", tag_cut_pdf),
    "tag_cut_first": ("tag_cut_first.pdf", tag_cut_first_pdf),
    "cut_gap": ("cut_gap.pdf", cut_gap_pdf),
    "open_sides": ("open_sides.pdf", open_sides_pdf),
    "points_tail": ("points_tail.pdf", points_tail_pdf),
    "framed": ("framed.pdf", framed_pdf),
    "cut_points_text": ("cut_points_text.pdf", cut_points_text_pdf),
    "unit_cut": ("unit_cut.pdf", unit_cut_pdf),
    "bracket_cut": ("bracket_cut.pdf", bracket_cut_pdf),
    "part_cut": ("part_cut.pdf", part_cut_pdf),
    "name_alone": ("name_alone.pdf", name_alone_pdf),
}

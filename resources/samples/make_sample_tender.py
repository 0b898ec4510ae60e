"""Generate ``sample_tender.pdf``, the small invented tender the app opens on first start.

Run from the repository root: ``python resources/samples/make_sample_tender.py``.
The text is invented for BidStudio (no real buyer). It has what the app must handle:
a project overview, requirements with ★/▲ clauses, and a scoring chapter whose
technical table runs from page 4 onto page 5 without a repeated header, with a
wrapped factor name. Uses PyMuPDF's built-in "china-s" font, so no system font is needed.
``PdfComposer`` is also used by the tests to build their own fixture PDFs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pymupdf as _pymupdf_module

pymupdf: Any = _pymupdf_module
FONT = "china-s"
A4 = (595.0, 842.0)


def wrap(text: str, width: float, size: float) -> list[str]:
    """Split text into lines of at most ``width`` points (one em per character)."""
    per_line = max(1, int(width // size))
    lines: list[str] = []
    for para in text.split("\n"):
        while len(para) > per_line:
            lines.append(para[:per_line])
            para = para[per_line:]
        lines.append(para)
    return lines


class PdfComposer:
    """Writes headings, paragraphs and ruled tables top-down, breaking pages as needed."""

    def __init__(self, margin: float = 60.0, footer: bool = True) -> None:
        self.doc = pymupdf.open()
        self.margin = margin
        self.footer = footer
        self.page: Any = None
        self.y = 0.0
        self.new_page()

    @property
    def bottom(self) -> float:
        return A4[1] - self.margin

    def new_page(self) -> None:
        """Start a page (with a page number in the footer margin)."""
        self.page = self.doc.new_page(width=A4[0], height=A4[1])
        self.y = self.margin
        if self.footer:
            n = self.doc.page_count
            self.page.insert_text((A4[0] / 2 - 5, A4[1] - 25), f"- {n} -", fontname=FONT, fontsize=9)

    def text(self, text: str, size: float = 10.5, indent: float = 0.0, gap: float = 4.0) -> None:
        """A paragraph, wrapped to the text width."""
        width = A4[0] - 2 * self.margin - indent
        for line in wrap(text, width, size):
            if self.y + size * 1.5 > self.bottom:
                self.new_page()
            self.page.insert_text((self.margin + indent, self.y + size), line, fontname=FONT, fontsize=size)
            self.y += size * 1.5
        self.y += gap

    def heading(self, text: str, size: float = 14.0) -> None:
        """A heading line with some space around it."""
        self.y += 6
        self.text(text, size=size, gap=6)

    def table(
        self, widths: list[float], rows: list[list[str]], size: float = 9.0, header_rows: int = 1
    ) -> tuple[int, int]:
        """A ruled table; rows that do not fit continue on the next page without the header.

        Returns the first and last page (1-based) the table is drawn on.
        """
        pad = 3.0
        first = self.doc.page_count
        for index, row in enumerate(rows):
            cells = [wrap(c, w - 2 * pad, size) for c, w in zip(row, widths, strict=True)]
            height = max(len(c) for c in cells) * size * 1.4 + 2 * pad
            if self.y + height > self.bottom and index >= header_rows:
                self.new_page()
            x = self.margin
            for lines, w in zip(cells, widths, strict=True):
                self.page.draw_rect(pymupdf.Rect(x, self.y, x + w, self.y + height), color=(0, 0, 0), width=0.6)
                for k, line in enumerate(lines):
                    pos = (x + pad, self.y + pad + size + k * size * 1.4)
                    self.page.insert_text(pos, line, fontname=FONT, fontsize=size)
                x += w
            self.y += height
        self.y += 8
        return first, self.doc.page_count

    def space_to(self, y: float) -> None:
        """Move the cursor down to ``y`` (to place a table near the page bottom)."""
        self.y = max(self.y, y)

    def save(self, path: Path) -> None:
        """Write a compact PDF."""
        self.doc.save(str(path), garbage=4, deflate=True)
        self.doc.close()


COMMERCIAL = [
    ["序号", "评分因素", "评分标准", "分值"],
    ["1", "同类项目业绩", "投标人自2022年1月1日以来承担过公共文化场馆信息化运维项目的，每个得2分，最高8分。须提供合同关键页复印件。", "8"],
    ["2", "企业资质认证", "具有有效的质量管理体系、信息安全管理体系、信息技术服务管理体系认证证书的，每个得2分，最高6分。", "6"],
    ["3", "信誉与财务状况", "近三年财务状况良好、无不良信用记录的得6分；提供的证明材料不全的酌情扣分。", "6"],
]

TECHNICAL = [
    ["序号", "评分因素", "评分标准", "分值"],
    ["1", "总体技术方案", "根据投标人对项目背景、现状和需求的理解，以及总体架构、技术路线的合理性综合评审：方案完整、针对性强、可行性高的得13-15分；方案较完整、较可行的得8-12分；方案一般的得3-7分；未提供的不得分。", "15"],
    ["2", "平台功能实现方案", "对读者服务、馆藏资源统计、设备监控、数据大屏等功能的实现方案进行评审：功能设计完整、流程清晰、界面友好的得10-12分；较完整的得6-9分；一般的得1-5分。", "12"],
    ["3", "运维服务方案", "包括日常巡检、故障响应时限、备品备件、版本升级和数据备份等内容：措施具体、响应及时的得8-10分；较具体的得4-7分；一般的得1-3分。", "10"],
    ["4", "应急保障方案", "针对系统宕机、网络中断、数据泄露等突发情况的应急预案与演练安排：预案完善、可操作性强的得6-8分；较完善的得3-5分；一般的得1-2分。", "8"],
    ["5", "项目团队配置", "项目经理具有高级职称或信息系统项目管理师证书的得4分；团队中具有数据库、网络安全相关认证的技术人员每人得2分，最高6分。", "10"],
    ["6", "培训方案", "针对馆员的系统操作与日常维护培训计划：内容全面、安排合理的得5分；较合理的得3分；一般的得1分。", "5"],
]

PRICE = [
    ["评分因素", "评分标准", "分值"],
    ["价格", "满足招标文件要求且投标报价最低的为评标基准价，其价格分为满分。其他投标人的价格分=（评标基准价/投标报价）×20。", "20"],
]


def build(path: Path) -> None:
    """Write the sample tender PDF to ``path``."""
    c = PdfComposer()
    c.heading("滨江市公共图书馆智慧服务平台运维项目", size=18)
    c.heading("招 标 文 件", size=16)
    c.text("项目编号：BJTSG-2026-017        采购人：滨江市公共图书馆（虚构示例）")
    c.heading("第一章 招标公告")
    c.heading("一、项目基本情况", size=12)
    c.text("项目名称：滨江市公共图书馆智慧服务平台运维项目")
    c.text("预算金额：人民币 168 万元；最高限价：人民币 165 万元。")
    c.text("服务期：自合同签订之日起 24 个月。服务地点：滨江市公共图书馆总馆及三个分馆。")
    c.text("项目概况：对图书馆现有的读者服务系统、自助借还设备、门禁与客流统计系统进行一体化运维，并建设统一的数据展示平台。")
    c.heading("二、投标人资格要求", size=12)
    c.text("1.具有独立承担民事责任的能力；2.具有良好的商业信誉和健全的财务会计制度；3.本项目不接受联合体投标。")
    c.new_page()
    c.heading("第二章 采购需求")
    c.heading("一、服务内容", size=12)
    c.text("（一）平台运维：负责读者服务系统、自助借还设备（共 42 台）、门禁与客流统计系统的日常运行维护。")
    c.text("（二）平台建设：建设统一的数据展示平台，汇总借阅、客流、设备状态等数据，支持大屏和移动端查看。")
    c.text("（三）驻场服务：工作日安排不少于 2 名工程师驻场，节假日安排值守。")
    c.heading("二、技术要求", size=12)
    c.text("★1.故障响应：接到报修后 30 分钟内响应，一般故障 4 小时内修复，重大故障 24 小时内修复。")
    c.text("★2.数据安全：平台须符合网络安全等级保护第二级要求，读者个人信息不得离开采购人网络。")
    c.text("▲3.设备巡检：每月对全部自助设备巡检一次，并提交巡检报告。")
    c.text("▲4.数据展示：数据大屏刷新间隔不大于 5 分钟，支持按分馆、按时段统计。")
    c.text("5.系统升级：服务期内免费提供软件版本升级，升级前须提交方案并经采购人同意。")
    c.heading("三、人员要求", size=12)
    c.text("项目经理须具有 5 年以上信息系统运维管理经验；驻场工程师须熟悉主流数据库和网络设备。")
    c.heading("四、验收与考核", size=12)
    c.text("采购人每季度对运维服务进行考核，考核内容包括故障响应及时率、设备完好率、读者满意度和文档完整性。")
    c.text("考核得分低于 80 分的，采购人有权按合同约定扣减当季度服务费；连续两个季度低于 70 分的，采购人有权解除合同。")
    c.text("服务期满，中标人须移交全部运维文档、系统账号和数据备份，并配合新服务商完成交接。")
    c.new_page()
    c.heading("第三章 评标办法")
    c.heading("一、评标方法", size=12)
    c.text("本项目采用综合评分法，总分 100 分，其中商务部分 20 分、技术部分 60 分、价格部分 20 分。")
    c.heading("二、初步评审", size=12)
    c.text("评标委员会对投标文件的资格性和符合性进行审查，有下列情形之一的，投标无效：")
    c.text("（1）未按招标文件要求签署、盖章的；（2）投标报价超过最高限价的；（3）不满足带“★”号条款要求的；"
           "（4）投标有效期不足 90 天的；（5）附有采购人不能接受的条件的。")
    c.text("带“▲”号的条款为重要技术条款，不满足的不作无效投标处理，但在技术评分中相应扣分。")
    c.heading("三、详细评审", size=12)
    c.text("通过初步评审的投标文件进入详细评审。评标委员会各成员独立评分，每一评分项的得分取全体成员评分的算术平均值，"
           "保留两位小数。主观评分项须在评分表中写明扣分理由；客观评分项以投标文件提供的证明材料为准，"
           "未提供或提供不全的不得分。投标人对同一事项提供的材料前后不一致的，按对其不利的一项计分。")
    c.text("评分标准如下：")
    c.heading("附表1：商务评分表（20分）", size=11)
    c.table([40, 100, 285, 50], COMMERCIAL)
    c.heading("附表2：技术评分表（60分）", size=11)
    pages = c.table([40, 62, 323, 50], TECHNICAL)
    if pages[0] == pages[1]:
        raise SystemExit(f"layout changed: the technical table must run over two pages, got {pages}")
    c.heading("附表3：价格评分表（20分）", size=11)
    c.table([100, 325, 50], PRICE)
    c.text("评标委员会按评审后得分由高到低顺序推荐中标候选人。得分相同的，按投标报价由低到高顺序排列。")
    c.new_page()
    c.heading("第四章 合同主要条款")
    c.text("1.合同价款：合同价为固定总价，包含完成本项目全部服务所需的一切费用。")
    c.text("2.付款方式：合同签订后支付 30%，第一年服务期满考核合格后支付 35%，服务期满验收合格后支付 35%。")
    c.text("3.保密：中标人对在服务中接触的读者信息和采购人数据负有保密义务，服务期满后仍然有效。")
    c.new_page()
    c.heading("第五章 投标文件格式")
    c.text("投标文件由商务部分、技术部分和价格部分组成，技术部分应按照评标办法中技术评分表的顺序编写。")
    c.text("一、投标函  二、法定代表人授权书  三、商务响应表  四、技术方案  五、报价表")
    c.save(path)


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("sample_tender.pdf")
    build(out)
    print(f"wrote {out} ({out.stat().st_size} bytes)")

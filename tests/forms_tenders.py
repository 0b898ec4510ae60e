"""Small tenders with a format chapter (投标文件格式), generated for the forms tests.

``docx_tender`` writes a Word tender the way offices do: a table of contents, instructions that
mention the chapter, then the chapter with a list of its forms, forms numbered 一、二、…, blanks
as underscores, underlined spaces and bracketed hints, a price table, a list table for 业绩, a
form that only asks for a licence copy, a conditional form (如有) and a 格式自拟 plan.
``pdf_tender`` writes the same chapter as a PDF (lines of text, ruled tables drawn).
"""

from __future__ import annotations

from pathlib import Path

from docx import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Pt

FORMS = ["投标函", "开标一览表", "法定代表人身份证明", "授权委托书", "类似项目业绩表", "营业执照副本复印件", "联合体协议书",
         "服务方案"]


def _title(doc: Document, text: str) -> None:
    p = doc.add_paragraph()
    p.alignment = WD_ALIGN_PARAGRAPH.CENTER
    r = p.add_run(text)
    r.bold = True
    r.font.size = Pt(14)


def _blank_line(doc: Document, before: str, blank: str, after: str = "", underlined_spaces: bool = False) -> None:
    p = doc.add_paragraph()
    p.add_run(before)
    r = p.add_run(blank)
    if underlined_spaces:
        r.underline = True
    if after:
        p.add_run(after)


def _page_break(doc: Document) -> None:
    from docx.enum.text import WD_BREAK

    doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)


def docx_tender(path: Path, *, with_chapter: bool = True) -> Path:
    """A DOCX tender; ``with_chapter=False`` leaves the format chapter out (a tender that prescribes none)."""
    doc = Document()
    doc.add_heading("某市图书馆物业管理服务项目 招标文件", level=1)
    doc.add_paragraph("项目编号：TSG-2026-018")
    doc.add_paragraph("采购人：某市图书馆")
    doc.add_paragraph("目录")
    doc.add_paragraph("第一章 投标人须知\t3")
    doc.add_paragraph("第二章 投标文件格式\t9")
    _page_break(doc)
    doc.add_heading("第一章 投标人须知", level=1)
    doc.add_paragraph("1. 项目名称：某市图书馆物业管理服务项目；项目编号：TSG-2026-018。")
    doc.add_paragraph("2. 投标人应按第二章投标文件格式编写投标文件，未按格式提供的，投标无效。")
    doc.add_paragraph("3. 资格要求：具有独立承担民事责任的能力，提供营业执照副本复印件。")
    if not with_chapter:
        doc.add_heading("第二章 采购需求", level=1)
        doc.add_paragraph("物业管理服务内容包括保洁、安保、绿化。")
        doc.save(str(path))
        return path
    _page_break(doc)
    doc.add_heading("第二章 投标文件格式", level=1)
    for k, name in enumerate(FORMS, 1):  # the chapter's own list of its forms
        doc.add_paragraph(f"{k}. {name}")
    _page_break(doc)
    _title(doc, "一、投标函")
    doc.add_paragraph("致：（采购人名称）")
    _blank_line(doc, "根据贵方", "                    ", "（项目名称、项目编号）的招标文件，我方正式授权下述签字人", True)
    _blank_line(doc, "", "__________", "（姓名和职务）代表投标人")
    _blank_line(doc, "", "______________", "（投标人名称）提交投标文件。")
    doc.add_paragraph("1. 投标总价为（大写）________________元人民币（小写：￥____________元）。")
    doc.add_paragraph("2. 服务期：________。")
    doc.add_paragraph("地址：")
    doc.add_paragraph("电话：                传真：")
    doc.add_paragraph("投标人名称（盖章）：")
    doc.add_paragraph("法定代表人或授权代表（签字）：")
    doc.add_paragraph("日期：____年____月____日")
    _page_break(doc)
    _title(doc, "二、开标一览表")
    doc.add_paragraph("项目名称：______________________")
    t = doc.add_table(rows=2, cols=3)
    t.style = "Table Grid"
    for c, text in enumerate(["投标人名称", "投标总价（元）", "服务期"]):
        t.cell(0, c).text = text
    doc.add_paragraph("注：投标总价应与投标函一致。")
    doc.add_paragraph("日期：____年____月____日")
    _page_break(doc)
    _title(doc, "三、法定代表人身份证明")
    doc.add_paragraph("投标人名称：____________________")
    doc.add_paragraph("姓名：________  性别：____  年龄：____  职务：________")
    doc.add_paragraph("系____________（投标人名称）的法定代表人。")
    doc.add_paragraph("附：法定代表人身份证复印件")
    _page_break(doc)
    _title(doc, "四、授权委托书")
    doc.add_paragraph("本人________（姓名）系________（投标人名称）的法定代表人，现委托________（姓名）为我方代理人。")
    doc.add_paragraph("被授权人身份证号：____________________")
    _page_break(doc)
    _title(doc, "五、类似项目业绩表")
    t = doc.add_table(rows=4, cols=5)
    t.style = "Table Grid"
    for c, text in enumerate(["序号", "项目名称", "采购人", "合同金额", "签订日期"]):
        t.cell(0, c).text = text
    for r in range(1, 4):
        t.cell(r, 0).text = str(r)
    doc.add_paragraph("注：附合同复印件。")
    _page_break(doc)
    _title(doc, "六、营业执照副本复印件")
    doc.add_paragraph("（加盖公章）")
    _page_break(doc)
    _title(doc, "七、联合体协议书（如有）")
    doc.add_paragraph("甲方：____________    乙方：____________")
    _page_break(doc)
    _title(doc, "八、服务方案（格式自拟）")
    doc.add_paragraph("（格式自拟）")
    doc.add_heading("第三章 合同条款", level=1)
    doc.add_paragraph("合同条款略。")
    doc.save(str(path))
    return path


PDF_LINES: list[tuple[str, list[str], list[list[str]] | None]] = [
    ("投标函", ["致：（采购人名称）", "我方收到贵方关于（项目名称）（项目编号：（项目编号））的招标文件，决定参加投标。",
                "投标总价：人民币（大写）________________元（￥____________元）。", "投标人名称（盖章）：",
                "日期：____年____月____日"], None),
    ("开标一览表", ["项目名称：______________________"], [["投标人名称", "投标总价（元）", "服务期"], ["", "", ""]]),
    ("法定代表人身份证明", ["投标人名称：____________________", "姓名：________  性别：____  职务：________",
                          "附：法定代表人身份证复印件"], None),
]


def pdf_tender(path: Path) -> Path:
    """A PDF tender whose format chapter has three forms, one with a ruled table."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "某市图书馆物业管理服务项目 招标文件", fontname="china-s", fontsize=16)
    page.insert_text((72, 110), "项目编号：TSG-2026-018", fontname="china-s", fontsize=11)
    page.insert_text((72, 130), "第一章 投标人须知", fontname="china-s", fontsize=14)
    page.insert_text((72, 150), "投标人应按第二章投标文件格式编写投标文件。", fontname="china-s", fontsize=11)
    page = doc.new_page()
    page.insert_text((72, 80), "第二章 投标文件格式", fontname="china-s", fontsize=16)
    for k, (title, lines, table) in enumerate(PDF_LINES, 1):
        page = doc.new_page()
        page.insert_text((250, 80), f"{k}、{title}", fontname="china-s", fontsize=14)
        y = 120.0
        for line in lines:
            page.insert_text((72, y), line, fontname="china-s", fontsize=11)
            y += 24
        if table:
            x0, x1, rows = 72.0, 520.0, len(table)
            widths = (x1 - x0) / len(table[0])
            for r in range(rows + 1):
                page.draw_line((x0, y + r * 28), (x1, y + r * 28))
            for c in range(len(table[0]) + 1):
                page.draw_line((x0 + c * widths, y), (x0 + c * widths, y + rows * 28))
            for r, row in enumerate(table):
                for c, text in enumerate(row):
                    if text:
                        page.insert_text((x0 + c * widths + 4, y + r * 28 + 18), text, fontname="china-s", fontsize=10)
    page = doc.new_page()
    page.insert_text((72, 80), "第三章 合同条款", fontname="china-s", fontsize=16)
    page.insert_text((72, 110), "合同条款略。", fontname="china-s", fontsize=11)
    doc.save(str(path))
    doc.close()
    return path

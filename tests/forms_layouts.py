"""Small format chapters written line by line, one hard layout each, for the forms finder's tests.

``write_chapter(path, lines)`` writes a DOCX whose ``第六章 投标文件格式`` holds the given items, then a
``第七章 合同条款`` that ends it. An item is ``("p", text)`` (a plain paragraph), ``("c", text)`` (centred
and bold, as offices set a form's title), ``("t", rows)`` (a ruled table), or ``("page",)`` (a page
break). ``write_pdf_chapter`` writes the same as a PDF, one list of lines per page, with an optional
running header printed at the top of every page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docx import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_BREAK

Item = tuple[Any, ...]


def write_chapter(path: Path, items: list[Item]) -> Path:
    """A DOCX tender with instructions, the format chapter made of ``items``, and a chapter after it."""
    doc = Document()
    doc.add_heading("第一章 投标人须知", level=1)
    doc.add_paragraph("1. 投标人应按第六章投标文件格式编写投标文件。")
    doc.add_heading("第六章 投标文件格式", level=1)
    for item in items:
        kind = item[0]
        if kind == "page":
            doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
        elif kind == "t":
            rows = item[1]
            table = doc.add_table(rows=len(rows), cols=len(rows[0]))
            table.style = "Table Grid"
            for r, row in enumerate(rows):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
        else:
            p = doc.add_paragraph()
            run = p.add_run(item[1])
            if kind == "c":
                p.alignment = WD_ALIGN_PARAGRAPH.CENTER
                run.bold = True
    doc.add_heading("第七章 合同条款", level=1)
    doc.add_paragraph("合同条款略。")
    doc.save(str(path))
    return path


def signature() -> list[Item]:
    """The lines a form ends with: who signs, and when."""
    return [("p", "投标人名称（盖章）：____________"), ("p", "法定代表人或授权代表（签字）：________"),
            ("p", "日期：____年____月____日")]


def write_pdf_chapter(path: Path, pages: list[list[tuple[str, bool]]], header: str = "") -> Path:
    """A PDF tender: a page of instructions, then the format chapter's ``pages`` (each a list of (line, centred)),
    then a chapter after it; ``header`` is printed at the top of every page."""
    import pymupdf

    doc = pymupdf.open()

    def new_page() -> Any:
        page = doc.new_page()
        if header:
            page.insert_text((200, 40), header, fontname="china-s", fontsize=9)
        return page

    page = new_page()
    page.insert_text((72, 90), "第一章 投标人须知", fontname="china-s", fontsize=14)
    page.insert_text((72, 120), "投标人应按第六章投标文件格式编写投标文件，未按格式提供的投标无效。", fontname="china-s",
                     fontsize=11)
    page = new_page()
    page.insert_text((230, 90), "第六章 投标文件格式", fontname="china-s", fontsize=16)
    for lines in pages:
        page = new_page()
        y = 90.0
        for text, centred in lines:
            size = 14 if centred else 11
            x = 297 - len(text) * size / 2 if centred else 72
            page.insert_text((x, y), text, fontname="china-s", fontsize=size)
            y += 26
    page = new_page()
    page.insert_text((230, 90), "第七章 合同条款", fontname="china-s", fontsize=16)
    page.insert_text((72, 120), "合同条款略。", fontname="china-s", fontsize=11)
    doc.save(str(path))
    doc.close()
    return path

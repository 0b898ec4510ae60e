"""★/▲ and rejection-phrase clause finder, on PDFs generated here and on one real tender."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from app.documents.clauses import PageText, count_marks, find_clauses, is_clause_mark

FONT = "china-s"


def _pdf_pages(build: list[list[tuple[str, object]]]) -> list[PageText]:
    """Make a PDF in memory (text boxes and tables), then read its text layer back."""
    doc = pymupdf.open()
    for items in build:
        page = doc.new_page()
        y = 60.0
        page.insert_text((300, 30), str(doc.page_count), fontname=FONT, fontsize=9)  # printed page number
        for kind, payload in items:
            if kind == "text":
                assert isinstance(payload, str)
                rect = pymupdf.Rect(60, y, 300, y + 200)
                left = page.insert_textbox(rect, payload, fontname=FONT, fontsize=10)
                assert left >= 0, "text box overflow in fixture"
                y += 200 - left + 6
            else:
                assert isinstance(payload, list)
                widths = (40, 200, 80)
                for row in payload:
                    x = 60.0
                    for w, cell in zip(widths, row, strict=True):
                        rect = pymupdf.Rect(x, y, x + w, y + 48)
                        page.draw_rect(rect, color=(0, 0, 0), width=0.5)
                        left = page.insert_textbox(pymupdf.Rect(x + 2, y + 2, x + w - 2, y + 46), cell, fontname=FONT, fontsize=9)
                        assert left >= 0, "table cell overflow in fixture"
                        x += w
                    y += 48
                y += 8
    data = doc.tobytes()
    doc.close()
    with pymupdf.open(stream=data, filetype="pdf") as reread:
        return [PageText(i + 1, p.get_text()) for i, p in enumerate(reread)]


def test_marks_at_item_start_and_wrapped_over_lines() -> None:
    pages = _pdf_pages([[
        ("text", "一、技术要求"),
        ("text", "1.▲投标人须提供不少于五辆冷藏配送车辆，车辆须配备温度记录仪并附行驶证复印件加盖公章。"),
        ("text", "2.投标人应配备专职质检人员。"),
        ("text", "3.★中标人不得将本项目转包或分包给第三方，违反者采购人有权解除合同并追究责任。"),
    ]])
    raw = pages[0].text
    assert "行驶证复印件" in raw and raw.count("\n") > 5  # the fixture really wraps
    clauses = [c for c in find_clauses(pages) if c.mark]
    assert [c.mark for c in clauses] == ["▲", "★"]
    first, second = clauses
    assert first.text.startswith("1.▲投标人") and first.text.endswith("加盖公章。")
    assert "\n" not in first.text and "专职质检" not in first.text
    assert second.text.endswith("追究责任。") and second.page == 1


def test_marks_inside_table_cells() -> None:
    pages = _pdf_pages([[
        ("text", "二、用户需求书"),
        ("table", [
            ["序号", "技术要求", "备注"],
            ["1", "▲配送车辆须为冷藏车，温度控制在0至4摄氏度之间，全程记录", "承诺函"],
            ["2", "配送人员须持健康证上岗", "复印件"],
            ["3", "食品检测报告须由CMA认可机构出具（★）", "报告"],
        ]),
    ]])
    clauses = [c for c in find_clauses(pages) if c.mark]
    assert count_marks(clauses) == {"★": 1, "▲": 1, "phrase": 0}
    tri = next(c for c in clauses if c.mark == "▲")
    assert "全程记录" in tri.text and "健康证" not in tri.text
    star = next(c for c in clauses if c.mark == "★")
    assert "CMA" in star.text and star.text.startswith("食品检测报告")


def test_clause_continues_across_a_page_break() -> None:
    filler = "投标人应按采购人要求配合完成相关工作，做好记录。" * 7
    pages = _pdf_pages([
        [("text", "1." + filler), ("text", "2." + filler), ("text", "3." + filler),
         ("text", "4.★中标人须在合同签订后十五天内投保食品安全责任保险，保险金额不小于五百万元，")],
        [("text", "并将保险合同复印件交采购人备案。"), ("text", "5.其他要求按合同执行。")],
    ])
    star = next(c for c in find_clauses(pages) if c.mark == "★")
    assert (star.page, star.end_page) == (1, 2)
    assert star.text.endswith("交采购人备案。")
    assert "其他要求" not in star.text


def test_quoted_marks_are_references_not_clauses() -> None:
    text = (
        "说明：\n"
        "1.用户需求书中标注“★”号条款为实质性条款，当出现负偏离，将作无效投标处理。\n"
        "2.带“▲”的重要条款负偏离扣分。\n"
        "3.“★”号条款不存在负偏离。\n"
    )
    clauses = find_clauses([PageText(9, text)])
    assert all(c.mark is None for c in clauses)
    phrase = [c for c in clauses if c.kind == "phrase"]
    assert len(phrase) == 1 and phrase[0].page == 9 and "作无效投标处理" in phrase[0].phrases
    assert is_clause_mark("（5）冷链运输（▲）", 8)
    # an unquoted cross-reference to a marked chapter is not a clause either
    assert not [c for c in find_clauses([PageText(4, "（1）采购人按照★三、商务和其他要求完成验收后付款。")]) if c.mark]


def test_rejection_phrase_wrapped_over_a_line_break() -> None:
    text = "6.投标人须提供原厂授权书，否则按无效投\n标处理。\n7.投标人应提供服务方案。\n"
    clauses = find_clauses([PageText(3, text)])
    assert len(clauses) == 1
    assert clauses[0].kind == "phrase" and clauses[0].text == "6.投标人须提供原厂授权书，否则按无效投标处理。"
    assert find_clauses([PageText(3, text)], phrases=False) == []


def test_marked_heading_covers_its_sub_items() -> None:
    text = "（九）★退出机制（须提供承诺函）\n1.合同期满后3天内撤离。\n2.违约须支付违约金。\n（十）其他\n"
    (clause,) = find_clauses([PageText(31, text)], phrases=False)
    assert "撤离" in clause.text and "违约金" in clause.text and "其他" not in clause.text


@pytest.mark.real_tender
def test_yangjiang_user_requirements_triangle_count(tenders_dir: Path) -> None:
    """采购需求/用户需求书 is pages 9–36; counted by hand in the PyMuPDF text: 8 ▲ and 16 ★.

    ▲: p13 item 8, p15 item 23, p16 肉类/蛋类, p19 鱼类, p24 水果类/蔬菜类, p28 item 3.
    The quoted “▲” in the p9 notes is a reference, not a clause.
    """
    with pymupdf.open(tenders_dir / "yangjiang-tax-canteen.pdf") as doc:
        pages = [PageText(i + 1, doc[i].get_text()) for i in range(8, 36)]
        whole = [PageText(i + 1, p.get_text()) for i, p in enumerate(doc)]
    clauses = find_clauses(pages)
    triangles = [c for c in clauses if c.mark == "▲"]
    assert len(triangles) == 8
    assert [c.page for c in triangles] == [13, 15, 16, 16, 19, 24, 24, 28]
    assert sum(c.mark == "★" for c in clauses) == 16
    assert any("健康证" in c.text for c in triangles)
    # the response forms later in the tender only quote the marks: no extra clauses
    assert count_marks(find_clauses(whole))["▲"] == 8


def test_marks_in_a_docx_table_through_the_document_loader(tmp_path: Path) -> None:
    from docx import Document

    from app.documents.clauses import document_pages
    from app.documents.loader import load_tender

    d = Document()
    d.add_paragraph("第二章 采购需求")
    d.add_paragraph("1.★中标人不得将本项目转包或分包，否则采购人有权解除合同。")
    d.add_paragraph("2.中标人应配备专职质检人员，负责每日验收。")
    table = d.add_table(rows=4, cols=3)
    rows = [("序号", "技术要求", "备注"),
            ("1", "▲配送车辆须为冷藏车，温度控制在0至4摄氏度之间", "提供承诺函"),
            ("2", "配送人员须持健康证上岗", "复印件"),
            ("3", "须提供原厂授权书，否则按无效投标处理", "原件")]
    for r, values in zip(table.rows, rows, strict=True):
        for cell, value in zip(r.cells, values, strict=True):
            cell.text = value
    d.add_paragraph("3.投标人须按“▲”号条款逐条响应。")
    path = tmp_path / "req.docx"
    d.save(str(path))

    doc = load_tender(str(path))
    clauses = find_clauses(document_pages(doc))
    assert [(c.kind, c.text) for c in clauses] == [
        ("star", "1.★中标人不得将本项目转包或分包，否则采购人有权解除合同。"),
        ("triangle", "▲配送车辆须为冷藏车，温度控制在0至4摄氏度之间"),
        ("phrase", "须提供原厂授权书，否则按无效投标处理"),
    ]
    assert all(c.page == 1 for c in clauses)

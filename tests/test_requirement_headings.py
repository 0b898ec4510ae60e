"""Sub-headings of the requirements chapter: found by structure, cleaned, commercial ones left out."""

from __future__ import annotations

from app.documents.model import Heading, Page, TenderDocument
from app.documents.requirement_headings import clean_heading, requirement_headings


def _doc(heads: list[tuple[int, str]]) -> TenderDocument:
    return TenderDocument(source_path="x.docx", kind="docx", pages=[Page(number=1)],
                          headings=[Heading(text=t, level=lv, page=1, block_index=i) for i, (lv, t) in enumerate(heads)])


def test_requirement_chapter_with_sub_headings() -> None:
    doc = _doc([
        (1, "第一章 招标公告"), (2, "一、项目编号：ABC-001"), (2, "二、采购需求概况"),  # a mention, not the chapter
        (1, "第二章 投标人须知"), (2, "一、总则"),
        (1, "第五章 采购需求"), (2, "一、项目概述"), (2, "二、服务内容"), (3, "（一）食材配送"), (3, "（二）质量的基本检查"),
        (3, "（三）付款方式"), (2, "三、人员要求"), (3, "3.1 ★驾驶员资格"), (2, "四、其他"),
        (1, "第六章 合同条款"), (2, "一、违约责任"),
    ])
    got = [(h.text, h.level) for h in requirement_headings(doc)]
    assert got == [("项目概述", 1), ("服务内容", 1), ("食材配送", 2), ("质量的基本检查", 2), ("人员要求", 1),
                   ("驾驶员资格", 2)]
    assert all(h.chapter == "采购需求" for h in requirement_headings(doc))


def test_no_requirement_chapter_gives_nothing() -> None:
    assert requirement_headings(_doc([(1, "第一章 招标公告"), (2, "一、采购需求详见第五章")])) == []


def test_clean_heading() -> None:
    assert clean_heading("（九）★退出机制（须提供承诺函）") == "退出机制"
    assert clean_heading("3.1.2 总体质量要求") == "总体质量要求"

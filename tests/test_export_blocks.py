"""Light markdown parsing, heading numbers and 字号 presets — the pure parts of the exporter."""

from __future__ import annotations

import pytest

from app.export import FONT_SIZES, PRESETS, ExportError, font_size_pt, get_preset
from app.export.markdown_blocks import (
    Inline,
    ListBlock,
    ParagraphBlock,
    TableBlock,
    parse_blocks,
    parse_inline,
)
from app.export.numbering import chinese_numeral, heading_number, numbered_title


def test_paragraphs_one_per_line_with_bold_runs() -> None:
    blocks = parse_blocks("第一段，**重点**说明。\n第二段。\n\n\n第三段")
    assert [type(b) for b in blocks] == [ParagraphBlock] * 3
    first = blocks[0]
    assert isinstance(first, ParagraphBlock)
    assert first.runs == (Inline("第一段，"), Inline("重点", bold=True), Inline("说明。"))


def test_bullets_numbers_and_nesting() -> None:
    text = "- 甲\n* 乙\n  - 乙一\n1. 一\n2) 二\n3、三\n（4）四\n①五"
    blocks = parse_blocks(text)
    assert len(blocks) == 2
    bullets, numbers = blocks
    assert isinstance(bullets, ListBlock) and not bullets.ordered
    assert [(i.runs[0].text, i.level) for i in bullets.items] == [("甲", 0), ("乙", 0), ("乙一", 1)]
    assert isinstance(numbers, ListBlock) and numbers.ordered
    assert [i.runs[0].text for i in numbers.items] == ["一", "二", "三", "四", "五"]


def test_decimal_numbers_at_line_start_are_not_lists() -> None:
    blocks = parse_blocks("1.5 倍行距为默认设置。\n2026年完成验收。")
    assert all(isinstance(b, ParagraphBlock) for b in blocks)


def test_pipe_table_with_header_and_ragged_rows() -> None:
    text = "前言\n| 序号 | 名称 | 说明 |\n|:--|:-:|--:|\n| 1 | 摄像机 | 200万 **像素** |\n| 2 | NVR |\n后记"
    blocks = parse_blocks(text)
    assert [type(b) for b in blocks] == [ParagraphBlock, TableBlock, ParagraphBlock]
    table = blocks[1]
    assert isinstance(table, TableBlock)
    assert table.header and table.column_count == 3 and len(table.rows) == 3
    assert table.rows[1][2] == (Inline("200万 "), Inline("像素", bold=True))
    assert len(table.rows[2]) == 2


def test_table_without_rule_has_no_header_and_escaped_pipes_stay() -> None:
    blocks = parse_blocks("| a \\| b | c |\n| d | e |")
    table = blocks[0]
    assert isinstance(table, TableBlock) and not table.header
    assert table.rows[0][0] == (Inline("a | b"),)


def test_headings_quotes_and_rules() -> None:
    blocks = parse_blocks("## 小标题 ##\n> 引用内容\n---\n正文")
    assert blocks == [
        ParagraphBlock((Inline("小标题"),), subheading=True),
        ParagraphBlock((Inline("引用内容"),)),
        ParagraphBlock((Inline("正文"),)),
    ]


def test_unmatched_bold_marker_stays_literal() -> None:
    assert parse_inline("a**b") == (Inline("a**b"),)
    assert parse_inline("") == ()


def test_list_item_continuation_line() -> None:
    blocks = parse_blocks("- 第一项\n  接着写\n正文")
    assert isinstance(blocks[0], ListBlock)
    assert "".join(r.text for r in blocks[0].items[0].runs) == "第一项接着写"
    assert isinstance(blocks[1], ParagraphBlock)


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (1, "一"),
        (10, "十"),
        (11, "十一"),
        (20, "二十"),
        (23, "二十三"),
        (100, "一百"),
        (105, "一百零五"),
        (110, "一百一十"),
    ],
)
def test_chinese_numerals(n: int, text: str) -> None:
    assert chinese_numeral(n) == text


def test_chinese_numeral_range() -> None:
    with pytest.raises(ExportError):
        chinese_numeral(0)


def test_numbering_schemes() -> None:
    assert [heading_number(p, "chapter") for p in [(0,), (0, 1), (2, 0, 3), (0, 0, 0, 1)]] == [
        "第一章",
        "1.2",
        "3.1.4",
        "1.1.1.2",
    ]
    assert [heading_number(p, "chinese") for p in [(11,), (0, 1), (2, 0, 3), (0, 0, 0, 1)]] == [
        "十二、",
        "（二）",
        "4.",
        "（2）",
    ]
    assert heading_number((4,), "none") == ""
    assert numbered_title((1,), "第三章 技术方案", "chapter") == "第二章 技术方案"
    assert numbered_title((1, 0), "（一）质量目标", "chinese") == "（一）质量目标"
    assert numbered_title((0,), "1.2 总体", "none") == "总体"


def test_font_size_names() -> None:
    assert [FONT_SIZES[k] for k in ("小二", "三号", "小三", "四号", "小四", "五号")] == [
        18,
        16,
        15,
        14,
        12,
        10.5,
    ]
    with pytest.raises(ExportError) as err:
        font_size_pt("大四")
    assert "大四" in err.value.message_zh


def test_presets() -> None:
    assert list(PRESETS) == ["标准投标版", "正式装订版", "暗标"]
    assert get_preset("正式装订版").page.gutter_cm > 0
    anon = get_preset("暗标")
    assert anon.anonymous and not anon.show_header and anon.guidance_color == "000000"
    for preset in PRESETS.values():
        assert preset.body.size_pt == 12.0 and preset.body.line_spacing == 1.5
        assert preset.body.first_line_chars == 2.0
        assert [h.bold for h in preset.headings[:3]] == [True, True, True]
    with pytest.raises(ExportError) as err:
        get_preset("彩色版")
    assert "标准投标版" in err.value.message_zh

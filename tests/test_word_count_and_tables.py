"""Counting section text and its pipe tables (Qt-free helpers of the section editor)."""

from __future__ import annotations

from app.core.markdown_table import read_table, table_span, write_table
from app.core.word_count import text_chars

TEXT = "我方流程如下：\n\n| 环节 | 时限 |\n| --- | --- |\n| 接单 | 30 分钟 |\n\n- 按时配送\n"


def test_text_chars_skips_white_space_and_markdown_marks() -> None:
    assert text_chars(TEXT) == len("我方流程如下：环节时限接单30分钟按时配送")
    assert text_chars("") == 0


def test_a_table_is_found_read_and_written_back() -> None:
    lines = TEXT.split("\n")
    assert table_span(lines, 0) is None
    assert table_span(lines, 3) == (2, 5)
    rows = read_table(lines[2:5])
    assert rows == [["环节", "时限"], ["接单", "30 分钟"]]
    rows[1][1] = "30|分钟"  # a bar cannot stand in a cell
    rows.append(["配送", "当日"])
    assert write_table(rows) == ["| 环节 | 时限 |", "| --- | --- |", "| 接单 | 30｜分钟 |", "| 配送 | 当日 |"]
    assert read_table(["| a | b |", "| c |"]) == [["a", "b"], ["c", ""]]

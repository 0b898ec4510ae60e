"""Cover lines break at natural places, evenly, and the bidder line keeps （盖章） whole."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.export import ExportMeta, ExportOptions, export_docx
from app.export.cover import bidder_lines, text_width, wrap_balanced
from tests.export_sample import sample_chapters

TITLE_WIDTH = 18.4  # 二号 on A4 with the standard margins, less half an em


@pytest.mark.parametrize(("name", "lines"), [
    ("国家税务总局阳江市税务局食堂食材配送服务采购项目", ["国家税务总局阳江市税务局", "食堂食材配送服务采购项目"]),
    ("宝山区市场监督管理局2026年度食品安全抽检服务项目", ["宝山区市场监督管理局", "2026年度食品安全抽检服务项目"]),
    ("上海市第十人民医院（太平分院）护理人员劳务派遣服务项目", ["上海市第十人民医院（太平分院）", "护理人员劳务派遣服务项目"]),
    ("滨江市智慧水务综合管理平台建设项目", ["滨江市智慧水务综合管理平台建设项目"]),
])
def test_titles_break_between_words_in_balanced_lines(name: str, lines: list[str]) -> None:
    assert wrap_balanced(name, TITLE_WIDTH) == lines


def test_latin_words_numbers_and_brackets_are_never_split() -> None:
    name = "某市IPTV平台（含CDN节点2026-2027年度）扩容改造及运维服务采购项目"
    lines = wrap_balanced(name, 12)
    assert "".join(lines) == name
    for line in lines:
        assert line.count("（") == line.count("）")
        assert not line.startswith(("PTV", "TV", "DN", "N", "026", "）"))
    # Only the bracket group, wider than a line on its own, may overflow (Word wraps it).
    assert [line for line in lines if text_width(line) > 12] == ["（含CDN节点2026-2027年度）"]
    assert lines[0] == "某市IPTV平台"


@given(st.text(alphabet="阳江市税务局食堂配送服务采购项目（第一包）ABC2026-", min_size=1, max_size=60))
@settings(max_examples=150, deadline=None)
def test_wrapping_keeps_every_character_and_fits_when_it_can(name: str) -> None:
    lines = wrap_balanced(name, 10)
    assert "".join(lines) == "".join(name.split()) or "".join(lines) == name.strip()
    for line in lines:
        if text_width(line) > 10:  # only a piece with no allowed break inside may overflow
            assert wrap_balanced(line, 10) == [line]


def test_bidder_line_keeps_the_seal_note_whole_and_attached() -> None:
    lines = bidder_lines("广州市恒信食品配送服务有限责任公司", 15.7)
    assert len(lines) == 2 and lines[-1].endswith("有限责任公司（盖章）")
    assert lines[0] == "广州市恒信食品配送"
    assert bidder_lines("江城水务科技有限公司", 15.7) == ["江城水务科技有限公司（盖章）"]
    for width in (6, 8, 10):
        last = bidder_lines("华南某某智慧城市运营管理有限公司", width)[-1]
        assert last.endswith("（盖章）") and len(last) > len("（盖章）")


def test_cover_paragraphs_carry_the_chosen_line_breaks(tmp_path: Path) -> None:
    meta = ExportMeta(project_name="国家税务总局阳江市税务局食堂食材配送服务采购项目",
                      bidder_name="广州市恒信食品配送服务有限责任公司")
    doc = docx.Document(str(export_docx(sample_chapters(), tmp_path / "c.docx", meta, ExportOptions())))
    title = doc.paragraphs[0]
    assert title.text == "国家税务总局阳江市税务局\n食堂食材配送服务采购项目"
    bidder = next(p for p in doc.paragraphs if p.text.startswith("投标人："))
    assert bidder.text == "投标人：广州市恒信食品配送\n服务有限责任公司（盖章）"
    fmt = bidder.paragraph_format
    assert fmt.first_line_indent is not None and fmt.first_line_indent < 0  # hanging: line 2 aligns with the name
    date = next(p for p in doc.paragraphs if p.text.startswith("日　期："))
    assert date.paragraph_format.left_indent == fmt.left_indent

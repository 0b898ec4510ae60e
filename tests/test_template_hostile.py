"""Hostile office templates (issue 37 §3.7, §3.8 and §2 major 7).

- A template whose styles.xml inflates far past the zip limits is refused in Chinese before a byte
  is inflated (it peaked at 5 GB and ended in a raw XMLSyntaxError).
- Links Word follows by itself — an attached template on a web server or a UNC share, a linked
  picture, INCLUDEPICTURE/INCLUDETEXT fields — never reach the exported bid (checked by unzipping it).
- 暗标 over an office template: its header, footer, cover, colours, custom properties and unused
  styles are not carried over, and the anonymity check reads every part of the package.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import docx
import pytest

from app.export import ExportError, ExportMeta, ExportOptions, export_bid
from tests.export_sample import PROJECT, sample_chapters, sample_meta
from tests.hostile_templates import (
    COMPANY,
    EVIL_HTTP,
    EVIL_UNC,
    HEADER_TEXT,
    identifying_template,
    linking_template,
    template_bomb,
)
from tests.test_export_template import HEADER, make_template


def _package(path: Path) -> dict[str, str]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n).decode("utf-8", "replace") for n in zf.namelist() if n.endswith((".xml", ".rels"))}


def test_a_template_bomb_is_refused_in_chinese_before_inflating(tmp_path: Path) -> None:
    bomb = template_bomb(tmp_path / "office.docx", inflated_mb=200)
    with pytest.raises(ExportError) as err:
        export_bid(sample_chapters(), tmp_path / "bid.docx", sample_meta(), ExportOptions(template=str(bomb)))
    assert "解压后过大" in err.value.message_zh and "styles.xml" in err.value.message_zh
    assert not (tmp_path / "bid.docx").exists()


@pytest.mark.parametrize("attached", [EVIL_HTTP, EVIL_UNC], ids=["http", "unc"])
def test_links_word_would_follow_are_dropped_from_the_export(tmp_path: Path, attached: str) -> None:
    template = linking_template(tmp_path / "office.docx", attached)
    assert any("TargetMode=\"External\"" in x for x in _package(template).values())  # the attack is there
    report = export_bid(sample_chapters(), tmp_path / "bid.docx", sample_meta(), ExportOptions(template=str(template)))
    parts = _package(report.path)
    external = [(n, m) for n, x in parts.items() if n.endswith(".rels")
                for m in re.findall(r"<Relationship [^>]*TargetMode=\"External\"[^>]*>", x)]
    assert all("/hyperlink\"" in m for _, m in external), external
    assert not [n for n, x in parts.items() if "evil.example" in x]
    assert not [n for n, x in parts.items() if "attachedTemplate" in x or "INCLUDEPICTURE" in x or "INCLUDETEXT" in x]
    headers = " ".join(x for n, x in parts.items() if n.startswith("word/header"))
    assert HEADER in headers and "附件内容" in headers  # the header stays; a field keeps the text it showed
    assert any("外部" in n for n in report.notes)
    docx.Document(str(report.path))  # still a valid file


ANON = ExportOptions(preset="暗标")


def _anonymous_meta(bidder: str) -> ExportMeta:
    return ExportMeta(project_name=PROJECT, bidder_name=bidder)


def test_anonymous_export_over_an_office_template_keeps_nothing_of_the_office(tmp_path: Path) -> None:
    template = identifying_template(tmp_path / "office.docx")
    options = ExportOptions(preset="暗标", template=str(template))
    report = export_bid(sample_chapters(), tmp_path / "bid.docx", _anonymous_meta("宏图智慧科技有限公司"), options)
    parts = _package(report.path)
    assert not [n for n, x in parts.items() if "华安" in x], [n for n, x in parts.items() if "华安" in x]
    headers = [re.sub(r"<[^>]+>", "", x).strip() for n, x in parts.items() if n.startswith("word/header")]
    assert not any(headers), headers  # 无页眉
    colours = {c for x in parts.values() for c in re.findall(r"<w:color [^>]*w:val=\"([0-9A-Fa-f]{6}|auto)\"", x)}
    assert colours <= {"000000", "auto"}, colours  # 全部黑色
    assert not [n for n, x in parts.items() if re.search(r"<w:color [^>]*w:themeColor", x)]  # no theme text colour
    assert "docProps/custom.xml" not in parts
    doc = docx.Document(str(report.path))
    first_heading = next(p for p in doc.paragraphs if p.style.name.startswith("Heading 1"))
    assert first_heading.text  # the template's heading styles are still used, only black


def test_the_anonymity_check_reads_the_templates_parts(tmp_path: Path) -> None:
    """A template heading style named after the office stays in the file: with that office as the bidder,
    the export is refused and the message says where (it refused only when the header named it)."""
    template = make_template(tmp_path / "office.docx", ("华安信息技术一级标题", "华安信息技术二级标题", "华安信息技术三级标题"),
                             cover=False)
    options = ExportOptions(preset="暗标", template=str(template),
                            template_headings=("华安信息技术一级标题", "华安信息技术二级标题", "华安信息技术三级标题", "华安信息技术三级标题"))
    with pytest.raises(ExportError) as err:
        export_bid(sample_chapters(), tmp_path / "bid.docx", _anonymous_meta(COMPANY), options)
    assert "样式名称" in err.value.message_zh and COMPANY in err.value.message_zh
    assert not (tmp_path / "bid.docx").exists()


def test_a_normal_export_keeps_the_templates_header(tmp_path: Path) -> None:
    template = identifying_template(tmp_path / "office.docx")
    report = export_bid(sample_chapters(), tmp_path / "bid.docx", sample_meta(), ExportOptions(template=str(template)))
    assert HEADER_TEXT in " ".join(x for n, x in _package(report.path).items() if n.startswith("word/header"))

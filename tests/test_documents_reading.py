"""Reading tenders: formats, errors with Chinese messages, per-page diagnostics."""

from __future__ import annotations

import shutil
from pathlib import Path

import docx
import pytest

from app.documents.diagnostics import common_cjk_ratio
from app.documents.errors import (
    ConverterMissingError,
    CorruptedFileError,
    DocumentNotFoundError,
    EmptyFileError,
    FileTooLargeError,
    PasswordRequiredError,
    UnsupportedFormatError,
    WrongPasswordError,
)
from app.documents.loader import load_tender
from app.documents.model import DiagnosticCode, Severity
from app.documents.text_patterns import clean_cell_text, format_page_ranges, heading_level
from tests.document_fixtures import (
    SAMPLE_PDF,
    encrypted_pdf,
    image_page_pdf,
    merged_docx,
    outline_page_pdf,
)


def _codes(doc: object) -> set[DiagnosticCode]:
    return {d.code for d in doc.diagnostics}  # type: ignore[attr-defined]


def test_zero_byte_file_is_reported_as_empty(tmp_path: Path) -> None:
    p = tmp_path / "招标文件.pdf"
    p.write_bytes(b"")
    with pytest.raises(EmptyFileError) as exc:
        load_tender(p)
    assert exc.value.code == "empty_file"
    assert "0 字节" in exc.value.message_zh


def test_text_file_renamed_pdf_is_corrupted_not_a_crash(tmp_path: Path) -> None:
    p = tmp_path / "tender.pdf"
    p.write_text("这不是 PDF 文件，只是一段文字。", encoding="utf-8")
    with pytest.raises(CorruptedFileError) as exc:
        load_tender(p)
    assert exc.value.code == "corrupted"
    assert ".pdf" in exc.value.message_zh


def test_truncated_pdf_is_corrupted(tmp_path: Path) -> None:
    p = tmp_path / "broken.pdf"
    p.write_bytes(b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog")
    with pytest.raises(CorruptedFileError):
        load_tender(p)


def test_docx_content_with_pdf_suffix_is_read_as_word(tmp_path: Path) -> None:
    src = merged_docx(tmp_path / "a.docx")
    renamed = tmp_path / "renamed.pdf"
    shutil.copy(src, renamed)
    doc = load_tender(renamed)
    assert doc.kind == "docx"
    assert "第三章 评标办法" in doc.text()


def test_too_large_missing_and_unsupported(tmp_path: Path) -> None:
    with pytest.raises(FileTooLargeError) as exc:
        load_tender(SAMPLE_PDF, max_bytes=1000)
    assert exc.value.code == "too_large" and "上限" in exc.value.message_zh
    with pytest.raises(DocumentNotFoundError):
        load_tender(tmp_path / "nope.pdf")
    png = tmp_path / "scan.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    with pytest.raises(UnsupportedFormatError) as unsupported:
        load_tender(png)
    assert ".png" in unsupported.value.message_zh


def test_user_password_pdf_needs_the_password(tmp_path: Path) -> None:
    p = encrypted_pdf(tmp_path / "locked.pdf", user_pw="open-me")
    with pytest.raises(PasswordRequiredError) as exc:
        load_tender(p)
    assert exc.value.code == "password_required" and "密码" in exc.value.message_zh
    with pytest.raises(WrongPasswordError):
        load_tender(p, password="wrong")
    doc = load_tender(p, password="open-me")
    assert "加密文件示例项目" in doc.text()


def test_owner_password_only_pdf_opens_normally(tmp_path: Path) -> None:
    p = encrypted_pdf(tmp_path / "restricted.pdf", user_pw="")
    doc = load_tender(p)
    assert "加密文件示例项目" in doc.text()
    restricted = [d for d in doc.diagnostics if d.code == DiagnosticCode.COPY_RESTRICTED]
    assert restricted and restricted[0].severity == Severity.INFO


def test_image_only_page_is_listed_and_left_out_of_text(tmp_path: Path) -> None:
    doc = load_tender(image_page_pdf(tmp_path / "mixed.pdf"))
    assert doc.unreadable_pages == [2]
    diag = next(d for d in doc.diagnostics if d.code == DiagnosticCode.NO_TEXT_LAYER)
    assert diag.pages == [2] and "第2页无文字层" in diag.message_zh and "OCR" in diag.message_zh
    assert DiagnosticCode.NO_READABLE_TEXT not in _codes(doc)
    text = doc.text()
    assert "示例扫描件混合项目" in text and "档案数字化" in text


def test_vector_outline_pages_are_not_an_empty_tender(tmp_path: Path) -> None:
    doc = load_tender(outline_page_pdf(tmp_path / "outlines.pdf", pages=3))
    assert _codes(doc) >= {DiagnosticCode.TEXT_AS_OUTLINES, DiagnosticCode.NO_READABLE_TEXT}
    diag = next(d for d in doc.diagnostics if d.code == DiagnosticCode.TEXT_AS_OUTLINES)
    assert diag.pages == [1, 2, 3] and "第1–3页" in diag.message_zh
    assert not doc.has_readable_text


def test_common_cjk_ratio_tells_mojibake_from_chinese() -> None:
    healthy = "本项目采用综合评分法，评标委员会对投标文件进行评审，按得分由高到低顺序推荐中标候选人。"
    garbled = "ᆿᒼᐸ⋵⊕ђ䐥᭯ᔰᐛぁ᯳ᐛᤑḽᮽԬᆹᒶᐲޜޡ䍴ⓀӔ᱃ѝᗳ䇴ᇑ୶࣑ḷࡍ↕䇴ᇑ"
    good, bad = common_cjk_ratio(healthy), common_cjk_ratio(garbled)
    assert good is not None and good > 0.8
    assert bad is not None and bad < 0.1
    assert common_cjk_ratio("only ascii text here, nothing to judge") is None


def test_docx_reading_order_headings_and_merged_cells(tmp_path: Path) -> None:
    doc = load_tender(merged_docx(tmp_path / "m.docx"))
    assert doc.kind == "docx" and doc.page_numbers_estimated
    titles = [(h.text, h.level) for h in doc.headings]
    assert ("第一章 招标公告", 1) in titles and ("一、服务内容", 2) in titles
    assert doc.page_count == 2  # one explicit page break
    table = doc.tables[0]
    assert table.page == 2
    factor_col = [r[1] for r in table.rows]
    assert factor_col[1] == "服务方案（30分）" and factor_col[2] is None and factor_col[3] is None
    assert table.rows[-1][1:] == [None, None, None]  # the note row spans the table
    blocks = [b.kind for b in doc.page(2).blocks]
    assert blocks.index("table") > 0  # the table comes after the paragraphs before it


def test_text_and_markdown_files(tmp_path: Path) -> None:
    md = tmp_path / "t.md"
    md.write_text("# 第一章 招标公告\n项目名称：文本示例\n\n## 评分标准\n技术方案 60 分\n", encoding="utf-8")
    doc = load_tender(md)
    assert doc.kind == "text" and [h.text for h in doc.headings] == ["第一章 招标公告", "评分标准"]
    txt = tmp_path / "t.txt"
    txt.write_bytes("项目名称：GBK 编码的招标文件\n".encode("gbk"))
    assert "GBK 编码的招标文件" in load_tender(txt).text()


def test_doc_without_libreoffice_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "old.doc"
    p.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)
    monkeypatch.setenv("PATH", str(tmp_path))  # no soffice on this PATH
    with pytest.raises(ConverterMissingError) as exc:
        load_tender(p)
    assert "LibreOffice" in exc.value.message_zh and ".docx" in exc.value.message_zh


@pytest.mark.libreoffice
def test_doc_is_converted_with_libreoffice(tmp_path: Path) -> None:
    import subprocess

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice is not installed")
    d = docx.Document()
    d.add_paragraph("第一章 招标公告")
    d.add_paragraph("项目名称：旧格式转换示例")
    d.save(str(tmp_path / "src.docx"))
    out = tmp_path / "out"
    subprocess.run(
        [soffice, "--headless", "--convert-to", "doc", "--outdir", str(out), str(tmp_path / "src.docx")],
        check=True, capture_output=True, timeout=180, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    doc = load_tender(out / "src.doc")
    assert doc.kind == "doc" and "旧格式转换示例" in doc.text()
    assert DiagnosticCode.CONVERTED in _codes(doc)


@pytest.mark.parametrize(
    ("line", "level"),
    [("第三章 评标办法", 1), ("一、项目基本情况", 2), ("（二）服务要求", 3), ("1.1 项目概况", 2),
     ("2.2 招标编号：JSH2023-15", None), ("第一章 招标公告\t3", None), ("目录……………12", None),
     ("1.800平方米(含)以上的得8分；", None)],
)
def test_heading_level(line: str, level: int | None) -> None:
    assert heading_level(line) == level


def test_clean_cell_text_and_page_ranges() -> None:
    assert clean_cell_text("配送加工场地\n情况") == "配送加工场地情况"
    assert clean_cell_text("进行评审，场地面积：\n1.800平方米以上\n2.600平方米", keep_breaks=True).count("\n") == 2
    assert format_page_ranges([61, 62, 63, 75, 9]) == "第9、61–63、75页"

"""Tender files that must be refused fast and plainly: zip bombs, special files, broken DOCX bodies."""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

import pytest

from app.core.input_limits import LIMITS, ZipLimits, json_depth, outline_depth
from app.documents.errors import (
    CorruptedFileError,
    DecompressedTooLargeError,
    DocumentNotFoundError,
    NotRegularFileError,
)
from app.documents.loader import load_tender
from app.documents.zip_guard import check_zip_container, declared_entries
from tests.hostile_files import (
    docx_bomb,
    docx_with_lying_sizes,
    docx_with_many_members,
    small_docx_bytes,
)


def test_real_zip_bomb_is_refused_before_inflating(tmp_path: Path) -> None:
    bomb = docx_bomb(tmp_path / "bomb.docx", inflated_mb=40)
    assert bomb.stat().st_size < 200 * 1024  # 40 MB of text in a few dozen KB
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    with pytest.raises(DecompressedTooLargeError) as info:
        load_tender(bomb)
    assert time.perf_counter() - started < 2.0
    assert "文件解压后过大" in info.value.message_zh and "压缩比" in info.value.message_zh
    assert info.value.code == "decompressed_too_large"
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    assert grown_kb < 30 * 1024  # the 40 MB were never inflated


def test_declared_size_over_the_limit_is_refused(tmp_path: Path) -> None:
    lying = docx_with_lying_sizes(tmp_path / "big.docx", declared_bytes=1100 * 1024 * 1024)
    with pytest.raises(DecompressedTooLargeError, match=r"document\.xml"):
        load_tender(lying)


def test_a_header_that_understates_the_size_ends_as_damage_not_a_bigger_read(tmp_path: Path) -> None:
    # zipfile never inflates beyond the declared size: a shrunken declaration fails the CRC
    understated = docx_with_lying_sizes(tmp_path / "u2.docx", declared_bytes=10)
    with pytest.raises(CorruptedFileError):
        load_tender(understated)


def test_too_many_members_are_refused_from_the_directory_record(tmp_path: Path) -> None:
    padded = docx_with_many_members(tmp_path / "many.docx", members=300)
    assert (declared_entries(padded) or 0) > 300
    with pytest.raises(DecompressedTooLargeError, match="部件"):
        check_zip_container(padded, ZipLimits(max_members=200))
    check_zip_container(padded)  # within the real limit: fine


def test_ordinary_docx_passes_the_guard(tmp_path: Path) -> None:
    ok = tmp_path / "ok.docx"
    ok.write_bytes(small_docx_bytes())
    assert load_tender(ok).page_count == 1


def test_proc_file_is_not_a_regular_file() -> None:
    environ = Path("/proc/self/environ")
    if not environ.exists():
        pytest.skip("no /proc on this system")
    with pytest.raises(NotRegularFileError) as info:
        load_tender(environ)
    assert "不是磁盘上的普通文件" in info.value.message_zh
    assert "下载未完成" not in info.value.message_zh


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_device_and_folder_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.pdf"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError, match="管道"):
        load_tender(fifo)  # opening a FIFO for reading would block forever
    with pytest.raises(NotRegularFileError, match="设备"):
        load_tender("/dev/zero")
    with pytest.raises(NotRegularFileError, match="文件夹"):
        load_tender(tmp_path)
    with pytest.raises(DocumentNotFoundError, match="路径太长"):
        load_tender(tmp_path / ("长" * 300 + ".pdf"))


def test_docx_body_that_python_docx_cannot_walk_is_damage(tmp_path: Path) -> None:
    import io
    import zipfile

    source = zipfile.ZipFile(io.BytesIO(small_docx_bytes()))
    broken = tmp_path / "broken.docx"
    with zipfile.ZipFile(broken, "w") as out:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "word/document.xml":  # a table whose grid says -5 columns
                data = data.replace(b"<w:body>", b'<w:body><w:tbl><w:tblGrid><w:gridCol w:w="x"/></w:tblGrid>'
                                    b'<w:tr><w:tc><w:tcPr><w:gridSpan w:val="-5"/></w:tcPr><w:p/></w:tc></w:tr>'
                                    b"</w:tbl>", 1)
            out.writestr(info, data)
    try:
        doc = load_tender(broken)
    except CorruptedFileError as exc:
        assert "损坏" in exc.message_zh
    else:  # python-docx coped: then the text must still be there
        assert doc.page_count >= 1


def test_json_and_outline_depth_are_counted_without_recursion() -> None:
    deep: list[object] = []
    cur = deep
    for _ in range(100_000):
        nxt: list[object] = []
        cur.append(nxt)
        cur = nxt
    assert json_depth(deep, stop_at=LIMITS.json_max_depth) == LIMITS.json_max_depth + 1
    assert json_depth({"a": [1, {"b": 2}]}) == 3 and json_depth(5) == 0
    chain: dict[str, object] = {"title": "x"}
    for _ in range(30):
        chain = {"title": "y", "children": [chain]}
    assert outline_depth([chain]) == 31
    assert outline_depth([{"title": "a", "children": 5}]) == 1


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-16-le", b""), ("utf-16-be", b""),
     ("utf-32-le", b"\xff\xfe\x00\x00"), ("gb18030", b""), ("utf-8", b"\xef\xbb\xbf")],
    ids=["utf16le-bom", "utf16be-bom", "utf16le-bare", "utf16be-bare", "utf32le-bom", "gb18030", "utf8-bom"],
)
def test_text_tenders_in_any_unicode_form_are_read(tmp_path: Path, encoding: str, bom: bytes) -> None:
    text = "第一章 招标公告\n项目名称：某单位一二三期食堂服务\n预算金额：100 万元\n"
    path = tmp_path / "tender.txt"
    path.write_bytes(bom + text.encode(encoding))
    doc = load_tender(path)
    lines = [b.text for page in doc.pages for b in page.blocks]
    assert lines == ["第一章 招标公告", "项目名称：某单位一二三期食堂服务", "预算金额：100 万元"]


@pytest.mark.skipif(os.name != "posix" or os.uname().sysname == "Darwin", reason="needs byte file names")
def test_a_pdf_whose_name_is_not_utf8_opens(tmp_path: Path) -> None:
    from tests.document_fixtures import SAMPLE_PDF

    raw = os.fsencode(tmp_path) + b"/tender-\xff\xfe.pdf"
    with open(raw, "wb") as handle:
        handle.write(SAMPLE_PDF.read_bytes())
    doc = load_tender(os.fsdecode(raw))
    assert doc.kind == "pdf" and doc.page_count > 1


def test_page_counts_are_bounded_with_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import zipfile

    import pymupdf

    from app.core.input_limits import InputLimits
    from app.documents import docx_reader, pdf_reader
    from app.documents.model import DiagnosticCode

    monkeypatch.setattr(pdf_reader, "LIMITS", InputLimits(tender_max_pages=3))
    monkeypatch.setattr(docx_reader, "_MAX_PAGES", 3)
    pdf = pymupdf.open()
    for n in range(7):
        pdf.new_page().insert_text((72, 72), f"第{n + 1}页 总则", fontname="china-s")
    pdf.save(tmp_path / "seven.pdf")
    doc = load_tender(tmp_path / "seven.pdf")
    assert doc.page_count == 3
    assert [d.message_zh for d in doc.diagnostics if d.code == DiagnosticCode.PAGES_LIMITED] == [
        "该 PDF 共 7 页，超过 3 页的上限，只读取了前 3 页；请只导入招标文件的正文部分"]

    source = zipfile.ZipFile(io.BytesIO(small_docx_bytes()))
    breaks = tmp_path / "breaks.docx"
    with zipfile.ZipFile(breaks, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "word/document.xml":
                data = data.replace(b"<w:body>", b"<w:body><w:p><w:r>" + b'<w:br w:type="page"/>' * 5000
                                    + b"<w:t>last</w:t></w:r></w:p>", 1)
            out.writestr(info, data)
    doc = load_tender(breaks)
    assert doc.page_count == 3
    assert any(d.code == DiagnosticCode.PAGES_LIMITED for d in doc.diagnostics)

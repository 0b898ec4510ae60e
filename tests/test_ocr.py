"""OCR of scanned pages: engine, document model, cache, cancel, mixed pages, scanned tables, off.

Every scan here is made by the test (text rendered with PyMuPDF's CJK font, then the page
rasterised into an image-only page), kept to a page or two so the whole file runs in
well under a minute on two cores.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from app.cli import main
from app.cli.common import EXIT_OK, EXIT_UNREADABLE
from app.documents.clauses import document_pages, find_clauses
from app.documents.ingest import ingest_tender
from app.documents.loader import load_tender
from app.documents.locate import locate_sections
from app.documents.model import DiagnosticCode
from app.documents.ocr.apply import OcrMode, OcrSettings
from app.documents.ocr.cache import OcrCache
from app.documents.ocr.engine import OcrEngine, engine_available
from app.documents.ocr.grid import tables_from_image
from app.documents.ocr.runner import recognize_pages
from tests.document_fixtures import composer
from tests.scanned_fixtures import scan_pdf, scanned_text_pdf

needs_engine = pytest.mark.skipif(not engine_available(), reason="OCR engine (rapidocr + onnxruntime) not installed")

LINES = ["第一章 招标公告", "项目名称：城市道路清扫保洁服务项目", "预算金额：120 万元，服务期 12 个月。"]


def _squash(text: str) -> str:
    return "".join(text.split())


@pytest.fixture(scope="module")
def engine() -> OcrEngine:
    """One engine for the module (building it loads the models: about a second)."""
    return OcrEngine()


@needs_engine
def test_scanned_page_is_read_back_into_the_document_model(tmp_path: Path) -> None:
    scan = scanned_text_pdf(tmp_path / "scan.pdf", LINES)
    off = load_tender(scan)
    assert not off.pages[0].readable and off.pages[0].layer == "scanned"
    doc = load_tender(scan, ocr=OcrSettings(mode=OcrMode.AUTO, cache_dir=tmp_path / "cache"))
    page = doc.pages[0]
    assert page.readable and page.source == "ocr"
    assert _squash(doc.text()) == _squash("".join(LINES))
    assert all(b.source == "ocr" and b.confidence is not None and b.confidence > 0.8 for b in page.blocks)
    assert len(page.ocr_lines) == 3 and page.ocr_lines[0].bbox[1] < page.ocr_lines[2].bbox[1]
    # boxes are in page points: the first line was written at y=40 on a 300 pt page
    assert 20 < page.ocr_lines[0].bbox[3] < 50
    assert [_squash(h.text) for h in doc.headings] == ["第一章招标公告"]
    codes = {d.code for d in doc.diagnostics}
    assert DiagnosticCode.OCR_APPLIED in codes
    assert DiagnosticCode.NO_TEXT_LAYER not in codes and DiagnosticCode.NO_READABLE_TEXT not in codes


@needs_engine
def test_cache_reads_a_page_once_and_survives_damage(tmp_path: Path, engine: OcrEngine) -> None:
    scan = scanned_text_pdf(tmp_path / "scan.pdf", LINES[:2])
    cache = OcrCache.for_file(scan, tmp_path / "cache")
    first = recognize_pages(scan, [1], cache=cache, engine=engine)
    assert first.from_cache == 0 and cache.cached_pages() == [1]
    again = recognize_pages(scan, [1], cache=OcrCache.for_file(scan, tmp_path / "cache"), engine=engine)
    assert again.from_cache == 1
    assert again.results[1].lines == first.results[1].lines
    # the same bytes under another name share the entry; other bytes do not
    copy = tmp_path / "copy.pdf"
    copy.write_bytes(scan.read_bytes())
    assert OcrCache.for_file(copy, tmp_path / "cache").get(1) is not None
    # cached mode applies stored results without running the engine, and nothing for an unknown file
    doc = load_tender(copy, ocr=OcrSettings(mode=OcrMode.CACHED, cache_dir=tmp_path / "cache"))
    assert doc.pages[0].source == "ocr"
    other = scanned_text_pdf(tmp_path / "other.pdf", LINES[2:])
    assert load_tender(other, ocr=OcrSettings(mode=OcrMode.CACHED, cache_dir=tmp_path / "cache")).pages[0].source == "text"
    # a damaged entry counts as missing
    entry = next(cache.folder.glob("p00001-*.json"))
    entry.write_text("{not json", encoding="utf-8")
    assert cache.get(1) is None


@needs_engine
def test_cancel_stops_between_pages_and_says_what_is_left(tmp_path: Path, engine: OcrEngine) -> None:
    two = composer()
    two.text("第一页：投标人须知前附表。")
    two.new_page()
    two.text("第二页：评标办法。")
    native = tmp_path / "two.pdf"
    two.save(native)
    scan = scan_pdf(native, tmp_path / "scan2.pdf", dpi=100)
    seen: list[int] = []
    run = recognize_pages(scan, [1, 2], engine=engine, progress=lambda done, total, n: seen.append(n),
                          cancelled=lambda: len(seen) >= 1)
    assert run.cancelled and list(run.results) == [1] and seen == [1]
    doc = load_tender(scan, ocr=OcrSettings(mode=OcrMode.AUTO, cache_dir=tmp_path / "c",
                                            cancelled=lambda: True))
    assert [p.source for p in doc.pages] == ["text", "text"]
    note = next(d for d in doc.diagnostics if d.code == DiagnosticCode.OCR_NOT_RUN)
    assert note.pages == [1, 2] and "取消" in note.message_zh


@needs_engine
def test_mixed_document_native_and_ocr_pages_work_together(tmp_path: Path) -> None:
    c = composer()
    c.heading("第一章 招标公告")
    c.text("项目名称：示例混合扫描项目。预算金额：80 万元。")
    c.new_page()
    c.heading("第二章 采购需求")
    c.text("★1. 服务期内每日清扫两次，垃圾日产日清。")
    c.text("2. 投标人不得偏离本条要求，否则按无效投标处理。")
    c.new_page()
    c.heading("第三章 合同条款")
    c.text("付款方式：按季度支付。")
    native = tmp_path / "mixed-native.pdf"
    c.save(native)
    # page 2 only is scanned: build the file from native pages 1 and 3 around a scanned page 2
    scanned = scan_pdf(native, tmp_path / "p2.pdf", pages=[2])
    mixed = tmp_path / "mixed.pdf"
    with pymupdf.open(native) as src, pymupdf.open(scanned) as sc, pymupdf.open() as out:
        out.insert_pdf(src, from_page=0, to_page=0)
        out.insert_pdf(sc)
        out.insert_pdf(src, from_page=2, to_page=2)
        out.save(mixed)
    result = ingest_tender(mixed, ocr=OcrSettings(mode=OcrMode.AUTO, cache_dir=tmp_path / "cache"))
    doc = result.document
    assert [p.source for p in doc.pages] == ["text", "ocr", "text"]
    assert doc.unreadable_pages == []
    assert "垃圾日产日清" in _squash(doc.text())
    assert ("第二章采购需求", 2) in [(_squash(h.text), h.page) for h in doc.headings]
    clauses = find_clauses(document_pages(doc))
    assert any(cl.page == 2 and "无效投标" in cl.text for cl in clauses)
    sections = locate_sections(doc, result.scoring)
    assert sections.requirements is not None and sections.requirements.first_page == 2
    native_doc = load_tender(native)
    assert [p.text for p in (doc.pages[0], doc.pages[2])] == [p.text for p in (native_doc.pages[0], native_doc.pages[2])]


SCORING_ROWS = [
    ["序号", "评分因素", "评分标准", "分值"],
    ["1", "服务方案", "方案完整、措施具体的得满分，一般的得一半。", "20"],
    ["2", "人员配置", "人员充足、资质齐全的得满分。", "15"],
    ["3", "应急预案", "预案可行的得满分，不可行不得分。", "10"],
]


@needs_engine
def test_scanned_scoring_table_goes_through_the_same_reader(tmp_path: Path) -> None:
    c = composer()
    c.heading("第四章 评标办法")
    c.text("本项目采用综合评分法，满分 100 分，其中技术部分 45 分。")
    c.heading("技术评分表（45分）", size=11)
    c.table([40, 90, 300, 50], SCORING_ROWS)
    native = tmp_path / "scoring.pdf"
    c.save(native)
    scan = scan_pdf(native, tmp_path / "scoring-scan.pdf", dpi=150)
    native_result = ingest_tender(native)
    scanned = ingest_tender(scan, ocr=OcrSettings(mode=OcrMode.AUTO, cache_dir=tmp_path / "cache"))
    tables = [t for t in scanned.document.tables if t.source == "ocr"]
    assert len(tables) == 1 and tables[0].col_count == 4 and len(tables[0].rows) == 4
    assert [_squash(x or "") for x in tables[0].rows[2]] == [_squash(x) for x in SCORING_ROWS[2]]

    def rows(result: object) -> list[tuple[str, float | None]]:
        return [(_squash(r.factor), r.points) for t in result.scoring.tables for r in t.rows]  # type: ignore[attr-defined]

    assert scanned.scoring.found
    assert rows(scanned) == rows(native_result) == [("服务方案", 20.0), ("人员配置", 15.0), ("应急预案", 10.0)]


def test_grid_marks_merged_cells_and_doubtful_rulings() -> None:
    """Ruling lines on a synthetic image: a 3×3 grid whose last row spans two columns."""
    img = np.full((400, 600), 255, dtype=np.uint8)
    for y in (50, 150, 250, 350):
        img[y:y + 2, 50:551] = 0
    for x in (50, 250, 400, 550):
        img[50:352, x:x + 2] = 0
    img[250:352, 400:402] = 255  # no ruling between columns 2 and 3 in the last row
    from app.documents.model import OcrLine

    zoom = 2.0
    lines = [OcrLine(text="甲", bbox=(60 / zoom, 90 / zoom, 90 / zoom, 110 / zoom), confidence=0.99),
             OcrLine(text="合并单元格", bbox=(300 / zoom, 290 / zoom, 500 / zoom, 310 / zoom), confidence=0.99)]
    (table,) = tables_from_image(img, zoom, lines, 3)
    assert table.id == "p3o1" and table.source == "ocr" and table.page == 3
    assert len(table.rows) == 3 and table.col_count == 3
    assert table.rows[0][0] == "甲"
    assert table.rows[2][1:] == ["合并单元格", None]
    assert table.bbox == pytest.approx((25, 25, 275, 175), abs=2)
    assert table.uncertain == ""
    img[250:300, 400:402] = 0  # the ruling drawn over half the cell: the merge is in doubt
    (doubtful,) = tables_from_image(img, zoom, lines, 3)
    assert "只画了一部分" in doubtful.uncertain


@needs_engine
def test_cli_ocr_modes(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIDSTUDIO_CACHE_DIR", str(tmp_path / "cache"))
    scan = scanned_text_pdf(tmp_path / "scan.pdf", LINES)
    assert main(["analyze", str(scan), "--ocr", "off", "--json"]) == EXIT_UNREADABLE
    captured = capsys.readouterr()
    off = json.loads(captured.out)
    assert off["ocr_pages"] == [] and off["unreadable_pages"] == [1] and "OCR" not in captured.err
    assert main(["analyze", str(scan), "--json"]) == EXIT_OK  # auto is the default
    captured = capsys.readouterr()
    auto = json.loads(captured.out)
    assert auto["ocr_pages"] == [1] and auto["unreadable_pages"] == []
    assert "文字识别（OCR）：第1页（1/1）" in captured.err
    assert main(["analyze", str(scan), "--ocr", "sometimes"]) == 2
    capsys.readouterr()


def test_ascii_punctuation_in_chinese_text_becomes_full_width() -> None:
    from app.documents.ocr.layout import normalize_punctuation

    assert normalize_punctuation("营业执照(副本)复印件") == "营业执照（副本）复印件"
    assert normalize_punctuation("说明:如下;单价(万元):50") == "说明：如下；单价（万元）：50"
    assert normalize_punctuation("（1)条款") == "（1）条款"
    assert normalize_punctuation("see (a) and (b), 1.5,2.0") == "see (a) and (b), 1.5,2.0"


@pytest.mark.parametrize(("paper", "ink"), [(255, 190), (205, 120)])
def test_grid_finds_faint_rulings_and_rulings_on_grey_paper(paper: int, ink: int) -> None:
    """Thin rulings render light grey; a dim scan's paper is grey: both still give the grid."""
    img = np.full((300, 400), paper, dtype=np.uint8)
    for y in (40, 140, 240):
        img[y:y + 2, 40:361] = ink
    for x in (40, 200, 360):
        img[40:242, x:x + 2] = ink
    from app.documents.model import OcrLine

    cell = OcrLine(text="分值", bbox=(60, 80, 120, 100), confidence=0.99)
    (table,) = tables_from_image(img, 1.0, [cell], 1)
    assert len(table.rows) == 2 and table.col_count == 2 and table.rows[0][0] == "分值"

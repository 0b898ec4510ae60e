"""OCR of printed-and-scanned copies: a red seal over the text, a crooked sheet, uneven light,
blur, noise and JPEG (tests/scanned_fixtures.py ``PrintScan``), and the deskew that reads a
crooked page straight (app/documents/ocr/deskew.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf
import pytest

from app.documents.ingest import ingest_tender
from app.documents.ocr.apply import OcrMode, OcrSettings
from app.documents.ocr.deskew import estimate_skew
from app.documents.ocr.engine import engine_available
from app.documents.ocr.render import render_gray
from tests.document_fixtures import composer
from tests.scanned_fixtures import PrintScan, print_scan_pdf, scan_pdf

needs_engine = pytest.mark.skipif(not engine_available(), reason="OCR engine (rapidocr + onnxruntime) not installed")

PARAGRAPH = "投标人应按招标文件要求编制投标文件，对服务内容、人员配置和质量保障措施作出实质性响应。"
SCORING_ROWS = [
    ["序号", "评分因素", "评分标准", "分值"],
    ["1", "服务方案", "方案完整可行、针对性强的得20分，一般的得10分。", "20"],
    ["2", "人员配置", "人员数量充足、资质齐全的得15分，一般的得8分。", "15"],
    ["3", "应急预案", "预案可行的得满分，不可行不得分。", "10"],
]


def _squash(text: str) -> str:
    return "".join(text.split())


def _tender_page(path: Path) -> Path:
    c = composer()
    c.heading("第四章 评标办法")
    for _ in range(3):
        c.text(PARAGRAPH)
    c.heading("技术评分表（45分）", size=11)
    c.table([40, 90, 300, 50], SCORING_ROWS)
    c.save(path)
    return path


def _accuracy(want: str, got: str) -> float:
    """1 − edit distance / len(want) (whitespace ignored)."""
    a, b = _squash(want), _squash(got)
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return 1 - prev[-1] / max(len(a), 1)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_crooked_scan_is_measured_and_straightened(tmp_path: Path, seed: int) -> None:
    native = _tender_page(tmp_path / "native.pdf")
    how = PrintScan(stamp=False, rotation=(1.6, 1.6), shading=0.0, blur=0.0, noise=0.0, jpeg_quality=None, seed=seed)
    crooked = print_scan_pdf(native, tmp_path / "crooked.pdf", how=how)
    with pymupdf.open(crooked) as doc:
        page = doc[0]
        angle = estimate_skew(render_gray(page).pixels)
        assert 1.4 <= abs(angle) <= 1.8, angle
        assert abs(estimate_skew(render_gray(page, angle).pixels)) <= 0.15  # straight after turning it back
        assert abs(estimate_skew(render_gray(page, -angle).pixels)) >= 2.5  # the other way doubles the tilt
    with pymupdf.open(scan_pdf(native, tmp_path / "straight.pdf")) as doc:
        assert estimate_skew(render_gray(doc[0]).pixels) == 0.0


def test_a_blank_or_nearly_blank_page_is_left_as_it_is() -> None:
    blank = np.full((800, 600), 255, dtype=np.uint8)
    assert estimate_skew(blank) == 0.0
    blank[400:404, 100:110] = 0  # a speck
    assert estimate_skew(blank) == 0.0


def test_print_scan_changes_what_it_says() -> None:
    with pytest.raises(ValueError, match="unknown degradation"):
        PrintScan.only(["coffee"])
    only = PrintScan.only(["stamp", "jpeg"])
    assert only.stamp and only.jpeg_quality and not only.rotation and not only.blur and not only.noise


def test_red_seal_ink_is_kept_from_the_ruling_search(tmp_path: Path) -> None:
    native = _tender_page(tmp_path / "native.pdf")
    sealed = print_scan_pdf(native, tmp_path / "sealed.pdf", how=PrintScan(
        stamp=True, rotation=None, shading=0.0, blur=0.0, noise=0.0, jpeg_quality=None, stamp_on="人员配置"))
    with pymupdf.open(sealed) as doc:
        image = render_gray(doc[0])
    assert image.red_removed is not None
    red = image.pixels != image.without_red
    assert 2000 < int(red.sum()) and int(image.without_red[red].mean()) > 200  # the seal, lightened
    assert int(image.pixels[red].mean()) < 200  # the seal is dark enough in gray to pass for a ruling
    with pymupdf.open(scan_pdf(native, tmp_path / "plain.pdf")) as doc:
        plain = render_gray(doc[0])
    assert plain.red_removed is None and plain.without_red is plain.pixels


@needs_engine
def test_a_seal_over_a_scoring_table_adds_no_columns(tmp_path: Path) -> None:
    native = _tender_page(tmp_path / "native.pdf")
    how = PrintScan(stamp=True, rotation=None, shading=0.0, blur=0.0, noise=0.0, jpeg_quality=None, stamp_on="人员配置")
    result = ingest_tender(print_scan_pdf(native, tmp_path / "sealed.pdf", how=how),
                           ocr=OcrSettings(mode=OcrMode.AUTO, cache_dir=tmp_path / "cache"))
    tables = [t for t in result.document.tables if t.source == "ocr"]
    assert len(tables) == 1 and tables[0].col_count == 4 and len(tables[0].rows) == 4 and not tables[0].uncertain


@needs_engine
def test_a_printed_stamped_and_scanned_scoring_page_is_read(tmp_path: Path) -> None:
    """Every degradation at once (seal over the text, 1.5–2° tilt, shading, blur, noise, JPEG 60):
    the text comes back nearly whole and the scoring table is rebuilt as on a clean scan."""
    native = _tender_page(tmp_path / "native.pdf")
    how = PrintScan(rotation=(1.5, 2.0), seed=3, stamp_on="技术评分表")
    scan = print_scan_pdf(native, tmp_path / "printed-scan.pdf", how=how)
    with pymupdf.open(scan) as doc:
        assert doc[0].get_text().strip() == "" and doc[0].get_images()[0][-1] == "DCTDecode"  # image only, JPEG
    result = ingest_tender(scan, ocr=OcrSettings(mode=OcrMode.AUTO, cache_dir=tmp_path / "cache"))
    doc = result.document
    assert [p.source for p in doc.pages] == ["ocr"]
    text = doc.text()
    assert "技术评分表" in _squash(text)
    body = _squash(text).split("技术评分表")[0]  # the heading and the three paragraphs, the seal over them
    assert _accuracy("第四章评标办法" + PARAGRAPH * 3, body) >= 0.93, body
    tables = [t for t in doc.tables if t.source == "ocr"]
    assert len(tables) == 1 and tables[0].col_count == 4 and len(tables[0].rows) == 4
    rows = [(_squash(r.factor), r.points) for t in result.scoring.tables for r in t.rows]
    assert rows == [("服务方案", 20.0), ("人员配置", 15.0), ("应急预案", 10.0)]


def test_rulings_are_found_on_unevenly_lit_paper() -> None:
    """Paper going from white to dim grey across the page (a scanner lamp), with faint rulings:
    one global ink threshold takes the dim side's paper for ink; evened-out paper does not."""
    from app.documents.model import OcrLine
    from app.documents.ocr.grid import find_rulings, flatten_paper, tables_from_image

    h, w = 600, 800
    light = np.linspace(255, 165, w, dtype=np.float32)[None, :].repeat(h, axis=0)
    img = light.copy()
    for y in (100, 250, 400):
        img[y:y + 2, 100:701] *= 0.72
    for x in (100, 400, 700):
        img[100:402, x:x + 2] *= 0.72
    pixels = img.astype(np.uint8)
    flat = flatten_paper(pixels)
    assert flat[50, 750] > 240 and flat[101, 650] < 200  # dim paper made white, a ruling there stays ink
    horizontal, vertical = find_rulings(pixels)
    assert len(horizontal) == 3 and len(vertical) == 3
    cell = OcrLine(text="分值", bbox=(450, 300, 520, 330), confidence=0.99)
    (table,) = tables_from_image(pixels, 1.0, [cell], 1)
    assert table.col_count == 2 and len(table.rows) == 2 and table.rows[1][1] == "分值" and not table.uncertain
    white = np.full((300, 400), 255, dtype=np.uint8)
    assert flatten_paper(white) is white  # even white paper is left alone (no copy)


def test_a_ruling_broken_by_scan_noise_is_still_one_ruling() -> None:
    """A thin ruling with 1–2 px holes every few pixels (noise, JPEG) is found whole; marks 4 px
    apart (like characters of a line of text) are not joined into a ruling."""
    from app.documents.ocr.grid import find_rulings

    img = np.full((200, 600), 255, dtype=np.uint8)
    img[50, 50:551] = 120
    rng = np.random.default_rng(0)
    for x in range(52, 548, 7):
        img[50, x: x + int(rng.integers(1, 3))] = 255  # holes of 1-2 px
    for x in range(50, 550, 24):  # "characters": 20 px dashes with 4 px gaps
        img[120, x: x + 20] = 60
    horizontal, _vertical = find_rulings(img)
    assert [(round(s.at), s.lo, s.hi) for s in horizontal] == [(50, 50.0, 551.0)]

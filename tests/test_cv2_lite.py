"""The numpy/Pillow stand-in for OpenCV that the packaged app's OCR runs on (issue 41).

Each function is checked against OpenCV itself where it is installed (the development install
has it through rapidocr); the last test reads printed-and-scanned pages in a child process in
which ``import cv2`` fails, so the engine puts the stand-in in place, and compares every line
with what OpenCV's run reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.documents.ocr import cv2_lite as lite
from app.documents.ocr.engine import engine_available

cv2 = pytest.importorskip("cv2")
REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("shape", "size"), [((37, 53, 3), (20, 11)), ((2000, 1414, 3), (1120, 1600)),
                                              ((2000, 1414, 3), (707, 1000)), ((48, 300, 3), (320, 48)),
                                              ((40, 31), (16, 9))])
def test_resize_is_opencvs_pixel_for_pixel_when_shrinking(shape: tuple[int, ...], size: tuple[int, int]) -> None:
    img = np.random.default_rng(0).integers(0, 256, shape, dtype=np.uint8)
    ours = lite.resize(img, size)
    assert ours.shape == cv2.resize(img, size).shape and ours.dtype == np.uint8
    assert np.array_equal(ours, cv2.resize(img, size))


def test_resize_when_enlarging_differs_by_at_most_one_grey_level() -> None:
    img = np.random.default_rng(1).integers(0, 256, (37, 53, 3), dtype=np.uint8)
    diff = np.abs(cv2.resize(img, (100, 80)).astype(int) - lite.resize(img, (100, 80)))
    assert diff.max() <= 1 and (diff > 0).mean() < 0.05
    floats = np.random.default_rng(2).random((30, 40)).astype(np.float32)
    assert np.allclose(cv2.resize(floats, (64, 48)), lite.resize(floats, (64, 48)), atol=1e-5)


def test_colour_rotation_border_and_bit_operations_match() -> None:
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (9, 13, 3), dtype=np.uint8)
    gray = img[..., 0].copy()
    for code in (cv2.COLOR_RGB2BGR, cv2.COLOR_GRAY2BGR):
        src = gray if code == cv2.COLOR_GRAY2BGR else img
        assert np.array_equal(cv2.cvtColor(src, code), lite.cvtColor(src, code))
    rgba = rng.integers(0, 256, (9, 13, 4), dtype=np.uint8)
    for code in (cv2.COLOR_BGRA2BGR, cv2.COLOR_RGBA2BGR):
        assert np.array_equal(cv2.cvtColor(rgba, code), lite.cvtColor(rgba, code))
    for code in (cv2.ROTATE_180, cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE):
        assert np.array_equal(cv2.rotate(img, code), lite.rotate(img, code))
    assert np.array_equal(cv2.copyMakeBorder(img, 1, 2, 3, 4, cv2.BORDER_CONSTANT, value=(0, 0, 0)),
                          lite.copyMakeBorder(img, 1, 2, 3, 4, lite.BORDER_CONSTANT, value=(0, 0, 0)))
    assert np.array_equal(cv2.copyMakeBorder(img, 2, 1, 0, 3, cv2.BORDER_REPLICATE),
                          lite.copyMakeBorder(img, 2, 1, 0, 3, lite.BORDER_REPLICATE))
    mask = (gray > 128).astype(np.uint8) * 255
    assert np.array_equal(cv2.bitwise_not(gray), lite.bitwise_not(gray))
    assert np.array_equal(cv2.bitwise_and(img, img, mask=mask), lite.bitwise_and(img, img, mask=mask))
    assert np.array_equal(cv2.add(img, img), lite.add(img, img))


def test_dilate_and_connected_regions_match_the_detector_post_processing() -> None:
    rng = np.random.default_rng(4)
    bitmap = (rng.random((120, 160)) > 0.93).astype(np.uint8)
    kernel = np.array([[1, 1], [1, 1]])
    dilated = cv2.dilate(bitmap, kernel)
    assert np.array_equal(dilated, lite.dilate(bitmap, kernel))
    every, levels = cv2.findContours(dilated * 255, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    theirs = [c for c, level in zip(every, levels[0], strict=True) if level[3] == -1]  # outer borders, not holes
    ours, hierarchy = lite.findContours(dilated * 255, lite.RETR_LIST, lite.CHAIN_APPROX_SIMPLE)
    assert hierarchy is None and len(ours) == len(theirs) > 20

    theirs_rects = [cv2.minAreaRect(c) for c in theirs]
    ours_rects = [lite.minAreaRect(c) for c in ours]
    # the same smallest areas; where two turns of the rectangle tie, either may be chosen
    assert sorted(round(w * h, 2) for _c, (w, h), _a in theirs_rects) == \
        sorted(round(w * h, 2) for _c, (w, h), _a in ours_rects)
    for centre, _size, _angle in theirs_rects:
        assert min(np.hypot(centre[0] - c[0], centre[1] - c[1]) for c, _s, _a in ours_rects) < 0.5


def test_rotated_rectangles_of_text_like_regions() -> None:
    canvas = np.zeros((200, 300), np.uint8)
    shapes = [np.array([[10, 10], [180, 30], [176, 60], [8, 40]]), np.array([[200, 120], [290, 100], [295, 130]])]
    for shape in shapes:
        cv2.fillPoly(canvas, [shape], 1)
    theirs, _ = cv2.findContours(canvas * 255, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    ours, _ = lite.findContours(canvas * 255, lite.RETR_LIST, lite.CHAIN_APPROX_SIMPLE)
    assert len(ours) == len(theirs) == 2
    for c_theirs in theirs:
        rect = cv2.minAreaRect(c_theirs)
        match = [lite.minAreaRect(c) for c in ours if abs(lite.minAreaRect(c)[0][0] - rect[0][0]) < 1]
        assert len(match) == 1
        assert sorted(np.round(match[0][1], 3)) == sorted(np.round(rect[1], 3))


def test_perspective_crop_and_polygon_score() -> None:
    rng = np.random.default_rng(5)
    page = rng.integers(0, 256, (100, 200, 3), dtype=np.uint8)
    src = np.float32([[10, 10], [80, 20], [75, 40], [8, 30]])
    dst = np.float32([[0, 0], [70, 0], [70, 20], [0, 20]])
    matrix = cv2.getPerspectiveTransform(src, dst)
    assert np.allclose(matrix, lite.getPerspectiveTransform(src, dst))
    assert np.allclose(cv2.invert(matrix)[1], lite.invert(matrix)[1])
    theirs = cv2.warpPerspective(page, matrix, (70, 20), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)
    ours = lite.warpPerspective(page, matrix, (70, 20), borderMode=lite.BORDER_REPLICATE, flags=lite.INTER_CUBIC)
    assert np.abs(theirs.astype(int) - ours).max() <= 2
    mismatched = total = 0
    for _ in range(100):
        centre = rng.integers(10, 40, 2).astype(float)
        rect = ((centre[0], centre[1]), (float(rng.integers(3, 30)), float(rng.integers(2, 10))), float(rng.random() * 180))
        pts = np.round(cv2.boxPoints(rect)).astype(np.int32).reshape(1, -1, 2)
        a = cv2.fillPoly(np.zeros((50, 50), np.uint8), pts, 1)
        b = lite.fillPoly(np.zeros((50, 50), np.uint8), pts, 1)
        mismatched += int((a != b).sum())
        total += int(a.sum())
    assert mismatched / total < 0.05  # edge pixels of steep sides only
    probs = rng.random((50, 50)).astype(np.float32)
    assert cv2.mean(probs, a)[0] == pytest.approx(lite.mean(probs, a)[0])


def test_image_files_decode_like_opencv(tmp_path: Path) -> None:
    img = np.random.default_rng(6).integers(0, 256, (12, 17, 3), dtype=np.uint8)
    ok, png = cv2.imencode(".png", img)
    assert ok and np.array_equal(lite.imdecode(png, lite.IMREAD_COLOR), img)
    assert lite.imdecode(np.frombuffer(b"not an image", np.uint8)) is None
    assert lite.imwrite(str(tmp_path / "x.png"), img) and np.array_equal(cv2.imread(str(tmp_path / "x.png")), img)


CHILD = r"""
import json, sys
if sys.argv[1] == "lite":
    sys.modules["cv2"] = None  # import cv2 fails: the engine puts the stand-in in place
from pathlib import Path
import pymupdf
from app.documents.ocr.engine import OcrEngine
from app.documents.ocr.runner import recognize_page
engine, out = OcrEngine(threads=1), {}
for path in sys.argv[2:]:
    with pymupdf.open(path) as doc:
        out[path] = [line.text for line in recognize_page(doc[0], 1, engine).lines]
print(json.dumps({"cv2": sys.modules["cv2"].__name__, "lines": out}, ensure_ascii=False))
"""


@pytest.mark.skipif(not engine_available(), reason="OCR engine (rapidocr + onnxruntime) not installed")
def test_scanned_pages_read_the_same_without_opencv(tmp_path: Path) -> None:
    """Two printed, stamped, tilted scans of a scoring page: every line as with OpenCV."""
    from tests.scanned_fixtures import PrintScan, print_scan_pdf
    from tests.test_ocr_degraded import _tender_page

    native = _tender_page(tmp_path / "native.pdf")
    scans = [str(print_scan_pdf(native, tmp_path / f"scan{seed}.pdf",
                                how=PrintScan(rotation=(1.5, 2.0), seed=seed, stamp_on="技术评分表")))
             for seed in (3, 5)]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    runs = {}
    for mode in ("opencv", "lite"):
        proc = subprocess.run([sys.executable, "-c", CHILD, mode, *scans], capture_output=True, text=True,
                              env=env, cwd=REPO, timeout=240, check=False)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[mode] = json.loads(proc.stdout)
    assert runs["opencv"]["cv2"] == "cv2" and runs["lite"]["cv2"] == "app.documents.ocr.cv2_lite"
    assert all(len(lines) > 15 for lines in runs["opencv"]["lines"].values())
    assert runs["lite"]["lines"] == runs["opencv"]["lines"]

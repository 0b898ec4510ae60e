"""An export converted to PDF by LibreOffice headless has pages and the heading texts.

Skipped when neither ``soffice`` nor ``libreoffice`` is on PATH. Each run uses its own
LibreOffice profile so parallel runs (and a desktop LibreOffice) do not collide.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pymupdf
import pytest

from app.export import ExportOptions, export_docx
from tests.export_sample import PROJECT, sample_chapters, sample_meta

pytestmark = pytest.mark.libreoffice


def _soffice() -> str:
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if not exe:
        pytest.skip("LibreOffice (soffice) is not installed")
    return exe


def _to_pdf(docx_path: Path, out_dir: Path) -> Path:
    profile = out_dir / "lo_profile"
    result = subprocess.run(
        [
            _soffice(),
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--norestore",
            "--convert-to",
            "pdf",
            "--outdir",
            str(out_dir),
            str(docx_path),
        ],
        capture_output=True,
        timeout=180,
        check=False,
    )
    pdf = out_dir / (docx_path.stem + ".pdf")
    assert pdf.exists(), result.stderr.decode("utf-8", "replace")
    return pdf


def _normalise(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("preset", ["标准投标版", "暗标"])
def test_libreoffice_renders_headings_tables_and_page_numbers(tmp_path: Path, preset: str) -> None:
    path = export_docx(sample_chapters(), tmp_path / "bid.docx", sample_meta(), ExportOptions(preset=preset))
    pdf_path = _to_pdf(path, tmp_path)
    with pymupdf.open(pdf_path) as pdf:
        pages = [_normalise(page.get_text()) for page in pdf]
    assert len(pages) >= 5  # cover, TOC, three chapters starting on new pages
    everything = "".join(pages)
    for heading in (
        "第一章项目理解与需求分析",
        "1.1项目背景",
        "2.1.2部署方案",
        "第三章项目实施与质量保障",
        "3.2.2测试与验收",
    ):
        assert heading in everything
    # Cover first, without a page number; the TOC page is page 1.
    assert PROJECT in pages[0] and "第1页" not in pages[0]
    assert "目录" in pages[1] and "第1页" in pages[1]
    # Chapters begin on their own pages (after the running header, if the preset has one).
    header = _normalise(f"{PROJECT}技术投标文件") if preset != "暗标" else ""
    for chapter in ("第二章总体技术方案", "第三章项目实施与质量保障"):
        starts = [i for i, p in enumerate(pages) if i >= 2 and p.removeprefix(header).startswith(chapter)]
        assert len(starts) == 1, chapter
    # Table cells are laid out as a table, not as "a | b" text.
    assert "32核CPU/128GB内存/4TBSSD" in everything and "|" not in everything
    if preset == "暗标":
        assert "投标人" not in everything
    else:
        assert "投标人：【投标人名称】（盖章）" in pages[0]

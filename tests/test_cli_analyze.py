"""``bidstudio-cli analyze``: output, JSON, exit codes, and no tracebacks for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import build_parser, main
from app.cli.common import EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE
from tests.document_fixtures import REPO, SAMPLE_PDF, encrypted_pdf, outline_page_pdf


def test_analyze_sample_prints_sections_and_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(SAMPLE_PDF)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "评分办法：第3–4页" in out
    assert "[技术] 总体技术方案：15 分（第3页）" in out
    assert "✓ 全部评分项合计 100 分" in out
    assert "已确认（各项独立核对一致）" in out


def test_analyze_json_and_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(SAMPLE_PDF), "--json"]) == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    assert data["scoring"]["found"] is True and data["scoring"]["total_points"] == 100
    assert data["scoring"]["points_by_category"] == {"商务": 20, "技术": 60, "价格": 20}
    assert data["scoring"]["confirmed"] is True and data["scoring"]["doubt_zh"] == ""
    assert data["sections"]["scoring"]["first_page"] == 3
    target = tmp_path / "out.json"
    assert main(["analyze", str(SAMPLE_PDF), "-o", str(target)]) == EXIT_OK
    assert json.loads(target.read_text(encoding="utf-8")) == data


def test_unreadable_input_exit_code_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    assert main(["analyze", str(empty)]) == EXIT_UNREADABLE
    assert "0 字节" in capsys.readouterr().err
    locked = encrypted_pdf(tmp_path / "locked.pdf", user_pw="pw")
    assert main(["analyze", str(locked)]) == EXIT_UNREADABLE
    assert "打开密码" in capsys.readouterr().err
    assert main(["analyze", str(locked), "--password", "pw"]) == EXIT_OK
    capsys.readouterr()
    outlines = outline_page_pdf(tmp_path / "o.pdf")
    assert main(["analyze", str(outlines)]) == EXIT_UNREADABLE
    assert "需 OCR" in capsys.readouterr().out


def test_usage_errors_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == EXIT_USAGE
    assert main(["analyze"]) == EXIT_USAGE
    assert main(["analyze", str(SAMPLE_PDF), "--max-mb", "0"]) == EXIT_USAGE
    assert main(["frobnicate"]) == EXIT_USAGE
    capsys.readouterr()


def test_subcommands_register_through_functions() -> None:
    parser = build_parser()
    args = parser.parse_args(["analyze", "x.pdf", "--json"])
    assert args.command == "analyze" and args.json and callable(args.func)


def test_no_traceback_in_a_real_process(tmp_path: Path) -> None:
    fake = tmp_path / "fake.pdf"
    fake.write_text("not a pdf", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "app.cli", "analyze", str(fake)],
        cwd=REPO, capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == EXIT_UNREADABLE
    assert "Traceback" not in proc.stderr and "内容不是 PDF" in proc.stderr

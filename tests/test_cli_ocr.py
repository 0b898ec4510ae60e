"""``--ocr auto|off|force`` on every CLI command that reads a tender, through the real CLI.

The tender is an image-only PDF the test renders itself (text drawn with a CJK font, then
rasterised): with ``--ocr off`` each command stops with a Chinese "no readable text" error
and a hint; with the default ``auto`` the page is read and the text reaches the model.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from app.cli import build_parser, main
from app.cli.common import EXIT_UNREADABLE
from app.documents.ocr.engine import engine_available
from tests.openai_server import OpenAIServer
from tests.pipeline_support import Router
from tests.scanned_fixtures import scanned_text_pdf

needs_engine = pytest.mark.skipif(not engine_available(), reason="OCR engine (rapidocr + onnxruntime) not installed")

LINES = ["第一章 招标公告", "项目名称：城市道路清扫保洁服务项目", "预算金额：120 万元，服务期 12 个月。"]


def _tender_commands() -> list[str]:
    """Every sub-command whose first positional argument is a tender file."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [name for name, p in sub.choices.items() if any(a.dest == "tender" for a in p._actions)]


def test_every_tender_command_takes_the_same_ocr_option() -> None:
    commands = _tender_commands()
    assert {"analyze", "outline"} <= set(commands)
    parser = build_parser()
    for name in commands:
        extra = ["-o", "x.json"] if name == "outline" else []
        assert parser.parse_args([name, "t.pdf", *extra]).ocr == "auto"
        assert parser.parse_args([name, "t.pdf", "--ocr", "force", *extra]).ocr == "force"
        with pytest.raises(SystemExit):
            parser.parse_args([name, "t.pdf", "--ocr", "sometimes", *extra])


def _outline_args(server: OpenAIServer, tender: Path, tmp_path: Path, *extra: str) -> list[str]:
    return ["outline", str(tender), "--mode", "free", "--base-url", server.base_url, "--model", "test-model",
            "-o", str(tmp_path / "outline.json"), "--report", str(tmp_path / "report.json"), "--quiet", *extra]


@needs_engine
def test_outline_ocr_off_refuses_a_scan_in_chinese_and_auto_reads_it(
        llm_server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIDSTUDIO_CACHE_DIR", str(tmp_path / "cache"))
    scan = scanned_text_pdf(tmp_path / "scan.pdf", LINES)
    llm_server.handler = Router()

    assert main(_outline_args(llm_server, scan, tmp_path, "--ocr", "off")) == EXIT_UNREADABLE
    err = capsys.readouterr().err
    assert "无法读取招标文件" in err and "没有可用的文字" in err and "--ocr off" in err
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["failure"]["stage"] == "ingest" and llm_server.completion_requests == []

    code = main(_outline_args(llm_server, scan, tmp_path))  # --ocr auto is the default
    err = capsys.readouterr().err
    assert code != EXIT_UNREADABLE, err
    assert "文字识别（OCR）：第1页（1/1）" in err
    assert llm_server.completion_requests, "the OCR text never reached the model"
    sent = "".join(json.dumps(r.body, ensure_ascii=False) for r in llm_server.completion_requests)
    assert "城市道路清扫保洁服务项目" in sent  # read from the image, then given to the model


@needs_engine
def test_analyze_ocr_off_names_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIDSTUDIO_CACHE_DIR", str(tmp_path / "cache"))
    scan = scanned_text_pdf(tmp_path / "scan.pdf", LINES)
    assert main(["analyze", str(scan), "--ocr", "off"]) == EXIT_UNREADABLE
    captured = capsys.readouterr()
    assert "需要先做 OCR" in captured.out and "--ocr off" in captured.err
    assert main(["analyze", str(scan), "--ocr", "force", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ocr_pages"] == [1]

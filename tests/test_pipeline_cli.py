"""``bidstudio-cli outline`` and ``analyze`` with a model, against the scripted server.

The tender is a DOCX the test writes itself (a technical scoring table of three items)."""

from __future__ import annotations

import json
from pathlib import Path

import docx
import pytest

from app.cli import main
from app.cli.common import EXIT_ENDPOINT
from tests.openai_server import OpenAIServer
from tests.pipeline_support import Router

ITEMS = [("服务方案", "30", "方案包含①人员配置方案②实施进度计划③质量保障措施，完善得30分"),
         ("培训方案", "20", "包括培训计划、培训内容、培训考核"),
         ("应急预案", "10", "包括应急组织、应急响应流程、应急演练")]


@pytest.fixture
def tender(tmp_path: Path) -> Path:
    d = docx.Document()
    d.add_heading("第一章 招标公告", level=1)
    d.add_paragraph("项目名称：某区智慧社区运维服务项目")
    d.add_paragraph("预算金额：120万元；服务期：一年")
    d.add_heading("第二章 采购需求", level=1)
    d.add_paragraph("1. 提供 7×24 小时运维服务。2. 建立信息安全管理制度。")
    d.add_heading("第三章 评标办法", level=1)
    d.add_paragraph("技术评分表（60分）")
    table = d.add_table(rows=1, cols=4)
    for cell, head in zip(table.rows[0].cells, ["序号", "评分因素", "分值", "评分标准"], strict=True):
        cell.text = head
    for i, (factor, points, criteria) in enumerate(ITEMS, 1):
        for cell, value in zip(table.add_row().cells, [str(i), factor, points, criteria], strict=True):
            cell.text = value
    path = tmp_path / "tender.docx"
    d.save(str(path))
    return path


def _router() -> Router:
    router = Router()
    router.default = _default_with_overview(router.default)
    return router


def _default_with_overview(fallback):  # type: ignore[no-untyped-def]
    def answer(kind, req):  # type: ignore[no-untyped-def]
        from tests.openai_server import Reply

        if kind == "overview":
            return Reply.text(json.dumps({"project_name": "某区智慧社区运维服务项目", "budget": "120万元"}, ensure_ascii=False))
        return fallback(kind, req)
    return answer


def _args(server: OpenAIServer, tender: Path, tmp_path: Path, *extra: str) -> list[str]:
    return ["outline", str(tender), "--mode", "aligned", "--base-url", server.base_url, "--model", "test-model",
            "-o", str(tmp_path / "outline.json"), "--report", str(tmp_path / "report.json"), "--quiet", *extra]


def test_outline_command_writes_valid_outline_report_and_docx(llm_server: OpenAIServer, tender: Path,
                                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "k")
    llm_server.handler = _router()
    code = main(_args(llm_server, tender, tmp_path, "--api-key-env", "MY_KEY", "--docx", str(tmp_path / "out.docx")))
    assert code == 0
    outline = json.loads((tmp_path / "outline.json").read_text(encoding="utf-8"))
    assert [c["title"] for c in outline["outline"]] == [t for t, _, _ in ITEMS]
    assert all(len(c["children"]) >= 2 for c in outline["outline"])
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    for key in ("valid", "mode", "strategy", "llm_calls", "prompt_tokens", "completion_tokens", "tokens_estimated",
                "attempts", "review_passed", "duration_s", "issues"):
        assert key in report
    assert report["valid"] is True and report["mode"] == "aligned" and report["review_passed"] is True
    # overview, the second reading of the scoring page, chapters, review
    assert report["llm_calls"] == len(llm_server.completion_requests) == 1 + 1 + 3 + 1
    assert report["attempts"]["analysis"] == 2
    assert (tmp_path / "out.docx").stat().st_size > 0
    assert all(r.headers.get("authorization") == "Bearer k" for r in llm_server.completion_requests)


def test_outline_command_budget_failure_exit_code(llm_server: OpenAIServer, tender: Path, tmp_path: Path) -> None:
    llm_server.handler = _router()
    code = main(_args(llm_server, tender, tmp_path, "--max-calls", "2", "--no-code-fill"))
    assert code == 4
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["valid"] is False and report["failure"]["kind"] == "budget"


def test_outline_command_endpoint_error_exit_code(llm_server: OpenAIServer, tender: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    llm_server.require_key = "right"
    monkeypatch.setenv("MY_KEY", "wrong")
    code = main(_args(llm_server, tender, tmp_path, "--api-key-env", "MY_KEY"))
    assert code == EXIT_ENDPOINT
    assert "401" in capsys.readouterr().err


def test_outline_command_unreadable_tender_exit_code(llm_server: OpenAIServer, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    code = main(_args(llm_server, empty, tmp_path))
    assert code == 3
    assert "0 字节" in capsys.readouterr().err
    assert llm_server.completion_requests == []


def test_outline_command_needs_endpoint(tender: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BIDSTUDIO_BASE_URL", raising=False)
    monkeypatch.delenv("BIDSTUDIO_MODEL", raising=False)
    assert main(["outline", str(tender), "-o", str(tmp_path / "o.json")]) == 2


def test_analyze_with_model_adds_analysis(llm_server: OpenAIServer, tender: Path, tmp_path: Path) -> None:
    llm_server.handler = _router()
    out = tmp_path / "analysis.json"
    code = main(["analyze", str(tender), "--base-url", llm_server.base_url, "--model", "test-model",
                 "-o", str(out)])
    assert code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    groups = data["analysis"]["groups"]
    assert [g["title"] for g in groups] == [t for t, _, _ in ITEMS]
    assert groups[0]["detail_points"] == ["人员配置方案", "实施进度计划", "质量保障措施"]
    assert data["analysis"]["overview"]["budget"] == "120万元"
    assert data["scoring"]["found"] is True


def test_outline_command_budget_by_default_ends_valid_with_code_filled_chapters(
        llm_server: OpenAIServer, tender: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    llm_server.handler = _router()
    code = main(_args(llm_server, tender, tmp_path, "--max-calls", "2"))
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert code == 0, report
    assert report["valid"] is True and report["failure"] is None
    # the overview call and the second reading of the scoring page come before the budget
    assert report["llm_calls"] <= 4 and report["filled_nodes"] > 0
    assert any("补全" in w for w in report["warnings"])
    assert "补全" in capsys.readouterr().err


def test_outline_command_defaults_are_the_run_budget_defaults() -> None:
    from app.cli import build_parser
    from app.pipeline.outline.budget import RunBudget

    args = build_parser().parse_args(["outline", "tender.docx", "-o", "outline.json"])
    default = RunBudget()
    assert (args.max_calls, args.max_run_tokens, args.max_minutes) == (default.max_calls, default.max_tokens,
                                                                       default.max_minutes)

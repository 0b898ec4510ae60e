"""``bidstudio-cli analyze TENDER --breakdown`` and the document-level breakdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docx import Document

from app.cli import main
from app.cli.common import EXIT_MODEL, EXIT_OK, EXIT_USAGE
from app.documents.loader import load_tender
from app.pipeline.analysis.breakdown import requirement_input
from tests.openai_server import OpenAIServer, Reply

REQUIREMENTS = [
    "1.中标人每日上午七点前将食品送达采购人指定地点，并协助采购人逐批验收。",
    "2.★中标人不得将本项目转包或分包，否则采购人有权解除合同并追究违约责任。",
    "3.▲中标人所有配送人员须持有有效健康证，须提供健康证复印件并加盖投标人公章。",
    "4.中标人须提供配送方案和应急方案，应急方案包括食物中毒处理、恶劣天气配送和车辆故障处理。",
    "5.配送车辆须定期消毒，禽畜肉类须使用冷藏车配送，保证运输过程冷链不中断。",
]
ANSWER = {
    "status": "executable",
    "background": "为职工食堂提供一年的食品配送服务。",
    "goals": [{"text": "每日按时配送合格食材", "page": 1}],
    "tasks": [{"text": "提供配送方案和应急方案", "page": 1}],
    "risks": [{"text": "冷链中断导致食品变质", "page": 1, "category": "delivery"}],
}


def _tender(tmp_path: Path) -> Path:
    d = Document()
    d.add_heading("第一章 投标邀请", level=1)
    d.add_paragraph("项目名称：职工食堂食品配送服务项目。采购人：某市税务局。预算金额：330万元。")
    d.add_heading("第二章 采购需求", level=1)
    d.add_paragraph("为某市税务局职工食堂提供全年食品配送服务，配送内容包括粮油、肉禽蛋、水产、蔬菜、水果和调味品，"
                    "服务期自合同签订之日起一年，采购人按实际配送量结算。")
    for line in REQUIREMENTS:
        d.add_paragraph(line)
    d.add_heading("第三章 评标办法", level=1)
    d.add_paragraph("本项目采用综合评分法。")
    path = tmp_path / "tender.docx"
    d.save(str(path))
    return path


def test_requirement_input_is_the_located_section(tmp_path: Path) -> None:
    doc = load_tender(str(_tender(tmp_path)))
    pages, _heads = requirement_input(doc)
    text = "\n".join(p.text for p in pages)
    assert "转包或分包" in text


def test_cli_writes_the_breakdown_as_json(tmp_path: Path, llm_server: OpenAIServer,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIDSTUDIO_API_KEY", "k")
    llm_server.require_key = "k"
    llm_server.push(Reply.text(json.dumps(ANSWER, ensure_ascii=False)))
    out = tmp_path / "out.json"
    code = main(["analyze", str(_tender(tmp_path)), "--breakdown", "--base-url", llm_server.base_url,
                 "--model", "test-model", "-o", str(out)])
    assert code == EXIT_OK
    data = json.loads(out.read_text(encoding="utf-8"))
    b = data["breakdown"]
    assert b["status"] == "executable" and b["tasks"] == [{"text": "提供配送方案和应急方案", "page": 1}]
    marks = [r["mark"] for r in b["risks"] if r["origin"] == "code"]
    assert marks == ["★", "▲"]
    assert data["breakdown_run"]["calls"] == 1 and data["breakdown_run"]["clauses"]["▲"] == 1
    assert "转包" in llm_server.completion_requests[0].prompt_text


def test_cli_breakdown_with_a_bad_key_exits_with_model_failure(tmp_path: Path, llm_server: OpenAIServer,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WRONG_KEY", "wrong")
    llm_server.require_key = "right"
    out = tmp_path / "out.json"
    code = main(["analyze", str(_tender(tmp_path)), "--breakdown", "--base-url", llm_server.base_url,
                 "--model", "test-model", "--api-key-env", "WRONG_KEY", "-o", str(out)])
    assert code == EXIT_MODEL
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["breakdown"]["status"] == "needs_clarification" and data["breakdown_run"]["config_error"]
    assert len([r for r in data["breakdown"]["risks"] if r["origin"] == "code"]) == 2


def test_cli_breakdown_without_endpoint_is_a_usage_error(tmp_path: Path, monkeypatch: object,
                                                         capsys: object) -> None:
    for name in ("BIDSTUDIO_BASE_URL", "BIDSTUDIO_MODEL"):
        monkeypatch.delenv(name, raising=False)  # type: ignore[attr-defined]
    code = main(["analyze", str(_tender(tmp_path)), "--breakdown"])
    assert code == EXIT_USAGE
    assert "--base-url" in capsys.readouterr().err  # type: ignore[attr-defined]

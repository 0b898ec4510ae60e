"""Broken streams end as an endpoint error (issue 37 §3, "Also"): an answer that never sends a newline
or a gzip bomb of SSE comments is not an OpenAI answer, so ``outline`` exits 5 naming the cause and
calls its outline code-only — never exit 0 "目录有效；模型没有写出任何标题"."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from app.cli import main
from app.cli.common import EXIT_ENDPOINT
from tests.openai_server import OpenAIServer, Reply
from tests.test_pipeline_cli import _args, tender  # noqa: F401  (the fixture)


def _no_newline() -> Reply:
    return Reply(raw_body=b"data: {\"x\": \"", endless=b"y" * 65536)


def _gzip_bomb() -> Reply:
    line = b": " + b"k" * 4093 + b"\n"  # SSE comments: short lines, no event at all
    return Reply.raw(gzip.compress(line * ((80 << 20) // len(line)), compresslevel=9), "text/event-stream",
                     content_encoding="gzip")


@pytest.mark.parametrize("broken", [_no_newline, _gzip_bomb], ids=["no-newline", "gzip-bomb"])
def test_a_broken_stream_on_every_call_is_an_endpoint_error(
        llm_server: OpenAIServer, tender: Path, tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, broken: object) -> None:
    monkeypatch.setenv("BIDSTUDIO_API_KEY", "k")
    llm_server.default = broken()  # type: ignore[operator]
    argv = [a for a in _args(llm_server, tender, tmp_path) if a != "--quiet"]
    assert main(argv) == EXIT_ENDPOINT
    err = capsys.readouterr().err
    assert "目录有效" not in err and "不是 OpenAI 接口的应答" in err and "仅由程序" in err
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["code_only"] is True and report["failure"]["cause"] == "not_openai"
    assert len(llm_server.completion_requests) <= 10

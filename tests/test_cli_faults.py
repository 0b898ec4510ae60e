"""The CLI facing bad options, bad output paths, locked tenders and refused endpoints."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from app.cli import main
from app.cli.common import EXIT_ENDPOINT, EXIT_UNREADABLE, EXIT_USAGE
from tests.document_fixtures import SAMPLE_PDF, encrypted_pdf
from tests.hostile_files import private_device, private_stdout_link
from tests.openai_server import OpenAIServer

SECRET = "sk-proj-DoNotEchoMe0123456789"


@pytest.mark.parametrize(
    "argv",
    [
        ["outline", "t.pdf", "-o", "o.json", "--api-key", SECRET],
        ["outline", "t.pdf", "-o", "o.json", f"--api-key={SECRET}"],
        ["analyze", "t.pdf", "--api", SECRET],
        ["analyze", "t.pdf", "--API_KEY", SECRET],
        ["analyze", "t.pdf", "--token", SECRET],
    ],
)
def test_a_key_on_the_command_line_is_refused_and_never_echoed(argv: list[str],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == EXIT_USAGE
    out, err = capsys.readouterr()
    assert SECRET not in out + err
    assert "BIDSTUDIO_API_KEY" in err and "--api-key-env" in err


def test_no_prefix_matching_and_unknown_values_are_not_echoed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(SAMPLE_PDF), "--pass", "pw"]) == EXIT_USAGE  # not --password
    assert main(["analyze", str(SAMPLE_PDF), "--js"]) == EXIT_USAGE  # not --json
    capsys.readouterr()
    assert main(["analyze", str(SAMPLE_PDF), "--frobnicate", SECRET, f"--other={SECRET}"]) == EXIT_USAGE
    _out, err = capsys.readouterr()
    assert SECRET not in err and "--frobnicate" in err and "--other" in err


def test_bad_output_paths_are_usage_errors_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tender = tmp_path / "t.pdf"
    tender.write_bytes(SAMPLE_PDF.read_bytes())
    device = private_device(tmp_path, "full")  # our own /dev/full: a regression must not break the system's
    cases = {
        str(tmp_path / "missing" / "x.json"): "不存在",
        str(device): "不是普通文件",
        str(private_stdout_link(tmp_path)): "不是普通文件",
        str(tmp_path): "文件夹",
        str(tender): "就是输入的招标文件",
    }
    for output, words in cases.items():
        assert main(["analyze", str(tender), "-o", output]) == EXIT_USAGE, output
        assert words in capsys.readouterr().err, output
    assert stat.S_ISCHR(os.stat(device).st_mode)  # never replaced by a regular file
    assert tender.read_bytes() == SAMPLE_PDF.read_bytes()
    assert main(["outline", str(tender), "-o", str(tmp_path / "a.json"), "--report", str(tmp_path / "a.json"),
                 "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]) == EXIT_USAGE
    assert "同一个文件" in capsys.readouterr().err


def test_proc_file_as_tender_says_what_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    if not Path("/proc/self/environ").exists():
        pytest.skip("no /proc")
    assert main(["analyze", "/proc/self/environ"]) == EXIT_UNREADABLE
    err = capsys.readouterr().err
    assert "不是磁盘上的普通文件" in err and "下载未完成" not in err


def test_outline_takes_the_pdf_password_and_every_failure_writes_the_report(
        llm_server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    locked = encrypted_pdf(tmp_path / "locked.pdf", user_pw="pw")
    report = tmp_path / "report.json"
    base = ["outline", str(locked), "-o", str(tmp_path / "o.json"), "--report", str(report),
            "--base-url", llm_server.base_url, "--model", "test-model", "--analysis", "model", "-q"]

    assert main(base) == EXIT_UNREADABLE  # no password given
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["failure"]["stage"] == "ingest" and data["failure"]["cause"] == "password_required"
    assert "打开密码" in capsys.readouterr().err

    llm_server.require_key = "right-key"
    monkeypatch.setenv("BIDSTUDIO_API_KEY", "wrong-key")
    report.unlink()
    assert main([*base, "--password", "pw"]) == EXIT_ENDPOINT  # opened; then the endpoint refuses the key
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["exit_code"] == EXIT_ENDPOINT and data["valid"] is False
    assert data["failure"]["stage"] == "analysis" and data["failure"]["kind"] in ("config", "endpoint")
    assert "401" in data["failure"]["message"]
    assert "wrong-key" not in report.read_text(encoding="utf-8") + capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize(
    "option",
    [["--timeout", "nan"], ["--timeout", "inf"], ["--timeout", "-1"], ["--temperature", "5"], ["--max-tokens", "0"],
     ["--context-size", "-5"], ["--max-run-tokens", "0"], ["--max-calls", "-1"], ["--depth", "9"],
     ["--json-attempts", "0"], ["--max-mb", "inf"]],
    ids=lambda o: "".join(o),
)
def test_nonsense_numbers_are_usage_errors_before_any_request(llm_server: OpenAIServer, tmp_path: Path,
                                                              option: list[str],
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["outline", str(SAMPLE_PDF), "-o", str(tmp_path / "o.json"), "--base-url", llm_server.base_url,
            "--model", "test-model", *option]
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert option[0] in err and "Traceback" not in err
    assert llm_server.requests == []


@pytest.mark.parametrize(
    ("url", "key", "words"),
    [("http://[::1", "k", "端口"), ("http://127.0.0.1:99999/v1", "k", "端口"), ("http:///v1", "k", "主机"),
     ("http://127.0.0.1:9/v1", "sk-ab\nX-Injected: 1", "换行"), ("http://127.0.0.1:9/v1", "sk-密钥", "非 ASCII")],
    ids=["bracket", "port-99999", "no-host", "key-newline", "key-cjk"],
)
def test_bad_endpoint_values_are_explained_without_echoing_the_key(
        tmp_path: Path, url: str, key: str, words: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIDSTUDIO_API_KEY", key)
    assert main(["outline", str(SAMPLE_PDF), "-o", str(tmp_path / "o.json"), "--base-url", url,
                 "--model", "m"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert words in err and key not in err and "内部错误" not in err


async def test_the_client_refuses_the_same_values_for_the_app() -> None:
    from app.llm.client.errors import LLMConfigError
    from app.llm.client.llm_client import EndpointConfig, LLMClient

    async with LLMClient(EndpointConfig(base_url="http://127.0.0.1:9/v1", api_key="sk-全角", model="m")) as client:
        with pytest.raises(LLMConfigError, match="非 ASCII"):
            await client.complete([{"role": "user", "content": "hi"}])


@pytest.mark.skipif(os.name != "posix" or os.uname().sysname == "Darwin", reason="needs byte file names")
def test_json_output_stays_valid_for_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    raw = os.fsencode(tmp_path) + b"/t-\xff.pdf"
    with open(raw, "wb") as handle:
        handle.write(SAMPLE_PDF.read_bytes())
    out = tmp_path / "out.json"
    assert main(["analyze", os.fsdecode(raw), "--json", "-o", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["file"] == os.fsdecode(raw) and data["page_count"] > 1


def test_a_key_given_to_api_key_env_is_not_echoed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["outline", str(SAMPLE_PDF), "-o", str(tmp_path / "o.json"), "--base-url", "http://127.0.0.1:9/v1",
                 "--model", "m", "--api-key-env", SECRET]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert SECRET not in err and "环境变量的名字" in err


def test_probe_refuses_a_bad_output_before_measuring(llm_server: OpenAIServer, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    device = private_device(tmp_path, "full")
    assert main(["probe", "--base-url", llm_server.base_url, "--model", "m", "-o", str(device)]) == EXIT_USAGE
    assert "不是普通文件" in capsys.readouterr().err and llm_server.requests == []

"""Output faults of the CLI found by issue 30's attack (item 14): a Word file the disk cannot
take, a journal folder that cannot be written, an output that is a dangling link, and an
endpoint listing an absurd number of models."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.cli.common import EXIT_ENDPOINT, EXIT_ERROR, EXIT_USAGE
from app.llm.client.llm_client import MAX_MODEL_IDS
from tests.openai_server import OpenAIServer
from tests.pipeline_support import make_client
from tests.test_pipeline_cli import _args, _router, tender  # noqa: F401  (the fixture)

REPO = Path(__file__).resolve().parent.parent


def test_a_word_file_the_disk_cannot_take_is_an_error_exit_and_the_report_says_so(
        llm_server: OpenAIServer, tender: Path, tmp_path: Path) -> None:  # noqa: F811
    llm_server.handler = _router()
    argv = [*_args(llm_server, tender, tmp_path, "--docx", str(tmp_path / "out.docx"))]

    def small_disk() -> None:  # files past 12 KB fail with EFBIG, as on a full disk (the .docx is larger)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (12_000, 12_000))

    env = {**os.environ, "PYTHONPATH": str(REPO), "BIDSTUDIO_API_KEY": "k"}
    done = subprocess.run([sys.executable, "-m", "app.cli", *argv], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300, preexec_fn=small_disk)
    assert done.returncode == EXIT_ERROR, done.stderr
    assert "导出 Word 失败" in done.stderr and "Traceback" not in done.stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["exit_code"] == EXIT_ERROR and "导出 Word 失败" in report["docx_error"]
    assert json.loads((tmp_path / "outline.json").read_text(encoding="utf-8"))["outline"]  # the outline is kept


def test_a_journal_folder_that_cannot_be_written_is_a_usage_error(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "journal"
    blocker.mkdir()
    (blocker / "llm_calls.jsonl").mkdir()  # the journal file cannot be opened, even by root
    code = main(["outline", str(tmp_path / "t.docx"), "-o", str(tmp_path / "o.json"), "--journal", str(blocker),
                 "--base-url", "http://127.0.0.1:9/v1", "--model", "m"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE and "--journal" in err and "无法写入" in err and "内部错误" not in err


def test_a_dangling_link_as_output_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "gone" / "out.json")
    code = main(["outline", str(tmp_path / "t.docx"), "-o", str(link), "--base-url", "http://127.0.0.1:9/v1",
                 "--model", "m"])
    assert code == EXIT_USAGE and "不存在位置的链接" in capsys.readouterr().err


async def test_a_huge_model_list_is_capped(llm_server: OpenAIServer) -> None:
    llm_server.models = [f"model-{i:06d}" for i in range(200_000)]
    async with make_client(llm_server) as client:
        ids = await client.list_models()
    assert len(ids) == MAX_MODEL_IDS and ids[0] == "model-000000"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_terminated_run_writes_the_partial_outline_and_a_report(llm_server: OpenAIServer, tender: Path,  # noqa: F811
                                                                  tmp_path: Path, sig: signal.Signals) -> None:
    router = _router()
    first = router.default

    def slow_after_the_first_chapter(kind: str, req: object) -> object:
        if kind.startswith("chapter:") and router.count("chapter:") > 1:
            from tests.openai_server import Reply

            return Reply.text("{}", delay=60)  # the second chapter never comes in time
        return first(kind, req)  # type: ignore[arg-type]

    router.default = slow_after_the_first_chapter  # type: ignore[assignment]
    llm_server.handler = router
    env = {**os.environ, "PYTHONPATH": str(REPO), "BIDSTUDIO_API_KEY": "k"}
    # A shell starts a background job with SIGINT ignored, and the child would inherit that: give it the
    # default disposition a user's terminal gives, so the test means the same wherever the suite runs.
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", *_args(llm_server, tender, tmp_path, "--no-review")],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    import time

    deadline = time.monotonic() + 120
    while router.count("chapter:") < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(sig)
    try:
        _out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    assert proc.returncode == 130, err
    outline = json.loads((tmp_path / "outline.json").read_text(encoding="utf-8"))["outline"]
    assert len(outline) == 3 and len(outline[0]["children"]) >= 2  # the first chapter's work is kept
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["exit_code"] == 130 and report["failure"]["kind"] == "cancelled"
    assert "部分目录" in report["failure"]["message"]


def test_a_login_page_endpoint_stops_early_and_the_outline_is_not_called_the_models(
        llm_server: OpenAIServer, tender: Path, tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """An endpoint that answers every call with a web page: an endpoint error exit (5) naming the cause;
    the outline code wrote is kept but called code-only, never the model's or a success."""
    from tests.openai_server import Reply

    monkeypatch.setenv("BIDSTUDIO_API_KEY", "k")
    llm_server.default = Reply.raw("<html><body>请先登录</body></html>".encode(), "text/html")
    argv = [a for a in _args(llm_server, tender, tmp_path) if a != "--quiet"]
    assert main(argv) == EXIT_ENDPOINT
    err = capsys.readouterr().err
    assert len(llm_server.completion_requests) <= 10, len(llm_server.completion_requests)
    assert "不是 OpenAI 接口的应答" in err and "网页" in err and "接口地址" in err
    assert "仅由程序" in err and "不是模型的结果" in err
    assert "目录有效" not in err  # no success line
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["model_nodes"] == 0 and report["code_only"] is True and report["exit_code"] == EXIT_ENDPOINT
    assert report["failure"]["kind"] == "endpoint" and report["failure"]["cause"] == "not_openai"
    outline = json.loads((tmp_path / "outline.json").read_text(encoding="utf-8"))["outline"]
    assert len(outline) == 3  # still written: useful, and said to be code's

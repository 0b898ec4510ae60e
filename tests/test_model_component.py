"""The built-in model as the packaged app carries it: a ``model/`` folder with llama.cpp's server
program and a GGUF file (issue 41).

The server program here is a small script that runs the project's stand-in server
(``tests/standin_model_server.py``, which takes llama-server's options), so the whole path is
real: the folder is found, the command line is llama-server's, the server starts under the
guard, answers a chat call over a socket and is gone after ``stop()``. The packaged program's
``guard`` sub-command is checked by running the PyInstaller entry script.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from app.llm.client.completion import EndpointConfig
from app.llm.client.llm_client import LLMClient
from app.llm.local import embedded
from app.llm.local.embedded import (
    COMPONENT_ENV,
    SERVER_PROGRAM,
    ManagedServer,
    ServerSpec,
    bundled_model_file,
    component_dir,
    embedded_status,
    guard_program,
)
from app.llm.local.guard import process_alive

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "tests" / "standin_model_server.py"
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="the stand-in server program is a shell script")


def _component(folder: Path) -> Path:
    """A model component: a ``llama-server`` that is the stand-in, and a GGUF file."""
    folder.mkdir(parents=True)
    program = folder / SERVER_PROGRAM
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STANDIN}" "$@"\n', encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    (folder / "gemma-3-270m-it-Q4_K_M.gguf").write_bytes(b"GGUF" + bytes(60))
    return folder


@posix_only
async def test_the_component_is_found_and_its_server_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _component(tmp_path / "model")
    monkeypatch.setenv(COMPONENT_ENV, str(folder))
    assert component_dir() == folder
    status = embedded_status()
    assert status.ready and status.missing_zh() == ""
    model = bundled_model_file(tmp_path / "data" / "models")
    assert model == folder / "gemma-3-270m-it-Q4_K_M.gguf"
    assert not (tmp_path / "data").exists()  # the component's file is used where it is, not copied
    spec = ServerSpec(model_path=model, context=4096, threads=2)
    command = spec.server_command(4321)
    assert command[0] == str(folder / SERVER_PROGRAM)
    for option, value in (("--model", str(model)), ("--alias", "gemma3-270m"), ("--ctx-size", "4096"),
                          ("--threads", "2"), ("--port", "4321"), ("--host", "127.0.0.1")):
        assert command[command.index(option) + 1] == value
    server = ManagedServer(spec, log_file=tmp_path / "server.log", ready_timeout=30.0)
    try:
        await server.ensure_running()
        client = LLMClient(EndpointConfig(base_url=server.base_url, api_key="x", model="gemma3-270m", max_retries=0))
        client.transport.lifecycle = server
        assert (await client.complete([{"role": "user", "content": "你好"}], max_tokens=8)).text == "好"
        await client.aclose()
        guard = server.pid
        assert guard is not None
    finally:
        server.stop()
    assert not process_alive(guard)


def test_a_folder_without_the_server_program_is_not_a_component(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "x.gguf").write_bytes(b"GGUF")
    monkeypatch.setenv(COMPONENT_ENV, str(tmp_path / "model"))
    assert component_dir() is None


def test_the_packaged_program_finds_model_beside_it_and_runs_the_guard_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(COMPONENT_ENV, raising=False)
    program = tmp_path / "bidstudio"
    program.write_bytes(b"")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(program))
    assert guard_program() == [str(program), "guard"]
    assert component_dir() is None
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / SERVER_PROGRAM).write_bytes(b"")
    assert component_dir() == tmp_path / "model"
    assert "安装程序" in embedded.EmbeddedStatus(server=False, bundled_model=False).missing_zh()


def test_the_entry_scripts_guard_stops_the_server_when_the_app_is_gone() -> None:
    """``bidstudio guard --parent PID -- COMMAND``: the command ends when the parent process does."""
    parent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.5)"])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    guard = subprocess.Popen([sys.executable, str(ROOT / "build_spec" / "bidstudio_entry.py"), "guard",
                              "--parent", str(parent.pid), "--", sys.executable, "-c",
                              "import time; time.sleep(60)"], env=env, cwd=ROOT)
    try:
        parent.wait(10)
        assert guard.wait(20) == 0
    finally:
        for proc in (guard, parent):
            if proc.poll() is None:
                proc.kill()
                proc.wait()

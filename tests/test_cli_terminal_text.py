"""Server text reaches the terminal escaped (issue 37 §3.9): a hostile server's model ids with ANSI
colours, an OSC title sequence, CR/LF (a forged line) and U+202E are printed as visible escapes by
``bidstudio-cli probe --local-servers``, and no control or bidi character reaches the terminal from
any CLI print."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from app.cli import main
from app.core.terminal_text import shown, shown_lines
from app.llm.local.discovery import KNOWN_PORTS
from tests.openai_server import OpenAIServer

HOSTILE_IDS = [
    "\x1b[31mRED\x1b[0m-model",
    "\x1b]0;pwned\x07title-model",
    "ok-model\r\n内置本地模型：已安装（伪造的一行）",
    "gpt\u202etxt.exe",
    "bell\x07\x9b31m-c1",
]
#: What must never reach the terminal raw.
RAW = ("\x1b", "\x07", "\r", "\u202e", "\x9b")


def _free_known_port() -> int:
    for port, _preset, _label in KNOWN_PORTS:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.skip("every usual model-server port is in use on this machine")


def test_probe_local_servers_escapes_a_hostile_servers_model_ids(capsys: Any) -> None:
    port = _free_known_port()
    with OpenAIServer(models=HOSTILE_IDS, port=port):
        assert main(["probe", "--local-servers"]) == 0
    out, err = capsys.readouterr()
    assert not [c for c in RAW if c in out + err], repr(out)
    mine = [line for line in out.splitlines() if f":{port}/" in line]
    assert len(mine) == 1, out  # the forged line stays inside its server's line
    assert "\\u001b[31mRED" in mine[0] and "\\u000d\\u000a内置本地模型" in mine[0] and "gpt\\u202etxt.exe" in mine[0]
    assert not any(line.startswith("内置本地模型：已安装（伪造") for line in out.splitlines())


def test_json_output_stays_valid_json_with_the_ids_intact(capsys: Any) -> None:
    import json

    port = _free_known_port()
    with OpenAIServer(models=HOSTILE_IDS, port=port):
        assert main(["probe", "--local-servers", "--json"]) == 0
    out, _err = capsys.readouterr()
    assert not [c for c in RAW if c in out]
    data = json.loads(out)
    mine = next(s for s in data["servers"] if s["base_url"].endswith(f":{port}/v1"))
    assert mine["models"] == [i.strip() for i in HOSTILE_IDS]  # escaped on screen, the same ids once parsed


def test_the_helper_escapes_controls_separators_and_bidi() -> None:
    assert shown("a\x1b[0mb\nc\td\u2028e\u200ff\u2066g\x7f") == "a\\u001b[0mb\\u000ac\\u0009d\\u2028e\\u200ff\\u2066g\\u007f"
    assert shown_lines("第一行\n\t第二行\x1b]0;x\x07") == "第一行\n\t第二行\\u001b]0;x\\u0007"
    assert shown("宏图智慧·ABC（v1）") == "宏图智慧·ABC（v1）"  # ordinary text unchanged

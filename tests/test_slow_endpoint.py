"""A server that answers, but a byte at a time (slowloris) is named as too slow, never as unreachable
(issue 37 §3, "Also"): 测试连接 in the settings dialog and ``bidstudio-cli probe`` say it answered too
slowly, and 获取模型列表 ends at its deadline instead of waiting for ever."""

from __future__ import annotations

import time
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.cli import main
from app.cli.common import EXIT_ENDPOINT
from app.core.api_keys import ApiKeyStore
from app.core.settings_model import AppSettings, ModelSettings
from app.ui.shell.settings_dialog import SettingsDialog
from tests.slowloris_server import SlowlorisServer
from tests.test_settings import MemoryKeyring, memory_keyring  # noqa: F401  (the fixture)


@pytest.mark.parametrize("button", ["test_button", "fetch_button"])
def test_the_settings_dialog_says_the_server_answered_too_slowly(
        qtbot: Any, memory_keyring: MemoryKeyring, button: str) -> None:  # noqa: F811
    with SlowlorisServer(gap=0.2) as server:
        settings = AppSettings(model=ModelSettings(provider="custom", base_url=server.base_url, model="m", timeout=2))
        dialog = SettingsDialog(settings, ApiKeyStore())
        qtbot.addWidget(dialog)
        qtbot.keyClicks(dialog.key_edit, "sk-local")
        started = time.monotonic()
        with qtbot.waitSignal(dialog.checkFinished, timeout=30_000) as got:
            qtbot.mouseClick(getattr(dialog, button), Qt.MouseButton.LeftButton)
        assert time.monotonic() - started < 25  # the trickle never completes: a deadline ended it
        text = dialog.status_label.text()
        assert got.args[0].kind == "slow" and "应答太慢" in text and "无法连接" not in text, text
        assert server.connections >= 1


def test_probe_says_the_server_answered_too_slowly(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIDSTUDIO_API_KEY", "k")
    with SlowlorisServer(gap=0.2) as server:
        code = main(["probe", "--base-url", server.base_url, "--model", "m", "--timeout", "2", "--quiet"])
    err = capsys.readouterr().err
    assert code == EXIT_ENDPOINT
    assert "应答太慢" in err and "无法连接" not in err, err

"""Local models in the window: found servers offered in 模型设置, the built-in model, no model at all.

Clicks the real widgets; the "model servers" are the project's loopback OpenAI server (on a real
default port) and the stand-in for llama.cpp's server (``tests/standin_model_server.py``).
"""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from app.core.api_keys import ApiKeyStore
from app.core.settings_model import AppSettings, ModelSettings
from app.llm.local.embedded import EmbeddedStatus
from app.llm.local.guard import process_alive
from app.ui.project.session import SessionWiring
from app.ui.run.controller import AppController
from app.ui.run.local_model import LocalModelService
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from app.ui.shell.settings_dialog import SettingsDialog
from tests.openai_server import OpenAIServer, Reply
from tests.test_settings import MemoryKeyring
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

ROOT = Path(__file__).resolve().parents[2]
STANDIN = [sys.executable, str(ROOT / "tests" / "standin_model_server.py"), "--port", "{port}",
           "--model_alias", "gemma3-270m"]


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[MainWindow]:
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BIDSTUDIO_CONFIG_DIR", str(tmp_path / "config"))
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(reporter=ErrorReporter(tmp_path / "data"))
    win = MainWindow(ctl, reporter=ctl.reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)


def _free(port: int) -> bool:
    """Nothing listens there (a port in TIME_WAIT after a test's server is free to listen on again)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


async def test_a_server_found_on_this_machine_is_chosen_and_measured_by_clicking(
        qtbot: QtBot, memory_keyring: MemoryKeyring, tmp_path: Path) -> None:
    if not _free(11434):
        pytest.skip("port 11434 is in use on this machine")
    with OpenAIServer(models=["qwen2.5:7b"], port=11434) as server:
        server.default = Reply.text("好的")
        dialog = SettingsDialog(AppSettings(), ApiKeyStore(), settings_path=tmp_path / "settings.json")
        qtbot.addWidget(dialog)
        dialog.show()
        panel = dialog.local_panel
        await wait_for(lambda: panel.list.count() > 0, timeout=5.0)
        assert "qwen2.5:7b" in panel.list.item(0).text()
        rect = panel.list.visualItemRect(panel.list.item(0))
        qtbot.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        assert panel.use_button.isEnabled()
        reports: list[Any] = []
        dialog.checkFinished.connect(reports.append)
        qtbot.mouseClick(panel.use_button, Qt.MouseButton.LeftButton)
        assert dialog.provider_combo.currentData() == "ollama"
        assert dialog.base_url_edit.text() == server.base_url
        assert dialog.model_combo.currentText() == "qwen2.5:7b"
        await wait_for(lambda: bool(reports), timeout=30.0)
        assert reports[0].ok  # 测试连接 ran on the chosen server
        dialog.reject()


async def test_nothing_found_says_so(qtbot: QtBot, memory_keyring: MemoryKeyring) -> None:
    busy = [p for p in (11434, 1234, 8080, 8000) if not _free(p)]
    if busy:
        pytest.skip(f"ports in use on this machine: {busy}")
    dialog = SettingsDialog(AppSettings(), ApiKeyStore())
    qtbot.addWidget(dialog)
    counts: list[int] = []
    dialog.local_panel.searched.connect(counts.append)
    dialog.show()
    await wait_for(lambda: bool(counts), timeout=5.0)
    assert counts == [0]
    assert "没有找到" in dialog.local_panel.note.text()
    dialog.reject()


async def test_without_any_model_generation_says_how_to_get_one_and_opens_the_settings(
        qtbot: QtBot, window: MainWindow, memory_keyring: MemoryKeyring) -> None:
    wiring = SessionWiring(AppSettings(), ApiKeyStore())
    wiring.use_local_service(LocalModelService(window, status=EmbeddedStatus(server=False, bundled_model=False)))
    wiring.attach(window)
    window.controller.client_factory = wiring.make_client
    window.set_model_configured(wiring.configured())
    assert window.guide.isVisible()
    window.guidance.setText("某单位食堂食材配送服务")
    finished: list[tuple[bool, str]] = []
    window.controller.run_finished.connect(lambda ok, message: finished.append((ok, message)))
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: bool(finished), timeout=10.0)
    assert finished[0][0] is False and "pip install" in finished[0][1] and "Ollama" in finished[0][1]
    await wait_for(lambda: window.findChild(SettingsDialog, "settingsDialog") is not None, timeout=5.0)
    dialog = window.findChild(SettingsDialog, "settingsDialog")
    assert dialog is not None and dialog.isVisible()
    dialog.reject()


async def test_the_built_in_model_starts_with_the_first_call_and_stops_with_the_window(
        qtbot: QtBot, qapp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring: MemoryKeyring) -> None:
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(reporter=ErrorReporter(tmp_path / "data"))
    window = MainWindow(ctl, reporter=ctl.reporter,
                        qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    window.show()
    settings = AppSettings(model=ModelSettings(provider="embedded", base_url="", model=""))
    wiring = SessionWiring(settings, ApiKeyStore())
    wiring.use_local_service(LocalModelService(window, command=STANDIN))
    wiring.attach(window)
    window.controller.client_factory = wiring.make_client
    assert wiring.configured()
    client = window.controller._client()
    server = wiring.local.server
    assert server is not None and server.state == "stopped"  # nothing runs until a call needs it
    comp = await client.complete([{"role": "user", "content": "你好"}], max_tokens=8)
    assert comp.text == "好"
    assert "内置本地模型" in window.statusBar().currentMessage() and server.state == "ready"
    guard = server.pid
    assert guard is not None and process_alive(guard)
    await client.aclose()
    await close_window(window)
    await wait_for(lambda: not process_alive(guard), timeout=10.0)
    assert server.state == "stopped"




async def test_search_again_and_choosing_a_gguf_file_by_clicking(
        qtbot: QtBot, memory_keyring: MemoryKeyring, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QFileDialog

    gguf = tmp_path / "qwen2.5-7b-instruct-q4_k_m.gguf"
    gguf.write_bytes(b"GGUF")
    dialog = SettingsDialog(AppSettings(), ApiKeyStore(), settings_path=tmp_path / "settings.json")
    qtbot.addWidget(dialog)
    panel = dialog.local_panel
    counts: list[int] = []
    panel.searched.connect(counts.append)
    dialog.show()
    await wait_for(lambda: len(counts) == 1, timeout=5.0)
    qtbot.mouseClick(panel.search_button, Qt.MouseButton.LeftButton)  # 重新查找 asks the ports again
    await wait_for(lambda: len(counts) == 2, timeout=5.0)
    qtbot.mouseClick(panel.gguf_button, Qt.MouseButton.LeftButton)
    chooser = panel.findChild(QFileDialog, "ggufFileDialog")
    assert chooser is not None and chooser.isVisible()
    chooser.selectFile(str(gguf))
    chooser.accept()
    assert panel.gguf_edit.text() == str(gguf)
    dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData("embedded"))
    assert not dialog.base_url_edit.isEnabled()  # the app runs that server itself
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    assert "无需测试连接" in dialog.status_label.text()  # a GGUF file is chosen: nothing to connect to yet
    dialog.accept()
    saved = AppSettings.model_validate_json((tmp_path / "settings.json").read_text(encoding="utf-8"))
    assert saved.model.provider == "embedded" and saved.model.local_model_path == str(gguf)

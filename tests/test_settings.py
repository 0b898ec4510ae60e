"""Settings: presets, the settings file, the API key only in the keyring, and 测试连接."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import pytest
from keyring.backends import fail
from PySide6.QtCore import Qt

from app.core.api_keys import NO_BACKEND_WARNING, ApiKeyStore
from app.core.settings_model import (
    PRESETS,
    AppSettings,
    ModelSettings,
    load_settings,
    preset,
    preset_for_url,
    save_settings,
)
from app.ui.run.connection_check import check_connection, fetch_models, make_endpoint_config
from app.ui.shell.settings_dialog import SettingsDialog
from tests.openai_server import OpenAIServer, Reply

SECRET = "sk-test-SECRET-0123456789abcdef"


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring backend that keeps passwords in a dict (what the test inspects)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.passwords:
            raise keyring.errors.PasswordDeleteError("no such password")
        del self.passwords[(service, username)]


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def _files_contain(folder: Path, needle: str) -> list[str]:
    return [str(p) for p in folder.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_presets_cover_the_required_providers() -> None:
    names = " ".join(p.name for p in PRESETS)
    for word in ("OpenAI", "DeepSeek", "通义千问", "Kimi", "智谱", "SiliconFlow", "火山方舟", "Ollama", "LM Studio",
                 "llama.cpp", "自定义"):
        assert word in names
    assert all(p.base_url.startswith(("http://", "https://")) for p in PRESETS if p.key not in ("custom", "embedded"))
    assert preset_for_url("http://127.0.0.1:11434/v1/").key == "ollama"
    assert preset("nonsense").key == "custom"
    local = ModelSettings(provider="llamacpp", base_url="http://127.0.0.1:8080/v1", model="m")
    assert local.is_configured(has_key=False)
    assert local.endpoint_kwargs("")["api_key"] == "not-needed"
    assert not ModelSettings(model="m").is_configured(has_key=False)


def test_dialog_round_trip_keeps_key_only_in_keyring(qtbot, tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    settings_path = tmp_path / "config" / "settings.json"
    store = ApiKeyStore()
    assert store.persistent and store.warning_zh is None

    dialog = SettingsDialog(AppSettings(), store, settings_path=settings_path)
    qtbot.addWidget(dialog)
    assert not dialog.keyring_warning.isVisibleTo(dialog)
    dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData("siliconflow"))
    assert dialog.base_url_edit.text() == "https://api.siliconflow.cn/v1"
    dialog.model_combo.setEditText("Qwen/Qwen2.5-72B-Instruct")
    qtbot.keyClicks(dialog.key_edit, SECRET)
    dialog.temperature_spin.setValue(0.7)
    dialog.max_tokens_spin.setValue(8192)
    dialog.context_spin.setValue(65536)
    dialog.concurrency_spin.setValue(4)
    dialog.system_in_user_check.setChecked(True)
    with qtbot.waitSignal(dialog.settingsSaved) as saved:
        dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()

    result: AppSettings = saved.args[0]
    assert result.model.provider == "siliconflow"
    assert memory_keyring.passwords == {("BidStudio", "https://api.siliconflow.cn/v1"): SECRET}
    assert settings_path.is_file()
    assert _files_contain(tmp_path, SECRET) == []
    assert "sk-test" not in settings_path.read_text(encoding="utf-8")

    loaded = load_settings(settings_path)
    assert loaded == result
    assert loaded.model.temperature == 0.7 and loaded.model.max_tokens == 8192
    assert loaded.model.context_size == 65536 and loaded.model.concurrency == 4 and loaded.model.system_in_user

    again = SettingsDialog(loaded, ApiKeyStore())
    qtbot.addWidget(again)
    assert again.key_edit.text() == SECRET
    assert again.key_edit.echoMode() == again.key_edit.EchoMode.Password
    assert again.model_combo.currentText() == "Qwen/Qwen2.5-72B-Instruct"
    assert again.current_settings() == loaded
    # Switching provider shows that provider's (absent) key, not the other one's.
    again.provider_combo.setCurrentIndex(again.provider_combo.findData("deepseek"))
    assert again.key_edit.text() == ""
    again.reject()


def test_clearing_the_key_deletes_it(qtbot, memory_keyring: MemoryKeyring) -> None:
    store = ApiKeyStore()
    m = ModelSettings(provider="openai", base_url="https://api.openai.com/v1", model="gpt-4o-mini")
    store.set(m.key_account(), SECRET)
    dialog = SettingsDialog(AppSettings(model=m), store)
    qtbot.addWidget(dialog)
    assert dialog.key_edit.text() == SECRET
    dialog.key_edit.clear()
    dialog.key_edit.textEdited.emit("")
    dialog.accept()
    assert memory_keyring.passwords == {}


def test_without_keyring_the_key_is_kept_for_the_session_only(qtbot, tmp_path: Path, no_keyring: None) -> None:
    store = ApiKeyStore()
    assert not store.persistent and store.warning_zh == NO_BACKEND_WARNING
    dialog = SettingsDialog(AppSettings(), store, settings_path=tmp_path / "settings.json")
    qtbot.addWidget(dialog)
    assert dialog.keyring_warning.isVisibleTo(dialog)
    assert "只在本次运行期间" in dialog.keyring_warning.text()
    dialog.model_combo.setEditText("deepseek-chat")
    qtbot.keyClicks(dialog.key_edit, SECRET)
    dialog.accept()
    assert store.get("https://api.deepseek.com/v1") == SECRET  # this session still has it
    assert ApiKeyStore().get("https://api.deepseek.com/v1") == ""  # a new run does not
    assert _files_contain(tmp_path, SECRET) == []


def test_key_in_a_hand_edited_file_is_dropped_and_broken_file_gives_defaults(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    data = json.loads(AppSettings().model_dump_json())
    data["model"]["api_key"] = SECRET
    data["model"]["model"] = "qwen-plus"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_settings(path)
    assert loaded.model.model == "qwen-plus"
    save_settings(loaded, path)
    assert SECRET not in path.read_text(encoding="utf-8")

    path.write_text("{not json", encoding="utf-8")
    assert load_settings(path) == AppSettings()
    assert (tmp_path / "settings.json.broken").read_text(encoding="utf-8") == "{not json"
    assert load_settings(tmp_path / "absent.json") == AppSettings()


def test_recent_files_are_bounded_and_unique() -> None:
    s = AppSettings()
    for i in range(15):
        s.add_recent(f"/p/{i}.bidproj")
    s.add_recent("/p/3.bidproj")
    assert s.recent_files[0] == str(Path("/p/3.bidproj"))
    assert len(s.recent_files) == 10 and len(set(s.recent_files)) == 10


# --------------------------------------------------------------------------- connection checks


def _cfg(server_url: str, key: str = SECRET, model: str = "test-model") -> object:
    return make_endpoint_config(ModelSettings(provider="custom", base_url=server_url, model=model), key)


async def test_check_connection_ok(llm_server: OpenAIServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    llm_server.push(Reply.text("好"))
    report = await check_connection(_cfg(llm_server.base_url))  # type: ignore[arg-type]
    assert report.ok, report.message_zh
    assert "连接正常" in report.message_zh and "test-model" in report.message_zh
    assert report.models == ["test-model"]
    assert len(llm_server.completion_requests) == 1
    assert llm_server.completion_requests[0].headers["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in caplog.text


async def test_check_connection_names_a_bad_key(llm_server: OpenAIServer) -> None:
    llm_server.require_key = "sk-the-right-one"
    report = await check_connection(_cfg(llm_server.base_url))  # type: ignore[arg-type]
    assert not report.ok and report.kind == "unauthorized"
    assert "401" in report.message_zh and "密钥" in report.message_zh


async def test_check_connection_names_an_unknown_model(llm_server: OpenAIServer) -> None:
    llm_server.models = ["qwen2.5-7b", "glm-4-9b"]
    report = await check_connection(_cfg(llm_server.base_url, model="gpt-5"))  # type: ignore[arg-type]
    assert not report.ok and report.kind == "unknown_model"
    assert "gpt-5" in report.message_zh and "qwen2.5-7b" in report.message_zh
    assert llm_server.completion_requests == []  # no call is wasted on a model that is not there


async def test_check_connection_names_an_unreachable_address() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    report = await check_connection(_cfg(url))  # type: ignore[arg-type]
    assert not report.ok and report.kind == "unreachable"
    assert url in report.message_zh and "无法连接" in report.message_zh


async def test_fetch_models_and_missing_model(llm_server: OpenAIServer) -> None:
    llm_server.models = ["b-model", "a-model"]
    report = await fetch_models(_cfg(llm_server.base_url, model=""))  # type: ignore[arg-type]
    assert report.ok and report.models == ["a-model", "b-model"]
    report = await check_connection(_cfg(llm_server.base_url, model=""))  # type: ignore[arg-type]
    assert not report.ok and report.kind == "no_model" and "请从列表中选择" in report.message_zh


def test_dialog_buttons_run_off_the_gui_thread(qtbot, llm_server: OpenAIServer, memory_keyring: MemoryKeyring) -> None:
    llm_server.models = ["local-7b", "local-14b"]
    settings = AppSettings(model=ModelSettings(provider="custom", base_url=llm_server.base_url, model=""))
    dialog = SettingsDialog(settings, ApiKeyStore())
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.key_edit, SECRET)

    with qtbot.waitSignal(dialog.checkFinished, timeout=10_000) as got:
        dialog.fetch_button.click()
        assert not dialog.fetch_button.isEnabled()  # busy while the worker runs
    assert got.args[0].ok
    assert [dialog.model_combo.itemText(i) for i in range(dialog.model_combo.count())] == ["local-14b", "local-7b"]

    dialog.model_combo.setCurrentIndex(1)
    llm_server.push(Reply.text("好"))
    with qtbot.waitSignal(dialog.checkFinished, timeout=10_000) as got:
        dialog.test_button.click()
    assert got.args[0].ok
    assert "连接正常" in dialog.status_label.text() and "local-7b" in dialog.status_label.text()
    assert dialog.test_button.isEnabled()

    llm_server.require_key = "sk-other"
    with qtbot.waitSignal(dialog.checkFinished, timeout=10_000) as got:
        dialog.test_button.click()
    assert got.args[0].kind == "unauthorized"
    assert "401" in dialog.status_label.text()
    dialog.reject()


@pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")
def test_the_keyring_note_is_shown_whole_and_custom_clears_a_preset_address(qtbot, tmp_path: Path,
                                                                            no_keyring: None) -> None:
    """Issue 30 minors: the keyring note neither clips nor overlaps; 自定义 does not keep DeepSeek's address."""
    from PySide6.QtCore import QPoint

    dialog = SettingsDialog(AppSettings(), ApiKeyStore(), settings_path=tmp_path / "settings.json")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    note = dialog.keyring_warning
    assert note.isVisible() and note.height() >= note.heightForWidth(note.width())
    top_left = note.mapTo(dialog, QPoint(0, 0))
    model_top = dialog.model_combo.mapTo(dialog, QPoint(0, 0)).y()
    assert top_left.y() + note.height() <= model_top  # nothing drawn over the next row
    assert dialog.base_url_edit.text() == "https://api.deepseek.com/v1"
    dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData("custom"))
    assert dialog.base_url_edit.text() == ""
    dialog.base_url_edit.setText("http://10.0.0.5:9000/v1")  # the user's own address stays on a later switch
    dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData("deepseek"))
    dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData("custom"))
    assert dialog.base_url_edit.text() == ""  # DeepSeek's address, set by the switch, is cleared again


@pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")
def test_an_http_500_is_not_called_unreachable(qtbot, tmp_path: Path, llm_server: OpenAIServer,
                                               memory_keyring: MemoryKeyring) -> None:
    """Issue 30 minor: 测试连接 against a server that answers 500 says the server erred, not 无法连接到."""
    llm_server.models = ["test-model"]
    llm_server.default = Reply.error(500, "upstream exploded")
    settings = AppSettings()
    settings.model = settings.model.model_copy(update={"provider": "custom", "base_url": llm_server.base_url,
                                                       "model": "test-model"})
    dialog = SettingsDialog(settings, ApiKeyStore(), settings_path=tmp_path / "settings.json")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.key_edit, SECRET)
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.test_button.isEnabled() and dialog.status_label.text().startswith("✘"),
                    timeout=30000)
    text = dialog.status_label.text()
    assert "无法连接到" not in text and "HTTP 500" in text


def test_a_cut_model_list_says_so_and_how_many_there_were(qtbot, llm_server: OpenAIServer,
                                                          memory_keyring: MemoryKeyring) -> None:
    """Issue 37 §3.4: a server listing far more ids than the list keeps (200,000 in the attack; 12,000 here
    keep the test fast) — 获取模型列表 says the list was cut, and by how much; a configured model past the
    cut is still recognised."""
    llm_server.models = [f"model-{i:06d}" for i in range(12_000)]
    settings = AppSettings(model=ModelSettings(provider="custom", base_url=llm_server.base_url, model="model-011000"))
    dialog = SettingsDialog(settings, ApiKeyStore())
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.key_edit, SECRET)
    with qtbot.waitSignal(dialog.checkFinished, timeout=60_000) as got:
        qtbot.mouseClick(dialog.fetch_button, Qt.MouseButton.LeftButton)
    report = got.args[0]
    text = dialog.status_label.text()
    assert "12,000" in text and "2,000" in text and "10,000" in text and "未列出" in text, text
    assert report.models_total == 12_000 and len(report.models) == 2001  # the first 2,000 and the chosen one
    assert dialog.model_combo.count() <= 2001 and dialog.model_combo.findText("model-011000") >= 0


@pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")
def test_the_connection_report_never_squeezes_the_fields_and_one_served_model_fills_the_field(
        qtbot, llm_server: OpenAIServer, memory_keyring: MemoryKeyring) -> None:
    """Issue 37 minor: after 测试连接 the 温度/上下文长度 boxes were squashed; 获取到 1 个模型 left the field empty."""
    llm_server.models = ["only-model"]
    settings = AppSettings(model=ModelSettings(provider="custom", base_url=llm_server.base_url, model=""))
    dialog = SettingsDialog(settings, ApiKeyStore())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.keyClicks(dialog.key_edit, SECRET)
    with qtbot.waitSignal(dialog.checkFinished, timeout=10_000):
        qtbot.mouseClick(dialog.fetch_button, Qt.MouseButton.LeftButton)
    assert "获取到 1 个模型" in dialog.status_label.text()
    assert dialog.model_combo.currentText() == "only-model"  # the one model the server serves
    layout = dialog.layout()
    dialog.resize(dialog.width(), layout.totalHeightForWidth(dialog.width()))  # shown at its natural height
    llm_server.push(Reply.text("好"))
    with qtbot.waitSignal(dialog.checkFinished, timeout=10_000):
        qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    assert "连接正常" in dialog.status_label.text()
    qtbot.wait(50)  # the layout settles
    fields = (dialog.temperature_spin, dialog.max_tokens_spin, dialog.context_spin, dialog.concurrency_spin,
              dialog.timeout_spin, dialog.model_combo, dialog.base_url_edit)
    assert all(w.height() >= w.sizeHint().height() for w in fields), [(w.height(), w.sizeHint().height()) for w in fields]
    label = dialog.status_label
    assert label.height() >= label.heightForWidth(label.width())  # the whole report shows
    assert label.width() >= 0.9 * dialog.base_url_edit.mapTo(dialog, dialog.base_url_edit.rect().topRight()).x() - 20
    # (a row of its own, as wide as the form: a long report takes few lines)
    screen = dialog.screen().availableGeometry()
    assert dialog.frameGeometry().height() <= screen.height()

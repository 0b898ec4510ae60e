"""A password in the model address (issue 30, item 10): never in the settings file, the call
journal or printed output; kept in the keyring like an API key and put back for the calls."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from app.core import settings_model
from app.core.secrets import scrub, split_url_password
from app.core.settings_model import AppSettings, load_settings, save_settings
from app.llm.client.journal import CallJournal
from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.llm.client.response_format import FormatRegistry
from tests.openai_server import OpenAIServer, Reply
from tests.test_settings import MemoryKeyring

PASSWORD = "hunter2-Pa55"


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    settings_model._URL_PASSWORDS.clear()  # the process-wide store binds to the active backend
    yield backend
    settings_model._URL_PASSWORDS.clear()
    keyring.set_keyring(previous)


def test_the_settings_file_never_holds_the_password(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    settings = AppSettings()
    settings.model.base_url = f"http://alice:{PASSWORD}@models.example:8080/v1"
    path = save_settings(settings, tmp_path / "settings.json")
    assert PASSWORD not in path.read_text(encoding="utf-8")
    assert PASSWORD in memory_keyring.passwords.values()
    loaded = load_settings(path)
    assert loaded.model.base_url == "http://alice@models.example:8080/v1"  # shown without the password
    assert loaded.model.endpoint_kwargs("k")["base_url"] == f"http://alice:{PASSWORD}@models.example:8080/v1"


@pytest.mark.parametrize("url", [
    f"http://u:{PASSWORD}@[::1/v1",              # an IPv6 host never closed: urlsplit refuses it
    f"http://u:{PASSWORD}@[::1]:80x/v1",         # a port that is not a number
    f"http://u:{PASSWORD}@host:8080/v1?a=[",     # a stray bracket in the query
    f"u:{PASSWORD}@models.example/v1",           # no scheme
    f"https:\\\\u:{PASSWORD}@models.example\\v1",  # backslashes, as a browser reads them
    f"http://u:{PASSWORD}@@models.example/v1",   # the password ends in '@'
    f"  http://u:{PASSWORD}@models.example/v1  ",  # pasted with spaces
], ids=["open-ipv6", "bad-port", "bracket-query", "no-scheme", "backslashes", "double-at", "spaces"])
def test_a_malformed_address_never_puts_its_password_in_the_settings_file(
        tmp_path: Path, memory_keyring: MemoryKeyring, url: str) -> None:
    """Issue 37 §3.2: the credentials are stripped whatever the address's shape."""
    settings = AppSettings()
    settings.model.base_url = url
    settings.model.profiles = {"x": {"base_url": url, "tokens_per_s": 1.0}}
    path = save_settings(settings, tmp_path / "settings.json")
    text = path.read_text(encoding="utf-8")
    assert PASSWORD not in text and PASSWORD.replace("-", "\\u002d") not in text
    assert any(PASSWORD in v for v in memory_keyring.passwords.values())
    loaded = load_settings(path)
    assert PASSWORD not in loaded.model.base_url
    assert loaded.model.endpoint_kwargs("k")["base_url"] == url.strip()  # calls still get it


async def test_the_call_journal_never_holds_the_password(llm_server: OpenAIServer, tmp_path: Path) -> None:
    llm_server.push(Reply.text("好的"))
    url = llm_server.base_url.replace("http://", f"http://alice:{PASSWORD}@")
    journal = CallJournal(tmp_path)
    config = EndpointConfig(base_url=url, api_key="k", model="test-model", timeout=10.0)
    async with LLMClient(config, journal, FormatRegistry()) as client:
        await client.complete([{"role": "user", "content": "你好"}])
    text = journal.path.read_text(encoding="utf-8")
    assert PASSWORD not in text and "alice:***@" in text
    assert json.loads(text.splitlines()[0])["base_url"].startswith("http://alice:***@")
    assert llm_server.completion_requests  # the call went out with the credentials


def test_printed_addresses_are_masked() -> None:
    assert scrub(f"接口 http://alice:{PASSWORD}@host/v1 可用") == "接口 http://alice:***@host/v1 可用"
    assert split_url_password("http://host/v1") == ("http://host/v1", "")
    token = base64.b64encode(b"x").decode()
    assert scrub(f"https://{token}@host/") == f"https://{token}@host/"  # a user name alone is no secret


def test_keys_and_profiles_are_named_by_the_address_without_the_password() -> None:
    settings = AppSettings()
    settings.model.base_url = f"http://alice:{PASSWORD}@models.example/v1/"
    assert PASSWORD not in settings.model.key_account() and PASSWORD not in settings.model.profile_key()
    assert settings.model.key_account() == "http://alice@models.example/v1"


@pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")
def test_the_settings_dialog_takes_a_typed_password_out_of_the_address_field(
        qtbot, tmp_path: Path, llm_server: OpenAIServer, memory_keyring: MemoryKeyring) -> None:
    """Typed into the real field: once it loses focus the password is no longer shown, calls still use it,
    and OK puts it in the keyring, neither in settings.json nor in the settings the app keeps."""
    from PySide6.QtCore import Qt

    from app.core.api_keys import ApiKeyStore
    from app.ui.shell.settings_dialog import SettingsDialog

    llm_server.default = Reply.text("好")
    settings_path = tmp_path / "settings.json"
    dialog = SettingsDialog(AppSettings(), ApiKeyStore(), settings_path=settings_path)
    qtbot.addWidget(dialog)
    dialog.provider_combo.setCurrentIndex(dialog.provider_combo.findData("custom"))
    dialog.model_combo.setEditText("test-model")
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    qtbot.waitActive(dialog)
    field = dialog.base_url_edit
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    field.selectAll()
    typed = llm_server.base_url.replace("http://", f"http://alice:{PASSWORD}@")
    qtbot.keyClicks(field, typed)
    assert field.text() == typed
    qtbot.keyClick(field, Qt.Key.Key_Tab)  # focus moves on: the field is done with
    shown = llm_server.base_url.replace("http://", "http://alice@")
    assert field.text() == shown and PASSWORD not in field.text()
    assert dialog.url_password_note.isVisible()
    qtbot.keyClicks(dialog.key_edit, "sk-local")

    with qtbot.waitSignal(dialog.checkFinished, timeout=10_000):
        qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    basic = "Basic " + base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
    assert any(r.headers.get("authorization") == basic for r in llm_server.requests)  # still used

    with qtbot.waitSignal(dialog.settingsSaved) as saved:
        qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Ok), Qt.MouseButton.LeftButton)
    kept: AppSettings = saved.args[0]
    assert kept.model.base_url == shown  # what the app keeps in memory and shows next time
    assert PASSWORD not in settings_path.read_text(encoding="utf-8")
    assert PASSWORD in memory_keyring.passwords.values()
    assert kept.model.endpoint_kwargs("k")["base_url"] == typed  # the calls get it back from the keyring
    again = SettingsDialog(kept, ApiKeyStore())
    qtbot.addWidget(again)
    assert again.base_url_edit.text() == shown
    again.reject()

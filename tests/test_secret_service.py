"""The API key in the Linux Secret Service through app.core.secret_service (jeepney, no cryptography),
against a real GNOME Keyring daemon on a private D-Bus session bus (tests/secret_service_daemon.py)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

import keyring
import keyring.backend
import keyring.core
import keyring.errors
import pytest
from jeepney import DBusAddress, Properties, new_method_call
from jeepney.io.blocking import open_dbus_connection

from app.core.api_keys import NO_BACKEND_WARNING, SERVICE, ApiKeyStore
from app.core.secret_service import APPLICATION, SecretServiceKeyring, service_available
from tests.secret_service_daemon import NoDaemon, session_bus

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Secret Service is Linux's")

ACCOUNT = "https://api.deepseek.com/v1"
KEY = "sk-测试-0123456789abcdef"


def _forget_backends() -> None:
    with contextlib.suppress(KeyError):  # nothing found yet
        keyring.backend.get_all_keyring.reset()


def _bus(monkeypatch: pytest.MonkeyPatch, keyring_daemon: bool) -> Iterator[str]:
    try:
        with session_bus(keyring_daemon=keyring_daemon) as address:
            monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
            previous = keyring.get_keyring()
            # what a new run of the app does: keyring picks among its own backends and this app's (it finds the
            # viable ones once per process, so that is forgotten first: another test had another bus)
            _forget_backends()
            keyring.core.init_backend(limit=lambda b: type(b).__module__.startswith(("keyring.", "app.")))
            try:
                yield address
            finally:
                _forget_backends()
                keyring.set_keyring(previous)
    except NoDaemon as exc:
        if os.environ.get("BIDSTUDIO_REQUIRE_SECRET_SERVICE") == "1":  # .ci/run installs gnome-keyring
            pytest.fail(f"BIDSTUDIO_REQUIRE_SECRET_SERVICE=1 but {exc}")
        pytest.skip(str(exc))


@pytest.fixture
def secret_service(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A session bus with GNOME Keyring on it, the login keyring unlocked; the bus address."""
    yield from _bus(monkeypatch, keyring_daemon=True)


@pytest.fixture
def bus_without_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A session bus with no Secret Service on it (nor one to start on demand)."""
    yield from _bus(monkeypatch, keyring_daemon=False)


def _items_on_the_bus(address: str) -> list[dict[str, str]]:
    """The attributes of every item in GNOME Keyring's collections, read with plain D-Bus calls."""
    found = []
    with open_dbus_connection(address) as conn:
        service = DBusAddress("/org/freedesktop/secrets", "org.freedesktop.secrets", "org.freedesktop.Secret.Service")
        collections = conn.send_and_get_reply(Properties(service).get("Collections")).body[0][1]
        for path in collections:
            collection = DBusAddress(path, "org.freedesktop.secrets", "org.freedesktop.Secret.Collection")
            for item in conn.send_and_get_reply(Properties(collection).get("Items")).body[0][1]:
                addr = DBusAddress(item, "org.freedesktop.secrets", "org.freedesktop.Secret.Item")
                found.append(dict(conn.send_and_get_reply(Properties(addr).get("Attributes")).body[0][1]))
    return found


def test_the_key_is_stored_read_and_deleted_in_the_secret_service(secret_service: str) -> None:
    assert SecretServiceKeyring.viable
    store = ApiKeyStore()
    assert store.persistent and store.warning_zh is None
    assert store.get(ACCOUNT) == ""
    assert store.set(ACCOUNT, KEY) is True
    # in the daemon, under the attributes keyring's own backend uses, and nowhere in the store's memory
    ours = {"service": SERVICE, "username": ACCOUNT, "application": APPLICATION}
    assert [a for a in _items_on_the_bus(secret_service) if a.items() >= ours.items()]
    assert not store._session
    assert ApiKeyStore().get(ACCOUNT) == KEY  # the next run of the program finds it
    assert store.set(ACCOUNT, "sk-second") is True  # replaced, not added
    assert len([a for a in _items_on_the_bus(secret_service) if a.get("username") == ACCOUNT]) == 1
    assert ApiKeyStore().get(ACCOUNT) == "sk-second"
    assert store.set(ACCOUNT, "") is True  # clearing the field deletes the key
    assert ApiKeyStore().get(ACCOUNT) == ""
    assert not [a for a in _items_on_the_bus(secret_service) if a.get("username") == ACCOUNT]
    store.delete(ACCOUNT)  # deleting what is not there is no error


def test_the_backend_itself(secret_service: str) -> None:
    backend = SecretServiceKeyring()
    assert backend.get_password(SERVICE, ACCOUNT) is None
    backend.set_password(SERVICE, ACCOUNT, KEY)
    backend.set_password(SERVICE, "https://other.example/v1", "sk-other")
    assert backend.get_password(SERVICE, ACCOUNT) == KEY
    assert backend.get_password("another program", ACCOUNT) is None
    backend.delete_password(SERVICE, ACCOUNT)
    assert backend.get_password(SERVICE, ACCOUNT) is None
    assert backend.get_password(SERVICE, "https://other.example/v1") == "sk-other"
    with pytest.raises(keyring.errors.PasswordDeleteError):
        backend.delete_password(SERVICE, ACCOUNT)


def test_keys_stored_by_keyrings_own_backend_are_found(secret_service: str) -> None:
    """A key saved by an earlier version (keyring's secretstorage backend) is read, and the other way round."""
    ss = pytest.importorskip("keyring.backends.SecretService")
    pytest.importorskip("secretstorage")
    theirs = ss.Keyring()
    theirs.set_password(SERVICE, ACCOUNT, KEY)
    assert ApiKeyStore().get(ACCOUNT) == KEY
    ApiKeyStore().set("https://api.siliconflow.cn/v1", "sk-ours")
    assert theirs.get_password(SERVICE, "https://api.siliconflow.cn/v1") == "sk-ours"


def test_a_locked_keyring_the_user_does_not_unlock_keeps_the_key_for_the_session(secret_service: str) -> None:
    """With no prompter (no display) the daemon cannot ask for the password: the key stays in memory, the
    dialog's Chinese note says so, and nothing is written."""
    with open_dbus_connection(secret_service) as conn:
        service = DBusAddress("/org/freedesktop/secrets", "org.freedesktop.secrets", "org.freedesktop.Secret.Service")
        collections = conn.send_and_get_reply(Properties(service).get("Collections")).body[0][1]
        conn.send_and_get_reply(new_method_call(service, "Lock", "ao", (collections,)))
    store = ApiKeyStore()
    assert store.set(ACCOUNT, KEY) is False
    assert store.persistent is False and store.warning_zh == NO_BACKEND_WARNING
    assert store.get(ACCOUNT) == KEY  # for this run
    assert not [a for a in _items_on_the_bus(secret_service) if a.get("username") == ACCOUNT]


def test_without_a_secret_service_the_key_is_kept_for_the_session(bus_without_keyring: str) -> None:
    assert not service_available()
    assert not SecretServiceKeyring.viable
    store = ApiKeyStore()
    assert store.persistent is False
    assert store.warning_zh == NO_BACKEND_WARNING and "只在本次运行期间" in store.warning_zh
    assert store.set(ACCOUNT, KEY) is False
    assert store.get(ACCOUNT) == KEY
    assert ApiKeyStore().get(ACCOUNT) == ""  # a new run does not have it


def test_without_a_session_bus_the_backend_is_not_offered(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path / 'no-bus'}")
    assert not service_available()
    with pytest.raises(RuntimeError):
        SecretServiceKeyring.priority  # noqa: B018
    with pytest.raises(keyring.errors.KeyringError):
        SecretServiceKeyring().get_password(SERVICE, ACCOUNT)


def test_a_secret_service_that_goes_away_keeps_the_key_for_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon and its bus stop while the program runs (a logout, a crash): no exception reaches the
    dialog; the key stays in memory and the Chinese note says so."""
    bus = _bus(monkeypatch, keyring_daemon=True)
    next(bus)
    try:
        store = ApiKeyStore()
        assert store.persistent and store.set(ACCOUNT, KEY) is True
    finally:
        for _ in bus:  # stops GNOME Keyring and the bus, restores the keyring
            pass
    previous = keyring.get_keyring()
    keyring.set_keyring(SecretServiceKeyring())  # what the running program still has
    try:
        assert store.get(ACCOUNT) == ""
        assert store.persistent is False and store.warning_zh == NO_BACKEND_WARNING
        assert store.set(ACCOUNT, "sk-later") is False
        assert store.get(ACCOUNT) == "sk-later"
        store.delete(ACCOUNT)
        assert store.get(ACCOUNT) == ""
    finally:
        keyring.set_keyring(previous)

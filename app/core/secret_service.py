"""A keyring backend for the freedesktop Secret Service (Linux) on ``jeepney`` alone.

keyring's own Secret Service backend goes through ``secretstorage``, which imports ``cryptography``
(16.6 MiB in the packaged app) only to encrypt the secret on its way over the session bus
(Diffie-Hellman + AES). This backend speaks the same D-Bus API with jeepney (pure Python, MIT,
already a dependency of keyring on Linux) and opens a ``plain`` session, which the specification
allows and GNOME Keyring, KWallet and KeePassXC all offer. The session bus is private to the user's
login; any process that could listen on it runs as the same user and could ask the Secret Service
for the key anyway, so the transport encryption protects nothing a user's own process could not read.

Items carry the attributes keyring's backend uses (``service``, ``username``, ``application``), so a
key stored by either backend is found by the other. When there is no session bus or no Secret Service
on it, :attr:`SecretServiceKeyring.priority` raises and keyring does not pick this backend
(:mod:`app.core.api_keys` then keeps the key in memory and says so in Chinese).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import keyring.backend
import keyring.errors
from keyring.compat import properties

try:
    from jeepney import DBusAddress, DBusErrorResponse, MatchRule, MessageType, Properties, new_method_call
    from jeepney.bus_messages import message_bus
    from jeepney.io.blocking import DBusConnection, open_dbus_connection
except ImportError:  # pragma: no cover - jeepney comes with keyring on Linux; elsewhere this backend is unused
    DBusConnection = Any

BUS_NAME = "org.freedesktop.secrets"
SS_PATH = "/org/freedesktop/secrets"
SS_PREFIX = "org.freedesktop.Secret."
#: keyring's Secret Service backend marks its items with this; kept so that either backend finds the other's keys.
APPLICATION = "Python keyring library"
#: How long one D-Bus call may take (seconds); an unlock prompt waits for the user instead (:data:`PROMPT_TIMEOUT`).
CALL_TIMEOUT = 10.0
PROMPT_TIMEOUT = 300.0


class SecretServiceError(keyring.errors.KeyringError):
    """The Secret Service refused a call or could not be reached."""


def _address(path: str, interface: str) -> DBusAddress:
    return DBusAddress(path, BUS_NAME, SS_PREFIX + interface)


def _call(conn: DBusConnection, path: str, interface: str, method: str, signature: str | None = None,
          *body: Any) -> tuple[Any, ...]:
    msg = new_method_call(_address(path, interface), method, signature, body)
    try:
        reply = conn.send_and_get_reply(msg, timeout=CALL_TIMEOUT)
    except TimeoutError as exc:
        raise SecretServiceError(f"Secret Service did not answer {method}") from exc
    if reply.header.message_type == MessageType.error:
        raise SecretServiceError(f"Secret Service refused {method}: {DBusErrorResponse(reply)}")
    return tuple(reply.body)


def _prompt(conn: DBusConnection, prompt_path: str) -> tuple[bool, Any]:
    """Show the daemon's prompt (unlock, create a collection) and wait for it; (dismissed, result value)."""
    rule = MatchRule(path=prompt_path, interface=SS_PREFIX + "Prompt", member="Completed", type=MessageType.signal)
    with conn.filter(rule) as signals:
        _call(conn, prompt_path, "Prompt", "Prompt", "s", "")
        try:
            message = conn.recv_until_filtered(signals, timeout=PROMPT_TIMEOUT)
        except TimeoutError as exc:
            raise keyring.errors.KeyringLocked("the keyring's prompt was not answered") from exc
    dismissed, (_signature, result) = message.body
    return bool(dismissed), result


def service_available() -> bool:
    """Whether a session bus is reachable and has (or can start) a Secret Service."""
    if not sys.platform.startswith("linux") or "jeepney" not in sys.modules:
        return False
    try:
        with open_dbus_connection(bus="SESSION") as conn:
            owned = conn.send_and_get_reply(message_bus.NameHasOwner(BUS_NAME), timeout=CALL_TIMEOUT).body[0]
            if owned:
                return True
            activatable = conn.send_and_get_reply(message_bus.ListActivatableNames(), timeout=CALL_TIMEOUT).body[0]
            return BUS_NAME in activatable
    except Exception:
        return False


class SecretServiceKeyring(keyring.backend.KeyringBackend):
    """Store passwords in the Secret Service's default collection over a plain jeepney session."""

    @properties.classproperty
    def priority(cls) -> float:
        if not service_available():
            raise RuntimeError("no Secret Service on the D-Bus session bus")
        return 5.5  # above keyring's secretstorage backend (5), which needs cryptography

    @contextmanager
    def _connect(self) -> Iterator[tuple[DBusConnection, str]]:
        """A connection and an open plain session; the session is closed afterwards."""
        try:
            conn = open_dbus_connection(bus="SESSION")
        except Exception as exc:
            raise SecretServiceError(f"no D-Bus session bus: {exc}") from exc
        with conn:
            try:
                _output, session = _call(conn, SS_PATH, "Service", "OpenSession", "sv", "plain", ("s", ""))
            except OSError as exc:  # the daemon or the bus went away mid-call
                raise SecretServiceError(f"the Secret Service connection failed: {exc}") from exc
            try:
                yield conn, session
            except OSError as exc:  # TimeoutError included: the key stays in memory (ApiKeyStore catches this)
                raise SecretServiceError(f"the Secret Service connection failed: {exc}") from exc
            finally:
                try:
                    _call(conn, session, "Session", "Close")
                except (keyring.errors.KeyringError, OSError):
                    pass

    def _unlock(self, conn: DBusConnection, paths: list[str]) -> None:
        if not paths:
            return
        unlocked, prompt = _call(conn, SS_PATH, "Service", "Unlock", "ao", paths)
        if len(prompt) > 1:
            dismissed, unlocked = _prompt(conn, prompt)
            if dismissed:
                raise keyring.errors.KeyringLocked("unlocking the keyring was dismissed")
        if set(paths) - set(unlocked):
            raise keyring.errors.KeyringLocked("the keyring stays locked")

    def _default_collection(self, conn: DBusConnection) -> str:
        """The default collection's path, unlocked; created (the daemon asks the user) when there is none."""
        path, = _call(conn, SS_PATH, "Service", "ReadAlias", "s", "default")
        if len(path) <= 1:
            label = {SS_PREFIX + "Collection.Label": ("s", "Default")}
            path, prompt = _call(conn, SS_PATH, "Service", "CreateCollection", "a{sv}s", label, "default")
            if len(path) <= 1:
                dismissed, path = _prompt(conn, prompt)
                if dismissed or len(path) <= 1:
                    raise keyring.errors.InitError("creating the default keyring was dismissed")
        reply = conn.send_and_get_reply(Properties(_address(path, "Collection")).get("Locked"), timeout=CALL_TIMEOUT)
        if reply.header.message_type == MessageType.error or reply.body[0][1]:
            self._unlock(conn, [path])
        return str(path)

    def _items(self, conn: DBusConnection, service: str, username: str) -> list[str]:
        """Paths of the items for (service, username) in any collection, unlocked."""
        unlocked, locked = _call(conn, SS_PATH, "Service", "SearchItems", "a{ss}",
                                 {"service": service, "username": username})
        self._unlock(conn, list(locked))
        return [*unlocked, *locked]

    def get_password(self, service: str, username: str) -> str | None:
        with self._connect() as (conn, session):
            for item in self._items(conn, service, username):
                (_session, _params, value, _content_type), = _call(conn, item, "Item", "GetSecret", "o", session)
                return bytes(value).decode("utf-8")
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        with self._connect() as (conn, session):
            collection = self._default_collection(conn)
            properties = {
                SS_PREFIX + "Item.Label": ("s", f"Password for '{username}' on '{service}'"),
                SS_PREFIX + "Item.Attributes": ("a{ss}", {"service": service, "username": username,
                                                         "application": APPLICATION}),
            }
            secret = (session, b"", password.encode("utf-8"), "text/plain; charset=utf8")
            item, prompt = _call(conn, collection, "Collection", "CreateItem", "a{sv}(oayays)b",
                                 properties, secret, True)
            if len(item) <= 1 and len(prompt) > 1:
                dismissed, _item = _prompt(conn, prompt)
                if dismissed:
                    raise keyring.errors.PasswordSetError("storing the key was dismissed")

    def delete_password(self, service: str, username: str) -> None:
        with self._connect() as (conn, _session):
            items = self._items(conn, service, username)
            if not items:
                raise keyring.errors.PasswordDeleteError("no such password")
            for item in items:
                prompt, = _call(conn, item, "Item", "Delete")
                if len(prompt) > 1:
                    dismissed, _result = _prompt(conn, prompt)
                    if dismissed:
                        raise keyring.errors.PasswordDeleteError("deleting the key was dismissed")

"""API keys in the OS keyring only — never in settings, project files or logs.

:class:`ApiKeyStore` wraps ``keyring`` (on Linux the Secret Service through
:mod:`app.core.secret_service`; Windows' Credential Manager, macOS' Keychain). When the machine
has no usable keyring backend (a bare Linux box, a locked keychain) it keeps keys in memory for
this session only and says so through :attr:`ApiKeyStore.warning_zh`, so the UI can warn the user.
"""

from __future__ import annotations

import logging

import keyring
import keyring.backend
import keyring.errors

# Registers the Secret Service backend on jeepney with keyring (Linux): keyring's own goes through
# secretstorage and cryptography, which the packaged app leaves out (see app/core/secret_service.py).
from app.core import secret_service  # noqa: F401

log = logging.getLogger(__name__)

SERVICE = "BidStudio"
NO_BACKEND_WARNING = (
    "本机没有可用的系统密钥库（keyring），API 密钥只在本次运行期间保存在内存中，"
    "关闭程序后需要重新填写。"
)


def keyring_available(backend: keyring.backend.KeyringBackend | None = None) -> bool:
    """Whether ``backend`` (default: the active one) can actually store secrets."""
    kr = backend if backend is not None else keyring.get_keyring()
    try:
        from keyring.backends import chainer, fail
    except ImportError:  # pragma: no cover - keyring always ships these
        return True
    if isinstance(kr, fail.Keyring):
        return False
    if isinstance(kr, chainer.ChainerBackend):
        return bool(kr.backends)
    return True


class ApiKeyStore:
    """Get, set and delete API keys by account (the endpoint address).

    Keys go to the OS keyring; without one (or when it fails) they stay in memory for the
    session and :attr:`persistent` becomes False with :attr:`warning_zh` set.
    """

    def __init__(self, service: str = SERVICE) -> None:
        self.service = service
        self._session: dict[str, str] = {}
        self.persistent = keyring_available()
        self.warning_zh: str | None = None if self.persistent else NO_BACKEND_WARNING

    def _fall_back(self, exc: Exception) -> None:
        log.warning("keyring failed (%s); keeping API keys for this session only", type(exc).__name__)
        self.persistent = False
        self.warning_zh = NO_BACKEND_WARNING

    def get(self, account: str) -> str:
        """The stored key for ``account``, or ``""``."""
        if account in self._session:
            return self._session[account]
        if not self.persistent:
            return ""
        try:
            return keyring.get_password(self.service, account) or ""
        except keyring.errors.KeyringError as exc:
            self._fall_back(exc)
            return ""

    def set(self, account: str, key: str) -> bool:
        """Store ``key`` (empty deletes it); returns True when it was saved persistently."""
        if not key:
            self.delete(account)
            return self.persistent
        if self.persistent:
            try:
                keyring.set_password(self.service, account, key)
                self._session.pop(account, None)
                return True
            except keyring.errors.KeyringError as exc:
                self._fall_back(exc)
        self._session[account] = key
        return False

    def delete(self, account: str) -> None:
        """Forget the key for ``account`` everywhere."""
        self._session.pop(account, None)
        if not self.persistent:
            return
        try:
            keyring.delete_password(self.service, account)
        except keyring.errors.PasswordDeleteError:
            pass
        except keyring.errors.KeyringError as exc:
            self._fall_back(exc)

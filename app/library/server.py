"""The office library's server: where it is (:class:`ServerConfig`) and what 测试连接 tells the user.

The password is never part of the settings file: it lives in the OS keyring (like the model's
API key) under :func:`password_account`, and reaches :class:`ServerConfig` only in memory.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServerConfig:
    """A PostgreSQL server and database to hold the office library (``password`` in memory only)."""

    host: str
    port: int = 5432
    database: str = "bidstudio"
    user: str = ""
    password: str = ""
    connect_timeout: int = 5

    def describe(self) -> str:
        """``user@host:port/database`` (never the password)."""
        who = f"{self.user}@" if self.user else ""
        return f"{who}{self.host}:{self.port}/{self.database}"

    def __repr__(self) -> str:
        return f"ServerConfig({self.describe()!r})"


def password_account(config: ServerConfig) -> str:
    """The keyring account of the server's password (``library:user@host:port/database``)."""
    return "library:" + config.describe()


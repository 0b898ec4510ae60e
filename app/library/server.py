"""The office library's server: where it is (:class:`ServerConfig`) and what 测试连接 tells the user.

The password is never part of the settings file: it lives in the OS keyring (like the model's
API key) under :func:`password_account`, and reaches :class:`ServerConfig` only in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.library.engines.pg_errors import describe_connect_error
from app.library.store import LibrarySpec, ServerConfig

if TYPE_CHECKING:
    from app.core.api_keys import ApiKeyStore
    from app.core.settings_model import LibrarySettings

__all__ = ["ServerCheck", "ServerConfig", "check_server", "describe_connect_error", "password_account", "passwords",
           "spec_from_settings"]


def password_account(config: ServerConfig) -> str:
    """The keyring account of the server's password (``library:user@host:port/database``)."""
    return "library:" + config.describe()


@dataclass(frozen=True)
class ServerCheck:
    """What 测试连接 found: whether the library can be used, and a Chinese sentence saying so (or what is wrong)."""

    ok: bool
    kind: str  # "ok", "password", "database", "denied", "unreachable", "too_old", "newer_schema", "driver", "other"
    message_zh: str
    writable: bool = False


def check_server(config: ServerConfig) -> ServerCheck:
    """Connect once (without changing anything) and say in Chinese what works and what does not.

    Checks, in order: the driver is installed, the server answers, the login and the database,
    the server's version, the library's schema (empty, older, current, newer) and whether this
    user may write. Blocking (up to ``config.connect_timeout``): the UI runs it in a worker.
    """
    if not config.host.strip():
        return ServerCheck(False, "other", "请填写服务器地址")
    try:
        import psycopg
    except ImportError:
        return ServerCheck(False, "driver", "本程序未安装连接 PostgreSQL 所需的组件 psycopg（pip install \"bidstudio[office]\"）")
    from app.library.engines.pg_schema import LATEST, schema_version, server_too_old
    from app.library.engines.postgres import connect

    try:
        con = connect(config, "BidStudio check")
    except psycopg.Error as exc:
        kind, message = describe_connect_error(exc, config)
        return ServerCheck(False, kind, message)
    try:
        version = con.info.server_version
        too_old = server_too_old(version)
        if too_old:
            return ServerCheck(False, "too_old", too_old)
        found = schema_version(con)
        writable = _may_write(con, found)
        shown = f"PostgreSQL {version // 10000}.{version % 10000}"
        if found > LATEST:
            return ServerCheck(False, "newer_schema", f"已连接 {shown}，但资料库已由更新版本的标书工坊升级（结构版本 {found}），"
                                                      "请先升级本程序")
        if found == 0:
            state = "数据库为空：首次使用时将自动建立资料库的表" if writable else \
                "数据库为空，但此用户没有建表权限：请管理员用数据库所有者账户先打开一次"
            return ServerCheck(writable, "ok" if writable else "denied", f"已连接 {shown}。{state}", writable)
        row = con.execute("SELECT (SELECT count(*) FROM bids), (SELECT count(*) FROM facts)").fetchone()
        bids, facts = (int(row[0]), int(row[1])) if row else (0, 0)
        if found < LATEST and not writable:
            return ServerCheck(False, "denied", f"已连接 {shown}，资料库需要升级结构（{found} → {LATEST}），但此用户没有权限："
                                                "请管理员用数据库所有者账户打开一次标书工坊")
        upgrade = f"；首次使用时将升级结构（{found} → {LATEST}）" if found < LATEST else ""
        access = "可读写" if writable else "只读（可以查看和搜索，不能导入或修改）"
        return ServerCheck(True, "ok", f"已连接 {shown}：资料库中有 {bids} 份历史标书、{facts} 条企业资料，{access}{upgrade}",
                           writable)
    except psycopg.Error as exc:
        kind, message = describe_connect_error(exc, config)
        return ServerCheck(False, kind, message)
    finally:
        con.close()


def _may_write(con: object, schema: int) -> bool:
    """Whether the logged-in role may store bids (or, in an empty database, create the tables)."""
    sql = ("SELECT has_table_privilege('bids', 'INSERT') AND has_table_privilege('facts', 'UPDATE')" if schema
           else "SELECT has_database_privilege(current_database(), 'CREATE')"
           " AND has_schema_privilege('public', 'CREATE')")
    row = con.execute(sql).fetchone()  # type: ignore[attr-defined]
    return bool(row and row[0])


_PASSWORDS: list[ApiKeyStore] = []


def passwords() -> ApiKeyStore:
    """The store of office-library passwords: the OS keyring, one per process (so a session-only fallback,
    where the machine has no keyring, keeps the password for the whole run)."""
    if not _PASSWORDS:
        from app.core.api_keys import ApiKeyStore

        _PASSWORDS.append(ApiKeyStore())
    return _PASSWORDS[0]


def spec_from_settings(settings: LibrarySettings, password: str | None = None) -> LibrarySpec:
    """The library the settings name (the server's password from the keyring unless given)."""
    if settings.engine != "postgres":
        return LibrarySpec("sqlite")
    config = ServerConfig(settings.host.strip(), settings.port, settings.database.strip(), settings.user.strip())
    if password is None:
        password = passwords().get(password_account(config))
    return LibrarySpec("postgres", server=ServerConfig(config.host, config.port, config.database, config.user, password))

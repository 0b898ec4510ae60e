"""What went wrong talking to a PostgreSQL server, in Chinese: the 测试连接 answer and the engine's errors.

libpq reports connection failures as text (no SQLSTATE before the login), in English or in
the server's language; the fragments below cover both for the causes an office meets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.library.store import ServerConfig


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    for marker in ("FATAL:", "致命错误:", "错误:"):
        if marker in text:
            text = text.split(marker, 1)[1]
    return text.splitlines()[0].strip() if text else type(exc).__name__


#: Fragments of libpq's and the server's messages (English, and the Chinese of a zh_CN server), by what they mean.
_CAUSES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("password", ("password authentication failed", "认证失败", "no password supplied", "password is required")),
    ("database", ("database \"", "数据库 \"")),
    ("denied", ("no pg_hba.conf entry", "pg_hba.conf", "permission denied for database", "not permitted to log in")),
    ("busy", ("too many connections", "remaining connection slots", "连接数", "starting up", "shutting down",
              "in recovery mode", "正在启动", "正在关闭")),
    ("refused", ("connection refused", "拒绝连接", "no such file or directory")),
    ("timeout", ("timeout expired", "timed out", "超时")),
    ("unknown_host", ("could not translate host name", "failed to resolve host", "name or service not known",
                      "nodename nor servname", "no address associated")),
    ("lost", ("server closed the connection", "terminating connection", "connection is lost", "connection is closed",
              "consuming input failed", "ssl syscall", "connection reset", "broken pipe", "the connection is bad",
              "connection not open")),
)


def describe_connect_error(exc: BaseException, config: ServerConfig) -> tuple[str, str]:
    """What went wrong talking to the server: ``(kind, Chinese message)``.

    Kinds: ``password``, ``database``, ``denied``, ``unreachable`` (refused, timeout, unknown
    host, busy), ``lost`` (a connection that worked broke), ``other``.
    """
    text = str(exc).lower()
    where = f"{config.host}:{config.port}"
    cause = next((kind for kind, marks in _CAUSES for m in marks if m.lower() in text), "other")
    if cause == "database" and "does not exist" not in text and "不存在" not in text:
        cause = "other"
    if cause == "password":
        return "password", f"服务器拒绝登录：用户名“{config.user}”或密码不正确"
    if cause == "database":
        return "database", (f"服务器 {where} 上没有名为“{config.database}”的数据库：请检查数据库名，或请管理员先创建它"
                            f"（CREATE DATABASE {config.database} OWNER {config.user or '用户名'};）")
    if cause == "denied":
        return "denied", f"服务器不允许此用户或本机登录（{_first_line(exc)}）：请管理员在 pg_hba.conf 中允许本机连接"
    if cause == "busy":
        return "unreachable", f"服务器 {where} 暂时不接受连接（{_first_line(exc)}），稍后会自动重试"
    if cause == "refused":
        return "unreachable", f"无法连接服务器 {where}：连接被拒绝（服务器未运行，或端口不对）"
    if cause == "timeout":
        return "unreachable", f"连接服务器 {where} 超时：服务器不可达（请检查地址、网络或防火墙）"
    if cause == "unknown_host":
        return "unreachable", f"找不到服务器“{config.host}”：地址无法解析（请检查服务器地址和网络）"
    if cause == "lost":
        return "lost", f"与办公室资料库服务器 {where} 的连接中断：{_first_line(exc)}"
    return "other", f"无法连接办公室资料库服务器 {where}：{_first_line(exc)}"

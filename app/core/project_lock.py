"""Who has a project file open: a small lock file beside it (no Qt).

Two windows (or two copies of the app) editing one project would each save over the
other's work. Opening a project for editing writes ``.<name>.bidlock`` next to it with
the holder's process, session, user and host; a second open reads it and, while that
holder still runs, offers read-only or a copy instead. A lock whose process has ended is
stale and simply taken over. The lock is advisory: a folder that cannot take the file
leaves the project unlocked rather than unopenable.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import socket
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from app.core.atomic_file import atomic_write_text
from app.core.process_identity import is_live_bidstudio, process_identity

LOCK_FORMAT = "bidstudio-lock"
LOCK_MAX_BYTES = 4096


def lock_file_for(project_path: Path) -> Path:
    """The lock file of ``project_path`` (hidden, beside it)."""
    return project_path.with_name(f".{project_path.name}.bidlock")


@dataclass(frozen=True)
class LockHolder:
    """Who holds a project open, as recorded in its lock file."""

    pid: int
    session: str
    user: str
    host: str
    since: str
    process: str = ""

    @property
    def description_zh(self) -> str:
        """A line for the question asked on a second open."""
        when = self.since[11:16] if len(self.since) >= 16 else self.since
        who = f"{self.user}@{self.host}" if self.user or self.host else "另一个程序"
        return f"{who}（进程 {self.pid}，{when} 起打开）"


def _me_user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):
        return ""


def read_holder(project_path: Path) -> LockHolder | None:
    """The recorded holder of ``project_path``'s lock, or None (no lock, or an unreadable one)."""
    path = lock_file_for(project_path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(LOCK_MAX_BYTES + 1)
        data = json.loads(raw.decode("utf-8")) if len(raw) <= LOCK_MAX_BYTES else None
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != LOCK_FORMAT:
        return None
    pid = data.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return None
    return LockHolder(pid=pid, session=str(data.get("session") or ""), user=str(data.get("user") or "")[:80],
                      host=str(data.get("host") or "")[:80], since=str(data.get("since") or "")[:40],
                      process=str(data.get("process") or "")[:200])


def live_holder(project_path: Path, session: str) -> LockHolder | None:
    """Another session that holds ``project_path`` open right now (None when free, stale or ours).

    A holder on another host cannot be checked: it counts as live (the user decides).
    """
    holder = read_holder(project_path)
    if holder is None or holder.session == session:
        return None
    if holder.host and holder.host != socket.gethostname():
        return holder
    if holder.pid == os.getpid():
        return holder  # another window of this process
    return holder if is_live_bidstudio(holder.pid, holder.process) else None


def acquire(project_path: Path, session: str) -> bool:
    """Record this session as the holder of ``project_path`` (True when the lock file was written)."""
    record = {"format": LOCK_FORMAT, "pid": os.getpid(), "session": session, "user": _me_user(),
              "host": socket.gethostname(), "since": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "process": process_identity(os.getpid())}
    try:
        atomic_write_text(lock_file_for(project_path), json.dumps(record, ensure_ascii=False))
    except OSError:
        return False
    return True


def release(project_path: Path, session: str) -> None:
    """Remove ``project_path``'s lock if this session holds it (never another's)."""
    holder = read_holder(project_path)
    if holder is not None and holder.session == session and holder.pid == os.getpid():
        with contextlib.suppress(OSError):
            lock_file_for(project_path).unlink()

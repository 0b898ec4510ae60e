"""Recovery files: the autosaved copy of unsaved work, found again after a crash (no Qt).

While a project has unsaved changes the UI writes it every N seconds to a recovery file
in ``<data dir>/recovery/`` (atomic write). A normal save or close deletes that file, so
a recovery file present at start means the app did not end normally. It is offered only
when it is newer than the project file it belongs to. One project path always maps to
the same recovery file name; untitled work gets one per session.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from app.core.atomic_file import atomic_write_text
from app.core.project import Project, ProjectError, parse_project, utc_now
from app.core.settings_model import data_dir

log = logging.getLogger(__name__)

RECOVERY_FORMAT = "bidstudio-recovery"
RECOVERY_SUFFIX = ".recovery.json"


def default_recovery_dir() -> Path:
    """``<data dir>/recovery`` (``BIDSTUDIO_DATA_DIR`` overrides the data dir)."""
    return data_dir() / "recovery"


def recovery_file_for(project_path: Path | None, session_id: str, folder: Path) -> Path:
    """The recovery file for a saved project (stable per path) or for untitled work (per session)."""
    if project_path is None:
        return folder / f"untitled-{session_id}{RECOVERY_SUFFIX}"
    key = hashlib.sha256(str(project_path.resolve()).encode("utf-8")).hexdigest()[:16]
    return folder / f"{project_path.stem[:40]}-{key}{RECOVERY_SUFFIX}"


@dataclass(frozen=True)
class RecoveryInfo:
    """One recovery file found on disk and what it belongs to."""

    path: Path
    project_path: Path | None
    saved_at: datetime
    pid: int
    title: str

    @property
    def newer_than_project(self) -> bool:
        """True when the project file is gone or older than this recovery file."""
        if self.project_path is None:
            return True
        try:
            project_mtime = self.project_path.stat().st_mtime
        except OSError:
            return True
        try:
            return self.path.stat().st_mtime > project_mtime
        except OSError:
            return False

    @property
    def display_name(self) -> str:
        """Project file name or the title of untitled work, for the recovery question."""
        if self.project_path is not None:
            return self.project_path.name
        return self.title or "未命名项目"


def write_recovery(project: Project, project_path: Path | None, file: Path) -> None:
    """Write ``project`` into the recovery ``file`` atomically (the project itself is untouched)."""
    file.parent.mkdir(parents=True, exist_ok=True)
    envelope = {
        "format": RECOVERY_FORMAT,
        "version": 1,
        "project_path": str(project_path.resolve()) if project_path is not None else None,
        "saved_at": utc_now().isoformat(),
        "pid": os.getpid(),
        "title": project.display_name(project_path),
        "project": json.loads(project.model_dump_json()),
    }
    atomic_write_text(file, json.dumps(envelope, ensure_ascii=False) + "\n")


def _read_envelope(file: Path) -> dict[str, Any]:
    data = json.loads(file.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != RECOVERY_FORMAT:
        raise ValueError("not a recovery file")
    return data


def read_recovery_info(file: Path) -> RecoveryInfo:
    """The header of a recovery file (raises ``ValueError``/``OSError`` when unreadable)."""
    data = _read_envelope(file)
    project_path = data.get("project_path")
    return RecoveryInfo(
        path=file,
        project_path=Path(project_path) if project_path else None,
        saved_at=datetime.fromisoformat(str(data["saved_at"])),
        pid=int(data.get("pid") or 0),
        title=str(data.get("title") or ""),
    )


def load_recovery(info: RecoveryInfo) -> Project:
    """The project stored in a recovery file (migrated like a project file)."""
    try:
        data = _read_envelope(info.path)
    except (OSError, ValueError) as exc:
        raise ProjectError(f"恢复文件“{info.path.name}”无法读取：{exc}", info.path) from exc
    raw = json.dumps(data.get("project"), ensure_ascii=False).encode("utf-8")
    return parse_project(raw, info.project_path or info.path)


def _pid_alive(pid: int) -> bool:
    """Whether another process with this id runs now (then its recovery file is in use)."""
    if pid <= 0 or pid == os.getpid():
        return False
    if os.name != "posix":
        return False  # cannot tell cheaply; offer the file
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def pending_recoveries(folder: Path | None = None) -> list[RecoveryInfo]:
    """Recovery files left by runs that did not end normally, newest first.

    Files of another running instance are skipped; unreadable ones are renamed
    ``*.broken`` so they are not offered again.
    """
    folder = folder or default_recovery_dir()
    found: list[RecoveryInfo] = []
    for file in sorted(folder.glob(f"*{RECOVERY_SUFFIX}")):
        try:
            info = read_recovery_info(file)
        except (OSError, ValueError, KeyError) as exc:
            log.warning("unreadable recovery file %s (%s); moved aside", file, exc)
            with contextlib.suppress(OSError):
                os.replace(file, file.with_name(file.name + ".broken"))
            continue
        if _pid_alive(info.pid):
            continue
        found.append(info)
    return sorted(found, key=lambda i: i.saved_at, reverse=True)


def discard_recovery(path: Path) -> None:
    """Delete a recovery file (after a normal save/close or when the user declines it)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()

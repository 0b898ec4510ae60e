"""Recovery files: the autosaved copy of unsaved work, found again after a crash (no Qt).

While a project has unsaved changes the UI writes it every N seconds to a recovery file
in ``<data dir>/recovery/`` (atomic write). A normal save or close deletes that file, so
a recovery file present at start means the app did not end normally. It is offered only
when it is newer than the project file it belongs to. Each session (window) writes its
own file, named by the project path and the session.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from app.core.atomic_file import atomic_write_text, clean_stale_temp_files
from app.core.input_limits import LIMITS
from app.core.process_identity import is_live_bidstudio, process_identity
from app.core.project import Project, ProjectError, parse_project, read_bounded_file, utc_now
from app.core.settings_model import data_dir

log = logging.getLogger(__name__)

RECOVERY_FORMAT = "bidstudio-recovery"
RECOVERY_SUFFIX = ".recovery.json"


def default_recovery_dir() -> Path:
    """``<data dir>/recovery`` (``BIDSTUDIO_DATA_DIR`` overrides the data dir)."""
    return data_dir() / "recovery"


def recovery_file_for(project_path: Path | None, session_id: str, folder: Path) -> Path:
    """The recovery file of one session (one window of one process) for a project or untitled work.

    Per session, never per project only: two windows on one project must not share a file,
    or one's save (which removes its recovery file) would take the other's autosave along.
    """
    if project_path is None:
        return folder / f"untitled-{session_id}{RECOVERY_SUFFIX}"
    key = hashlib.sha256(str(project_path.resolve()).encode("utf-8")).hexdigest()[:16]
    return folder / f"{project_path.stem[:40]}-{key}-{session_id}{RECOVERY_SUFFIX}"


@dataclass(frozen=True)
class RecoveryInfo:
    """One recovery file found on disk and what it belongs to."""

    path: Path
    project_path: Path | None
    saved_at: datetime
    pid: int
    title: str
    #: Identity of the writing process (see :mod:`app.core.process_identity`); "" when unknown.
    process: str = ""

    @property
    def newer_than_project(self) -> bool:
        """True when the project file is gone or older than this recovery file."""
        if self.project_path is None:
            return True
        try:
            project_mtime = self.project_path.stat().st_mtime
        except (OSError, ValueError):
            return True
        try:
            return self.path.stat().st_mtime > project_mtime
        except (OSError, ValueError):
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
        "process": process_identity(os.getpid()),
        "title": project.display_name(project_path),
        "project": json.loads(project.model_dump_json()),
    }
    atomic_write_text(file, json.dumps(envelope, ensure_ascii=False) + "\n")


def _read_envelope(file: Path) -> dict[str, Any]:
    raw = read_bounded_file(file, "恢复文件", LIMITS.project_max_bytes)
    data = json.loads(raw.decode("utf-8"))
    if not isinstance(data, dict) or data.get("format") != RECOVERY_FORMAT:
        raise ValueError("not a recovery file")
    return data


_MAX_PID = 2**31 - 1


def read_recovery_info(file: Path) -> RecoveryInfo:
    """The header of a recovery file; ``ValueError`` for anything this app would not have written.

    Any exception from the file (unreadable, not JSON, a naive or missing time, a pid out of
    range, wrong types) becomes ``ValueError`` so callers handle one kind of failure.
    """
    try:
        data = _read_envelope(file)
        project_path = data.get("project_path")
        if project_path is not None and (not isinstance(project_path, str) or "\0" in project_path):
            raise ValueError("project_path is not a usable path")
        saved_at = datetime.fromisoformat(str(data["saved_at"]))
        if saved_at.tzinfo is None or saved_at.utcoffset() is None:
            raise ValueError("saved_at has no time zone")
        pid = data.get("pid") or 0
        if not isinstance(pid, int) or isinstance(pid, bool) or not 0 <= pid <= _MAX_PID:
            raise ValueError(f"pid out of range: {str(pid)[:40]}")
        process = data.get("process") or ""
        if not isinstance(process, str) or len(process) > 200:
            raise ValueError("process identity is not a short string")
        return RecoveryInfo(
            path=file,
            project_path=Path(project_path) if project_path else None,
            saved_at=saved_at.astimezone(timezone.utc),
            pid=pid,
            title=str(data.get("title") or "")[: LIMITS.title_max_chars],
            process=process,
        )
    except ValueError:
        raise
    except (ProjectError, Exception) as exc:
        raise ValueError(f"{type(exc).__name__}: {exc}") from exc


def load_recovery(info: RecoveryInfo) -> Project:
    """The project stored in a recovery file (migrated like a project file); ``ProjectError`` otherwise."""
    try:
        data = _read_envelope(info.path)
        raw = json.dumps(data.get("project"), ensure_ascii=False).encode("utf-8")
    except ProjectError as exc:
        raise ProjectError(f"恢复文件“{info.path.name}”无法读取：{exc.message_zh}", info.path) from exc
    except Exception as exc:  # any failure of the file means the file is damaged
        raise ProjectError(f"恢复文件“{info.path.name}”文件已损坏，无法读取。", info.path,
                           detail=f"{type(exc).__name__}: {exc}") from exc
    return parse_project(raw, info.project_path or info.path)


def _in_use(info: RecoveryInfo) -> bool:
    """Whether a running BidStudio still owns this recovery file (then it is not offered)."""
    if info.pid <= 0 or info.pid == os.getpid():
        return False
    return is_live_bidstudio(info.pid, info.process)


@dataclass(frozen=True)
class SetAside:
    """A recovery file that could not be read and was renamed so it is not offered again."""

    original: Path
    moved_to: Path
    reason: str

    @property
    def note_zh(self) -> str:
        """The user-facing note saying what happened to the file."""
        return (f"自动恢复文件“{self.original.name}”已损坏，无法恢复；已改名为“{self.moved_to.name}”保留在"
                f"{self.moved_to.parent}，程序照常启动。")


@dataclass
class RecoveryScan:
    """What :func:`scan_recoveries` found: files to offer (newest first) and files set aside."""

    offers: list[RecoveryInfo] = field(default_factory=list)
    set_aside: list[SetAside] = field(default_factory=list)


def set_aside(file: Path, reason: str) -> SetAside:
    """Rename a broken recovery file to ``*.broken`` (a free name) so it is kept but not offered."""
    target = file.with_name(file.name + ".broken")
    n = 1
    while target.exists():
        n += 1
        target = file.with_name(f"{file.name}.{n}.broken")
    log.warning("unreadable recovery file %s (%s); moved aside to %s", file, reason, target.name)
    try:
        os.replace(file, target)
    except OSError as exc:
        log.warning("could not move %s aside: %s", file, exc)
        target = file
    return SetAside(file, target, reason)


def scan_recoveries(folder: Path | None = None) -> RecoveryScan:
    """Recovery files left by runs that did not end normally, and the broken ones set aside.

    Files a running BidStudio still owns are skipped. Temp files left by killed writes are
    removed. Nothing here raises for a bad file.
    """
    folder = folder or default_recovery_dir()
    scan = RecoveryScan()
    clean_stale_temp_files(folder)
    try:
        files = sorted(folder.glob(f"*{RECOVERY_SUFFIX}"))
    except OSError as exc:
        log.warning("cannot list recovery folder %s: %s", folder, exc)
        return scan
    for file in files:
        try:
            info = read_recovery_info(file)
        except ValueError as exc:
            scan.set_aside.append(set_aside(file, str(exc)))
            continue
        if _in_use(info):
            continue
        scan.offers.append(info)
    scan.offers.sort(key=lambda i: i.saved_at, reverse=True)
    return scan


def pending_recoveries(folder: Path | None = None) -> list[RecoveryInfo]:
    """Recovery files to offer, newest first (see :func:`scan_recoveries`; broken ones are set aside)."""
    return scan_recoveries(folder).offers


def discard_recovery(path: Path) -> None:
    """Delete a recovery file (after a normal save/close or when the user declines it)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()

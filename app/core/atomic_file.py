"""Atomic file writes (architecture rule 9): a crash or a full disk never leaves half a file.

The bytes go to a temporary file in the destination's own folder, are flushed and
fsync'ed, and only then renamed over the target with :func:`os.replace`, which is atomic
on POSIX and Windows. Until that rename the old file is untouched; on any failure the
temporary file is removed and the error is raised as :class:`AtomicWriteError`.

A process killed mid-write leaves its temporary file behind (the target is intact). The
temporary name carries the writer's pid, so the next write of the same target (and
:func:`clean_stale_temp_files` at start) removes leftovers whose writer is gone.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import tempfile
import time
from pathlib import Path

#: A temporary file with no live writer that is older than this is a leftover.
STALE_AFTER_S = 60.0


class AtomicWriteError(OSError):
    """Writing a file failed; the previous version of the file (if any) is intact."""

    def __init__(self, path: Path, cause: OSError) -> None:
        super().__init__(cause.errno, f"cannot write {path}: {cause}")
        self.path = path
        self.cause = cause
        self.message_zh = _message_zh(path, cause)


class NotRegularFileError(OSError):
    """The target exists but is a device, a pipe, a folder or another special file."""


#: Folders of the system's pseudo files (devices, processes, kernel state): never a place to write a document.
SYSTEM_FOLDERS = ("/dev/", "/proc/", "/sys/")


def _system_path(path: str) -> bool:
    return (path.startswith(SYSTEM_FOLDERS) and not path.startswith("/dev/shm/")) or path.rstrip("/") + "/" in SYSTEM_FOLDERS


def in_system_folder(path: Path | str) -> bool:
    """Whether ``path``, or any link on the way to its file, lies under /dev, /proc or /sys (POSIX only).

    Catches ``/dev/stdout`` and a private link to ``/proc/self/fd/1`` even when standard
    output happens to be a regular file.
    """
    if os.name != "posix":
        return False
    current = os.path.abspath(os.fspath(path))
    hops = [current, os.path.realpath(current)]
    for _ in range(40):  # follow the link chain by hand: realpath() alone hides /proc magic links
        try:
            target = os.readlink(current)
        except (OSError, ValueError):
            break
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
        hops.append(current)
    return any(_system_path(hop) for hop in hops)


def _message_zh(path: Path, cause: OSError) -> str:
    """A Chinese explanation of why ``path`` could not be written."""
    if isinstance(cause, NotRegularFileError):
        reason = "目标不是普通文件（设备、管道、文件夹或特殊文件），不会覆盖它"
    elif cause.errno in (errno.ENOSPC, errno.EDQUOT):
        reason = "磁盘空间不足"
    elif cause.errno == errno.EFBIG:
        reason = "文件超过了系统允许的大小（磁盘空间或配额不足）"
    elif cause.errno == errno.EISDIR:
        reason = "目标是一个文件夹"
    elif cause.errno == errno.ENAMETOOLONG:
        reason = "文件名或路径太长"
    elif cause.errno in (errno.EACCES, errno.EPERM):
        reason = "没有写入权限"
    elif cause.errno == errno.ENOENT:
        reason = "所在文件夹不存在"
    elif cause.errno == errno.EROFS:
        reason = "磁盘为只读"
    else:
        reason = cause.strerror or str(cause)
    return f"无法保存文件“{path}”：{reason}。原有文件未被改动。"


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX only; Windows cannot open folders)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (temp file, flush, fsync, rename).

    Keeps the permission bits of an existing file. Raises :class:`AtomicWriteError`
    and leaves the old file and no temporary file behind when anything fails.
    """
    target = Path(path)
    try:
        st = os.stat(target)  # follows a symbolic link: the link is kept, its file is replaced
    except FileNotFoundError:
        st = None
    except (OSError, ValueError) as exc:
        cause = exc if isinstance(exc, OSError) else OSError(errno.EINVAL, str(exc))
        raise AtomicWriteError(target, cause) from exc
    if (st is not None and not stat.S_ISREG(st.st_mode)) or in_system_folder(target):
        raise AtomicWriteError(target, NotRegularFileError(errno.EINVAL, "not a regular file"))
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    folder = target.parent if str(target.parent) else Path(".")
    clean_stale_temp_files(folder, target.name)
    tmp_name: str | None = None
    try:
        fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.{os.getpid()}-", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            mode = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = 0o644  # mkstemp creates 0600; a new document gets the usual mode
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
        tmp_name = None
    except OSError as exc:
        raise AtomicWriteError(target, exc) from exc
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
    _fsync_dir(folder)


#: The random part :func:`tempfile.mkstemp` puts in a name.
_RANDOM = re.compile(r"[A-Za-z0-9_]{6,16}")


def _writer_pid(tmp_name: str, target_name: str | None) -> int | bool | None:
    """The pid in ``.<target>.<pid>-XXXXXXXX.tmp`` — the exact shape this module writes.

    ``True`` for an older version's ``.<target>.XXXXXXXX.tmp`` of ``target_name`` (no pid: only
    its age tells), ``None`` for any other name. With ``target_name`` the name must be that
    target's, character for character (a target named ``*`` matches only itself, never a pattern).
    """
    if not (tmp_name.startswith(".") and tmp_name.endswith(".tmp")):
        return None
    middle = tmp_name[1:-4]
    name, dot, rest = middle.rpartition(".")
    if not dot or not name or (target_name is not None and name != target_name):
        return None
    pid, dash, rand = rest.partition("-")
    if dash and pid.isdigit() and _RANDOM.fullmatch(rand):
        return int(pid)
    if not dash and target_name is not None and _RANDOM.fullmatch(rest):
        return True
    return None


def _writer_gone(pid: int) -> bool:
    if pid == os.getpid():
        return False
    if os.name != "posix":
        return False  # no safe liveness check; the age rule applies
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError, ValueError):
        return False
    return False


def clean_stale_temp_files(folder: Path | str, target_name: str | None = None) -> int:
    """Remove temporary files left by killed writes in ``folder`` (of ``target_name`` only, if given).

    Only names of the exact shape this module writes are considered (the target's name is
    compared as text, never used as a pattern); of those, a leftover is one whose writer
    process is gone, or that is older than :data:`STALE_AFTER_S`. Returns how many were
    removed; never raises.
    """
    removed = 0
    now = time.time()
    try:
        with os.scandir(folder) as entries:
            candidates = [e.name for e in entries if e.name.endswith(".tmp")]
    except OSError:
        return 0
    for name in candidates:
        pid = _writer_pid(name, target_name)
        if pid is None:
            continue
        tmp = Path(folder) / name
        try:
            st = tmp.lstat()
            if not stat.S_ISREG(st.st_mode):
                continue
            old = now - st.st_mtime > STALE_AFTER_S
            if pid is True or pid is False:
                gone = old
            else:
                gone = _writer_gone(pid) or (pid != os.getpid() and old)
            if gone:
                tmp.unlink()
                removed += 1
        except OSError:
            continue
    return removed


def atomic_write_text(path: Path | str, text: str) -> None:
    """:func:`atomic_write_bytes` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


def sha256_file(path: Path | str, chunk_size: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in chunks (tender files can be tens of MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()

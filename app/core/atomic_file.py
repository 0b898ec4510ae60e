"""Atomic file writes (architecture rule 9): a crash or a full disk never leaves half a file.

The bytes go to a temporary file in the destination's own folder, are flushed and
fsync'ed, and only then renamed over the target with :func:`os.replace`, which is atomic
on POSIX and Windows. Until that rename the old file is untouched; on any failure the
temporary file is removed and the error is raised as :class:`AtomicWriteError`.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import tempfile
from pathlib import Path


class AtomicWriteError(OSError):
    """Writing a file failed; the previous version of the file (if any) is intact."""

    def __init__(self, path: Path, cause: OSError) -> None:
        super().__init__(cause.errno, f"cannot write {path}: {cause}")
        self.path = path
        self.cause = cause
        self.message_zh = _message_zh(path, cause)


def _message_zh(path: Path, cause: OSError) -> str:
    """A Chinese explanation of why ``path`` could not be written."""
    if cause.errno == errno.ENOSPC:
        reason = "磁盘空间不足"
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
    folder = target.parent if str(target.parent) else Path(".")
    tmp_name: str | None = None
    try:
        fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
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

"""Tell whether a process id still belongs to the BidStudio that wrote a file (no Qt).

A recovery file records the writer's pid. Pids are reused, so "a process with that pid
is alive" does not mean the writer still runs: after a crash and a reboot the pid may
belong to a shell or a browser, and the user's work would never be offered. Where the
system says when a process started (Linux ``/proc``), the file also records an identity
made of the boot id and the start time; a live pid with another identity is another
process. Without that record (older files) the command line must look like BidStudio.
Where neither can be read, a live pid counts as the writer (the file is offered once
that process ends).
"""

from __future__ import annotations

import os
from pathlib import Path

_PROC = Path("/proc")


def _read(path: Path) -> bytes | None:
    try:
        with path.open("rb") as handle:
            return handle.read(65536)
    except (OSError, ValueError):
        return None


def _start_ticks(pid: int) -> str | None:
    """Field 22 of ``/proc/<pid>/stat`` (start time in clock ticks since boot)."""
    raw = _read(_PROC / str(pid) / "stat")
    if not raw:
        return None
    # the command name (field 2) may hold spaces and parentheses: split after the last ")"
    fields = raw[raw.rfind(b")") + 2 :].split()
    return fields[19].decode("ascii", "replace") if len(fields) > 19 else None


def process_identity(pid: int) -> str:
    """A string naming this incarnation of ``pid`` ("" where the system cannot say)."""
    boot = _read(_PROC / "sys" / "kernel" / "random" / "boot_id")
    ticks = _start_ticks(pid)
    if not boot or ticks is None:
        return ""
    return f"linux:{boot.decode('ascii', 'replace').strip()}:{ticks}"


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists now (False where that cannot be asked safely)."""
    if pid <= 0 or os.name != "posix":  # on Windows os.kill(pid, 0) would terminate the process
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OverflowError, ValueError, OSError):
        return False
    return True


def looks_like_bidstudio(pid: int) -> bool | None:
    """Whether ``pid``'s command line is BidStudio's; None when it cannot be read."""
    raw = _read(_PROC / str(pid) / "cmdline")
    if raw is None:
        return None
    args = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    for i, arg in enumerate(args):
        name = os.path.basename(arg).lower()
        if name.startswith("bidstudio"):
            return True
        if arg == "-m" and i + 1 < len(args) and args[i + 1].split(".")[0] == "app":
            return True
    return False


def is_live_bidstudio(pid: int, identity: str = "") -> bool:
    """Whether ``pid`` is alive and is the BidStudio process described by ``identity``."""
    if not pid_alive(pid):
        return False
    if identity:
        current = process_identity(pid)
        if current:
            return current == identity
    looks = looks_like_bidstudio(pid)
    return True if looks is None else looks

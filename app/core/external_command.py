"""The one way the app runs another program (LibreOffice today): absolute paths, a deadline, no leftovers.

* Every file argument is given as a path object and passed as an **absolute** path, so a
  file called ``-dash.doc`` can never be read as an option.
* The program is resolved to an absolute path too (``shutil.which``), never looked up by a shell.
* On a timeout the whole process group is killed (``soffice`` forks ``soffice.bin``,
  which a plain ``kill`` of the parent leaves running).
* Captured output is bounded: only the tail is kept for messages.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath

#: Bytes of stdout/stderr kept for error messages.
OUTPUT_TAIL = 4000

Arg = str | PurePath


class ExternalCommandError(OSError):
    """The program could not be started (missing, not executable)."""


@dataclass(frozen=True)
class CommandResult:
    """How the program ended and the tail of what it printed."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """Exit status 0 within the deadline."""
        return self.returncode == 0 and not self.timed_out

    def output_tail(self, limit: int = 300) -> str:
        """The last ``limit`` characters of stderr (else stdout), decoded for messages."""
        raw = self.stderr or self.stdout
        return raw.decode("utf-8", "replace")[-limit:]


def command_argv(program: str | PurePath, args: tuple[Arg, ...]) -> list[str]:
    """The argv actually run: absolute program, path arguments made absolute, strings as given."""
    exe = str(program)
    if not os.path.isabs(exe):
        found = shutil.which(exe)
        if found is None:
            raise ExternalCommandError(f"program not found: {exe}")
        exe = found
    argv = [os.path.abspath(exe)]
    for arg in args:
        argv.append(os.path.abspath(os.fspath(arg)) if isinstance(arg, PurePath) else arg)
    return argv


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc`` and, on POSIX, every process in its group."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError, OSError):
        pass


def run_command(program: str | PurePath, *args: Arg, timeout: float, env: Mapping[str, str] | None = None,
                cwd: str | PurePath | None = None) -> CommandResult:
    """Run ``program args…`` to completion or ``timeout`` seconds; never a shell, never a relative path.

    Pass files as :class:`pathlib.Path` (made absolute); options and values as ``str``.
    Raises :class:`ExternalCommandError` when the program cannot be started.
    """
    argv = command_argv(program, args)
    kwargs: dict[str, object] = {}
    if os.name == "posix":
        kwargs["start_new_session"] = True  # its own process group, killed as a whole on timeout
    else:
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NO_WINDOW", 0) | getattr(
            subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
    try:
        proc = subprocess.Popen(  # argv built above, never a shell
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
            cwd=os.path.abspath(os.fspath(cwd)) if cwd is not None else None, **kwargs,  # type: ignore[call-overload]
        )
    except (OSError, ValueError) as exc:
        raise ExternalCommandError(f"cannot start {argv[0]}: {exc}") from exc
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_tree(proc)
        timed_out = True
        try:
            out, err = proc.communicate(timeout=5.0)
        except subprocess.TimeoutExpired:  # a helper outside the group still holds the pipes
            proc.kill()
            out, err = b"", b""
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            proc.wait(timeout=5.0)
    return CommandResult(tuple(argv), proc.returncode, out[-OUTPUT_TAIL:], err[-OUTPUT_TAIL:], timed_out)


def which(*names: str) -> Path | None:
    """The absolute path of the first of ``names`` found on PATH, or None."""
    for name in names:
        found = shutil.which(name)
        if found:
            return Path(os.path.abspath(found))
    return None

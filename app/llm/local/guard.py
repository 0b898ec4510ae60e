"""Run a model server for as long as the app that asked for it lives.

``python -m app.llm.local.guard --parent PID -- COMMAND…`` starts ``COMMAND`` and watches two
things twice a second: the parent (the app) and the server. When the app is gone — closed,
crashed, killed with ``kill -9`` — the guard stops the server and exits, so no model server is
left holding memory and a port. When the server exits, so does the guard, with its code. A
terminate request to the guard stops the server first. Standard library only: this runs before
anything else of the app is imported.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from types import FrameType

POLL_S = 0.5
STOP_GRACE_S = 5.0


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (Windows: OpenProcess + exit code; POSIX: signal 0)."""
    if pid <= 0:
        return False
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return False
            return code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop(child: subprocess.Popen[bytes]) -> None:
    """Terminate ``child``, then kill it if it has not gone within the grace period."""
    if child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait(STOP_GRACE_S)


def main(argv: list[str] | None = None) -> int:
    """Start the command, watch the parent, and stop the command when the parent is gone."""
    parser = argparse.ArgumentParser(prog="guard")
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command")
    child = subprocess.Popen(command)  # output goes where the guard's goes (the app's log file)
    stopping = False

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_term)
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, on_term)
    while True:
        code = child.poll()
        if code is not None:
            return code
        if stopping or not process_alive(args.parent):
            stop(child)
            return 0
        time.sleep(POLL_S)


if __name__ == "__main__":
    sys.exit(main())

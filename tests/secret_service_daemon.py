"""A real Secret Service for the keyring tests and the bundle's self check: a private D-Bus session bus
(``dbus-daemon``) in a temporary folder, with GNOME Keyring's daemon on it (``gnome-keyring-daemon``,
Debian's ``gnome-keyring``) holding a login keyring unlocked with a throw-away password.

Nothing here is a mock: :func:`session_bus` yields the bus address; a test sets it as
``DBUS_SESSION_BUS_ADDRESS`` and talks to the daemon over its Unix socket. The socket is a path in
the folder (not an abstract socket), so a process in another network namespace (``unshare -n``, the
bundle's offline checks) reaches it too. :class:`NoDaemon` says why none can be started, so a test can
skip saying why.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

#: A session bus with no service folders: nothing is started on demand (D-Bus activation), so a bus
#: without gnome-keyring-daemon has no Secret Service at all, whatever this machine has installed.
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>{address}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


class NoDaemon(Exception):
    """dbus-daemon or gnome-keyring-daemon is missing or did not start (the message says why)."""


def _wait_for_name(address: str, name: str, timeout: float) -> bool:
    from jeepney.bus_messages import message_bus
    from jeepney.io.blocking import open_dbus_connection

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open_dbus_connection(address) as conn:
                if conn.send_and_get_reply(message_bus.NameHasOwner(name), timeout=5).body[0]:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@contextlib.contextmanager
def session_bus(*, keyring_daemon: bool = True, timeout: float = 20.0) -> Iterator[str]:
    """A private session bus, with GNOME Keyring's Secret Service on it unless ``keyring_daemon`` is False;
    yields its address. Both processes are stopped and the folder removed afterwards."""
    dbus = shutil.which("dbus-daemon")
    gkd = shutil.which("gnome-keyring-daemon")
    if dbus is None:
        raise NoDaemon("dbus-daemon is not installed (Debian: dbus-daemon)")
    if keyring_daemon and gkd is None:
        raise NoDaemon("gnome-keyring-daemon is not installed (Debian: gnome-keyring)")
    with tempfile.TemporaryDirectory(prefix="bidstudio-bus-") as tmp:
        folder = Path(tmp)
        address = f"unix:path={folder / 'bus'}"
        (folder / "run").mkdir(mode=0o700)
        env = dict(os.environ, HOME=str(folder), XDG_DATA_HOME=str(folder / "data"),
                   XDG_RUNTIME_DIR=str(folder / "run"), XDG_CONFIG_HOME=str(folder / "config"),
                   DBUS_SESSION_BUS_ADDRESS=address)
        env.pop("DISPLAY", None)  # no prompter window: a locked keyring fails instead of waiting
        config = folder / "bus.conf"
        config.write_text(BUS_CONFIG.format(address=address), encoding="utf-8")
        bus = subprocess.Popen([dbus, f"--config-file={config}", "--nofork", "--nosyslog"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs = [bus]
        try:
            if not _wait_for_name(address, "org.freedesktop.DBus", timeout):
                raise NoDaemon(f"dbus-daemon did not start (exit code {bus.poll()})")
            if keyring_daemon:
                assert gkd is not None
                keyring = subprocess.Popen(
                    [gkd, "--foreground", "--unlock", "--components=secrets", f"--control-directory={folder / 'ctl'}"],
                    env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                procs.append(keyring)
                assert keyring.stdin is not None
                keyring.stdin.write(b"bidstudio-test-password")  # the login keyring's password, then EOF
                keyring.stdin.close()
                if not _wait_for_name(address, "org.freedesktop.secrets", timeout):
                    raise NoDaemon("gnome-keyring-daemon did not take org.freedesktop.secrets on the bus")
            yield address
        finally:
            for proc in reversed(procs):
                _stop(proc)

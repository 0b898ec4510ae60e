"""A real PostgreSQL server for the tests and benchmarks: initdb into a temporary folder, pg_ctl start.

Uses the system's server binaries (``pg_ctl`` on PATH, or the newest ``/usr/lib/postgresql/*/bin``
of Debian's ``postgresql`` package). initdb refuses to run as root, so as root the server runs
as the ``postgres`` account the package creates (``runuser``); its folder is made for that
account. The server listens on a free TCP port of 127.0.0.1 (password logins, scram-sha-256)
and on a Unix socket in its folder (the superuser's trusted logins for setting up). Nothing
here is a mock: a test that gets a :class:`PgServer` talks to a real server over a socket.

:func:`start_server` raises :class:`NoServer` with the reason when none can be started, so a
test can skip saying why.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SUPERUSER = "bench_admin"


class NoServer(Exception):
    """No PostgreSQL server can be started here (the message says why)."""


def find_bin() -> Path | None:
    """The folder of ``initdb``/``pg_ctl``: PATH first, then the newest Debian server package."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).resolve().parent  # a symlink on PATH: the package's own folder has psql too
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(candidates[-1]).parent if candidates else None


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    """A running server: where it listens, how to stop, kill or restart it, and how to run SQL as superuser."""

    bin: Path
    root: Path
    port: int
    run_as: str | None
    password: str = "admin-pw"
    fast: bool = True  # fsync off (tests); a benchmark runs the server as an office would (durable commits)
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.root / "server.log"

    @property
    def data(self) -> Path:
        """The cluster's data folder."""
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        """The folder of the server's Unix socket."""
        return self.root / "sock"

    def _cmd(self, *args: str) -> list[str]:
        return (["runuser", "-u", self.run_as, "--"] if self.run_as else []) + list(args)

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self._cmd(*args), capture_output=True, text=True, timeout=timeout, check=False)

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        opts = f"-p {self.port} -k {self.socket_dir} -c listen_addresses=127.0.0.1 -c max_connections=60"
        if self.fast:  # tests: nothing needs to survive a power cut
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        r = self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", opts, "-w",
                      "-t", "60", "start")
        if r.returncode != 0:
            raise NoServer(f"pg_ctl start failed: {r.stderr.strip() or r.stdout.strip()} {self._log_tail()}")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: disconnect everyone, ``immediate``: like a crash)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        """Stop and start again on the same port (clients' connections break)."""
        self.stop()
        self.start()

    def pid(self) -> int:
        """The postmaster's process id."""
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def kill_backend_of(self, application_name: str) -> None:
        """kill -9 the server process serving a client (another way to cut a writer)."""
        rows = self.sql(f"SELECT pid FROM pg_stat_activity WHERE application_name = '{application_name}'")
        for line in rows.split():
            os.kill(int(line), signal.SIGKILL)

    def sql(self, statement: str, database: str = "postgres") -> str:
        """Run SQL as the superuser over the Unix socket; returns psql's unaligned output."""
        psql = self.bin / "psql" if (self.bin / "psql").exists() else Path(shutil.which("psql") or "psql")
        r = self._run(str(psql), "-h", str(self.socket_dir), "-p", str(self.port), "-U", SUPERUSER,
                      "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", statement)
        if r.returncode != 0:
            raise RuntimeError(f"psql failed: {r.stderr.strip()}")
        return r.stdout.strip()

    def create_database(self, name: str, owner: str, password: str) -> None:
        """A login role ``owner`` with ``password`` and a database it owns."""
        if not self.sql(f"SELECT 1 FROM pg_roles WHERE rolname = '{owner}'"):
            self.sql(f"CREATE ROLE {owner} LOGIN PASSWORD '{password}'")
        self.sql(f"CREATE DATABASE {name} OWNER {owner} ENCODING 'UTF8' TEMPLATE template0")

    def _log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-800:]
        except OSError:
            return ""

    def destroy(self) -> None:
        """Stop the server and delete its folder."""
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def _account() -> str | None:
    """Who runs the server: None (this user) unless we are root, then the ``postgres`` account."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError as exc:
        raise NoServer("running as root and there is no 'postgres' account to run the server as "
                       "(install the postgresql package)") from exc
    if not shutil.which("runuser"):
        raise NoServer("running as root without runuser to start the server as 'postgres'")
    return "postgres"


def start_server(locale: str = "C", *, fast: bool = True) -> PgServer:
    """initdb a new cluster in a temporary folder and start it; raises :class:`NoServer` with the reason.

    ``locale`` is the cluster's locale; the default ``C`` is the hardest case for Chinese text
    (no character classes for CJK), which the app's own n-gram index does not depend on.
    ``fast`` turns durable commits off (tests); a benchmark keeps them on.
    """
    pg_bin = find_bin()
    if pg_bin is None:
        raise NoServer("no PostgreSQL server binaries (initdb, pg_ctl) found; install the postgresql package")
    run_as = _account()
    root = Path(tempfile.mkdtemp(prefix="bidstudio-pg-"))
    os.chmod(root, 0o755)
    (root / "sock").mkdir()
    if run_as is not None:
        entry = pwd.getpwnam(run_as)
        for p in (root, root / "sock"):
            os.chown(p, entry.pw_uid, entry.pw_gid)
    server = PgServer(pg_bin, root, free_port(), run_as, fast=fast)
    pwfile = root / "pw"
    pwfile.write_text(server.password)
    if run_as is not None:
        os.chown(pwfile, pwd.getpwnam(run_as).pw_uid, -1)
    r = server._run(str(pg_bin / "initdb"), "-D", str(server.data), "-U", SUPERUSER, "--pwfile", str(pwfile),
                    "-E", "UTF8", f"--locale={locale}", "--auth-local=trust", "--auth-host=scram-sha-256",
                    "--no-sync", timeout=120)
    if r.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise NoServer(f"initdb failed: {r.stderr.strip()[-500:]}")
    try:
        server.start()
    except NoServer:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return server


def wait_until_down(port: int, seconds: float = 10.0) -> None:
    """Wait until nothing accepts connections on ``port``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            time.sleep(0.1)
            continue
        return

"""Shared fixtures: the local OpenAI-compatible server, real-tender paths, leak checks, a PostgreSQL server."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# OCR results are cached per file hash: tests keep theirs out of the user's cache folder.
os.environ.setdefault("BIDSTUDIO_CACHE_DIR", os.path.join(tempfile.gettempdir(), f"bidstudio-test-cache-{os.getpid()}"))

from tests.openai_server import OpenAIServer

if TYPE_CHECKING:
    from app.library.store import ServerConfig
    from tests.pg_server import PgServer

REPO = Path(__file__).resolve().parent.parent
TENDERS = REPO.parent / "shared" / "tenders"


@pytest.fixture
def llm_server() -> Iterator[OpenAIServer]:
    """A started scripted OpenAI-compatible server on loopback."""
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def tenders_dir() -> Path:
    """../shared/tenders, or skip the test when this checkout has none."""
    if not TENDERS.is_dir():
        pytest.skip("../shared/tenders is not present")
    return TENDERS


@pytest.fixture(autouse=True)
def _no_leaked_threads() -> Iterator[None]:
    """Fail a test that leaves non-daemon threads running (after a short grace period)."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 2.0
    while True:
        leaked = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not leaked, f"test leaked threads: {[t.name for t in leaked]}"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """A real PostgreSQL server for the whole run (``tests/pg_server.py``), skipped saying why where none starts.

    ``BIDSTUDIO_REQUIRE_PG=1`` (set by ``.ci/run``, which installs the server) turns the skip into a failure.
    """
    from tests.pg_server import NoServer, start_server

    required = os.environ.get("BIDSTUDIO_REQUIRE_PG") == "1"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        if required:
            pytest.fail("psycopg is not installed (pip install -e '.[test]')")
        pytest.skip("psycopg is not installed: the PostgreSQL library tests need pip install -e '.[test]'")
    try:
        server = start_server()
    except NoServer as exc:
        if required:
            pytest.fail(f"no PostgreSQL server could be started: {exc}")
        pytest.skip(f"no PostgreSQL server could be started here: {exc}")
    yield server
    server.destroy()


_PG_DATABASES = [0]


@pytest.fixture
def pg_config(pg_server: PgServer) -> ServerConfig:
    """A new empty database on the test server, owned by the login role ``office``; its ServerConfig."""
    from app.library.store import ServerConfig

    _PG_DATABASES[0] += 1
    name = f"lib{os.getpid()}_{_PG_DATABASES[0]}"
    pg_server.create_database(name, "office", "office-pw")
    return ServerConfig("127.0.0.1", pg_server.port, name, "office", "office-pw")

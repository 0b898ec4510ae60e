"""Shared fixtures: the local OpenAI-compatible server, real-tender paths, leak checks."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# OCR results are cached per file hash: tests keep theirs out of the user's cache folder.
os.environ.setdefault("BIDSTUDIO_CACHE_DIR", os.path.join(tempfile.gettempdir(), f"bidstudio-test-cache-{os.getpid()}"))

from tests.openai_server import OpenAIServer

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

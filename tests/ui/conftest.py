"""UI test fixtures: async tests run on a qasync loop, so Qt events flow while they await."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QApplication

from app.llm.client import EndpointConfig, LLMClient
from app.ui.controller import AppController
from app.ui.errors import ErrorReporter
from tests.openai_server import OpenAIServer


def _qt_loop() -> asyncio.AbstractEventLoop:
    app = QApplication.instance() or QApplication([])
    return qasync.QEventLoop(app)


def pytest_asyncio_loop_factories(config: Any, item: Any) -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    """Every async UI test runs on a qasync ``QEventLoop`` (as the app does)."""
    return {"qt": _qt_loop}


@pytest.fixture(autouse=True)
def _collect_qt_garbage_on_the_gui_thread() -> Iterator[None]:
    """Collect cycles after each UI test on the main thread, so a later test's worker
    threads never run the collector over Qt objects (which crashes)."""
    yield
    gc.collect()


def make_client_factory(server: OpenAIServer, **kw: Any) -> Callable[[], LLMClient]:
    """A client factory for the local scripted server (fast retries)."""

    def factory() -> LLMClient:
        cfg = EndpointConfig(base_url=server.base_url, api_key="test-key", model="test-model",
                             max_retries=kw.pop("max_retries", 0), backoff_base=0.01, timeout=10.0, **kw)
        return LLMClient(cfg)

    return factory


@pytest.fixture
def reporter(tmp_path: Path) -> ErrorReporter:
    """An error reporter writing its crash log under ``tmp_path``."""
    return ErrorReporter(tmp_path / "data")


@pytest.fixture
async def controller(qapp: Any, llm_server: OpenAIServer, reporter: ErrorReporter) -> AsyncIterator[AppController]:
    """A controller talking to the scripted server; shut down (threads joined) afterwards."""
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    yield ctl
    await ctl.shutdown()

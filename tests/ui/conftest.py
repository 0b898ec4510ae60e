"""UI test fixtures: async tests run on a qasync loop, so Qt events flow while they await."""

from __future__ import annotations

import asyncio
import functools
import gc
import inspect
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from app.llm.client.llm_client import EndpointConfig, LLMClient
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.event_loop import new_event_loop
from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer
from tests.ui.ui_helpers import close_window

#: Seconds an async UI test may take before it fails with the stacks of its tasks. pytest-timeout
#: (thread method, 300 s) stays the last resort: its signal method cannot interrupt Qt's exec().
ASYNC_UI_TEST_DEADLINE_S = 150.0


def _qt_loop() -> asyncio.AbstractEventLoop:
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    return new_event_loop(app)


def _with_deadline(test: Callable[..., Any], seconds: float) -> Callable[..., Any]:
    """``test`` failing after ``seconds`` with the stack of every task still waiting, instead of hanging."""

    @functools.wraps(test)
    async def run(*args: Any, **kwargs: Any) -> Any:
        task = asyncio.ensure_future(test(*args, **kwargs))
        done, _pending = await asyncio.wait([task], timeout=seconds)
        if done:
            return task.result()
        print(f"\n{test.__name__}: still waiting after {seconds:.0f} s; tasks:", file=sys.stderr)
        for other in asyncio.all_tasks():
            other.print_stack(file=sys.stderr)
        task.cancel()
        await asyncio.wait([task], timeout=5.0)
        pytest.fail(f"async UI test did not finish within {seconds:.0f} s (stacks above)")

    return run


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every async test under tests/ui a deadline enforced by its own event loop."""
    here = Path(__file__).parent
    for item in items:
        test = getattr(item, "obj", None)
        if inspect.iscoroutinefunction(test) and here in Path(str(item.path)).parents:
            marker = item.get_closest_marker("timeout")
            # below pytest-timeout's own limit, so this failure (which keeps the session going) comes first
            seconds = 0.8 * float(marker.args[0]) if marker and marker.args else ASYNC_UI_TEST_DEADLINE_S
            item.obj = _with_deadline(test, seconds)  # type: ignore[attr-defined]


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


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer,
                 reporter: ErrorReporter) -> AsyncIterator[MainWindow]:
    """A shown main window whose controller talks to the scripted server, its settings under ``tmp_path``;
    closed afterwards. A test module that needs another window defines its own ``window``."""
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)

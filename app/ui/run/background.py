"""A coroutine run in a worker thread with its own asyncio loop, its result handed to the GUI thread.

Kept apart from :mod:`app.ui.run.connection_check` (which loads the model client) so panels that
only need a worker — the 企业资料 import, the template check — do not load the model layer when
the window starts.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject

from app.ui.widgets.polled_worker import PolledWorker


class BackgroundCoroutine(PolledWorker):
    """Runs coroutines one at a time in a worker thread with its own asyncio loop.

    The worker never touches Qt: it stores its result and a ``QTimer`` in the GUI thread
    notices it and emits ``finished``, so every Qt call happens on the GUI thread.

    ``on_error`` turns an exception the coroutine raised into the result (default: the exception).

    Signals:
        finished(object): the coroutine's result (None when cancelled), in the GUI thread.
    """

    def __init__(self, parent: QObject | None = None, on_error: Callable[[Exception], Any] | None = None) -> None:
        super().__init__(parent, 20, "backgroundCoroutinePoll")
        self._on_error = on_error
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._lock = threading.Lock()

    def is_running(self) -> bool:
        """Whether a coroutine is still running (or its result not yet delivered)."""
        return self.running()

    def start(self, factory: Callable[[], Coroutine[Any, Any, Any]], name: str = "bidstudio-check") -> bool:
        """Run ``factory()`` in the worker; False when one is already running."""
        return self._begin(lambda: self._run(factory), name)

    def cancel(self) -> None:
        """Ask the running coroutine to stop (it is cancelled inside its own loop)."""
        with self._lock:
            if self._loop is not None and self._task is not None and not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self._task.cancel)

    def wait(self, timeout: float = 5.0) -> bool:
        """Join the worker; True when it has ended."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def shutdown(self) -> None:
        """Cancel and join (dialog closing); no ``finished`` is emitted afterwards."""
        self.cancel()
        self.wait()
        self.timer.stop()
        self._thread = None

    def _run(self, factory: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        loop = asyncio.new_event_loop()
        result: Any = None
        try:
            with self._lock:
                self._loop = loop
                self._task = loop.create_task(factory())
            try:
                result = loop.run_until_complete(self._task)
            except asyncio.CancelledError:
                result = None
            except Exception as exc:  # never let a job kill the thread silently
                result = self._on_error(exc) if self._on_error is not None else exc
        finally:
            with self._lock:
                self._task = None
                self._loop = None
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()
        self._result = result

"""One worker thread at a time whose result a timer in the GUI thread hands on as ``finished``.

The worker never touches Qt: it stores its result, and a ``QTimer`` polling in the GUI thread notices
that the thread has ended and emits ``finished`` there, so every Qt call stays on the GUI thread. Shared by
:class:`app.ui.run.background.BackgroundCoroutine` (a coroutine in its own loop) and
:class:`app.ui.library.background.BlockingCall` (a blocking call).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal


class PolledWorker(QObject):
    """A worker thread whose ``_result`` is emitted by ``finished`` in the GUI thread once the thread ends.

    Signals:
        finished(object): the worker's result, in the GUI thread.
    """

    finished = Signal(object)

    def __init__(self, parent: QObject | None = None, interval_ms: int = 20, timer_name: str = "") -> None:
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        self._result: Any = None
        self.timer = QTimer(self)
        if timer_name:
            self.timer.setObjectName(timer_name)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._on_poll)

    def running(self) -> bool:
        """Whether a worker is under way (or its result not yet delivered)."""
        return self._thread is not None

    def _begin(self, target: Callable[[], None], name: str) -> bool:
        """Start ``target`` in a worker thread; False when one is still running."""
        if self._thread is not None:
            return False
        self._result = None
        self._thread = threading.Thread(target=target, name=name)
        self._thread.start()
        self.timer.start()
        return True

    def _on_poll(self) -> None:
        thread = self._thread
        if thread is None or thread.is_alive():
            return
        thread.join()
        self._thread = None
        self.timer.stop()
        self.finished.emit(self._result)

"""Library work off the GUI thread, and a server library that comes and goes.

:class:`BlockingCall` runs one blocking function (a connection check, a copy) in a worker
thread and delivers its result on the GUI thread. :class:`LibraryMonitor` pings an office
library in the background — every few seconds while it is down, less often while it is up —
and says when it goes away or comes back, so the docks show a banner and the app reconnects
by itself. :func:`guarded` turns a library failure inside a panel's slot into a Chinese
message instead of an error dialog.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QObject, QTimer, Signal

from app.library.store import LibraryError, LibraryStore
from app.ui.widgets.polled_worker import PolledWorker

F = TypeVar("F", bound=Callable[..., Any])
#: Seconds between pings while the server is down / up.
RETRY_DOWN_S = 3.0
CHECK_UP_S = 15.0


class BlockingCall(PolledWorker):
    """Runs one blocking call at a time in a worker thread; ``finished`` carries its result (or the exception).

    Signals:
        finished(object): the return value, or the exception the call raised, in the GUI thread.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent, 30)

    def start(self, work: Callable[[], Any], name: str = "bidstudio-library") -> bool:
        """Run ``work()`` in a worker thread; False when one is still running."""

        def run() -> None:
            try:
                self._result = work()
            except Exception as exc:  # delivered to the GUI thread, which shows it
                self._result = exc

        return self._begin(run, name)

    def wait(self, timeout: float = 15.0) -> None:
        """Join the worker (closing); its result is dropped."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        self.timer.stop()
        self._thread = None


class LibraryMonitor(QObject):
    """Watches a library that lives on a server: pings it in the background and reports changes.

    Signals:
        changed(bool, str): available now or not, and the Chinese reason when not.
    """

    changed = Signal(bool, str)

    def __init__(self, store: LibraryStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.available = False
        self.reason = str(getattr(store, "last_error", "")) or "正在连接办公室资料库……"
        self._call = BlockingCall(self)
        self._call.finished.connect(self._on_pinged)
        self.timer = QTimer(self)
        self.timer.setObjectName("libraryMonitor")
        self.timer.timeout.connect(self.check_now)
        self.timer.start(int(RETRY_DOWN_S * 1000))

    def check_now(self) -> None:
        """Ping the server now (in the background)."""
        self._call.start(self.store.ping, name="bidstudio-library-ping")

    def failed(self, error: LibraryError) -> None:
        """A call just failed: the library is unavailable until a ping succeeds."""
        self._set(False, error.message_zh)
        self.check_now()

    def stop(self) -> None:
        """Stop pinging and wait for a ping under way (closing)."""
        self.timer.stop()
        self._call.wait()

    def _on_pinged(self, result: object) -> None:
        ok = result is True
        reason = "" if ok else (str(getattr(self.store, "last_error", "")) or "办公室资料库服务器无法连接")
        self._set(ok, reason)

    def _set(self, ok: bool, reason: str) -> None:
        self.timer.setInterval(int((CHECK_UP_S if ok else RETRY_DOWN_S) * 1000))
        if ok != self.available or (not ok and reason != self.reason):
            self.available, self.reason = ok, reason
            self.changed.emit(ok, reason)


def guarded(default: Any) -> Callable[[F], F]:
    """A panel slot that returns ``default`` after a :class:`LibraryError`, handing it to the panel's
    ``library_failed`` (set by the window: a banner and a reconnect) instead of raising it."""
    def wrap(method: F) -> F:
        @functools.wraps(method)
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except LibraryError as exc:
                report = getattr(self, "library_failed", None)
                if callable(report):
                    report(exc)
                return default
        return run  # type: ignore[return-value]
    return wrap

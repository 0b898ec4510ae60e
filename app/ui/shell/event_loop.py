"""The asyncio event loop the app (and its UI tests) run on: qasync's, with two gaps closed.

qasync 0.28's ``QEventLoop.run_forever`` runs ``QApplication.exec()`` directly and skips what
``asyncio.BaseEventLoop.run_forever`` sets up around its own loop:

* **async generator hooks.** Without them an abandoned async generator (an HTTP stream
  the user cancelled) is finalised by the garbage collector outside any task: its
  ``finally`` cannot await the connection's close, the connection leaks and an
  "unknown async library" error is printed. With the hooks, asyncio schedules
  ``aclose()`` as a task on the loop, and ``shutdown_asyncgens()`` closes the rest.
* **the closed-loop check.** qasync queues ``call_soon``/``call_later`` on a closed loop
  into a stopped timer, so the callback silently never runs and whatever awaits it hangs
  forever. Stock asyncio raises ``RuntimeError("Event loop is closed")``; so does this loop.
"""

from __future__ import annotations

import sys
from typing import Any

import qasync
from PySide6.QtWidgets import QApplication


class QtEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    """``qasync.QEventLoop`` that installs asyncgen hooks while running and refuses work once closed."""

    def run_forever(self) -> Any:
        """Run the Qt event loop with this loop's async generator hooks installed."""
        old_hooks = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook)
        try:
            return super().run_forever()
        finally:
            sys.set_asyncgen_hooks(*old_hooks)

    def call_later(self, delay: float, callback: Any, *args: Any, context: Any = None) -> Any:
        """As qasync's, but a closed loop raises instead of dropping the callback."""
        self._check_closed()
        return super().call_later(delay, callback, *args, context=context)


def new_event_loop(app: QApplication | None = None) -> QtEventLoop:
    """A :class:`QtEventLoop` on ``app`` (the running ``QApplication`` by default)."""
    application = app or QApplication.instance()
    assert isinstance(application, QApplication), "create the QApplication first"
    return QtEventLoop(application)

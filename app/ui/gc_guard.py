"""Run Python's garbage collector on the GUI thread only.

A Qt object caught in a reference cycle is destroyed when the collector runs — and the
collector runs in whichever thread happens to allocate at that moment. When that is a
worker thread (reading a PDF, logging from a pool), Qt objects are deleted from the wrong
thread and the process can crash. :class:`GuiThreadCollector` switches automatic
collection off and collects from a GUI-thread timer instead, generation by generation
with the interpreter's own thresholds, so pauses stay short and happen where Qt is safe.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

#: How often the GUI thread checks whether a collection is due.
CHECK_MS = 500


class GuiThreadCollector(QObject):
    """Disables automatic ``gc`` and collects on a GUI-thread timer (re-enables on ``stop``)."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = CHECK_MS) -> None:
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        self.collections = 0
        gc.disable()
        self.timer = QTimer(self)
        self.timer.setObjectName("gcTimer")
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.check)
        self.timer.start()

    def check(self) -> None:
        """Collect the generations whose thresholds are exceeded (youngest first)."""
        c0, c1, c2 = gc.get_count()
        t0, t1, t2 = self.threshold
        if c0 > t0:
            generation = 2 if (c1 > t1 and c2 > t2) else 1 if c1 > t1 else 0
            gc.collect(generation)
            self.collections += 1

    def stop(self) -> None:
        """Give collection back to the interpreter."""
        self.timer.stop()
        gc.enable()

"""The PySide6 6.12.0 reference leaks on True/None (emit, void methods) are detected and neutralised."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, QTimer, Signal

from app.ui.pyside_workarounds import emit_leaks_true, protect_bool_refcounts, void_call_leaks_none


class _Emitter(QObject):
    ping = Signal(str)


def test_many_emits_cannot_exhaust_true() -> None:
    applied = protect_bool_refcounts()
    assert applied == (sys.version_info < (3, 12) and (emit_leaks_true() or void_call_leaks_none()))
    if applied:
        assert min(sys.getrefcount(True), sys.getrefcount(False), sys.getrefcount(None)) > 1 << 39
    e = _Emitter()
    got: list[str] = []
    e.ping.connect(got.append)
    for i in range(5000):
        e.ping.emit(str(i))
    assert len(got) == 5000
    timer = QTimer()
    for _ in range(5000):
        timer.setInterval(5)  # a void method
    assert sys.getrefcount(True) > 1000 and sys.getrefcount(None) > 1000  # far from deallocation


def test_garbage_is_collected_on_the_gui_thread_timer(qtbot: object) -> None:
    import gc

    from app.ui.gc_guard import GuiThreadCollector

    collector = GuiThreadCollector(interval_ms=10)
    try:
        assert not gc.isenabled()
        for _ in range(5000):  # cycles the interpreter would otherwise collect at any allocation
            a: list[object] = []
            a.append(a)
        qtbot.waitUntil(lambda: collector.collections > 0, timeout=2000)  # type: ignore[attr-defined]
    finally:
        collector.stop()
        collector.deleteLater()
    assert gc.isenabled()

"""The PySide6 emit() reference leak on True is detected and neutralised."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal

from app.ui.pyside_workarounds import emit_leaks_true, protect_bool_refcounts


class _Emitter(QObject):
    ping = Signal(str)


def test_many_emits_cannot_exhaust_true() -> None:
    applied = protect_bool_refcounts()
    assert applied == (sys.version_info < (3, 12) and emit_leaks_true())
    if applied:
        assert sys.getrefcount(True) > 1 << 39 and sys.getrefcount(False) > 1 << 39
    e = _Emitter()
    got: list[str] = []
    e.ping.connect(got.append)
    for i in range(5000):
        e.ping.emit(str(i))
    assert len(got) == 5000
    assert sys.getrefcount(True) > 1000  # far from the deallocation that aborts the interpreter

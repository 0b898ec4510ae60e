"""Work around reference-count bugs of PySide6 6.12.0 that abort the interpreter.

In this build ``SignalInstance.emit()`` returns ``True`` without taking a new reference,
and methods returning ``void`` (``QTimer.start``, ``QWidget.update``, ``processEvents``…)
return ``None`` without one. Every such call from Python drops a reference to ``True`` or
``None``; after enough calls Python deallocates the singleton and aborts ("bool_dealloc",
"none_dealloc"), at the latest while finalising. :func:`protect_bool_refcounts` detects
the leaks and gives ``True``, ``False`` and ``None`` a huge reference reserve — what Python
3.12 does anyway (immortal singletons). It is a no-op when the leaks are absent.
"""

from __future__ import annotations

import ctypes
import sys

_RESERVE = 1 << 40
_applied = False


def emit_leaks_true() -> bool:
    """Whether a Python-side ``emit`` drops a reference to ``True`` in this PySide6 build."""
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(10):
        probe.ping.emit()
    return sys.getrefcount(True) < before


def void_call_leaks_none() -> bool:
    """Whether calling a ``void`` Qt method drops a reference to ``None`` in this build."""
    from PySide6.QtCore import QElapsedTimer

    timer = QElapsedTimer()
    before = sys.getrefcount(None)
    for _ in range(10):
        timer.start()
    return sys.getrefcount(None) < before


def protect_bool_refcounts() -> bool:
    """Give ``True``, ``False`` and ``None`` a reference reserve when PySide leaks them."""
    global _applied
    if _applied:
        return True
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if not (emit_leaks_true() or void_call_leaks_none()):
        return False
    for obj in (True, False, None):
        ctypes.c_ssize_t.from_address(id(obj)).value += _RESERVE
    _applied = True
    return True

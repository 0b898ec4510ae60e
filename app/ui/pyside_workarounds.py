"""Work around a reference-count bug of PySide6 6.12.0 that aborts the interpreter.

``SignalInstance.emit()`` returns ``True`` without taking a new reference, so every
Python-side ``emit`` (ours, Qt's item-model signals emitted from Python, other helpers')
drops one reference to ``True``. After a few thousand emits Python deallocates ``True``
and aborts ("bool_dealloc"), at the latest while finalising. :func:`protect_bool_refcounts`
detects the bug and gives ``True``/``False`` a huge reference reserve, which is what
Python 3.12 does anyway (immortal bools). It is a no-op when the bug is absent.
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


def protect_bool_refcounts() -> bool:
    """Give ``True`` and ``False`` a reference reserve when ``emit`` leaks; True when applied."""
    global _applied
    if _applied:
        return True
    if sys.version_info >= (3, 12) or not emit_leaks_true():
        return False
    if sys.implementation.name != "cpython":
        return False
    for obj in (True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += _RESERVE
    _applied = True
    return True

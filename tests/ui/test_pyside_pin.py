"""PySide6 stays below 6.12: the pin, not a reference-count patch, keeps the interpreter alive.

PySide6 6.12.0 (the only 6.12 release when this was decided) drops a reference to ``True``
on every Python-side ``emit`` — whatever the signal's argument types — and to ``None`` on
every call of a ``void`` method; the interpreter aborts at exit ("bool_dealloc"). Tested
in a separate environment: sending flags as ``int`` does not avoid it. So pyproject pins
``<6.12`` and the app carries no workaround; these checks fail if the pin is lifted onto a
build that still leaks.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import PySide6
from PySide6.QtCore import QElapsedTimer, QObject, Signal

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


class _Flags(QObject):
    running = Signal(bool)
    finished = Signal(bool, str)


def test_installed_pyside_satisfies_the_pin() -> None:
    pin = re.search(r'"PySide6-Essentials>=([\d.]+),<([\d.]+)"', PYPROJECT.read_text(encoding="utf-8"))
    assert pin is not None, "the PySide6 pin moved: re-check the 6.12.0 reference leak before lifting it"
    low, high = _version(pin.group(1)), _version(pin.group(2))
    assert low <= _version(PySide6.__version__) < high


def test_emits_and_void_calls_keep_their_references() -> None:
    flags = _Flags()
    got: list[bool] = []
    flags.running.connect(got.append)
    flags.finished.connect(lambda ok, _msg: got.append(ok))
    true_before, none_before = sys.getrefcount(True), sys.getrefcount(None)
    for i in range(100):
        flags.running.emit(i % 2 == 0)
        flags.finished.emit(True, "完成")
    timer = QElapsedTimer()
    for _ in range(100):
        timer.start()  # a void method
    assert len(got) == 200
    assert sys.getrefcount(True) >= true_before - 10  # a leaking build loses one per call
    assert sys.getrefcount(None) >= none_before - 10

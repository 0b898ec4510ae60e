"""BidStudio ui layer.

Importing it loads QtCore and makes PySide's import hook cheaper: for every module imported
after PySide6, ``shibokensupport.feature`` asks whether the module's source mentions
"PySide6" and gets that source through ``inspect.getsource`` (tokenizing each file: about
0.13 s over the ~200 modules the window imports at start-up). Reading the file's bytes answers
the same question; anything that is not a plain ``.py`` file goes to PySide's own check.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import PySide6.QtCore  # noqa: F401  (installs PySide's import hook, patched below)


def _cheaper_pyside_import_hook() -> None:
    feature: Any = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if original is None or getattr(original, "bidstudio", False):
        return

    def mod_uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            try:
                with open(path, "rb") as fh:
                    return b"PySide6" in fh.read()
            except OSError:
                pass
        return bool(original(module))

    mod_uses_pyside.bidstudio = True  # type: ignore[attr-defined]
    feature._mod_uses_pyside = mod_uses_pyside


_cheaper_pyside_import_hook()

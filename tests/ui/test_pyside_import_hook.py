"""The cheaper PySide import hook (app/ui/__init__.py) answers like PySide's own check."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import app.ui  # noqa: F401  (installs the hook)


def test_hook_reads_the_file_and_agrees_with_pysides_answer(tmp_path: Path) -> None:
    feature = sys.modules["shibokensupport.feature"]
    check = feature._mod_uses_pyside
    assert getattr(check, "bidstudio", False)
    uses = tmp_path / "uses_qt.py"
    uses.write_text("from PySide6.QtCore import QObject\n", encoding="utf-8")
    plain = tmp_path / "plain.py"
    plain.write_text("import json\n", encoding="utf-8")
    for path, expected in ((uses, True), (plain, False)):
        module = types.ModuleType(path.stem)
        module.__file__ = str(path)
        assert check(module) is expected
    assert check(sys) is False  # a builtin module goes to PySide's own check
    import app.ui.outline.view as qt_module

    assert check(qt_module) is True

"""Help → 关于标书工坊, opened through its menu action: version, licence and where the source is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

import app
from app.core import about
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


async def test_the_about_dialog_from_the_help_menu_says_version_licence_and_source(
        qapp: Any, tmp_path: Path, reporter: ErrorReporter) -> None:
    qapp.setQuitOnLastWindowClosed(False)
    win = MainWindow(AppController(reporter=reporter), reporter=reporter, model_configured=True,
                     qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    win.show()
    try:
        actions = [a for menu in win.menuBar().actions() if menu.menu() is not None
                   for a in menu.menu().actions() if a.text() == "关于标书工坊"]
        assert len(actions) == 1
        actions[0].trigger()
        await wait_for(lambda: win.findChild(QMessageBox, "aboutBox") is not None)
        box = win.findChild(QMessageBox, "aboutBox")
        assert box is not None and box.isVisible()
        for needed in (f"版本 {app.__version__}", "AGPL-3.0-or-later", about.source_archive_name()):
            assert needed in box.text()
        box.close()
    finally:
        await close_window(win)

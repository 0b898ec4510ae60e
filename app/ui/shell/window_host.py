"""The main window as the feature modules see it, without importing the window module.

``export.flow`` and ``export.response_tables`` work on the window (its controller, views,
settings, status bar and docks); ``shell.main_window`` in turn builds them. Typing them against
:class:`WindowHost` instead of ``MainWindow`` keeps that a one-way import. ``MainWindow`` is a
``WindowHost``: the attributes declared here are set by its layout and session mixins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QDockWidget, QMainWindow

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QAction

    from app.ui.outline.view import OutlineView
    from app.ui.run.controller import AppController
    from app.ui.shell.errors import ErrorReporter
    from app.ui.tender.analysis_view import AnalysisView
    from app.ui.tender.breakdown_view import BreakdownView


class WindowHost(QMainWindow):
    """The main window's parts that other packages use (declared for type checkers only)."""

    if TYPE_CHECKING:
        controller: AppController
        reporter: ErrorReporter | None
        qsettings: QSettings
        mode_box: QComboBox
        outline_view: OutlineView
        analysis_view: AnalysisView
        breakdown_view: BreakdownView
        breakdown_dock: QDockWidget
        act_save: QAction
        section_dock: QDockWidget

        def display_name(self) -> str:
            """The project's name for titles and suggested file names."""

        def show_breakdown(self) -> None:
            """Raise the 需求拆解 dock."""

        def show_error(self, title: str, message: str, details: str) -> None:
            """A modal error in the window."""

        def open_settings(self, tab: str = "") -> None:
            """Open the settings dialog at ``tab`` ("library": 资料库)."""

"""Where a file dialog starts: the folder the user last chose a file in, else their documents.

An empty start path makes Qt open the process's working folder — for an installed app, the
install folder, which holds nothing of the user's. Every file dialog of the window starts at
:func:`start_folder` and calls :func:`remember_folder` with what was chosen (kept in the app
settings' ``last_dir``, so the next start remembers it too); :func:`open_file_dialog` does both
for a dialog opened without a nested event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget


def _settings(widget: QWidget | None) -> Any:
    """The app settings (``last_dir``) of the window ``widget`` lives in, or None."""
    w: Any = widget
    while w is not None:
        settings = getattr(w, "settings", None)
        if settings is not None and hasattr(settings, "last_dir"):
            return settings
        w = w.parent() if hasattr(w, "parent") else None
    return None


def documents_folder() -> Path:
    """The user's documents folder (their home when the system names none)."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    path = Path(docs) if docs else Path.home()
    return path if path.is_dir() else Path.home()


def start_folder(widget: QWidget | None, name: str = "") -> str:
    """The folder (with ``name`` appended, for a save dialog) a file dialog opened from ``widget`` starts in."""
    settings = _settings(widget)
    last = Path(settings.last_dir) if settings is not None and settings.last_dir else None
    folder = last if last is not None and last.is_dir() else documents_folder()
    return str(folder / name) if name else str(folder)


def remember_folder(widget: QWidget | None, chosen: str | Path) -> None:
    """Keep the folder of what the user chose, for the next file dialog."""
    if not chosen:
        return
    settings = _settings(widget)
    path = Path(chosen)
    if settings is not None:
        settings.last_dir = str(path if path.is_dir() else path.parent)


def open_file_dialog(parent: QWidget, title: str, filters: str, chosen: Callable[[list[str]], object], *,
                     mode: str = "open", name: str = "") -> QFileDialog:
    """A file dialog opened (not exec'd: rule 5) at :func:`start_folder`; ``chosen(paths)`` runs when the
    user accepts, after the folder is remembered.

    ``mode``: "open" (one existing file), "open_many", "folder" or "save" (``name`` suggested).
    """
    dialog = QFileDialog(parent, title, start_folder(parent, name if mode == "save" else ""), filters)
    dialog.setObjectName("fileDialog")
    if mode == "save":
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    else:
        dialog.setFileMode({"open": QFileDialog.FileMode.ExistingFile, "open_many": QFileDialog.FileMode.ExistingFiles,
                            "folder": QFileDialog.FileMode.Directory}[mode])
    if mode == "folder":
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)

    def accepted() -> None:
        files = dialog.selectedFiles()
        if files:
            remember_folder(parent, files[0])
            chosen(files)

    dialog.accepted.connect(accepted)
    dialog.finished.connect(lambda _result: dialog.deleteLater())
    dialog.open()
    return dialog

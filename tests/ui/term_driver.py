"""Drives the real ``app.ui.shell.main.run --sample``: the sample project, one edit, then waits to be
terminated (``test_terminate.py`` sends SIGTERM or SIGINT). Prints ``edited`` once the edit is made."""

from __future__ import annotations

import os

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.ui.shell.main import run


def main() -> int:
    app = QApplication(["bidstudio"])
    state = {"edited": False}

    def tick() -> None:
        win = next((w for w in app.topLevelWidgets() if w.objectName() == "mainWindow" and w.isVisible()), None)
        if win is None or state["edited"]:
            return
        c = win.controller  # type: ignore[attr-defined]
        if c.document is not None and len(c.outline) and not c.tasks:
            view = win.outline_view  # type: ignore[attr-defined]
            view.select_path((0,))
            view.add_child("终止前的修改", edit=False)
            state["edited"] = True
            print("edited", flush=True)

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(50)
    QTimer.singleShot(90_000, lambda: os._exit(3))  # a hang fails the test instead of stalling it
    return run(["bidstudio", "--sample"])


if __name__ == "__main__":
    raise SystemExit(main())

"""Drives the real ``app.ui.shell.main.run --sample`` like a user: the sample project, edit, save, edit, 退出 (Ctrl+Q), 保存.

Run as a script by ``test_quit.py`` (a separate process: ``run`` owns the QApplication and
its loop). ``sys.argv[1]`` is the project file to save to.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QMessageBox

from app.ui.shell.main import run

STEPS = ("sample", "edit-save-edit", "quit", "answer", "wait")


def main() -> int:
    target = Path(sys.argv[1])
    app = QApplication(["bidstudio"])
    state = {"step": 0}

    def window() -> object | None:
        return next((w for w in app.topLevelWidgets() if w.objectName() == "mainWindow" and w.isVisible()), None)

    def tick() -> None:
        win: object = window()
        if win is None:
            return
        step = STEPS[state["step"]]
        c = win.controller  # type: ignore[attr-defined]
        if step == "sample" and c.document is not None and len(c.outline) and not c.tasks:
            state["step"] += 1
        elif step == "edit-save-edit":
            view = win.outline_view  # type: ignore[attr-defined]
            view.select_path((0,))
            view.add_child("第一章补充", edit=False)
            assert win.save_to(target)  # type: ignore[attr-defined]
            view.select_path((0,))
            view.add_child("再补一节", edit=False)
            state["step"] += 1
        elif step == "quit":
            assert win.act_quit.shortcut() == QKeySequence(QKeySequence.StandardKey.Quit)  # type: ignore[attr-defined]
            win.act_quit.trigger()  # type: ignore[attr-defined]
            state["step"] += 1
        elif step == "answer":
            box = win.findChild(QMessageBox, "unsavedBox")  # type: ignore[attr-defined]
            if box is not None and box.isVisible():
                next(b for b in box.buttons() if b.text() == "保存").click()
                state["step"] += 1

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(50)
    QTimer.singleShot(60_000, lambda: os._exit(3))  # a hang fails the test instead of stalling it
    return run(["bidstudio", "--sample"])


if __name__ == "__main__":  # the document pane's worker process re-imports this module
    sys.exit(main())

"""Drives the real ``app.ui.shell.main.run``: clicks 恢复 in the recovery question the start offers,
waits until the restore is over, prints ``restored`` and kills its own process (SIGKILL) at once —
long before the 60 s autosave period (``test_recovery_kill.py`` checks what the next start finds)."""

from __future__ import annotations

import os
import signal

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from app.ui.shell.main import run


def main() -> int:
    app = QApplication(["bidstudio"])
    state = {"clicked": False}

    def tick() -> None:
        win = next((w for w in app.topLevelWidgets() if w.objectName() == "mainWindow" and w.isVisible()), None)
        if win is None:
            return
        if not state["clicked"]:
            box = win.findChild(QMessageBox, "recoveryBox")
            if box is not None and box.isVisible():
                next(b for b in box.buttons() if b.text() == "恢复").click()
                state["clicked"] = True
            return
        c = win.controller  # type: ignore[attr-defined]
        if len(c.outline) and "recovery" not in c.tasks:
            print("restored", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(20)
    QTimer.singleShot(90_000, lambda: os._exit(3))  # a hang fails the test instead of stalling it
    return run(["bidstudio"])


if __name__ == "__main__":
    raise SystemExit(main())

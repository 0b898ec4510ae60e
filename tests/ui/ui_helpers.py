"""Small helpers shared by the main-window tests: waiting, clicking, closing a window."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QMessageBox


async def wait_for(predicate: Callable[[], object], timeout: float = 10.0) -> None:
    """Let the event loop run until ``predicate()`` is true; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


def click_button(box: QMessageBox, text: str) -> None:
    """Click the button of ``box`` labelled ``text``."""
    for button in box.buttons():
        if button.text() == text:
            button.click()
            return
    raise AssertionError(f"no button {text}")


async def close_window(win: Any) -> None:
    """Close a MainWindow without the unsaved-changes question and stop its controller."""
    for dialog in list(win.error_dialogs):
        dialog.close()
    win._close_ok = True
    win.close()
    await win.controller.shutdown()
    win.deleteLater()


async def click_generate(window: Any, qtbot: Any) -> tuple[int, str]:
    """Click 生成目录 and wait until the run finished; (ok, message) of ``run_finished``."""
    from PySide6.QtCore import Qt

    finished: list[tuple[int, str]] = []
    window.controller.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    qtbot.mouseClick(window.generate_button, Qt.MouseButton.LeftButton)
    await wait_for(lambda: bool(finished) and not window.controller.busy, timeout=60)
    return finished[-1]


async def regenerate_chapter_by_menu(window: Any, qtbot: Any, path: tuple[int, ...]) -> None:
    """Right-click the chapter at ``path`` in the outline tree, choose 重新生成本章… and click OK in its dialog."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QDialog, QMenu

    view = window.outline_view
    rect = view.visualRect(window.controller.model.index_for_path(path))
    view.contextMenuEvent(QContextMenuEvent(QContextMenuEvent.Reason.Mouse, rect.center(),
                                            view.viewport().mapToGlobal(rect.center())))
    menu = next(m for m in view.findChildren(QMenu) if m.isVisible())
    next(a for a in menu.actions() if a.text().startswith("重新生成本章")).trigger()
    menu.close()
    await wait_for(lambda: (d := window.findChild(QDialog, "regenerateDialog")) is not None and d.isVisible())
    dialog = window.findChild(QDialog, "regenerateDialog")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

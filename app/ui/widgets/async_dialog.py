"""Await a dialog without ``exec()``: a future completed by the dialog's ``finished`` signal.

``exec()`` inside a coroutine would start a nested event loop under the qasync loop;
instead the dialog is opened with ``open()`` and the coroutine awaits its result (rule 5).
"""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QDialog, QMessageBox, QWidget


async def run_dialog(dialog: QDialog) -> int:
    """Open ``dialog`` window-modally and return its result code when it finishes."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[int] = loop.create_future()

    def finished(result: int) -> None:
        if not future.done():
            future.set_result(int(result))

    dialog.finished.connect(finished)
    dialog.open()
    try:
        return await future
    finally:
        dialog.finished.disconnect(finished)


async def ask_save_changes(parent: QWidget | None, name: str) -> str:
    """Ask about unsaved changes: returns "save", "discard" or "cancel"."""
    box = QMessageBox(parent)
    box.setObjectName("unsavedBox")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("未保存的修改")
    box.setText(f"“{name}”有未保存的修改，是否保存？")
    save = box.addButton("保存", QMessageBox.ButtonRole.AcceptRole)
    discard = box.addButton("不保存", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton("取消", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(save)
    await run_dialog(box)
    clicked = box.clickedButton()
    box.deleteLater()
    if clicked is save:
        return "save"
    if clicked is discard:
        return "discard"
    return "cancel"

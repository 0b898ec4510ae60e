"""Await a dialog without ``exec()``: a future completed by the dialog's ``finished`` signal.

``exec()`` inside a coroutine would start a nested event loop under the qasync loop;
instead the dialog is opened with ``open()`` and the coroutine awaits its result (rule 5).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from PySide6.QtWidgets import QDialog, QMessageBox, QWidget

Role = QMessageBox.ButtonRole
#: The button every question ends with: Escape and closing the box count as clicking it.
CANCEL: tuple[str, str, QMessageBox.ButtonRole] = ("cancel", "取消", QMessageBox.ButtonRole.RejectRole)


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


async def ask_choice(parent: QWidget | None, name: str, icon: QMessageBox.Icon, title: str, text: str,
                     buttons: Sequence[tuple[str, str, QMessageBox.ButtonRole]], *, informative: str = "",
                     default: str = "", fallback: str = "cancel") -> str:
    """A question box with one button per ``(key, label, role)``; the key of the button clicked.

    ``fallback`` is returned when the box closes without a button of ours (the window closed).
    """
    box = QMessageBox(parent)
    box.setObjectName(name)
    box.setIcon(icon)
    box.setWindowTitle(title)
    box.setText(text)
    if informative:
        box.setInformativeText(informative)
    made = {key: box.addButton(label, role) for key, label, role in buttons}
    if default in made:
        box.setDefaultButton(made[default])
    await run_dialog(box)
    clicked = box.clickedButton()
    box.deleteLater()
    return next((key for key, button in made.items() if button is clicked), fallback)


async def ask_save_changes(parent: QWidget | None, name: str) -> str:
    """Ask about unsaved changes: returns "save", "discard" or "cancel"."""
    return await ask_choice(parent, "unsavedBox", QMessageBox.Icon.Warning, "未保存的修改",
                            f"“{name}”有未保存的修改，是否保存？",
                            [("save", "保存", Role.AcceptRole), ("discard", "不保存", Role.DestructiveRole), CANCEL],
                            default="save")

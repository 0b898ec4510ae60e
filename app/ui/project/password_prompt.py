"""Ask for a PDF's open password when a tender needs one, and open it with what the user types.

The document layer raises ``PasswordRequiredError`` (no password given) or
``WrongPasswordError`` (the one given does not open it); the app then asks, window-modally
and without ``exec()``, and tries again until the file opens or the user cancels.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

from app.ui.widgets.async_dialog import run_dialog

if TYPE_CHECKING:
    from app.documents.model import TenderDocument
    from app.ui.run.controller import AppController


def password_dialog(parent: QWidget | None, name: str, wrong: bool) -> QInputDialog:
    """The password question for ``name`` (show with ``open()``; the text is masked)."""
    dialog = QInputDialog(parent)
    dialog.setObjectName("pdfPasswordDialog")
    dialog.setWindowTitle("需要打开密码")
    prompt = f"“{name}”设置了打开密码，请输入密码："
    if wrong:
        prompt = f"密码不正确，无法打开“{name}”。请重新输入密码："
    dialog.setLabelText(prompt)
    dialog.setTextEchoMode(QLineEdit.EchoMode.Password)
    dialog.setOkButtonText("打开")
    dialog.setCancelButtonText("取消")
    return dialog


async def ask_pdf_password(parent: QWidget | None, name: str, wrong: bool = False) -> str | None:
    """The password the user typed, or None when they cancelled."""
    dialog = password_dialog(parent, name, wrong)
    accepted = await run_dialog(dialog) == QInputDialog.DialogCode.Accepted.value
    text = dialog.textValue()
    dialog.deleteLater()
    return text if accepted else None


async def open_tender_asking_password(controller: AppController, parent: QWidget | None,
                                      path: Path) -> TenderDocument | None:
    """Open ``path`` through the controller, asking for the PDF password as often as needed.

    Returns None when the user cancels the question; other errors propagate unchanged.
    """
    from app.documents.errors import PasswordRequiredError, WrongPasswordError

    password: str | None = None
    while True:
        try:
            return await controller.open_tender(path, password=password)
        except PasswordRequiredError as exc:
            password = await ask_pdf_password(parent, path.name, wrong=isinstance(exc, WrongPasswordError)
                                              or password is not None)
            if password is None:
                controller.stage_changed.emit(f"未打开 {path.name}：需要打开密码")
                return None

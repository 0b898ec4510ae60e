"""The window facing a locked PDF and broken recovery files: it asks, explains and keeps going."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QDialogButtonBox, QInputDialog, QLineEdit, QMessageBox, QPushButton

from app.core.settings_model import AppSettings
from app.ui.project.session import SessionWiring
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorDialog, ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.document_fixtures import encrypted_pdf
from tests.hostile_files import write_recovery_file
from tests.ui.ui_helpers import click_button, close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

WindowFactory = Callable[[], MainWindow]


@pytest.fixture
async def make_window(qapp: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[WindowFactory]:
    """Windows with isolated data folders, closed and shut down afterwards."""
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BIDSTUDIO_CONFIG_DIR", str(tmp_path / "config"))
    qapp.setQuitOnLastWindowClosed(False)
    made: list[MainWindow] = []

    def make() -> MainWindow:
        ctl = AppController(reporter=ErrorReporter(tmp_path / "data"))
        win = MainWindow(ctl, reporter=ctl.reporter,
                         qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
        win.show()
        made.append(win)
        return win

    yield make
    for win in made:
        await close_window(win)
    await asyncio.sleep(0)


async def _password_dialog(window: MainWindow) -> QInputDialog:
    found: list[QInputDialog] = []

    def visible() -> bool:
        found[:] = [d for d in window.findChildren(QInputDialog, "pdfPasswordDialog") if d.isVisible()]
        return bool(found)

    await wait_for(visible)
    return found[0]


def _answer(qtbot: Any, dialog: QInputDialog, text: str | None) -> None:
    """Type ``text`` into the masked field and press 打开 (or press 取消 when None)."""
    field = dialog.findChild(QLineEdit)
    assert field is not None and field.echoMode() == QLineEdit.EchoMode.Password
    buttons = dialog.findChild(QDialogButtonBox)
    assert buttons is not None
    if text is None:
        buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
        return
    field.clear()
    qtbot.keyClicks(field, text)
    ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert isinstance(ok, QPushButton) and ok.text() == "打开"
    ok.click()


async def test_a_locked_pdf_asks_for_its_password_until_it_opens(make_window: WindowFactory, qtbot: Any,
                                                                 tmp_path: Path) -> None:
    window = make_window()
    locked = encrypted_pdf(tmp_path / "加密招标文件.pdf", user_pw="pw-123")
    opening = asyncio.ensure_future(window.open_path(locked))
    first = await _password_dialog(window)
    assert "设置了打开密码" in first.labelText()
    _answer(qtbot, first, "wrong")
    await wait_for(lambda: any(d.isVisible() and "密码不正确" in d.labelText()
                               for d in window.findChildren(QInputDialog, "pdfPasswordDialog")))
    second = next(d for d in window.findChildren(QInputDialog, "pdfPasswordDialog") if d.isVisible())
    _answer(qtbot, second, "pw-123")
    await asyncio.wait_for(opening, 20)
    assert window.controller.document is not None and window.controller.tender_path == locked
    assert window.controller.tender_password == "pw-123"
    assert "加密招标文件" in window.windowTitle()
    assert not [d for d in window.findChildren(ErrorDialog) if d.isVisible()]


async def test_cancelling_the_password_question_opens_nothing_and_shows_no_error(
        make_window: WindowFactory, qtbot: Any, tmp_path: Path) -> None:
    window = make_window()
    locked = encrypted_pdf(tmp_path / "locked.pdf", user_pw="secret")
    opening = asyncio.ensure_future(window.open_path(locked))
    _answer(qtbot, await _password_dialog(window), None)
    await asyncio.wait_for(opening, 20)
    assert window.controller.document is None
    assert not [d for d in window.findChildren(ErrorDialog) if d.isVisible()]


async def test_broken_recovery_files_are_set_aside_with_a_note_and_good_work_is_offered(
        make_window: WindowFactory, tmp_path: Path) -> None:
    folder = tmp_path / "data" / "recovery"
    write_recovery_file(folder, "naive", saved_at=datetime(2024, 1, 2, 3, 4).isoformat())
    write_recovery_file(folder, "huge-pid", pid=10**30)
    write_recovery_file(folder, "good", title="好的恢复")
    window = make_window()
    wiring = SessionWiring(AppSettings())
    wiring.attach(window)
    wiring.offer_recovery()
    await wait_for(lambda: (b := window.findChild(QMessageBox, "recoveryBox")) is not None and b.isVisible())
    box = window.findChild(QMessageBox, "recoveryBox")
    assert box is not None and "好的恢复" in box.text()
    assert "已损坏" in window.statusBar().currentMessage()
    assert sorted(p.name for p in folder.iterdir()) == [
        "good.recovery.json", "huge-pid.recovery.json.broken", "naive.recovery.json.broken"]
    click_button(box, "稍后决定")


async def test_a_recovery_that_fails_to_restore_is_reported_and_set_aside(make_window: WindowFactory,
                                                                          tmp_path: Path) -> None:
    folder = tmp_path / "data" / "recovery"
    path = write_recovery_file(folder, "bad-payload", title="坏内容")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["project"]["outline"] = {"outline": [{"title": "x", "children": 5}]}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    window = make_window()
    wiring = SessionWiring(AppSettings())
    wiring.attach(window)
    wiring.offer_recovery()
    await wait_for(lambda: (b := window.findChild(QMessageBox, "recoveryBox")) is not None and b.isVisible())
    box = window.findChild(QMessageBox, "recoveryBox")
    assert box is not None
    click_button(box, "恢复")
    await wait_for(lambda: any(d.isVisible() for d in window.findChildren(ErrorDialog)))
    assert not path.exists() and (folder / "bad-payload.recovery.json.broken").exists()
    assert len(window.controller.outline) == 0  # nothing half-applied

"""Autosave to a recovery file on a QTimer, and the question offering recovery after a crash.

:class:`Autosaver` writes the project to its recovery file (see :mod:`app.core.recovery`)
every ``interval_ms`` while there are changes not yet autosaved; a normal save or close
deletes the file. Wire it to the project session (``app.ui.project.session.SessionWiring.attach`` does)::

    autosaver = Autosaver(session.snapshot, interval_ms=settings.autosave_interval_s * 1000, parent=window)
    undo_stack.indexChanged.connect(autosaver.notify_changed)
    signals.saved.connect(lambda path: autosaver.notify_saved(Path(path)))   # recovery tied to the file
    signals.reset.connect(lambda: autosaver.follow(session.path, session.is_dirty))
    # on close: autosaver.close()
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from app.core.atomic_file import AtomicWriteError
from app.core.project import Project
from app.core.recovery import (
    RecoveryInfo,
    default_recovery_dir,
    discard_recovery,
    pending_recoveries,
    recovery_file_for,
    write_recovery,
)

log = logging.getLogger(__name__)

RecoveryChoice = Literal["restore", "discard", "later"]

__all__ = ["Autosaver", "RecoveryChoice", "pending_recoveries", "recovery_choice", "recovery_message_box"]


class Autosaver(QObject):
    """Periodically writes unsaved work to a recovery file; removes it on save/close.

    ``snapshot`` returns the current :class:`Project` (called on the GUI thread; it must be
    cheap — a pydantic copy of the tree is). Nothing is written while nothing changed
    since the last autosave or save.

    Signals:
        autosaved(str): path of the recovery file just written.
        failed(str): a Chinese message when the recovery file could not be written.
    """

    autosaved = Signal(str)
    failed = Signal(str)

    def __init__(self, snapshot: Callable[[], Project], *, interval_ms: int = 60_000,
                 folder: Path | None = None, project_path: Path | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._snapshot = snapshot
        self._folder = folder or default_recovery_dir()
        self._session = uuid.uuid4().hex[:12]
        self._project_path = project_path
        self._pending = False  # changes not yet in the recovery file
        self._written = False  # the recovery file exists (written by us)
        #: Recovery files of an earlier session whose work this one took over (restored): deleted
        #: only once that work is written elsewhere (our own autosave or a save), never before.
        self._adopted: list[Path] = []
        self.timer = QTimer(self)
        self.timer.setObjectName("autosaveTimer")
        self.timer.setInterval(max(1, interval_ms))
        self.timer.timeout.connect(self._on_timeout)
        self.timer.start()

    @property
    def recovery_path(self) -> Path:
        """Where this project's recovery file is (or would be) written."""
        return recovery_file_for(self._project_path, self._session, self._folder)

    @property
    def project_path(self) -> Path | None:
        """The project file the recovery belongs to (None for untitled work)."""
        return self._project_path

    def set_interval(self, interval_ms: int) -> None:
        """Change the autosave period (settings changed)."""
        self.timer.setInterval(max(1, interval_ms))

    def notify_changed(self, *_args: object) -> None:
        """Something changed (connect ``QUndoStack.indexChanged``); autosave at the next tick."""
        self._pending = True

    def notify_saved(self, project_path: Path | None = None) -> None:
        """The project was saved normally (to ``project_path`` when given): drop the recovery file."""
        self.discard()
        self._drop_adopted()
        if project_path is not None:
            self._project_path = project_path

    def adopt(self, recovery_file: Path) -> bool:
        """Take over the work of an earlier session's ``recovery_file`` (just restored into this window).

        The file is written again as this session's own recovery file at once, and the old one is
        deleted only after that write (or a later autosave or save) succeeded: a crash in between
        still finds one of the two at the next start. Returns True when the work is safe now.
        """
        if recovery_file != self.recovery_path and recovery_file not in self._adopted:
            self._adopted.append(recovery_file)
        self._pending = True
        return self.autosave_now()

    @property
    def adopted(self) -> list[Path]:
        """Earlier sessions' recovery files kept until this session's work is written elsewhere."""
        return list(self._adopted)

    def _drop_adopted(self) -> None:
        for path in self._adopted:
            if path != self.recovery_path:
                discard_recovery(path)
        self._adopted.clear()

    def set_project_path(self, project_path: Path | None) -> None:
        """Follow the project to a new path (Save As / Open), moving pending autosave state along."""
        if project_path == self._project_path:
            return
        pending = self._pending or self._written
        self.discard()
        self._project_path = project_path
        self._pending = pending

    def follow(self, project_path: Path | None, pending: bool) -> None:
        """Another project is shown (new, opened, recovered): drop the old recovery file and
        track ``project_path``; ``pending`` when the new content is not saved yet (recovered work).

        Recovery files adopted for the work shown before go too: the user chose to leave that work.
        """
        self.discard()
        self._drop_adopted()
        self._project_path = project_path
        self._pending = pending

    def autosave_now(self) -> bool:
        """Write the recovery file now if there are pending changes; True when written."""
        if not self._pending:
            return False
        path = self.recovery_path
        try:
            write_recovery(self._snapshot(), self._project_path, path)
        except AtomicWriteError as exc:
            log.warning("autosave failed: %s", exc)
            self.failed.emit(f"自动保存失败：{exc.message_zh}")
            return False
        except OSError as exc:
            log.warning("autosave failed: %s", exc)
            self.failed.emit(f"自动保存失败：{exc.strerror or exc}")
            return False
        self._pending = False
        self._written = True
        self._drop_adopted()  # the restored work is in our own file now
        log.info("autosaved to %s", path)
        self.autosaved.emit(str(path))
        return True

    def discard(self) -> None:
        """Delete this session's recovery file and forget pending changes."""
        self._pending = False
        if self._written:
            discard_recovery(self.recovery_path)
            self._written = False

    def close(self) -> None:
        """Normal end (window closed after saving or discarding): stop and clean up."""
        self.timer.stop()
        self.discard()
        self._drop_adopted()

    def stop(self) -> None:
        """Stop the timer but keep the recovery file (used when the app must exit abnormally)."""
        self.timer.stop()

    def _on_timeout(self) -> None:
        self.autosave_now()


def recovery_message_box(info: RecoveryInfo, parent: QWidget | None = None) -> QMessageBox:
    """A question offering to restore ``info`` (show with ``open()``; read :func:`recovery_choice`)."""
    when = info.saved_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    box = QMessageBox(parent)
    box.setObjectName("recoveryBox")
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("恢复未保存的工作")
    box.setText(f"上次运行没有正常结束。发现“{info.display_name}”在 {when} 自动保存的内容，是否恢复？")
    if info.project_path is not None:
        box.setInformativeText(f"恢复后请检查内容并保存；原项目文件 {info.project_path} 不会被自动覆盖。")
    else:
        box.setInformativeText("这是尚未保存过的项目，恢复后请另存为项目文件。")
    box.addButton("恢复", QMessageBox.ButtonRole.AcceptRole)
    box.addButton("丢弃", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton("稍后决定", QMessageBox.ButtonRole.RejectRole)
    return box


def recovery_choice(box: QMessageBox) -> RecoveryChoice:
    """What the user picked in :func:`recovery_message_box`."""
    button = box.clickedButton()
    if button is None:
        return "later"
    role = box.buttonRole(button)
    if role == QMessageBox.ButtonRole.AcceptRole:
        return "restore"
    if role == QMessageBox.ButtonRole.DestructiveRole:
        return "discard"
    return "later"

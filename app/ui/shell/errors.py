"""Three exception sinks, one error dialog, and a crash log offered on the next start (rule 7).

``sys.excepthook`` (exceptions escaping Qt slots and virtual overrides), the asyncio loop's
exception handler (callbacks, forgotten tasks) and a done-callback on every root task
(:meth:`ErrorReporter.watch_task`) all end in :meth:`ErrorReporter.report`. Errors that carry
a Chinese ``message_zh`` (bad file, model configuration) are shown as they are; anything
else is a bug: its traceback goes to ``crash.log`` in the data folder and to the dialog's
details, and the next start offers the log to the user.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import faulthandler
import logging
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

log = logging.getLogger(__name__)

CRASH_LOG_NAME = "crash.log"
#: Where ``faulthandler`` writes the Python stacks of a hard crash (segfault, abort) as it happens.
FAULT_LOG_NAME = "fault.log"
#: What a user reads about a bug: one sentence; the traceback is in the folded details.
BUG_MESSAGE = "程序出现了意外错误，您的工作没有丢失，可以继续操作或先保存；错误详情已记入错误日志。"


def user_message(exc: BaseException) -> str | None:
    """The Chinese message an expected error carries, or None for a bug."""
    msg = getattr(exc, "message_zh", None)
    return msg if isinstance(msg, str) and msg else None


def format_details(exc: BaseException) -> str:
    """The full traceback text of ``exc``."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


class ErrorReporter(QObject):
    """Collects exceptions from the three sinks and emits one signal per error.

    Signals:
        error_reported(title, message, details): show an error dialog.
    """

    error_reported = Signal(str, str, str)

    def __init__(self, data_dir: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data_dir = data_dir
        self.reported: list[BaseException] = []
        self._previous_hook: Callable[..., Any] | None = None
        self._fault_file: Any = None

    # ------------------------------------------------------------------ sinks
    def install_excepthook(self) -> None:
        """Sink 1: route uncaught exceptions (including those raised in Qt slots) here."""
        if self._previous_hook is None:
            self._previous_hook = sys.excepthook
            sys.excepthook = self._excepthook

    def uninstall_excepthook(self) -> None:
        """Put the previous ``sys.excepthook`` back."""
        if self._previous_hook is not None and sys.excepthook == self._excepthook:
            sys.excepthook = self._previous_hook
        self._previous_hook = None

    def _excepthook(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            if self._previous_hook is not None:
                self._previous_hook(exc_type, exc, tb)
            return
        if exc.__traceback__ is None:
            exc = exc.with_traceback(tb)
        self.report(exc, "程序内部错误")

    def install_faulthandler(self) -> None:
        """Hard crashes no Python handler sees (segfault, abort) leave their stacks for the next start.

        ``faulthandler`` writes into ``fault.log`` as the process dies; a stack left there by
        the previous session is moved into the crash log first, which the next start offers.
        """
        path = self.data_dir / FAULT_LOG_NAME
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            previous = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
            if previous.strip():
                self.write_crash_log("hard crash of the previous session (faulthandler):\n" + previous.strip())
            self._fault_file = path.open("w", encoding="utf-8")
        except OSError as exc:
            log.warning("cannot open the fault log: %s", exc)
            return
        faulthandler.enable(self._fault_file, all_threads=True)

    def uninstall_faulthandler(self) -> None:
        """Stop writing hard-crash stacks (normal exit); the empty log stays."""
        if self._fault_file is None:
            return
        faulthandler.disable()
        self._fault_file.close()
        self._fault_file = None

    def install_loop_handler(self, loop: asyncio.AbstractEventLoop) -> None:
        """Sink 2: exceptions the event loop catches in callbacks and unretrieved tasks."""
        loop.set_exception_handler(self._loop_handler)

    def _loop_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, BaseException) and not isinstance(exc, asyncio.CancelledError):
            self.report(exc, "后台任务出错")
        else:
            log.warning("event loop: %s", context.get("message", context), extra={"stage": "app"})

    def watch_task(self, task: asyncio.Task[Any]) -> asyncio.Task[Any]:
        """Sink 3: report a root task's exception when it finishes (cancellation is not an error)."""
        task.add_done_callback(self._on_task_done)
        return task

    def _on_task_done(self, task: asyncio.Task[Any]) -> None:
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self.report(exc, "任务出错")

    # ------------------------------------------------------------------ the one path
    def report(self, exc: BaseException, title: str = "出错了") -> None:
        """Log, write the crash log for bugs, and emit :attr:`error_reported`."""
        self.reported.append(exc)
        friendly = user_message(exc)
        details = format_details(exc)
        if friendly is not None:
            log.error("%s", friendly, extra={"stage": "app"})
            self.error_reported.emit(title, friendly, getattr(exc, "detail", "") or details)
            return
        log.error("unexpected error: %r", exc, extra={"stage": "app"})
        self.write_crash_log(details)
        message = BUG_MESSAGE
        self.error_reported.emit(title, message, details)

    # ------------------------------------------------------------------ crash log
    @property
    def crash_log_path(self) -> Path:
        """Where bug tracebacks are appended."""
        return self.data_dir / CRASH_LOG_NAME

    def write_crash_log(self, details: str) -> None:
        """Append one traceback with a timestamp (never raises)."""
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            stamp = dt.datetime.now().isoformat(timespec="seconds")
            with self.crash_log_path.open("a", encoding="utf-8") as fh:
                fh.write(f"===== {stamp} BidStudio crash =====\n{details}\n")
        except OSError as exc:
            log.warning("cannot write crash log: %s", exc)

    def take_pending_crash_log(self) -> str | None:
        """The crash log left by an earlier session, renamed so it is offered only once."""
        path = self.crash_log_path
        try:  # the tail of a regular file only: a huge log or a FIFO must not stall the start
            if not path.is_file():
                return None
            with path.open("rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, size - CRASH_LOG_TAIL_BYTES))
                text = handle.read().decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return None
        try:
            path.replace(path.with_name("crash.previous.log"))
        except OSError:
            pass
        return text.strip() or None


#: Bytes of an old crash log shown at start (the dialog shows the last 20,000 characters).
CRASH_LOG_TAIL_BYTES = 256 * 1024


class ErrorDialog(QDialog):
    """One Chinese sentence; the technical details folded away behind 详细信息 (copyable).

    Opened non-modally with ``open()``. Every button is labelled in Chinese whatever
    translations are loaded; the details (a traceback for bugs) stay hidden until asked for.
    """

    def __init__(self, title: str, message: str, details: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(460)
        self.message = message
        self.details = details
        label = QLabel(message)
        label.setObjectName("errorMessage")
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        icon = QLabel()
        icon.setPixmap(self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(32, 32))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        top = QHBoxLayout()
        top.addWidget(icon)
        top.addWidget(label, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        self.details_box = QPlainTextEdit(details)
        self.details_box.setObjectName("errorDetails")
        self.details_box.setReadOnly(True)
        self.details_box.setMinimumHeight(160)
        self.details_box.setVisible(False)
        layout.addWidget(self.details_box, 1)
        buttons = QDialogButtonBox()
        self.details_button = QPushButton("显示详细信息")
        self.details_button.setCheckable(True)
        self.details_button.setVisible(bool(details))
        self.details_button.toggled.connect(self._toggle_details)
        buttons.addButton(self.details_button, QDialogButtonBox.ButtonRole.ActionRole)
        copy = QPushButton("复制详细信息" if details else "复制")
        copy.clicked.connect(self.copy_details)
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        self.close_button = QPushButton("关闭")
        self.close_button.setDefault(True)
        buttons.addButton(self.close_button, QDialogButtonBox.ButtonRole.RejectRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _toggle_details(self, shown: bool) -> None:
        self.details_box.setVisible(shown)
        self.details_button.setText("隐藏详细信息" if shown else "显示详细信息")
        self.adjustSize()

    def copy_details(self) -> None:
        """Put the message and the details on the clipboard."""
        QGuiApplication.clipboard().setText(f"{self.message}\n\n{self.details}".strip())

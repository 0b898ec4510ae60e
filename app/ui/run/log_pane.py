"""The generation log (rule 8): logging handler -> bounded buffer -> one signal -> batch append.

Any thread may log; :class:`QtLogHandler` only appends to a bounded deque under a lock —
it makes no Qt call at all, because emitting Qt signals from Python worker threads has
crashed this PySide6 build. On the GUI thread a short timer looks at the buffer; when
entries are waiting it emits one ``records_ready`` signal and :class:`LogTableModel`
appends the whole buffer as one batch, dropping the oldest rows beyond ``max_rows`` so
memory stays bounded however long a run lasts.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from typing_extensions import override

from app.core.pipeline_events import stage_label
from app.ui.run.log_text import user_text

ModelIndex = QModelIndex | QPersistentModelIndex

LEVEL_NAMES_ZH = {logging.DEBUG: "调试", logging.INFO: "信息", logging.WARNING: "警告", logging.ERROR: "错误",
                  logging.CRITICAL: "严重"}
HEADERS = ("时间", "级别", "阶段", "消息", "Token 数")
#: How often the GUI thread looks for new log entries.
POLL_MS = 100


@dataclass(frozen=True)
class LogEntry:
    """One row of the log pane."""

    created: float
    level: int
    stage: str
    message: str
    tokens: int | None


class LogBridge(QObject):
    """Polls a handler's buffer on the GUI thread and signals once per waiting batch.

    Signals:
        records_ready: the handler's buffer has new entries (emitted on the GUI thread).
    """

    records_ready = Signal()

    def __init__(self, handler: QtLogHandler, interval_ms: int = POLL_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.handler = handler
        self.timer = QTimer(self)
        self.timer.setObjectName("logPollTimer")
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._on_timeout)
        self.timer.start()

    def _on_timeout(self) -> None:
        if self.handler.has_entries():
            self.records_ready.emit()


class QtLogHandler(logging.Handler):
    """A logging handler that buffers entries (bounded) and signals once per batch."""

    def __init__(self, level: int = logging.INFO, max_buffer: int = 5000) -> None:
        super().__init__(level)
        self._buffer: deque[LogEntry] = deque(maxlen=max_buffer)
        self._buffer_lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        """logging override: buffer the entry (thread-safe, no Qt call)."""
        message = user_text(record)  # Chinese for the pane; handlers writing files keep the English
        if record.exc_info and record.exc_info[1] is not None:
            message = f"{message}: {record.exc_info[1]!r}"
        tokens = getattr(record, "tokens", None)
        entry = LogEntry(record.created, record.levelno, str(getattr(record, "stage", "") or ""), message,
                         int(tokens) if isinstance(tokens, int | float) else None)
        with self._buffer_lock:
            self._buffer.append(entry)

    def has_entries(self) -> bool:
        """Whether entries wait in the buffer."""
        return bool(self._buffer)

    def drain(self) -> list[LogEntry]:
        """Take every buffered entry (GUI thread)."""
        with self._buffer_lock:
            entries = list(self._buffer)
            self._buffer.clear()
        return entries


class LogTableModel(QAbstractTableModel):
    """Rows of :class:`LogEntry`, appended in batches, at most ``max_rows`` kept."""

    def __init__(self, max_rows: int = 5000, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.max_rows = max_rows
        self._rows: deque[LogEntry] = deque()
        self._handler: QtLogHandler | None = None

    def attach(self, handler: QtLogHandler) -> LogBridge:
        """Receive ``handler``'s batches; the polling bridge lives (and stops) with this model."""
        bridge = LogBridge(handler, parent=self)
        bridge.records_ready.connect(self._on_records_ready)
        self._handler = handler
        return bridge

    def _on_records_ready(self) -> None:
        if self._handler is not None:
            self.append_batch(self._handler.drain())

    def append_batch(self, entries: list[LogEntry]) -> None:
        """Append entries as one insert, then drop the oldest beyond the bound."""
        if not entries:
            return
        entries = entries[-self.max_rows:]
        overflow = len(self._rows) + len(entries) - self.max_rows
        if overflow > 0:
            self.beginRemoveRows(QModelIndex(), 0, overflow - 1)
            for _ in range(overflow):
                self._rows.popleft()
            self.endRemoveRows()
        start = len(self._rows)
        self.beginInsertRows(QModelIndex(), start, start + len(entries) - 1)
        self._rows.extend(entries)
        self.endInsertRows()

    def clear(self) -> None:
        """Remove all rows."""
        self.beginResetModel()
        self._rows.clear()
        self.endResetModel()

    def entry(self, row: int) -> LogEntry:
        """The entry at ``row``."""
        return self._rows[row]

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Qt override."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Qt override."""
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override."""
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(HEADERS):
            return HEADERS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Qt override: time, level, stage, message, tokens; level colours; UserRole = level number."""
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        e = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return time.strftime("%H:%M:%S", time.localtime(e.created))
            if col == 1:
                return LEVEL_NAMES_ZH.get(e.level, logging.getLevelName(e.level))
            if col == 2:
                return stage_label(e.stage, short=True)
            if col == 3:
                return e.message
            return "" if e.tokens is None else str(e.tokens)
        if role == Qt.ItemDataRole.UserRole:
            return e.level
        if role == Qt.ItemDataRole.ForegroundRole and e.level >= logging.WARNING:
            return QBrush(QColor("#b00020" if e.level >= logging.ERROR else "#9a6700"))
        if role == Qt.ItemDataRole.ToolTipRole and col == 3:
            return e.message
        return None

    def as_text(self, rows: list[int] | None = None) -> str:
        """Tab-separated text of ``rows`` (all when None), for the clipboard."""
        out = []
        for row in rows if rows is not None else range(len(self._rows)):
            out.append("\t".join(str(self.data(self.index(row, c)) or "") for c in range(len(HEADERS))))
        return "\n".join(out)


class LevelFilterProxy(QSortFilterProxyModel):
    """Shows only entries at or above a minimum level."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._min_level = logging.DEBUG

    def set_min_level(self, level: int) -> None:
        """Change the threshold."""
        self.beginFilterChange()
        self._min_level = level
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: ModelIndex) -> bool:
        """Qt override: compare the level."""
        model = self.sourceModel()
        level = model.data(model.index(source_row, 0, source_parent), Qt.ItemDataRole.UserRole)
        return isinstance(level, int) and level >= self._min_level


class LogPane(QWidget):
    """The log dock's widget: level filter, copy, clear and the table."""

    def __init__(self, model: LogTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.proxy = LevelFilterProxy(self)
        self.proxy.setSourceModel(model)
        self.level_box = QComboBox()
        for label, level in (("全部", logging.DEBUG), ("信息及以上", logging.INFO), ("警告及以上", logging.WARNING),
                             ("仅错误", logging.ERROR)):
            self.level_box.addItem(label, level)
        self.level_box.setCurrentIndex(1)
        self.proxy.set_min_level(logging.INFO)
        self.level_box.currentIndexChanged.connect(self._on_level_changed)
        copy_button = QPushButton("复制")
        copy_button.setToolTip("复制选中的日志行（未选中时复制全部）")
        copy_button.clicked.connect(self.copy)
        clear_button = QPushButton("清空")
        clear_button.clicked.connect(model.clear)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("级别："))
        bar.addWidget(self.level_box)
        bar.addStretch(1)
        bar.addWidget(copy_button)
        bar.addWidget(clear_button)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        for col, width in ((0, 70), (1, 48), (2, 56), (4, 64)):
            self.table.setColumnWidth(col, width)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.table)
        self._follow = True  # the newest lines were on show when the pane was last hidden
        model.rowsInserted.connect(self._on_rows_inserted)

    def _on_level_changed(self, _i: int) -> None:
        self.proxy.set_min_level(int(self.level_box.currentData()))

    def _on_rows_inserted(self) -> None:
        if not self.table.isVisible():  # another stage on show: scrolled to the end when shown again
            return
        bar = self.table.verticalScrollBar()
        if bar.value() >= bar.maximum() - 2:
            self.table.scrollToBottom()

    @override
    def hideEvent(self, event: QHideEvent) -> None:
        """Qt override: remember whether the newest lines were on show."""
        bar = self.table.verticalScrollBar()
        self._follow = bar.value() >= bar.maximum() - 2
        super().hideEvent(event)

    @override
    def showEvent(self, event: QShowEvent) -> None:
        """Qt override: following the newest lines when hidden, show the lines added meanwhile."""
        super().showEvent(event)
        if self._follow:
            QTimer.singleShot(0, self.table.scrollToBottom)

    def copy(self) -> str:
        """Copy the selected rows (or all visible rows) to the clipboard; returns the text."""
        rows = sorted({self.proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedRows()})
        if not rows:
            rows = [self.proxy.mapToSource(self.proxy.index(r, 0)).row() for r in range(self.proxy.rowCount())]
        text = self.model.as_text(rows)
        QGuiApplication.clipboard().setText(text)
        return text

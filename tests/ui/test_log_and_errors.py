"""Log pane (batched, bounded, filtered, copyable) and the three exception sinks."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication

from app.ui.run.log_pane import LogPane, LogTableModel, QtLogHandler
from app.ui.shell.errors import ErrorReporter


def _logger(handler: QtLogHandler, name: str) -> logging.Logger:
    log = logging.getLogger(name)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    log.addHandler(handler)
    return log


async def test_records_from_threads_arrive_in_few_batches_and_memory_is_bounded(qapp: Any) -> None:
    handler = QtLogHandler(level=logging.DEBUG, max_buffer=10_000)
    model = LogTableModel(max_rows=500)
    model.attach(handler)
    batches: list[int] = []
    model.rowsInserted.connect(lambda _p, first, last: batches.append(last - first + 1))
    log = _logger(handler, "test.logpane.threads")
    try:
        def worker(n: int) -> None:
            for i in range(1000):
                log.info("worker %d line %d", n, i, extra={"stage": "outline", "tokens": i})

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        await asyncio.sleep(0.3)  # the GUI thread polls the buffer every 100 ms
    finally:
        log.removeHandler(handler)
    assert 500 <= sum(batches) <= 3000
    assert len(batches) < 100  # one signal per batch, not per record
    assert model.rowCount() == 500  # bounded: the newest 500 are kept
    last = model.index(499, 3).data()
    assert last.startswith("worker") and last.endswith("line 999") and model.index(499, 2).data() == "目录"
    assert model.index(499, 4).data() == "999"


async def test_filter_by_level_and_copy(qapp: Any) -> None:
    handler = QtLogHandler(level=logging.DEBUG)
    model = LogTableModel()
    model.attach(handler)
    pane = LogPane(model)
    log = _logger(handler, "test.logpane.filter")
    try:
        log.debug("细节")
        log.info("开始生成", extra={"stage": "outline"})
        log.warning("第 3 条指令被拒绝", extra={"stage": "outline"})
        log.error("连接中断")
        await asyncio.sleep(0.3)  # the GUI thread polls the buffer every 100 ms
    finally:
        log.removeHandler(handler)
    assert model.rowCount() == 4
    assert pane.proxy.rowCount() == 3  # default: info and above
    pane.level_box.setCurrentIndex(pane.level_box.findText("警告及以上"))
    assert pane.proxy.rowCount() == 2
    text = pane.copy()
    assert "第 3 条指令被拒绝" in text and "连接中断" in text and "开始生成" not in text
    assert QApplication.clipboard().text() == text
    pane.level_box.setCurrentIndex(pane.level_box.findText("全部"))
    assert pane.proxy.rowCount() == 4
    pane.deleteLater()


class _Boom(QObject):
    fire = Signal()


async def test_three_sinks_reach_one_report_and_crash_log_is_offered_once(qapp: Any, tmp_path: Path) -> None:
    reporter = ErrorReporter(tmp_path / "data")
    got: list[tuple[str, str, str]] = []
    reporter.error_reported.connect(lambda *a: got.append(a))
    # Sink 1: an exception escaping a Qt slot goes to sys.excepthook.
    reporter.install_excepthook()
    try:
        assert sys.excepthook == reporter._excepthook
        try:
            raise RuntimeError("slot failed")
        except RuntimeError as exc:
            sys.excepthook(type(exc), exc, exc.__traceback__)
    finally:
        reporter.uninstall_excepthook()
    # Sink 2: the loop's exception handler.
    loop = asyncio.get_running_loop()
    old = loop.get_exception_handler()
    reporter.install_loop_handler(loop)
    try:
        loop.call_soon(lambda: 1 / 0)
        await asyncio.sleep(0.05)
    finally:
        loop.set_exception_handler(old)
    # Sink 3: a root task's done-callback.

    async def failing() -> None:
        raise KeyError("task failed")

    task = reporter.watch_task(asyncio.ensure_future(failing()))
    await asyncio.wait([task])
    await asyncio.sleep(0)
    # A cancelled task is not an error.
    quiet = reporter.watch_task(asyncio.ensure_future(asyncio.sleep(10)))
    quiet.cancel()
    await asyncio.wait([quiet])
    await asyncio.sleep(0)

    assert [type(e).__name__ for e in reporter.reported] == ["RuntimeError", "ZeroDivisionError", "KeyError"]
    assert len(got) == 3 and all("Traceback" in details for _t, _m, details in got)
    assert all("Traceback" not in message for _t, message, _d in got)
    crash = reporter.take_pending_crash_log()
    assert crash is not None and "slot failed" in crash and "task failed" in crash
    assert reporter.take_pending_crash_log() is None  # offered once


async def test_expected_errors_show_their_chinese_message_without_crash_log(qapp: Any, tmp_path: Path) -> None:
    from app.documents.errors import EmptyFileError

    reporter = ErrorReporter(tmp_path / "data")
    got: list[tuple[str, str, str]] = []
    reporter.error_reported.connect(lambda *a: got.append(a))
    reporter.report(EmptyFileError("文件是空的"), "无法打开")
    assert got[0][1] == "文件是空的"
    assert not reporter.crash_log_path.exists()

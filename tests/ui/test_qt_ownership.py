"""Qt objects are owned (parents, deleteLater), so the garbage collector may run on any thread.

The interpreter collects cycles in whichever thread allocates — often a worker reading a
PDF. A Qt object that only a Python cycle keeps alive would then be destroyed on that
thread (Qt warns "Timers cannot be stopped from another thread" and may crash). The app
relies on ownership instead of a process-wide collection policy; this test drives the
window through a tender, a generation, dialogs and closing, lets all cyclic garbage pile
up, and collects it on a worker thread. Any Qt warning fails the test (qt_log_level_fail).
"""

from __future__ import annotations

import asyncio
import gc
import threading
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from PySide6.QtCore import QSettings

from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer
from tests.pipeline_support import Router, sample_analysis
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


def _collect_on_a_worker_thread() -> int:
    found: list[int] = []
    worker = threading.Thread(target=lambda: found.append(gc.collect()), name="collector")
    worker.start()
    worker.join()
    return found[0]


async def test_cyclic_garbage_collected_on_a_worker_thread_destroys_no_qt_object(
        qapp: Any, tmp_path: Path, llm_server: OpenAIServer, reporter: ErrorReporter) -> None:
    qapp.setQuitOnLastWindowClosed(False)
    pdf = tmp_path / "招标文件.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "项目概况 食堂服务采购", fontname="china-s", fontsize=12)
    doc.save(pdf)
    doc.close()
    llm_server.handler = Router()
    gc.collect()
    gc.disable()  # let every cycle of the session wait for the worker thread
    try:
        ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
        win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"),
                                                                     QSettings.Format.IniFormat))
        win.show()
        await win.open_path(pdf)
        ctl.set_analysis(sample_analysis())
        outcome = await ctl.generate_outline("aligned")
        assert outcome.ok, outcome.message
        win.show_about()
        win.show_error("测试", "一条错误", "细节")
        await asyncio.sleep(0.05)
        for dialog in win.findChildren(type(win.error_dialogs[0])):
            dialog.close()
        await close_window(win)
        await asyncio.sleep(0.05)
        del win, ctl
        await asyncio.sleep(0.05)
        assert _collect_on_a_worker_thread() > 0  # there was cyclic garbage, and it went quietly
        await wait_for(lambda: True)
        for _ in range(5):
            await asyncio.sleep(0.02)  # let Qt deliver whatever the collection caused
    finally:
        gc.enable()

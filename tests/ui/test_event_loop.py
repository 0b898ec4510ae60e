"""The app's event loop and the UI tests' deadline: a hang becomes a failure, never a stalled run."""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from app.ui.shell.event_loop import QtEventLoop, new_event_loop
from tests.ui.conftest import _with_deadline


async def test_a_hung_async_test_fails_with_the_stacks_of_its_tasks(capsys: pytest.CaptureFixture[str]) -> None:
    cancelled = asyncio.Event()

    async def hangs() -> None:
        try:
            await asyncio.get_running_loop().create_future()  # nothing will ever complete it
        except asyncio.CancelledError:
            cancelled.set()
            raise

    guarded = _with_deadline(hangs, 0.3)
    with pytest.raises(pytest.fail.Exception, match="did not finish within"):
        await guarded()
    assert cancelled.is_set()
    assert "hangs" in capsys.readouterr().err  # the waiting task's stack was printed


async def test_the_deadline_passes_results_and_errors_through() -> None:
    async def answer(x: int) -> int:
        await asyncio.sleep(0)
        return x * 2

    async def broken() -> None:
        raise ValueError("real failure")

    assert await _with_deadline(answer, 5)(21) == 42
    with pytest.raises(ValueError, match="real failure"):
        await _with_deadline(broken, 5)()


async def test_the_running_loop_finalises_abandoned_async_generators_on_the_loop() -> None:
    loop = asyncio.get_running_loop()
    assert isinstance(loop, QtEventLoop)
    closed_in: list[object] = []

    async def stream() -> Any:
        try:
            yield 1
            yield 2
        finally:
            await asyncio.sleep(0)  # needs a running loop and a task, as an HTTP stream's close does
            closed_in.append(asyncio.current_task())

    agen = stream()
    assert await agen.__anext__() == 1
    del agen  # abandoned mid-stream, as a cancelled download is
    gc.collect()
    for _ in range(20):
        if closed_in:
            break
        await asyncio.sleep(0.01)
    assert closed_in and closed_in[0] is not None  # closed by a task on this loop, not by the collector


def test_a_closed_loop_refuses_callbacks_instead_of_dropping_them(qapp: QApplication) -> None:
    loop = new_event_loop(qapp)
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
    with pytest.raises(RuntimeError, match="closed"):
        loop.call_soon(print, "never")
    assert sys.get_asyncgen_hooks().firstiter is None or sys.get_asyncgen_hooks().firstiter != loop._asyncgen_firstiter_hook

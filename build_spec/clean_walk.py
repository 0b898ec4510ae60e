"""A user's first session with the packaged app, driven from inside it (the clean-machine check).

Bundled with the frozen program and run only when ``BIDSTUDIO_CLEAN_WALK=WORKDIR`` is set
(``build_spec/clean_machine_check.py`` does that inside a clean root file system). The real window
starts on the X display; a coroutine in its event loop then does what a user does, through the
window's own actions, menus and dialogs: the sample project opens (``--sample``), 导出 Word writes
a .docx through the export dialog and the file dialog, with ``BIDSTUDIO_CLEAN_WALK_MODEL=1`` the
first chapter is regenerated (右键 → 重新生成本章) by the built-in model, a scanned page
(``BIDSTUDIO_CLEAN_WALK_SCAN``) is opened through 打开 and read by OCR, and the app quits without
saving. For the update check: ``BIDSTUDIO_CLEAN_WALK_LEAVE_WORK=TEXT`` ends the session instead with
unsaved work (TEXT as the first chapter's description) and a SIGTERM, which leaves a recovery file;
``BIDSTUDIO_CLEAN_WALK_RECOVER=TEXT`` starts without the sample, answers the recovery question with
恢复 and checks the first chapter's description is TEXT. Each step prints one line ``clean_walk step=NAME seconds=S ok=1 …`` for the script to read;
a failed step prints ``ok=0`` with the reason and the walk ends.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

T0 = time.monotonic()


def say(step: str, ok: bool, started: float, detail: str = "") -> None:
    """One result line on stdout."""
    print(f"clean_walk step={step} seconds={time.monotonic() - started:.1f} ok={int(ok)} {detail}".rstrip(),
          flush=True)


def top(kind: type, name: str = "") -> Any:
    """A visible top-level widget of ``kind`` named ``name`` (any name when empty), or None."""
    from PySide6.QtWidgets import QApplication

    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, kind) and (not name or widget.objectName() == name) and widget.isVisible():
            return widget
    return None


async def until(predicate: Any, timeout: float, what: str) -> None:
    """Wait (letting the loop run) until ``predicate()`` holds; TimeoutError naming ``what``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            from PySide6.QtWidgets import QApplication

            shown = [f"{type(w).__name__}:{w.objectName()}:{w.windowTitle()}" for w in QApplication.topLevelWidgets()
                     if w.isVisible()]
            raise TimeoutError(f"{what}: not within {timeout:.0f} s (on screen: {shown})")
        await asyncio.sleep(0.1)


def click_text(box: Any, text: str) -> None:
    """Click the button of a message box whose text is ``text``."""
    next(b for b in box.buttons() if b.text() == text).click()


async def choose_file(path: Path) -> None:
    """Fill Qt's file dialog with ``path`` and press 打开/保存 (the name field, then Enter)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit

    await until(lambda: top(QFileDialog) is not None, 60, "file dialog")
    dialog = top(QFileDialog)
    dialog.setDirectory(str(path.parent))
    edit = dialog.findChild(QLineEdit, "fileNameEdit")
    edit.clear()
    edit.insert(str(path))
    for kind in (QKeyEvent.Type.KeyPress, QKeyEvent.Type.KeyRelease):
        QApplication.sendEvent(edit, QKeyEvent(kind, Qt.Key.Key_Return, Qt.KeyboardModifier.NoModifier))


async def export_word(win: Any, target: Path) -> str:
    """文件 → 导出 Word: the export dialog, the file dialog, the report."""
    from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox

    win.act_export.trigger()
    await until(lambda: top(QDialog, "exportDialog") is not None, 60, "export dialog")
    top(QDialog, "exportDialog").accept()
    for _ in range(100):  # what the export asks on the way (unanswered items, 提交前检查): 仍然导出
        await asyncio.sleep(0.2)
        if top(QFileDialog) is not None:
            break
        box = top(QMessageBox, "unansweredClausesBox")
        if box is not None:
            click_text(box, "仍然导出")
        checks = top(QDialog, "submissionChecksDialog")
        if checks is not None:
            checks.go_button.click()
    await choose_file(target)
    await until(lambda: target.exists() and target.stat().st_size > 0, 300, "the exported .docx")
    await until(lambda: top(QMessageBox, "exportReportBox") is not None, 300, "export report")
    click_text(top(QMessageBox, "exportReportBox"), "关闭")
    return f"file={target.name} bytes={target.stat().st_size}"


async def regenerate_first_chapter(win: Any) -> tuple[bool, str]:
    """Right-click the first chapter → 重新生成本章 → 确定; wait for the built-in model to finish it.

    Passes when the app ends with a chapter within the chapter's time limit (``CHAPTER_BUDGET`` plus the
    server's start): the run succeeded and every heading under the chapter is marked with its origin —
    written by the model, or filled by code from the tender and the heading library when the model's answers
    were refused or its time ran out (the status bar then says so). A failed run or an unmarked heading fails.
    """
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QDialog, QMenu

    from app.pipeline.outline.budget import CHAPTER_BUDGET

    c = win.controller
    view = win.outline_view
    rect = view.visualRect(c.model.index_for_path((0,)))
    view.contextMenuEvent(QContextMenuEvent(QContextMenuEvent.Reason.Mouse, rect.center(),
                                            view.viewport().mapToGlobal(rect.center())))
    await until(lambda: top(QMenu) is not None, 30, "context menu")
    menu = top(QMenu)
    action = next(a for a in menu.actions() if a.text().startswith("重新生成本章"))
    menu.close()
    action.trigger()
    await until(lambda: top(QDialog, "regenerateDialog") is not None, 30, "regenerate dialog")
    before = c.last_outcome
    top(QDialog, "regenerateDialog").ok_button.click()
    await until(lambda: c.busy_generating, 60, "generation start")
    limit = (CHAPTER_BUDGET.max_minutes or 25.0) * 60 + 180  # the chapter's minutes, the server's start, the last call
    await until(lambda: not c.busy, limit, "generation end")
    chapter = c.outline.node((0,))
    headings = [node for _path, node in chapter.walk() if node is not chapter]
    origins: dict[str, int] = {}
    for node in headings:
        origins[str(node.origin)] = origins.get(str(node.origin), 0) + 1
    status = win.statusBar().currentMessage()
    outcome = c.last_outcome
    ok = (outcome is not None and outcome is not before and outcome.ok and bool(headings) and "None" not in origins
          and (origins.get("model", 0) > 0 or "已由程序依据" in status))
    who = "model" if origins.get("model", 0) else "code (marked)"
    return ok, (f"chapter={chapter.title!r} written_by={who} headings={len(headings)} origins={origins} "
                f"status={status!r}")


async def open_scan(win: Any, scan: Path) -> str:
    """文件 → 打开 a scanned tender (a new project, the old one not saved); wait for its OCR."""
    from PySide6.QtWidgets import QMessageBox

    c = win.controller
    win.act_open.trigger()
    await asyncio.sleep(0.3)
    await choose_file(scan)
    for _ in range(50):  # a project with work asks first: new project, then do not save the old one
        await asyncio.sleep(0.2)
        box = top(QMessageBox, "newOrReplaceBox")
        if box is not None:
            click_text(box, "新建项目")
        box = top(QMessageBox, "unsavedBox")
        if box is not None:
            click_text(box, "不保存")
        if c.tender_path == scan:
            break
    await until(lambda: c.document is not None and c.tender_path == scan
                and any(p.source == "ocr" for p in c.document.pages), 900, "OCR of the scanned page")
    await until(lambda: not c.busy, 300, "analysis after OCR")
    pages = [p.number for p in c.document.pages if p.source == "ocr"]
    text = "".join(c.document.text().split())
    return f"ocr_pages={pages} text={text[:40]!r}"


async def quit_without_saving(win: Any) -> None:
    """文件 → 退出; unsaved work is asked about: 不保存."""
    from PySide6.QtWidgets import QMessageBox

    win.act_quit.trigger()
    for _ in range(100):
        await asyncio.sleep(0.1)
        box = top(QMessageBox, "unsavedBox")
        if box is not None:
            click_text(box, "不保存")
            return


def edit_description(win: Any, text: str) -> bool:
    """Type ``text`` as the first chapter's description (the tree's description cell, as the delegate commits it)."""
    from PySide6.QtCore import Qt

    from app.ui.outline.model import COL_DESCRIPTION

    model = win.controller.model
    index = model.index_for_path((0,)).siblingAtColumn(COL_DESCRIPTION)
    return bool(model.setData(index, text, Qt.ItemDataRole.EditRole))


async def leave_work(win: Any, marker: str) -> str:
    """Unsaved work, then the session ends by SIGTERM (a shutdown, a killed session): the recovery file stays."""
    import signal

    if not edit_description(win, marker):
        raise RuntimeError("the first chapter's description could not be edited")
    await asyncio.sleep(0.2)
    os.kill(os.getpid(), signal.SIGTERM)  # the app's handler writes the recovery file and closes the window
    return f"description={marker!r}; SIGTERM sent"


async def recover(win: Any, marker: str) -> str:
    """At start the app offers the recovery file an earlier (older) version left: 恢复; the edit is back."""
    from PySide6.QtWidgets import QMessageBox

    await until(lambda: top(QMessageBox, "recoveryBox") is not None, 120, "the recovery question")
    box = top(QMessageBox, "recoveryBox")
    question = box.text()
    click_text(box, "恢复")
    c = win.controller
    await until(lambda: len(c.outline) > 0 and c.outline.node((0,)).description == marker and not c.busy, 120,
                "the restored project")
    return f"question={question[:30]!r} chapters={len(c.outline.chapters)} description={marker!r}"


async def walk(work: Path) -> None:
    """The steps; each prints its line; the first failure ends the walk (and the app)."""
    from PySide6.QtWidgets import QMainWindow

    step, started = "start", T0
    win = None
    try:
        await until(lambda: top(QMainWindow, "mainWindow") is not None, 120, "main window")
        win = top(QMainWindow, "mainWindow")
        say(step, True, started, f"pid={os.getpid()}")
        c = win.controller
        restore = os.environ.get("BIDSTUDIO_CLEAN_WALK_RECOVER", "")
        if restore:
            step, started = "recover", time.monotonic()
            say(step, True, started, await recover(win, restore))
        else:
            step, started = "open_sample", time.monotonic()
            await until(lambda: c.document is not None and len(c.outline) > 0 and not c.busy, 300, "sample project")
            say(step, True, started, f"pages={c.document.page_count} chapters={len(c.outline.chapters)}")
        step, started = "export_word", time.monotonic()
        say(step, True, started, await export_word(win, work / "技术标.docx"))
        if os.environ.get("BIDSTUDIO_CLEAN_WALK_MODEL") == "1":
            step, started = "generate_chapter", time.monotonic()
            ok, detail = await regenerate_first_chapter(win)
            say(step, ok, started, detail)
        scan = os.environ.get("BIDSTUDIO_CLEAN_WALK_SCAN")
        if scan:
            step, started = "ocr_page", time.monotonic()
            say(step, True, started, await open_scan(win, Path(scan)))
        leave = os.environ.get("BIDSTUDIO_CLEAN_WALK_LEAVE_WORK", "")
        if leave:
            step, started = "leave_work", time.monotonic()
            say(step, True, started, await leave_work(win, leave))
            return
        say("quit", True, time.monotonic(), "asked to quit (the window closes next)")
        await quit_without_saving(win)
    except Exception as exc:
        say(step, False, started, f"error={type(exc).__name__}: {exc}")
        traceback.print_exc()
        if win is not None:
            win._close_ok = True
            win.close()


def main() -> int:
    """Start the app on the sample with the walk scheduled in its loop; the app's exit code."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.core.settings_model import (
        EMBEDDED,
        AppSettings,
        ModelSettings,
        default_settings_path,
        save_settings,
    )
    from app.ui.shell.main import run

    work = Path(os.environ["BIDSTUDIO_CLEAN_WALK"])
    work.mkdir(parents=True, exist_ok=True)
    if os.environ.get("BIDSTUDIO_CLEAN_WALK_MODEL") == "1":
        save_settings(AppSettings(model=ModelSettings(provider=EMBEDDED)), default_settings_path())
    tasks: list[asyncio.Task[None]] = []
    _app = QApplication.instance() or QApplication(["bidstudio"])  # the timer needs the application first
    QTimer.singleShot(300, lambda: tasks.append(asyncio.ensure_future(walk(work))))
    # Restoring an earlier session's work starts on the empty window (the recovery question comes first).
    return run(["bidstudio"] if os.environ.get("BIDSTUDIO_CLEAN_WALK_RECOVER") else ["bidstudio", "--sample"])


if __name__ == "__main__":
    sys.exit(main())

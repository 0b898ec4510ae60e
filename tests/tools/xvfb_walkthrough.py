"""Walk the main workflow of the real app on a real X display (Xvfb) and screenshot every step.

    python tests/tools/xvfb_walkthrough.py [--tender ../shared/tenders/yangjiang-tax-canteen.pdf]
                                           [--out /tmp/walkthrough] [--screen 1366x768] [--readme]

Starts Xvfb on a free display, the scripted OpenAI-compatible server (tests/openai_server.py,
standing in for a model: its answers are the chapter contents below) and the app itself
through ``app.ui.shell.main.run`` with a settings file pointing at that server. A coroutine inside
the app's loop then does what a user does — opens the tender through the file dialog,
generates one-to-one, regenerates a chapter with guidance, drafts a section, exports Word,
shrinks the window to 1366×768 (``--screen 1366x768``: a first start on a laptop-sized
screen instead) and quits — and ``import -window root`` (ImageMagick)
captures the screen after each step. ``--readme`` also copies the pictures the README uses
into docs/.

``--base-url URL --model NAME`` uses a real model server instead of the scripted one (for the
README's main picture: an outline a real model produced). The walk then stops after the
generated outline's screenshot (06), since a weak model's later steps take minutes each.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

SCREEN = (1920, 1080)
WINDOW = (1600, 1000)
LAPTOP = (1366, 768)
#: Shots the README shows (walkthrough name -> docs/ name).
#: (Each stage of the window on a laptop screen: tests/tools/screenshot_stages.py, docs/stages/.)
README_SHOTS = {"06-outline.png": "screenshot-main.png", "04-analysis.png": "screenshot-analysis.png"}


def start_xvfb(screen: tuple[int, int] = SCREEN) -> tuple[subprocess.Popen[bytes], str]:
    """Xvfb (a ``screen``-sized display) on the first free display number from :90."""
    for number in range(90, 110):
        if Path(f"/tmp/.X11-unix/X{number}").exists() or Path(f"/tmp/.X{number}-lock").exists():
            continue
        display = f":{number}"
        proc = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{screen[0]}x{screen[1]}x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if Path(f"/tmp/.X11-unix/X{number}").exists():
                return proc, display
            time.sleep(0.05)
        proc.kill()
    raise SystemExit("no free X display for Xvfb")


class Shooter:
    """Screenshots of the X screen (what a user sees: the window and any dialog over it)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.taken: list[Path] = []
        out.mkdir(parents=True, exist_ok=True)

    async def shot(self, name: str, window: Any) -> Path:
        """Capture the main window's area of the screen (dialogs over it included).

        The capture runs on a worker thread: the app keeps painting, and nothing here
        re-enters Qt's event loop from inside a coroutine.
        """
        await asyncio.sleep(0.3)
        g = window.frameGeometry()
        path = self.out / name
        command = ["import", "-window", "root", "-crop", f"{g.width()}x{g.height()}+{g.x()}+{g.y()}", "+repage",
                   str(path)]
        await asyncio.get_running_loop().run_in_executor(None, lambda: subprocess.run(command, check=True))
        self.taken.append(path)
        print(f"  {name}: {g.width()}x{g.height()}", flush=True)
        return path


async def until(predicate: Any, timeout: float = 60.0) -> None:
    """Let the app run until ``predicate()`` holds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            from PySide6.QtWidgets import QApplication

            shown = [f"{type(w).__name__}:{w.objectName()}:{w.windowTitle()}" for w in QApplication.topLevelWidgets()
                     if w.isVisible()]
            raise TimeoutError(f"the app did not get there in time; on screen: {shown}")
        await asyncio.sleep(0.05)


async def settle(seconds: float = 0.6) -> None:
    """Give the app time to lay out and paint."""
    await asyncio.sleep(seconds)


def top(kind: type, name: str) -> Any:
    """A visible top-level widget of ``kind`` named ``name`` (dialogs), or None."""
    from PySide6.QtWidgets import QApplication

    for w in QApplication.topLevelWidgets():
        if isinstance(w, kind) and (not name or w.objectName() == name) and w.isVisible():
            return w
    return None


def type_file_name(dialog: Any, path: Path) -> None:
    """Type a full path into a file dialog's name field (what a user can do in Qt's dialog)."""
    from PySide6.QtWidgets import QLineEdit

    edit = dialog.findChild(QLineEdit, "fileNameEdit")
    edit.setFocus()
    edit.clear()
    edit.insert(str(path))


async def walk(shooter: Shooter, tender: Path, work: Path, real_model: bool = False) -> None:
    """The user's workflow, step by step (with a real model: up to the generated outline)."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QLineEdit, QMenu, QMessageBox

    await until(lambda: top(object, "mainWindow") is not None)
    win = top(object, "mainWindow")
    c = win.controller
    laptop_screen = win.screen().size().width() <= LAPTOP[0]
    if not laptop_screen:  # on a laptop-sized screen the first start's own size is what is shown
        win.resize(*WINDOW)
        win.move(0, 0)
    await settle(1.5)
    await shooter.shot("01-start.png", win)

    # The model settings (llama.cpp preset: its hint must be readable).
    win.act_settings.trigger()
    await until(lambda: top(QDialog, "settingsDialog") is not None or top(QDialog, "") is not None)
    await settle()
    await shooter.shot("01b-settings.png", win)
    settings = top(QDialog, "settingsDialog") or top(QDialog, "")
    settings.reject()

    # Open the tender through the (Chinese) file dialog.
    win.act_open.trigger()
    await until(lambda: top(QFileDialog, "") is not None)
    dialog = top(QFileDialog, "")
    dialog.setDirectory(str(tender.parent))
    await settle()
    type_file_name(dialog, tender)
    await settle()
    await shooter.shot("02-open-dialog.png", win)
    QTest.keyClick(dialog.findChild(QLineEdit, "fileNameEdit"), Qt.Key.Key_Return)
    await until(lambda: c.document is not None and not c.tasks.get("open"), timeout=120)
    await settle(3.0)  # the page view renders off the GUI thread
    await shooter.shot("03-tender.png", win)
    win.analysis_dock.raise_()
    await settle()
    await shooter.shot("04-analysis.png", win)

    # Generate one-to-one (the mode box switched by itself once the scoring items were read).
    if not real_model:  # the scripted scenario's guidance (a real model gets the default: none)
        win.guidance.setText("突出冷链配送和食品安全")
    QTest.mouseClick(win.generate_button, Qt.MouseButton.LeftButton)
    await until(lambda: c.busy_generating)
    await until(lambda: len(c.outline) > 25 or not c.busy_generating, timeout=3600 if real_model else 120)
    await shooter.shot("05-generating.png", win)
    await until(lambda: not c.busy, timeout=3600 if real_model else 300)
    win.document_dock.raise_()
    pane = win.document_pane
    groups = c.analysis.technical_groups
    if groups and groups[0].source_page and hasattr(pane, "show_page"):
        pane.show_page(groups[0].source_page)
    win.outline_view.select_path((0, 0))
    win.outline_view.scrollToTop()
    await settle(2.0)
    await shooter.shot("06-outline.png", win)
    if real_model:
        await quit_without_saving(shooter, win)
        return

    # Right-click a chapter: 重新生成本章（可附要求）.
    view = win.outline_view
    rect = view.visualRect(c.model.index_for_path((1,)))
    view.contextMenuEvent(QContextMenuEvent(QContextMenuEvent.Reason.Mouse, rect.center(),
                                            view.viewport().mapToGlobal(rect.center())))
    await until(lambda: top(QMenu, "") is not None)
    await settle(0.3)
    await shooter.shot("07-context-menu.png", win)
    menu = top(QMenu, "")
    action = next(a for a in menu.actions() if a.text().startswith("重新生成本章"))
    menu.close()
    action.trigger()
    await until(lambda: top(QDialog, "regenerateDialog") is not None)
    regen = top(QDialog, "regenerateDialog")
    regen.guidance.insertPlainText("增加冷链温控记录")
    await settle()
    await shooter.shot("08-regenerate-dialog.png", win)
    QTest.mouseClick(regen.ok_button, Qt.MouseButton.LeftButton)
    await until(lambda: c.busy_generating)
    await until(lambda: not c.busy, timeout=120)

    # Draft one section.
    leaf = next(p for p, n in c.outline.walk() if not n.children)
    view.select_path(leaf)
    win.draft_current()
    await until(lambda: not c.busy and c.outline.node(leaf).content, timeout=120)
    view.select_path(leaf)
    await settle()
    await shooter.shot("09-section.png", win)

    # Export: the dialog, then the file name, then the file.
    win.act_export.trigger()
    await until(lambda: top(QDialog, "exportDialog") is not None or top(QDialog, "") is not None)
    await settle()
    await shooter.shot("10-export-dialog.png", win)
    export = top(QDialog, "exportDialog") or top(QDialog, "")
    export.accept()
    await asyncio.sleep(0.3)
    box = top(QMessageBox, "unansweredClausesBox")
    if box is not None:
        next(b for b in box.buttons() if b.text() == "仍然导出").click()
    checks = top(QDialog, "submissionChecksDialog")  # 提交前检查 lists what may need a look first
    if checks is not None and getattr(checks, "go_button", None) is not None:
        await shooter.shot("10a-submission-checks.png", win)
        checks.go_button.click()
    await until(lambda: top(QFileDialog, "") is not None)
    save = top(QFileDialog, "")
    target = work / "技术标.docx"
    type_file_name(save, target)
    QTest.keyClick(save.findChild(QLineEdit, "fileNameEdit"), Qt.Key.Key_Return)
    await until(lambda: target.exists(), timeout=120)
    print(f"  exported {target.stat().st_size // 1024} KB, mode {oct(target.stat().st_mode & 0o777)}", flush=True)
    await until(lambda: top(QMessageBox, "exportReportBox") is not None, timeout=120)
    await settle()
    await shooter.shot("10b-exported.png", win)
    done = top(QMessageBox, "exportReportBox")
    next(b for b in done.buttons() if b.text() == "关闭").click()

    # A laptop screen (on a bigger screen: the window made that small).
    if not laptop_screen:
        win.resize(*LAPTOP)
    await settle(1.5)
    await shooter.shot("11-laptop-1366x768.png", win)
    win.analysis_dock.raise_()  # the scoring table must show 8+ rows there
    await settle()
    await shooter.shot("11b-laptop-analysis.png", win)

    await quit_without_saving(shooter, win)
    _ = (QPoint, QApplication)


async def quit_without_saving(shooter: Shooter, win: Any) -> None:
    """Quit: unsaved work is asked about; answer 不保存."""
    from PySide6.QtWidgets import QMessageBox

    win.act_quit.trigger()
    await until(lambda: top(QMessageBox, "unsavedBox") is not None)
    await settle()
    await shooter.shot("12-quit.png", win)
    box = top(QMessageBox, "unsavedBox")
    next(b for b in box.buttons() if b.text() == "不保存").click()


def walk_model(kind: str, req: Any) -> Any:
    """The scripted model: chapters from screenshot_main's script, a section text for drafting requests."""
    import re

    from tests.openai_server import Reply
    from tests.tools.screenshot_main import model

    found = re.search(r"【本节标题】(.*)", req.prompt_text)
    if found:
        title = found.group(1).strip()
        body = (f"## {title}\n\n我方针对“{title}”建立专人负责、流程清晰、记录可查的管理机制：\n\n"
                "- 明确岗位职责，项目经理统一调度；\n- 每日检查并留存记录，发现问题当日整改；\n"
                "- 每月向采购人汇报执行情况。\n\n| 环节 | 责任人 | 时限 |\n| --- | --- | --- |\n"
                "| 接单确认 | 调度员 | 30 分钟 |\n| 配送到达 | 司机 | 按约定时段 |\n")
        return Reply.text(body, chunk_size=12, chunk_delay=0.01)
    return model(kind, req)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tender", type=Path, default=REPO.parent / "shared" / "tenders" / "yangjiang-tax-canteen.pdf")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "bidstudio-walkthrough")
    parser.add_argument("--readme", action="store_true", help="copy the README's pictures into docs/")
    parser.add_argument("--base-url", help="a real OpenAI-compatible server instead of the scripted model")
    parser.add_argument("--model", default="gemma3-270m", help="model name on --base-url")
    parser.add_argument("--screen", default=f"{SCREEN[0]}x{SCREEN[1]}",
                        help="the X screen's size, e.g. 1366x768: a first start on a laptop screen")
    args = parser.parse_args()
    screen = tuple(int(v) for v in args.screen.lower().split("x"))
    if len(screen) != 2:
        raise SystemExit("--screen WIDTHxHEIGHT")
    if not args.tender.is_file():
        raise SystemExit(f"tender not found: {args.tender}")
    for tool in ("Xvfb", "import"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed (apt-get install xvfb imagemagick)")
    xvfb, display = start_xvfb((screen[0], screen[1]))
    work = Path(tempfile.mkdtemp(prefix="bidstudio-walk-"))
    os.environ.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", BIDSTUDIO_CONFIG_DIR=str(work / "config"),
                      BIDSTUDIO_DATA_DIR=str(work / "data"))
    try:
        return run_app(args, work, (screen[0], screen[1]))
    finally:
        xvfb.terminate()
        xvfb.wait(5)


def run_app(args: argparse.Namespace, work: Path, screen: tuple[int, int] = SCREEN) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.core.settings_model import AppSettings, ModelSettings, default_settings_path, save_settings
    from app.ui.shell.main import run
    from tests.openai_server import OpenAIServer
    from tests.pipeline_support import Router

    shooter = Shooter(args.out)
    failures: list[BaseException] = []
    real_model = bool(args.base_url)
    with OpenAIServer() as server:
        server.handler = Router(walk_model)
        server.default = None
        settings = AppSettings(model=ModelSettings(provider="llamacpp", base_url=args.base_url or server.base_url,
                                                   model=args.model if real_model else "qwen2.5-7b-instruct"))
        save_settings(settings, default_settings_path())
        app = QApplication(["bidstudio"])

        def start() -> None:
            task = asyncio.ensure_future(walk(shooter, args.tender.resolve(), work, real_model))

            def done(t: asyncio.Task[None]) -> None:
                if not t.cancelled() and t.exception() is not None:
                    failures.append(t.exception())  # type: ignore[arg-type]
                    for w in app.topLevelWidgets():
                        if w.objectName() == "mainWindow":
                            w._close_ok = True  # type: ignore[attr-defined]
                            w.close()

            task.add_done_callback(done)

        QTimer.singleShot(300, start)
        code = run(["bidstudio"])
    crash = work / "data" / "crash.log"
    if crash.exists():
        print(crash.read_text(encoding="utf-8")[-6000:])
    if failures:
        raise failures[0]
    if args.readme:
        # the main picture is a real model's outline; the laptop picture is a first start on a 1366×768 screen
        if real_model:
            shots = {"06-outline.png": README_SHOTS["06-outline.png"]}
        elif screen[0] <= LAPTOP[0]:
            shots = {}  # the laptop pictures are each stage's: tests/tools/screenshot_stages.py
        else:
            shots = {"04-analysis.png": README_SHOTS["04-analysis.png"]}
        for name, target in shots.items():
            shutil.copy(args.out / name, REPO / "docs" / target)
            print(f"copied {name} -> docs/{target}")
    print(f"{len(shooter.taken)} screenshots in {args.out}")
    return code


if __name__ == "__main__":  # the document pane's worker process re-imports this module
    sys.exit(main())

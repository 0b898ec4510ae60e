"""Start the desktop app: QApplication, the qasync loop, the error sinks, the main window.

``run(argv)`` accepts a tender or project path, ``--sample`` (the sample project: the bundled tender,
its scoring items and a one-to-one outline built by code, no model needed)
and ``--quit-when-visible`` (also set by ``BIDSTUDIO_SMOKE_TEST=1``; used by the start-up
benchmark and the packaged-app check: print the wall-clock time at which the window was
first shown, then quit).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import time
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFont, QFontDatabase, QIcon
from PySide6.QtWidgets import QApplication, QWidget

from app import __version__
from app.core.resources import resource_path
from app.ui.shell.event_loop import new_event_loop

log = logging.getLogger("bidstudio.ui")

CJK_FONTS = ("Microsoft YaHei UI", "Microsoft YaHei", "PingFang SC", "Noto Sans CJK SC", "Source Han Sans SC",
             "WenQuanYi Micro Hei")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command-line options (argv[0] is the program)."""
    p = argparse.ArgumentParser(prog="bidstudio", description="标书工坊 BidStudio")
    p.add_argument("path", nargs="?", help="要打开的招标文件或项目文件")
    p.add_argument("--sample", action="store_true", help="打开示例项目（内置招标文件，评分项和目录由程序生成，无需模型）")
    p.add_argument("--quit-when-visible", action="store_true", help=argparse.SUPPRESS)
    args, _qt_args = p.parse_known_args(argv[1:])
    if os.environ.get("BIDSTUDIO_SMOKE_TEST") == "1":  # the packaged-app check: show, report, quit
        args.quit_when_visible = True
    return args


def sample_tender() -> Path:
    """The bundled sample tender."""
    return resource_path("samples", "sample_tender.pdf")


def _pick_font(app: QApplication) -> None:
    families = set(QFontDatabase.families())
    for name in CJK_FONTS:
        if name in families:
            font = QFont(name)
            font.setPointSizeF(max(9.5, app.font().pointSizeF()))
            app.setFont(font)
            return


def freeze_startup_objects() -> None:
    """Move the objects created at start-up out of the collector's reach (``gc.freeze``).

    Later full collections then scan only what the session created, which keeps the
    collector's pauses short while a stream fills the tree.
    """
    gc.collect()
    gc.freeze()


def _setup_logging() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def run(argv: list[str]) -> int:
    """Run the GUI until the main window is closed; returns the exit code."""
    started = time.time()
    args = parse_args(argv)
    _setup_logging()
    app = QApplication.instance() or QApplication(argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("BidStudio")
    app.setApplicationDisplayName("标书工坊")
    app.setOrganizationName("BidStudio")
    app.setApplicationVersion(__version__)
    icon = resource_path("icons", "bidstudio-256.png")
    if icon.is_file():
        app.setWindowIcon(QIcon(str(icon)))
    # Closing the window must not stop the loop under _main: it still cancels and awaits the
    # running tasks, and a loop stopped first is "Event loop stopped before Future completed".
    app.setQuitOnLastWindowClosed(False)
    _pick_font(app)
    from app.ui.shell.translations import install_qt_translations

    app.translators = install_qt_translations(app)  # type: ignore[attr-defined]  # kept alive with the app
    loop = new_event_loop(app)  # qasync plus asyncgen hooks and the closed-loop check
    asyncio.set_event_loop(loop)
    with loop:
        code: int = loop.run_until_complete(_main(app, args, started))
    return code


async def _main(app: QApplication, args: argparse.Namespace, started: float) -> int:
    from app.core.settings_model import data_dir, default_settings_path, load_settings
    from app.ui.project.session import SessionWiring
    from app.ui.run.controller import AppController
    from app.ui.shell.errors import ErrorReporter
    from app.ui.shell.main_window import MainWindow

    loop = asyncio.get_running_loop()
    reporter = ErrorReporter(data_dir())
    reporter.install_excepthook()
    reporter.install_faulthandler()
    reporter.install_loop_handler(loop)
    settings_path = default_settings_path()
    settings = load_settings(settings_path)
    controller = AppController(reporter=reporter)
    wiring = SessionWiring(settings)
    controller.client_factory = wiring.make_client
    window = MainWindow(controller, settings=settings, reporter=reporter, settings_path=settings_path,
                        model_configured=wiring.configured_without_key())
    wiring.attach(window)
    closed: asyncio.Future[None] = loop.create_future()

    def finish(*_args: object) -> None:
        if not closed.done():
            closed.set_result(None)

    window.destroyed.connect(finish)
    app.lastWindowClosed.connect(finish)
    terminated = _save_on_termination(window)
    window.show()
    QTimer.singleShot(200, freeze_startup_objects)

    if args.quit_when_visible:
        def report_visible() -> None:
            print(f"visible_at={time.time():.4f} started_at={started:.4f}", flush=True)
            window._close_ok = True
            window.close()

        QTimer.singleShot(0, report_visible)
    else:
        QTimer.singleShot(0, lambda: window.set_model_configured(wiring.configured(),  # keyring after paint
                                                                 wiring.missing_key()))
        wiring.offer_crash_log(reporter)
        wiring.offer_recovery()
        QTimer.singleShot(300, wiring.offer_local_servers)  # after the keyring check above
        if args.sample:
            controller.spawn("dialog", window.open_sample())
        elif args.path:
            controller.spawn("dialog", window.open_path(Path(args.path)))
    await closed
    await controller.shutdown()
    reporter.uninstall_excepthook()
    reporter.uninstall_faulthandler()
    return 128 + terminated[0] if terminated else 0


def _save_on_termination(window: QWidget) -> list[int]:
    """SIGTERM and SIGINT autosave the session (the recovery file is kept) and close the window.

    Python runs a signal handler only between bytecodes; a timer gives it a turn while Qt
    waits for events. Returns a list that gets the signal number once one arrived.
    """
    import signal

    got: list[int] = []

    def handler(signum: int, _frame: object) -> None:
        if got:
            return
        got.append(signum)
        QTimer.singleShot(0, lambda: _autosave_and_close(window))

    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            signal.signal(sig, handler)
        except (ValueError, OSError):  # not the main thread
            return got
    tick = QTimer(window)
    tick.setObjectName("signalTick")
    tick.timeout.connect(lambda: None)
    tick.start(250)
    return got


def _autosave_and_close(window: object) -> None:
    """Write unsaved work to this window's recovery file, keep that file, and close without asking."""
    autosaver = getattr(window, "autosaver", None)
    if autosaver is not None:
        try:
            autosaver.autosave_now()
        except Exception:  # the exit goes on; what could be written was
            log.exception("autosave on termination failed")
        autosaver.stop()
        window.autosaver = None  # type: ignore[attr-defined]  # closing must not remove the recovery file
    log.warning("terminated by a signal: unsaved work is in the recovery file")
    window._close_ok = True  # type: ignore[attr-defined]
    window.close()  # type: ignore[attr-defined]

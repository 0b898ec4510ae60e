"""Screenshots of every stage of the window on a real X display (Xvfb), for docs/.

    python tests/tools/screenshot_stages.py [--screen 1366x768] [--tender PATH] [--out docs/stages]

Starts Xvfb with a screen of that size, the scripted model server (tests/openai_server.py, the
walkthrough's chapter answers) and the app itself (``app.ui.shell.main.run``, empty config and
data folders). A coroutine inside the app's loop then works as a user does: opens the tender,
generates one-to-one, drafts two sections, imports three generated past bids into 资料库 and
runs 查重; then it clicks each stage on the stage bar (招标分析, 目录, 正文, 审查, 资料) and
captures the window after each, as ``{out}/stage-{n}-{key}-{W}x{H}.png`` (256 colours). On a 1366×768 screen
the window keeps its first-start size; on a larger one it fills the screen, as a maximised
window would. Needs Xvfb and ImageMagick (``import``, ``convert``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.tools.xvfb_walkthrough import LAPTOP, Shooter, settle, start_xvfb, top, until, walk_model  # noqa: E402


async def walk(shooter: Shooter, tender: Path, work: Path, screen: tuple[int, int]) -> None:
    """Fill a project as a user would, then show and capture each stage."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from app.ui.shell.stages import STAGES
    from tests.library_fixtures import OWN_OUTLINES, make_bid, write_docx

    await until(lambda: top(object, "mainWindow") is not None)
    win = top(object, "mainWindow")
    c = win.controller
    if screen[0] > LAPTOP[0]:
        win.setGeometry(0, 0, *screen)
    await settle(1.0)
    await win.open_path(tender)
    await until(lambda: c.document is not None and not c.tasks.get("open"), timeout=120)
    await until(lambda: not c.busy, timeout=120)
    await settle(2.0)
    QTest.mouseClick(win.generate_button, Qt.MouseButton.LeftButton)
    await until(lambda: c.busy_generating)
    await until(lambda: not c.busy, timeout=300)
    leaves = [p for p, n in c.outline.walk() if not n.children]
    for leaf in leaves[:2]:
        win.outline_view.select_path(leaf)
        win.draft_current()
        await until(lambda leaf=leaf: not c.busy and bool(c.outline.node(leaf).content), timeout=120)
    bids = work / "past-bids"
    bids.mkdir()
    for i in range(3):
        write_docx(make_bid(i, OWN_OUTLINES[i % len(OWN_OUTLINES)], paragraphs=3), bids / f"历史标书{i + 1}.docx")
    library = win.library
    library.panel.import_paths([bids])
    await until(lambda: library.panel.worker is None, timeout=120)
    library.check_action.trigger()  # 生成 → 查重 (shows the 审查 stage)
    await settle(1.0)
    win.review_dock.dock.raise_()  # the stage's first tab again
    win.outline_view.select_path(leaves[0])
    win.outline_view.scrollToTop()
    bar = win.workspace.bar
    for n, stage in enumerate(STAGES, start=1):
        QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(n - 1).center())
        await until(lambda stage=stage: win.workspace.current == stage.key)
        if stage.key == "analysis" and c.analysis.technical_groups:
            first = c.analysis.technical_groups[0]
            if first.source_page:
                win.document_pane.show_page(first.source_page)
        await settle(1.5)
        shot = await shooter.shot(f"stage-{n}-{stage.key}-{screen[0]}x{screen[1]}.png", win)
        # 256 colours: half the bytes in the repository, the text as sharp
        subprocess.run(["convert", str(shot), "-colors", "256", f"PNG8:{shot}"], check=True)
    win._close_ok = True
    win.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tender", type=Path, default=REPO.parent / "shared" / "tenders" / "yangjiang-tax-canteen.pdf")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "stages")
    parser.add_argument("--screen", default="1366x768", help="the X screen's size, e.g. 1920x1080")
    args = parser.parse_args()
    screen = tuple(int(v) for v in args.screen.lower().split("x"))
    if len(screen) != 2:
        raise SystemExit("--screen WIDTHxHEIGHT")
    if not args.tender.is_file():
        raise SystemExit(f"tender not found: {args.tender}")
    for tool in ("Xvfb", "import", "convert"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed (apt-get install xvfb imagemagick)")
    xvfb, display = start_xvfb((screen[0], screen[1]))
    work = Path(tempfile.mkdtemp(prefix="bidstudio-stages-"))
    os.environ.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", BIDSTUDIO_CONFIG_DIR=str(work / "config"),
                      BIDSTUDIO_DATA_DIR=str(work / "data"))
    try:
        return run_app(args, work, (screen[0], screen[1]))
    finally:
        xvfb.terminate()
        xvfb.wait(5)


def run_app(args: argparse.Namespace, work: Path, screen: tuple[int, int]) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.core.settings_model import AppSettings, ModelSettings, default_settings_path, save_settings
    from app.ui.shell.main import run
    from tests.openai_server import OpenAIServer
    from tests.pipeline_support import Router

    shooter = Shooter(args.out)
    failures: list[BaseException] = []
    with OpenAIServer() as server:
        server.handler = Router(walk_model)
        server.default = None
        settings = AppSettings(model=ModelSettings(provider="llamacpp", base_url=server.base_url,
                                                   model="qwen2.5-7b-instruct"))
        save_settings(settings, default_settings_path())
        app = QApplication(["bidstudio"])

        def start() -> None:
            task = asyncio.ensure_future(walk(shooter, args.tender.resolve(), work, screen))

            def done(t: asyncio.Task[None]) -> None:
                if not t.cancelled() and t.exception() is not None:
                    failures.append(t.exception())  # type: ignore[arg-type]
                for w in app.topLevelWidgets():
                    if w.objectName() == "mainWindow" and w.isVisible():
                        w._close_ok = True  # type: ignore[attr-defined]
                        w.close()

            task.add_done_callback(done)

        QTimer.singleShot(300, start)
        code = run(["bidstudio"])
    if failures:
        raise failures[0]
    print(f"{len(shooter.taken)} screenshots in {args.out}")
    return code


if __name__ == "__main__":  # the document pane's worker process re-imports this module
    sys.exit(main())

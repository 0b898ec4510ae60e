"""Screenshots of 视图 → 投标文件组成 on a real X display (Xvfb), for docs/.

    python tests/tools/screenshot_forms.py [--screen 1366x768] [--tender PATH] [--out docs]

Starts Xvfb, then the app itself (``app.ui.shell.main.run``, empty config and data folders)
with no model. Inside the app's loop it stores the sample 企业资料 of a fictional company
(``tests/forms_fixtures.py``) in 资料库, opens the tender, opens 视图 → 投标文件组成, types the price
and the bid date, selects the bid letter and captures the window
(``{out}/screenshot-forms-{W}x{H}.png``), then the 导出商务标 dialog
(``{out}/screenshot-forms-export-{W}x{H}.png``). Needs Xvfb and ImageMagick's ``import``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.tools.xvfb_walkthrough import Shooter, settle, start_xvfb, top, until  # noqa: E402


async def walk(shooter: Shooter, tender: Path, work: Path, screen: tuple[int, int]) -> None:
    """Open the tender, fill in the price and date, capture the panel and the export dialog."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from app.library.facts import save_facts
    from app.ui.forms.export_flow import FormsExportDialog
    from tests.forms_fixtures import sample_facts

    await until(lambda: top(object, "mainWindow") is not None)
    win = top(object, "mainWindow")
    c = win.controller
    await settle(1.0)
    store = win.library.store()
    save_facts(store, sample_facts(work / "files"))
    await win.open_path(tender)
    await until(lambda: c.document is not None and not c.tasks.get("open"), timeout=120)
    await settle(1.0)
    host = win.forms
    host.dock.toggleViewAction().trigger()
    await until(lambda: host.board.reading is not None, timeout=120)
    await settle(1.0)
    for key, value in (("price", "1286500"), ("date", "2026-06-30")):
        edit = host.panel.price.edits[key]
        edit.setFocus()
        QTest.keyClicks(edit, value)
        QTest.keyClick(edit, Qt.Key.Key_Return)
    letter = next((k for k, f in enumerate(host.board.forms) if f.kind == "bid_letter"), 0)
    host.panel.table.selectRow(letter)
    await settle(1.5)
    await shooter.shot(f"screenshot-forms-{screen[0]}x{screen[1]}.png", win)
    host.export_soon()
    await until(lambda: any(w.isVisible() for w in win.findChildren(FormsExportDialog)))
    await settle(1.0)
    await shooter.shot(f"screenshot-forms-export-{screen[0]}x{screen[1]}.png", win)
    dialog = next(w for w in win.findChildren(FormsExportDialog) if w.isVisible())
    dialog.reject()
    await settle(0.5)
    win._close_ok = True
    win.close()


def main() -> int:
    """Start Xvfb and the app, walk, capture."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tender", type=Path, default=REPO.parent / "shared" / "tenders" / "sichuan-iptv-metadata.docx")
    parser.add_argument("--out", type=Path, default=REPO / "docs")
    parser.add_argument("--screen", default="1366x768")
    args = parser.parse_args()
    screen = tuple(int(v) for v in args.screen.lower().split("x"))
    for tool in ("Xvfb", "import"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed (apt-get install xvfb imagemagick)")
    xvfb, display = start_xvfb((screen[0], screen[1]))
    work = Path(tempfile.mkdtemp(prefix="bidstudio-forms-shot-"))
    os.environ.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", BIDSTUDIO_CONFIG_DIR=str(work / "config"),
                      BIDSTUDIO_DATA_DIR=str(work / "data"))
    failures: list[BaseException] = []
    try:
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication

        from app.ui.shell.main import run

        shooter = Shooter(args.out)
        app = QApplication(["bidstudio"])

        def start() -> None:
            task = asyncio.ensure_future(walk(shooter, args.tender.resolve(), work, (screen[0], screen[1])))

            def done(t: asyncio.Task[None]) -> None:
                if not t.cancelled() and t.exception() is not None:
                    failures.append(t.exception())  # type: ignore[arg-type]
                    for w in app.topLevelWidgets():
                        if w.objectName() == "mainWindow":
                            w._close_ok = True  # type: ignore[attr-defined]
                            w.close()

            task.add_done_callback(done)

        QTimer.singleShot(300, start)
        run(["bidstudio"])
    finally:
        xvfb.terminate()
        xvfb.wait(5)
    if failures:
        raise failures[0]
    return 0


if __name__ == "__main__":
    sys.exit(main())

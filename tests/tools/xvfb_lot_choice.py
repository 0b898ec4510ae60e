"""Screenshots of the lot (包/标段) choice on the analysis page, on a real X display (Xvfb).

    python tests/tools/xvfb_lot_choice.py [--tender ../shared/tenders/dalian-structural-software-three-lots.docx]
                                          [--out /tmp/bidstudio-lots] [--screen 1366x768]

Starts Xvfb and the app without a model (as tests/tools/xvfb_walkthrough.py does), opens a tender
that scores its lots apart (the generated two-lot tender of tests/lot_fixtures.py when ``--tender``
is not given or absent), shows the analysis page with the lot combo (01), opens the combo's list with
a click (02), clicks the second lot (03: its rows, checks and verdict), and quits without saving.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.tools.xvfb_walkthrough import Shooter, settle, start_xvfb, top, until  # noqa: E402


async def walk(shooter: Shooter, tender: Path) -> None:
    """Open, show the lots, open the list, choose the second lot, quit."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QMessageBox

    await until(lambda: top(object, "mainWindow") is not None)
    win = top(object, "mainWindow")
    c, view = win.controller, win.analysis_view
    await settle(1.0)
    await win.open_path(tender)
    await until(lambda: c.document is not None and not c.tasks.get("open"), timeout=120)
    win.analysis_dock.raise_()
    box = view.scoring.lot_box
    await until(box.isVisible, timeout=60)
    await settle(2.0)
    await shooter.shot("01-lots-as-read.png", win)
    QTest.mouseClick(box, Qt.MouseButton.LeftButton)
    await until(lambda: box.view().isVisible())
    await settle(QApplication.doubleClickInterval() / 1000 + 0.5)
    await shooter.shot("02-lot-list-open.png", win)
    rect = box.view().visualRect(box.model().index(1, 0))
    QTest.mouseClick(box.view().viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    await until(lambda: c.analysis.scoring_lot == 1)
    await settle(2.0)
    await shooter.shot("03-second-lot-chosen.png", win)
    print(f"  lots: {[box.itemText(k) for k in range(box.count())]}; rows now: {[g.title for g in c.analysis.groups]}")
    win.act_quit.trigger()
    await until(lambda: top(QMessageBox, "unsavedBox") is not None)
    box_quit = top(QMessageBox, "unsavedBox")
    next(b for b in box_quit.buttons() if b.text() == "不保存").click()


def main() -> int:
    """Run the walk under Xvfb and print where the screenshots are."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tender", type=Path,
                        default=REPO.parent / "shared" / "tenders" / "dalian-structural-software-three-lots.docx")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "bidstudio-lots")
    parser.add_argument("--screen", default="1366x768")
    args = parser.parse_args()
    width, height = (int(v) for v in args.screen.lower().split("x"))
    work = Path(tempfile.mkdtemp(prefix="bidstudio-lots-"))
    tender = args.tender
    if not tender.exists():
        from tests.lot_fixtures import two_lots

        tender = work / "two-lots.docx"
        two_lots(tender)
    xvfb, display = start_xvfb((width, height))
    os.environ.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", BIDSTUDIO_CONFIG_DIR=str(work / "config"),
                      BIDSTUDIO_DATA_DIR=str(work / "data"))
    try:
        return run_app(tender.resolve(), Shooter(args.out))
    finally:
        xvfb.terminate()
        xvfb.wait(5)


def run_app(tender: Path, shooter: Shooter) -> int:
    """The app itself (``app.ui.shell.main.run``) with the walk started on its loop."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.ui.shell.main import run

    failures: list[BaseException] = []
    app = QApplication(["bidstudio"])

    def start() -> None:
        task = asyncio.ensure_future(walk(shooter, tender))

        def done(t: asyncio.Task[Any]) -> None:
            if not t.cancelled() and t.exception() is not None:
                failures.append(t.exception())  # type: ignore[arg-type]
                for w in app.topLevelWidgets():
                    if w.objectName() == "mainWindow":
                        w._close_ok = True  # type: ignore[attr-defined]
                        w.close()

        task.add_done_callback(done)

    QTimer.singleShot(300, start)
    code = run(["bidstudio"])
    if failures:
        raise failures[0]
    print(f"{len(shooter.taken)} screenshots in {shooter.out}")
    return code


if __name__ == "__main__":  # the document pane's worker process re-imports this module
    sys.exit(main())

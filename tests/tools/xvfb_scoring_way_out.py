"""Screenshots of the analysis page's way out of a misread scoring table, on a real X display (Xvfb).

    python tests/tools/xvfb_scoring_way_out.py [--tender ../shared/tenders/zhengzhou-prison-canteen-meat.pdf]
                                               [--out /tmp/way-out] [--screen 1366x768]

Starts Xvfb, the scripted OpenAI-compatible server and the app (as tests/tools/xvfb_walkthrough.py
does). The scripted model "reads right": its rows are the tender's labelled rows in
``labels.json`` beside the tender (or, with ``--rows FILE.json``, a list of [name, points,
category, group]). The walk opens the tender, shows the analysis page (01), runs 分析招标文件
so the model reads the scoring pages on its own (02: both readings side by side with the page
when they differ), clicks a model row (03: its page beside), takes the model's reading (04),
and quits without saving. Each screenshot is the window's area of the screen.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.tools.xvfb_walkthrough import Shooter, settle, start_xvfb, top, until  # noqa: E402

Row = tuple[str, float, str, str, int]  # name, points, category, group, page (0: any)


def label_rows(tender: Path) -> list[Row]:
    """The tender's labelled rows with their PDF pages: what a model that reads right returns, page by page."""
    labels = json.loads((tender.parent / "labels.json").read_text(encoding="utf-8"))
    rows = labels.get(tender.name, {}).get("rows", [])
    return [(str(r["name"]), float(r["points"]), str(r["category"]) if r["category"] in ("技术", "商务", "价格") else "其他",
             str(r.get("group") or ""), int(r["loc"]) if tender.suffix == ".pdf" and isinstance(r.get("loc"), int) else 0)
            for r in rows]


async def walk(shooter: Shooter, tender: Path) -> None:
    """Open, show, read twice, compare, take."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QMessageBox

    await until(lambda: top(object, "mainWindow") is not None)
    win = top(object, "mainWindow")
    c, view = win.controller, win.analysis_view
    await settle(1.0)
    await win.open_path(tender)
    await until(lambda: c.document is not None and not c.tasks.get("open"), timeout=120)
    win.analysis_dock.raise_()
    await settle(3.0)
    await shooter.shot("01-analysis-as-read.png", win)
    win.act_analyze.trigger()
    await until(lambda: c.analysis.second_reading is not None and not c.busy, timeout=300)
    win.analysis_dock.raise_()
    await settle(3.0)
    await shooter.shot("02-two-readings.png", win)
    if view.compare.isVisible() and view.compare.model_table.rowCount() > 3:
        table = view.compare.model_table
        rect = table.visualItemRect(table.item(3, 0))
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        await settle(3.0)
        await shooter.shot("03-a-model-row-and-its-page.png", win)
        QTest.mouseClick(view.compare.take_model, Qt.MouseButton.LeftButton)
        await settle(1.5)
        await shooter.shot("04-model-reading-taken.png", win)
    win.act_quit.trigger()
    await until(lambda: top(QMessageBox, "unsavedBox") is not None)
    box = top(QMessageBox, "unsavedBox")
    next(b for b in box.buttons() if b.text() == "不保存").click()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tender", type=Path,
                        default=REPO.parent / "shared" / "tenders" / "zhengzhou-prison-canteen-meat.pdf")
    parser.add_argument("--rows", type=Path, help="the scripted model's rows: JSON [[name, points, category, group]]")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "bidstudio-way-out")
    parser.add_argument("--screen", default="1366x768")
    args = parser.parse_args()
    width, height = (int(v) for v in args.screen.lower().split("x"))
    rows = ([(*r[:4], 0) for r in json.loads(args.rows.read_text(encoding="utf-8"))] if args.rows
            else label_rows(args.tender))
    xvfb, display = start_xvfb((width, height))
    work = Path(tempfile.mkdtemp(prefix="bidstudio-way-out-"))
    os.environ.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", BIDSTUDIO_CONFIG_DIR=str(work / "config"),
                      BIDSTUDIO_DATA_DIR=str(work / "data"))
    try:
        return run_app(args.tender.resolve(), rows, Shooter(args.out))  # type: ignore[arg-type]
    finally:
        xvfb.terminate()
        xvfb.wait(5)


def run_app(tender: Path, rows: list[Row], shooter: Shooter) -> int:
    import re

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.core.settings_model import AppSettings, ModelSettings, default_settings_path, save_settings
    from app.ui.shell.main import run
    from tests.openai_server import OpenAIServer, RecordedRequest, Reply
    from tests.pipeline_support import Router

    sent: set[int] = set()

    def model(kind: str, req: RecordedRequest) -> Reply:
        if kind == "second_reading":  # the rows printed on the page asked about (without pages: all, once)
            page = int(m.group(1)) if (m := re.search(r"第(\d+)页原文", req.prompt_text)) else 0
            mine = [r for r in rows if r[4] == page or (not r[4] and not sent)]
            sent.add(page)
            return Reply.text(json.dumps({"rows": [{"name": n, "points": p, "category": cat, "group": g}
                                                   for n, p, cat, g, _ in mine]}, ensure_ascii=False))
        if kind == "overview":
            return Reply.text('{"project_name": ""}')
        return Reply.text('{"answer": 1}' if '"answer"' in req.prompt_text else '{"groups": []}')

    failures: list[BaseException] = []
    with OpenAIServer() as server:
        server.handler = Router(model)
        save_settings(AppSettings(model=ModelSettings(provider="llamacpp", base_url=server.base_url, model="scripted")),
                      default_settings_path())
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

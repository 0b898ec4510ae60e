"""The built-in local model from a cold start: click 生成目录, time the first heading and the whole run.

Run from the repository root in an environment with the extra installed (``pip install ".[local]"``)::

    python tests/benchmarks/bench_local_model.py TENDER [TENDER …] [--mode aligned] [--gguf FILE]

For each tender the real main window (offscreen) opens the tender, 模型设置 is set to 内置本地模型
(nothing else configured), and 生成目录 is clicked. The managed llama.cpp server is not running
before the click, so the figures include its start. Printed per tender: seconds from the click to
the server being ready, to the first heading in the tree, to the first level-2 heading and to the
first heading the model wrote, the whole run, the headings by who wrote them, and whether the
outline is valid. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync  # noqa: E402
from PySide6.QtCore import QModelIndex, QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.core.api_keys import ApiKeyStore  # noqa: E402
from app.core.rules.outline import check_outline  # noqa: E402
from app.core.settings_model import AppSettings, ModelSettings  # noqa: E402
from app.ui.project.session import SessionWiring  # noqa: E402
from app.ui.run.controller import GENERATION, AppController  # noqa: E402
from app.ui.shell.errors import ErrorReporter  # noqa: E402
from app.ui.shell.main_window import MainWindow  # noqa: E402


async def one(tender: Path, mode: str, gguf: str, folder: Path) -> str:
    controller = AppController(reporter=ErrorReporter(folder))
    settings = AppSettings(model=ModelSettings(provider="embedded", base_url="", model="", local_model_path=gguf))
    wiring = SessionWiring(settings, ApiKeyStore())
    controller.client_factory = wiring.make_client
    window = MainWindow(controller, settings=settings, reporter=controller.reporter,
                        qsettings=QSettings(str(folder / "ui.ini"), QSettings.Format.IniFormat))
    wiring.attach(window)
    window.show()
    await window.open_path(tender)
    marks: dict[str, float] = {}
    t0 = [0.0]

    def mark(name: str) -> None:
        if t0[0] and name not in marks:
            marks[name] = time.perf_counter() - t0[0]

    wiring.local.state_changed.connect(lambda state, _m: mark(f"server {state}"))
    model = controller.model

    def on_rows(parent: QModelIndex, first: int, last: int) -> None:
        mark("first heading")
        if parent.isValid():
            mark("first level-2 heading")
        for row in range(first, last + 1):
            node = model.node_for_index(model.index(row, 0, parent))
            if node.origin == "model":
                mark("first model heading")

    model.rowsInserted.connect(on_rows)
    window.mode_box.setCurrentIndex(window.mode_box.findData(mode))
    if controller.analysis.needs_scoring_confirmation:  # the user checks the items and clicks 确认 first
        window.analysis_view.confirm_button.click()
    t0[0] = time.perf_counter()
    window.generate_button.click()
    while controller.tasks.get(GENERATION) is None:
        await asyncio.sleep(0.01)
    outcome = await controller.tasks[GENERATION]
    total = time.perf_counter() - t0[0]
    nodes = [n for _p, n in controller.outline.walk()]
    by: dict[str, int] = {}
    for n in nodes:
        by[n.origin or "?"] = by.get(n.origin or "?", 0) + 1
    valid = not check_outline(controller.outline.chapters, controller.limits) if controller.outline.chapters else False
    server = wiring.local.server
    row = (f"| {tender.name} | {mode} | {marks.get('server ready', float('nan')):.1f} | "
           f"{marks.get('first heading', float('nan')):.1f} | {marks.get('first level-2 heading', float('nan')):.1f} | "
           f"{marks.get('first model heading', float('nan')):.1f} | {total:.0f} | {len(nodes)} | "
           f"{', '.join(f'{k} {v}' for k, v in sorted(by.items()))} | {valid} | {outcome.ok} |"
           f" {server.restarts if server else '-'} |")
    print(row, flush=True)
    window._close_ok = True
    window.close()
    await controller.shutdown()
    window.deleteLater()
    wiring.local.stop()
    return row


async def run(args: argparse.Namespace) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("| tender | mode | server ready s | first heading s | first level-2 s | first model heading s | "
          "whole run s | headings | by origin | valid | run ok | restarts |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for tender in args.tenders:
        with tempfile.TemporaryDirectory() as tmp:
            await one(Path(tender), args.mode, args.gguf, Path(tmp))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tenders", nargs="+")
    parser.add_argument("--mode", default="aligned", choices=("aligned", "free"))
    parser.add_argument("--gguf", default="", help="a GGUF file instead of the bundled model")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("BIDSTUDIO_DATA_DIR", str(Path(tmp) / "data"))
        os.environ.setdefault("BIDSTUDIO_CONFIG_DIR", str(Path(tmp) / "config"))
        app = QApplication.instance() or QApplication(sys.argv)
        app.setQuitOnLastWindowClosed(False)
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            loop.run_until_complete(run(args))


if __name__ == "__main__":
    main()

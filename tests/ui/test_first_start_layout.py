"""The first start on a laptop screen, the section editor a click away, 重置布局 and 帮助 (issue 30, majors 4 and 5)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, QSettings, Qt
from PySide6.QtWidgets import QMessageBox

from app.core.analysis import Analysis, ScoringGroup
from app.core.outline import OutlineNode
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

LAPTOP = QRect(0, 0, 1366, 768)


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer,
                 reporter: ErrorReporter) -> AsyncIterator[MainWindow]:
    """A first start (no saved layout) on a 1366×768 screen."""
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    win._fit_to_screen(LAPTOP)
    win.show()
    await asyncio.sleep(0.1)
    yield win
    await close_window(win)
    await asyncio.sleep(0)


def _twelve_items() -> Analysis:
    groups = [ScoringGroup(id=f"R{i}", title=f"评分项{i}", points=5, source_page=10 + i,
                           description="评分标准说明" * 6) for i in range(1, 13)]
    return Analysis(groups=groups)


def _rows_fully_visible(window: MainWindow) -> int:
    table = window.analysis_view.table
    height = table.viewport().height()
    model = window.analysis_view.table_model
    return sum(1 for r in range(model.rowCount()) if 0 <= table.visualRect(model.index(r, 0)).top()
               and table.visualRect(model.index(r, 0)).bottom() < height)


async def test_a_1366x768_first_start_fits_and_shows_eight_scoring_rows(window: MainWindow) -> None:
    assert window.height() <= LAPTOP.height() - 32 and window.width() <= LAPTOP.width()
    hint = window.minimumSizeHint()
    assert hint.height() <= LAPTOP.height() - 70, hint  # a taskbar and a title bar still leave room
    assert window.status.isVisible() and window.status.geometry().bottom() > 0
    window.controller.set_analysis(_twelve_items())
    window.analysis_dock.raise_()
    await wait_for(window.analysis_view.table.isVisible)
    await asyncio.sleep(0.05)
    assert _rows_fully_visible(window) >= 8
    assert not window.section_dock.isVisible()  # the 招标分析 stage: the tender and its reading


async def test_the_section_editor_is_a_click_away_and_follows_selection_and_renames(window: MainWindow,
                                                                                   qtbot: Any) -> None:
    c = window.controller
    bar = window.workspace.bar
    names = [bar.tabText(i) for i in range(bar.count())]
    assert any(name.endswith("正文") for name in names)  # a place to write, on show from the first start
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(names.index("3 正文")).center())
    assert window.section_dock.isVisible()
    c.outline.replace([OutlineNode(title="服务方案", children=[OutlineNode(title="人员配置")])])
    c.outline.renumber()
    window.section_dock.close()  # closed by the user...
    view = window.outline_view
    index = c.model.index_for_path((0, 0))
    view.scrollTo(index)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())
    await wait_for(window.section_dock.isVisible)  # ...a click on a section brings it back
    editor = window.section_editor
    assert editor.key == "1.1" and "人员配置" in editor.title_label.text()
    assert editor.source_button.isEnabled()
    c.outline.update((0, 0), title="项目人员配置")  # a rename (as F2 does through the model)
    assert "项目人员配置" in editor.title_label.text()


@pytest.mark.qt_log_ignore(r"This plugin does not support (propagateSizeHints|raise)")
async def test_reset_layout_and_help(window: MainWindow, qtbot: Any) -> None:
    window.workspace.actions["outline"].trigger()
    window.analysis_dock.close()
    window.log_dock.setFloating(True)
    window.act_reset_layout.trigger()
    await asyncio.sleep(0.05)
    assert window.analysis_dock.isVisible() and not window.log_dock.isFloating()
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text().startswith("视图"))
    assert "重置布局" in [a.text() for a in view_menu.actions()]
    window.act_help.trigger()
    box = window.findChild(QMessageBox, "helpBox")
    assert box is not None and box.isVisible() and "生成目录" in box.text()
    box.close()


async def test_without_a_keyring_the_banner_says_the_key_is_not_saved(window: MainWindow, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30 minor: address and model saved, no keyring → “密钥未保存”, not “尚未配置模型”."""
    import keyring
    from keyring.backends import fail
    from PySide6.QtWidgets import QDialogButtonBox

    from app.core.settings_model import AppSettings
    from app.ui.project.session import SessionWiring
    from app.ui.shell.settings_dialog import SettingsDialog

    monkeypatch.setenv("BIDSTUDIO_CONFIG_DIR", str(tmp_path / "config"))
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        wiring = SessionWiring(AppSettings())
        wiring.attach(window)
        window.act_settings.trigger()
        dialog = window.findChild(SettingsDialog)
        assert dialog is not None
        dialog.model_combo.setEditText("deepseek-chat")  # the DeepSeek preset's address is filled in
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
        assert window.guide.isVisible()
        assert "密钥未保存" in window.guide.text() and "尚未配置模型" not in window.guide.text()
        assert "系统密钥库" in window.guide.text()
    finally:
        keyring.set_keyring(previous)


async def test_a_heading_with_sections_says_where_to_write(window: MainWindow, qtbot: Any) -> None:
    c = window.controller
    c.outline.replace([OutlineNode(title="服务方案", children=[OutlineNode(title="人员配置")])])
    c.outline.renumber()
    window.outline_view.select_path((0, 0))
    editor = window.section_editor
    qtbot.mouseClick(editor.source_button, Qt.MouseButton.LeftButton)
    editor.text.insertPlainText("配备专职人员。")
    window.outline_view.select_path((0,))  # a chapter: its sections hold the text
    assert "有下级标题" in editor.title_label.text() and not editor.source_button.isEnabled()
    assert c.outline.node((0, 0)).content == "配备专职人员。"  # the edit left behind was kept


def test_a_first_start_loads_no_model_client_and_no_heavy_library(tmp_path: Path) -> None:
    """Issue 37 §4 (window visible 1.35 → 1.93 s): the window starts without the openai client (the model
    layer), keyring, numpy or httpx, the scoring-table reader or 评审模拟's matcher (each costs tens of
    milliseconds to load); each loads with its first use. A fresh process, so nothing loaded by other
    tests counts."""
    import os
    import subprocess
    import sys

    script = ("import sys\nfrom PySide6.QtWidgets import QApplication\napp = QApplication([])\n"
              "from app.ui.run.controller import AppController\nfrom app.ui.shell.main_window import MainWindow\n"
              "w = MainWindow(AppController())\nw.show()\napp.processEvents()\n"
              "print(sorted(m for m in ('openai', 'keyring', 'numpy', 'httpx', 'matplotlib', 'app.documents.scoring.cells',"
              " 'app.pipeline.evaluation.matching') if m in sys.modules))\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BIDSTUDIO_CONFIG_DIR=str(tmp_path / "config"),
               BIDSTUDIO_DATA_DIR=str(tmp_path / "data"))
    out = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[2], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout

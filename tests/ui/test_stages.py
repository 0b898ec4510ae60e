"""The window as a workspace by stage (issue 37 §1): every stage fits a laptop, switching keeps the work.

A stage is switched the way a user does it: a click on the stage bar, Ctrl+1…Ctrl+5, a menu
entry or a panel's own menu entry (视图 → 资料库, 生成 → 查重).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, QSettings, Qt
from PySide6.QtWidgets import QDockWidget, QTabBar

from app.core.outline import OutlineNode
from app.ui.outline.commands import EditFieldCommand
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from app.ui.shell.stages import STAGE_KEYS, STAGES
from tests.openai_server import OpenAIServer
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support (propagateSizeHints|raise)")

LAPTOP = QRect(0, 0, 1366, 768)
#: What a laptop leaves a window: a taskbar (40 px) and a title bar (32 px) off 768, and room to spare
#: for other fonts and themes (60 px), so a stage never fits by a few pixels only.
MAX_MIN_HEIGHT = 768 - 40 - 32 - 60
MAX_MIN_WIDTH = 1366 - 120


def _window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer, reporter: ErrorReporter,
            ini: Path | None = None) -> MainWindow:
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    settings = QSettings(str(ini or tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(ctl, reporter=reporter, qsettings=settings)
    win._fit_to_screen(LAPTOP)
    return win


@pytest.fixture
async def window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer, reporter: ErrorReporter,
                 monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[MainWindow]:
    """A first start (no saved layout, an empty data folder) on a 1366×768 screen."""
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    win = _window(qapp, tmp_path, llm_server, reporter)
    win.show()
    await asyncio.sleep(0.1)
    yield win
    await close_window(win)
    await asyncio.sleep(0)


def _outline(chapters: int = 30) -> list[OutlineNode]:
    return [OutlineNode(title=f"第{c}章服务方案", children=[OutlineNode(title=f"第{c}章第{s}节措施") for s in range(1, 4)])
            for c in range(1, chapters + 1)]


def _shown(window: MainWindow) -> set[str]:
    """The panels that can be seen (open, not a tab behind another)."""
    return {d.objectName() for d in window.findChildren(QDockWidget)
            if d.isVisible() and not d.visibleRegion().isEmpty()}


def _inside_window(window: MainWindow) -> list[str]:
    """Panels drawn (partly) outside the window's area: what would be off a screen the window fits."""
    area = window.rect()
    return [d.objectName() for d in window.findChildren(QDockWidget)
            if d.isVisible() and not d.visibleRegion().isEmpty() and not d.isFloating()
            and not area.contains(d.geometry())]


def _click_stage(window: MainWindow, qtbot: Any, key: str) -> None:
    bar = window.workspace.bar
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(STAGE_KEYS.index(key)).center())


def _tab_bar_faults(window: MainWindow) -> list[str]:
    """Dock tab bars drawn for no tab group on show (Qt left such bars behind, over the next stage's
    panels), and tab groups on show without their bar (their panels behind could not be reached)."""
    groups = []
    for dock in window.findChildren(QDockWidget):
        if dock.isVisible() and not dock.isFloating():
            mates = {m.windowTitle() for m in window.tabifiedDockWidgets(dock) if m.isVisible()}
            if mates:
                groups.append({dock.windowTitle(), *mates})
    faults, drawn = [], []
    for bar in window.findChildren(QTabBar):
        if (bar is window.workspace.bar or bar.parent() is not window or not bar.isVisible()
                or not window.rect().intersects(bar.geometry())):  # Qt parks unused bars outside the window
            continue
        tabs = {bar.tabText(i) for i in range(bar.count())}
        drawn.append(tabs)
        if tabs not in groups:
            faults.append("drawn: " + "|".join(sorted(tabs)))
    faults += ["missing: " + "|".join(sorted(g)) for g in groups if g not in drawn]
    return faults


async def test_every_stage_fits_a_1366x768_screen_with_room_to_spare(window: MainWindow, qtbot: Any) -> None:
    for key in (*STAGE_KEYS, *STAGE_KEYS):  # first visits build each layout, second visits restore it
        _click_stage(window, qtbot, key)
        await asyncio.sleep(0.05)
        assert window.workspace.current == key
        hint = window.minimumSizeHint()
        assert hint.height() <= MAX_MIN_HEIGHT and hint.width() <= MAX_MIN_WIDTH, (key, hint)
        assert window.width() <= LAPTOP.width() and window.height() <= LAPTOP.height() - 32, (key, window.size())
        assert not _inside_window(window), key
        assert not _tab_bar_faults(window), key
        assert window.status.isVisible() and window.outline_view.isVisible(), key  # the outline stays in view
        assert window.outline_view.width() >= 260, key
        assert not _scrolled_panels(window), key  # a laptop has room for every panel unscrolled


def _scrolled_panels(window: MainWindow) -> list[str]:
    """Panels on show that their frame scrolls (given less than they need): only for too small a screen."""
    from app.ui.shell.panel_frame import PanelFrame

    return [d.objectName() for d in window.findChildren(QDockWidget)
            if d.isVisible() and not d.visibleRegion().isEmpty() and isinstance(d.widget(), PanelFrame)
            and (d.widget().horizontalScrollBar().isVisible() or d.widget().verticalScrollBar().isVisible())]


async def test_each_stage_shows_its_own_panels(window: MainWindow, qtbot: Any) -> None:
    expected = {"analysis": ({"documentDock", "analysisDock"}, {"sectionDock", "reviewDock", "libraryStoreDock"}),
                "outline": ({"analysisDock", "logDock", "libraryDock"}, {"sectionDock", "reviewDock", "documentDock"}),
                "text": ({"sectionDock"}, {"analysisDock", "reviewDock", "documentDock", "libraryStoreDock"}),
                "review": ({"reviewDock", "responseTablesDock"}, {"sectionDock", "analysisDock", "checkDock"}),
                "material": ({"libraryStoreDock"}, {"sectionDock", "reviewDock", "analysisDock"})}
    assert window.workspace.current == "analysis"  # a first start begins with the tender
    for key, (shown, not_shown) in expected.items():
        _click_stage(window, qtbot, key)
        await asyncio.sleep(0.05)
        on_show = _shown(window)
        assert shown <= on_show, (key, on_show)
        assert not (not_shown & on_show), (key, on_show)
    names = [window.workspace.bar.tabText(i) for i in range(window.workspace.bar.count())]
    assert names == [f"{n} {s.title}" for n, s in enumerate(STAGES, start=1)]


async def test_switching_by_click_and_by_shortcut_keeps_selection_scroll_and_undo(window: MainWindow,
                                                                                    qtbot: Any) -> None:
    c = window.controller
    c.outline.replace(_outline())
    c.outline.renumber()
    view = window.outline_view
    view.expandAll()
    c.undo_stack.push(EditFieldCommand(c.outline, (2,), "title", "第3章服务方案（改）", "重命名"))
    window.workspace.switch("outline")
    await asyncio.sleep(0.05)
    view.select_path((17, 1))
    bar = view.verticalScrollBar()
    assert bar.maximum() > 20
    bar.setValue(bar.maximum() // 2)
    scroll, undo = bar.value(), (c.undo_stack.count(), c.undo_stack.index())
    window.activateWindow()
    window.raise_()
    await wait_for(lambda: window.isActiveWindow(), timeout=5)
    for n, key in enumerate(("text", "review", "material", "analysis", "outline"), start=1):
        if n % 2:
            _click_stage(window, qtbot, key)
        else:
            qtbot.keyClick(view, Qt.Key(Qt.Key.Key_1 + STAGE_KEYS.index(key)), Qt.KeyboardModifier.ControlModifier)
        await asyncio.sleep(0.05)
        assert window.workspace.current == key
        assert window.workspace.actions[key].isChecked() and window.workspace.bar.currentIndex() == STAGE_KEYS.index(key)
        assert view.current_path() == (17, 1), key
        assert bar.value() == scroll, key
        assert (c.undo_stack.count(), c.undo_stack.index()) == undo, key
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the rename made before is undone
    assert c.outline.node((2,)).title == "第3章服务方案"


async def test_a_panel_opened_from_a_menu_brings_its_stage_and_never_grows_the_window(window: MainWindow,
                                                                                       qtbot: Any) -> None:
    """Issue 37 §1: 资料库 or 查重 grew the window to 905–1103 px on a 768 px screen."""
    before = window.size()
    window.workspace.switch("text")
    window.library.dock.toggleViewAction().trigger()  # 视图 → 资料库
    await wait_for(lambda: window.workspace.current == "material")
    await asyncio.sleep(0.05)
    assert "libraryStoreDock" in _shown(window) and window.size() == before
    window.workspace.switch("review")
    window.library.check_dock.close()  # closed in its stage: the menu still brings it
    window.workspace.switch("material")
    window.library.check_action.trigger()  # 生成 → 查重
    await wait_for(lambda: window.workspace.current == "review")
    await asyncio.sleep(0.05)
    assert "checkDock" in _shown(window) and window.size() == before
    assert not _inside_window(window)
    window.act_reset_layout.trigger()  # the review stage's own layout: 评审模拟 in front again
    await asyncio.sleep(0.05)
    assert {"reviewDock", "responseTablesDock"} <= _shown(window) and window.size() == before


async def test_reset_layout_restores_the_stage_on_show(window: MainWindow, qtbot: Any) -> None:
    _click_stage(window, qtbot, "outline")
    window.library_dock.close()
    window.log_dock.setFloating(True)
    _click_stage(window, qtbot, "text")
    window.section_dock.close()
    window.act_reset_layout.trigger()  # only the stage on show
    await asyncio.sleep(0.05)
    assert "sectionDock" in _shown(window)
    _click_stage(window, qtbot, "outline")
    await asyncio.sleep(0.05)
    assert "libraryDock" not in _shown(window) and window.log_dock.isFloating()  # as the user left it
    window.act_reset_layout.trigger()
    await asyncio.sleep(0.05)
    assert {"libraryDock", "logDock"} <= _shown(window) and not window.log_dock.isFloating()


async def test_a_restarted_window_keeps_its_stage_and_layouts_and_fits_a_smaller_screen(
        qapp: Any, tmp_path: Path, llm_server: OpenAIServer, reporter: ErrorReporter,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 37 §1: after a restart the window was 1364×786 on a 768 px screen."""
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    ini = tmp_path / "saved.ini"
    first = _window(qapp, tmp_path, llm_server, reporter, ini)
    first._fit_to_screen(QRect(0, 0, 1920, 1080))  # a big screen first
    first.show()
    await asyncio.sleep(0.1)
    first.resize(1800, 1000)
    first.workspace.switch("outline")
    first.library_dock.close()
    first.workspace.switch("review")
    await asyncio.sleep(0.05)
    await close_window(first)  # the layout is saved on close
    await asyncio.sleep(0.05)
    # the same settings on this test platform's own screen, far smaller than 1800×1000
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    again = MainWindow(ctl, reporter=reporter, qsettings=QSettings(str(ini), QSettings.Format.IniFormat))
    again.show()
    await asyncio.sleep(0.1)
    try:
        free = again.screen().availableGeometry()
        assert free.height() < 1000
        assert again.workspace.current == "review"
        assert again.height() <= free.height() - 32 and again.y() >= free.y(), (again.geometry(), free)
        assert again.width() <= max(free.width(), again.minimumSizeHint().width()), (again.geometry(), free)
        again.workspace.switch("outline")
        await asyncio.sleep(0.05)
        assert "libraryDock" not in _shown(again) and "analysisDock" in _shown(again)  # as the user left it
        assert not _inside_window(again)
    finally:
        await close_window(again)


async def test_past_sections_join_the_text_stage_once_there_is_a_library_and_stay_closed_when_closed(
        window: MainWindow, qtbot: Any, tmp_path: Path) -> None:
    from tests.library_fixtures import OWN_OUTLINES, make_bid, write_docx

    _click_stage(window, qtbot, "text")
    assert "pastSectionsDock" not in _shown(window)  # no library yet: nothing to show beside the text
    lib = window.library
    (tmp_path / "bids").mkdir()
    write_docx(make_bid(0, OWN_OUTLINES[0], paragraphs=2), tmp_path / "bids" / "bid.docx")
    lib.panel.import_paths([tmp_path / "bids"])
    await wait_for(lambda: lib.panel.worker is None and lib.panel.bids.rowCount() == 1, timeout=60)
    _click_stage(window, qtbot, "outline")
    _click_stage(window, qtbot, "text")
    await asyncio.sleep(0.05)
    assert {"sectionDock", "pastSectionsDock"} <= _shown(window)
    lib.past_dock.close()  # closed by the user: it stays closed
    _click_stage(window, qtbot, "review")
    _click_stage(window, qtbot, "text")
    await asyncio.sleep(0.05)
    assert "pastSectionsDock" not in _shown(window) and "sectionDock" in _shown(window)


async def test_the_log_shows_its_newest_lines_when_its_stage_comes_back(window: MainWindow, qtbot: Any) -> None:
    import logging

    assert not window.log_dock.isVisible()  # the log is not on show while lines arrive
    for n in range(60):
        logging.getLogger("bidstudio.run").info("第 %d 行", n)
    await asyncio.sleep(0.3)  # the log handler hands lines over in batches
    _click_stage(window, qtbot, "outline")
    table = window.log_pane.table
    bar = table.verticalScrollBar()
    await wait_for(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())


async def test_a_larger_system_font_never_makes_a_stage_larger_than_a_laptop(
        qapp: Any, tmp_path: Path, llm_server: OpenAIServer, reporter: ErrorReporter,
        monkeypatch: pytest.MonkeyPatch, qtbot: Any) -> None:
    """Issue 37 §1: a window 741 px high where 736 fit — the layout depended on fonts by 5 px. With the
    system font half as large again, the first-run guide and the sample note on show, every stage
    still fits a 1366×768 laptop with the room to spare asked above; the panels scroll instead."""
    from PySide6.QtGui import QFont

    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    old = QFont(qapp.font())
    big = QFont(old)
    big.setPointSizeF(max(old.pointSizeF(), 9.0) * 1.5)
    qapp.setFont(big)
    win = _window(qapp, tmp_path, llm_server, reporter)
    try:
        win.set_model_configured(False)
        win.sample_note.setVisible(True)
        win.show()
        await asyncio.sleep(0.1)
        for key in STAGE_KEYS:
            _click_stage(win, qtbot, key)
            await asyncio.sleep(0.05)
            hint = win.minimumSizeHint()
            assert hint.height() <= MAX_MIN_HEIGHT and hint.width() <= MAX_MIN_WIDTH, (key, hint)
            assert win.height() <= LAPTOP.height() - 32 and win.width() <= LAPTOP.width(), (key, win.size())
            assert not _inside_window(win), key
            assert win.status.isVisible() and win.outline_view.isVisible(), key
    finally:
        await close_window(win)
        qapp.setFont(old)

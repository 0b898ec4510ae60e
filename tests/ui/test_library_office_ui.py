"""The office library in the window: 设置 → 资料库 (测试连接, password in the keyring), copying the personal library
over with a review of differing facts, the banner while the server is down and the reconnect, and a fact edit
that lost a race. The server tests use a real PostgreSQL (``pg_config``; skipped saying why without one)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from PySide6.QtCore import QSettings, Qt

from app.core.api_keys import ApiKeyStore
from app.core.settings_model import AppSettings, LibrarySettings, load_settings
from app.library import server
from app.library.bid_import import import_files
from app.library.engines.postgres import PostgresStore
from app.library.facts import Fact, load_facts, save_facts, update_fact
from app.library.store import LibraryStore, ServerConfig
from app.ui.library.facts_panel import FactsPanel
from app.ui.library.library_settings import LibrarySettingsTab
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from app.ui.shell.settings_dialog import SettingsDialog
from tests.library_fixtures import OWN_OUTLINES, make_bid, write_docx
from tests.openai_server import OpenAIServer
from tests.pg_server import PgServer
from tests.test_settings import MemoryKeyring
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    server._PASSWORDS.clear()  # the process-wide password store is made anew on this keyring
    yield backend
    keyring.set_keyring(previous)
    server._PASSWORDS.clear()


def _fill(qtbot: Any, tab: LibrarySettingsTab, config: ServerConfig, password: str) -> None:
    qtbot.mouseClick(tab.office_radio, Qt.MouseButton.LeftButton)
    for edit, text in ((tab.host_edit, config.host), (tab.database_edit, config.database), (tab.user_edit, config.user)):
        edit.clear()
        qtbot.keyClicks(edit, text)
    tab.port_spin.setValue(config.port)
    tab.password_edit.clear()
    qtbot.keyClicks(tab.password_edit, password)


def _test_connection(qtbot: Any, tab: LibrarySettingsTab) -> str:
    qtbot.mouseClick(tab.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.test_button.isEnabled() and tab.status_label.text()[:1] in "✔✘", timeout=15000)
    return tab.status_label.text()


def test_library_tab_says_what_is_wrong_and_keeps_the_password_in_the_keyring(
        qtbot: Any, tmp_path: Path, pg_config: ServerConfig, memory_keyring: MemoryKeyring) -> None:
    settings_path = tmp_path / "config" / "settings.json"
    dialog = SettingsDialog(AppSettings(), ApiKeyStore(), settings_path=settings_path)
    qtbot.addWidget(dialog)
    dialog.show_tab("library")
    tab = dialog.library_tab
    assert dialog.tabs.currentWidget() is tab and tab.local_radio.isChecked() and not tab.office_box.isEnabled()
    _fill(qtbot, tab, pg_config, "wrong-password")
    assert tab.office_box.isEnabled()
    assert "✘" in (text := _test_connection(qtbot, tab)) and "密码不正确" in text
    tab.port_spin.setValue(1)
    assert "连接被拒绝" in _test_connection(qtbot, tab)
    tab.port_spin.setValue(pg_config.port)
    tab.password_edit.clear()
    qtbot.keyClicks(tab.password_edit, pg_config.password)
    assert "✔" in (text := _test_connection(qtbot, tab)) and "数据库为空" in text
    with qtbot.waitSignal(dialog.settingsSaved) as saved:
        dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    result: AppSettings = saved.args[0]
    assert result.library == LibrarySettings(engine="postgres", host=pg_config.host, port=pg_config.port,
                                             database=pg_config.database, user=pg_config.user)
    account = server.password_account(pg_config)
    assert memory_keyring.passwords == {("BidStudio", account): pg_config.password}
    assert pg_config.password not in settings_path.read_text(encoding="utf-8")
    assert load_settings(settings_path).library == result.library
    again = SettingsDialog(result, ApiKeyStore())  # reopened: the password comes back from the keyring
    qtbot.addWidget(again)
    assert again.library_tab.office_radio.isChecked() and again.library_tab.password_edit.text() == pg_config.password
    again.reject()


def test_an_incomplete_office_library_is_not_saved(qtbot: Any, tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    dialog = SettingsDialog(AppSettings(), ApiKeyStore(), settings_path=tmp_path / "s.json")
    qtbot.addWidget(dialog)
    dialog.show_tab("library")
    qtbot.mouseClick(dialog.library_tab.office_radio, Qt.MouseButton.LeftButton)
    saved: list[object] = []
    dialog.settingsSaved.connect(saved.append)
    dialog.buttons.button(dialog.buttons.StandardButton.Ok).click()
    assert saved == [] and "服务器地址" in dialog.library_tab.status_label.text()
    assert not (tmp_path / "s.json").exists()
    dialog.reject()


def test_copying_the_personal_library_skips_bids_the_office_has_and_reviews_differing_facts(
        qtbot: Any, tmp_path: Path, pg_config: ServerConfig, memory_keyring: MemoryKeyring) -> None:
    folder = tmp_path / "bids"
    folder.mkdir()
    for i in range(3):
        write_docx(make_bid(i, OWN_OUTLINES[i % 3]), folder / f"bid{i}.docx")
    local = LibraryStore(tmp_path / "local.sqlite3")
    import_files(local, [folder])
    save_facts(local, [Fact("certificate", {"name": "ISO9001", "number": "Q-1", "valid_until": "2027-06-30"}, "本人"),
                       Fact("certificate", {"name": "ISO14001", "number": "E-9", "valid_until": "2026-01-01"}, "本人"),
                       Fact("staff", {"name": "王建国", "role": "项目经理"}, "本人")])
    local.close()
    office = PostgresStore(pg_config)
    import_files(office, [folder / "bid1.docx"])  # a colleague imported this one already
    save_facts(office, [Fact("certificate", {"name": "ISO9001", "number": "Q-1", "valid_until": "2025-06-30"}, "办公室"),
                        Fact("staff", {"name": "王建国", "role": "项目经理"}, "办公室")])
    office.close()
    tab = LibrarySettingsTab(LibrarySettings(), local_path=tmp_path / "local.sqlite3")
    qtbot.addWidget(tab)
    _fill(qtbot, tab, pg_config, pg_config.password)
    copied: list[object] = []
    tab.copied.connect(copied.append)
    qtbot.mouseClick(tab.copy_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.review is not None and tab.review.isVisible(), timeout=60000)
    review = tab.review
    assert review is not None and [c.describe() for c in review.clashes] == ["资质证书：Q-1"]
    assert review.table.item(0, 2).text() == "2025-06-30" and review.table.item(0, 3).text() == "2027-06-30"
    assert "已复制 2 份历史标书（1 份办公室资料库中已有" in tab.copy_label.text()
    review.set_taken(0, True)
    qtbot.mouseClick(review.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(copied), timeout=10000)
    assert "1 条采用本机资料库的内容" in tab.copy_label.text()
    office = PostgresStore(pg_config)
    try:
        assert office.counts()[0] == 3 and len({b.name for b in office.bids()}) == 3
        facts = {(f.kind, f.data["name"]): f for f in load_facts(office)}
        assert len(facts) == 3 and facts[("certificate", "ISO9001")].data["valid_until"] == "2027-06-30"
        assert facts[("certificate", "ISO14001")].source == "本人"
    finally:
        office.close()
    qtbot.mouseClick(tab.copy_button, Qt.MouseButton.LeftButton)  # again: nothing new, nothing doubled
    qtbot.waitUntil(lambda: len(copied) == 2, timeout=60000)
    assert "已复制 0 份历史标书（3 份办公室资料库中已有" in tab.copy_label.text() and tab.review is not None


def test_a_fact_changed_by_someone_else_is_not_written_over(qtbot: Any, tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite3"
    mine, theirs = LibraryStore(path), LibraryStore(path)
    save_facts(mine, [Fact("staff", {"name": "王建国", "role": "项目经理", "certificates": "", "years": "10"}, "x")])
    panel = FactsPanel(lambda: mine)
    qtbot.addWidget(panel)
    panel.kind_box.setCurrentIndex(panel.kind_box.findData("staff"))
    panel.refresh()
    update_fact(theirs, load_facts(theirs)[0], {"name": "王建国", "role": "技术负责人", "certificates": "", "years": "10"})
    panel.table.item(0, 1).setText("项目总监")  # typed over the stored row
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    assert "1 条修改未保存" in panel.status.text() and "已被" in panel.status.text()
    assert panel.table.item(0, 1).text() == "技术负责人"  # the latest content is shown, nothing overwritten
    panel.table.item(0, 3).setText("12")  # edited again on the latest version: saved
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    assert "已保存 1 条修改" in panel.status.text() and panel.last_refused == []
    # their change kept, mine applied to it; only the fields typed over were written (none added empty)
    assert load_facts(theirs)[0].data == {"name": "王建国", "role": "技术负责人", "certificates": "", "years": "12"}
    mine.close()
    theirs.close()


@pytest.fixture
async def office_window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer, reporter: ErrorReporter,
                        monkeypatch: pytest.MonkeyPatch, pg_config: ServerConfig,
                        memory_keyring: MemoryKeyring) -> AsyncIterator[MainWindow]:
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    server.passwords().set(server.password_account(pg_config), pg_config.password)
    settings = AppSettings(library=LibrarySettings(engine="postgres", host=pg_config.host, port=pg_config.port,
                                                   database=pg_config.database, user=pg_config.user))
    qapp.setQuitOnLastWindowClosed(False)
    ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
    win = MainWindow(ctl, reporter=reporter, settings=settings,
                     qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    win.show()
    yield win
    await close_window(win)
    await asyncio.sleep(0)


async def test_the_window_waits_for_the_office_server_and_reconnects_by_itself(
        office_window: MainWindow, qtbot: Any, tmp_path: Path, pg_server: PgServer) -> None:
    lib = office_window.library
    assert lib.monitor is not None
    await wait_for(lambda: lib.monitor is not None and lib.monitor.available, timeout=15)
    assert not any(b.isVisible() for b in lib.banners) and not lib.path.exists()  # no local file made
    folder = tmp_path / "bids"
    folder.mkdir()
    for i in range(2):
        write_docx(make_bid(i, OWN_OUTLINES[i]), folder / f"bid{i}.docx")
    lib.dock.toggleViewAction().trigger()
    assert lib.panel.import_paths([folder])  # in its own process, on its own connection to the server
    await wait_for(lambda: lib.panel.worker is None and lib.panel.bids.rowCount() == 2, timeout=60)
    assert lib.panel.status.text().startswith("导入完成：新增 2 份")
    assert office_window.controller.drafting.library is not None

    pg_server.stop()
    try:
        assert lib.panel.search("应急响应流程") == 0  # the call fails: no error dialog, the banner says why
        await wait_for(lambda: lib.banners[0].isVisible(), timeout=10)
        assert "暂时无法使用" in lib.banners[0].text() and "目录和正文可以照常编写" in lib.banners[0].text()
        assert office_window.error_dialogs == [] and office_window.controller.drafting.library is None
        assert lib.store() is None and lib.checks.check_library() == []  # library features say why they wait
    finally:
        pg_server.start()
    await wait_for(lambda: not lib.banners[0].isVisible(), timeout=15)  # reconnected by itself
    assert lib.panel.search("应急响应流程") > 0 and office_window.controller.drafting.library is not None
    assert office_window.error_dialogs == []

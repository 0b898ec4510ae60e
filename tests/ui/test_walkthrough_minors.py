"""Issue 37 §2 minors on the real window: the project name read from a tender's cover, file dialogs'
starting folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ui.ui_helpers import wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

COVER = ("某区智慧校园设备购置\n项目编号\nQY-2026-0017\n招标文件\n第一章 招标公告\n"
         "项目名称：某区智慧校园设备购置\n项目编号\nQY-2026-0017\n采购人：某区教育局\n"
         "某区教育局就某区智慧校园设备购置项目（项目编号：QY-2026-0017）进行公开招标，欢迎合格的供应商参加。\n")


async def test_the_project_name_never_takes_the_number_label_that_follows_it(window: Any, tmp_path: Path) -> None:
    path = tmp_path / "招标文件.txt"
    path.write_text(COVER, encoding="utf-8")
    await window.open_path(path)
    c = window.controller
    await wait_for(lambda: c.document is not None and not c.busy, timeout=30)
    name = c.analysis.overview.project_name
    assert name.startswith("某区智慧校园设备购置") and "编号" not in name and "QY" not in name
    choices = c.spawn("dialog", window.ask_export_choices())
    from app.ui.export.dialog import ExportDialog

    await wait_for(lambda: any(d.isVisible() for d in window.findChildren(ExportDialog)))
    dialog = next(d for d in window.findChildren(ExportDialog) if d.isVisible())
    assert "编号" not in dialog.project_edit.text() and dialog.project_edit.text().startswith("某区智慧校园设备购置")
    dialog.reject()
    await choices


async def test_file_dialogs_start_in_the_users_documents_then_in_the_last_folder_used(
        window: Any, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QFileDialog

    from app.ui.outline.outline_import import OutlineImportDialog
    from app.ui.widgets.file_dialogs import documents_folder

    install = tmp_path / "install"
    install.mkdir()
    monkeypatch.chdir(install)  # the program's own folder: nothing of the user's is there
    mine = tmp_path / "我的标书"
    mine.mkdir()
    outline = mine / "目录.txt"
    outline.write_text("第一章 项目理解\n第二章 服务方案", encoding="utf-8")
    window.settings.last_dir = ""

    async def file_dialog() -> QFileDialog:
        await wait_for(lambda: any(d.isVisible() for d in window.findChildren(QFileDialog)))
        return next(d for d in window.findChildren(QFileDialog) if d.isVisible())

    window.act_import_outline.trigger()
    await wait_for(lambda: any(d.isVisible() for d in window.findChildren(OutlineImportDialog)))
    dialog = next(d for d in window.findChildren(OutlineImportDialog) if d.isVisible())
    qtbot.mouseClick(dialog.file_button, Qt.MouseButton.LeftButton)
    chooser = await file_dialog()
    assert Path(chooser.directory().absolutePath()) == documents_folder() != install
    chooser.selectFile(str(outline))
    chooser.accept()
    await wait_for(lambda: "来自文件“目录.txt”：识别到 2 章" in dialog.preview.text())
    dialog.reject()
    lib = window.library
    lib.check_dock.show()
    qtbot.mouseClick(lib.checks.compare_button, Qt.MouseButton.LeftButton)  # 与其他投标文件对比…
    chooser = await file_dialog()
    assert Path(chooser.directory().absolutePath()) == mine  # where the user last chose a file
    chooser.reject()
    await wait_for(lambda: not chooser.isVisible())
    qtbot.mouseClick(lib.facts.template_button, Qt.MouseButton.LeftButton)  # 企业资料 → 下载模板…
    chooser = await file_dialog()
    assert Path(chooser.directory().absolutePath()) == mine
    chooser.selectFile(str(mine / "企业资料模板.xlsx"))
    chooser.accept()
    await wait_for(lambda: (mine / "企业资料模板.xlsx").is_file())
    assert not (install / "企业资料模板.xlsx").exists()

"""A project file another program changed while it was open is never overwritten silently
(issue 30, item 7): Ctrl+S asks, and only 覆盖 writes over it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from app.core.outline import OutlineDocument, OutlineNode
from app.core.project import Project, load_project, save_project
from app.core.session import ProjectChangedOnDisk, ProjectSession
from tests.ui.test_project_persistence import WindowFactory, _find_box, make_window  # noqa: F401
from tests.ui.ui_helpers import click_button, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


def _project(title: str, chapter: str) -> Project:
    return Project(title=title, outline=OutlineDocument(outline=[
        OutlineNode(id="1", title=chapter, children=[OutlineNode(id="1.1", title="组织"), OutlineNode(id="1.2", title="流程")])]))


def _change_elsewhere(path: Path) -> None:
    time.sleep(0.01)
    save_project(_project("别人改的", "别人写的章节"), path)
    later = time.time() + 5
    os.utime(path, (later, later))


def test_the_session_refuses_to_save_over_an_external_change(tmp_path: Path) -> None:
    path = tmp_path / "p.bidproj"
    save_project(_project("我的", "我的章节"), path)
    session = ProjectSession()
    session.open(path)
    _change_elsewhere(path)
    assert session.changed_on_disk()
    with pytest.raises(ProjectChangedOnDisk):
        session.save()
    assert load_project(path).outline.outline[0].title == "别人写的章节"
    session.save(overwrite_external=True)
    assert load_project(path).outline.outline[0].title == "我的章节" and not session.changed_on_disk()


async def test_ctrl_s_asks_before_overwriting_an_external_change(make_window: WindowFactory,  # noqa: F811
                                                                 tmp_path: Path) -> None:
    path = tmp_path / "p.bidproj"
    save_project(_project("我的", "我的章节"), path)
    window = make_window(model_configured=False)
    assert await window.open_project(path)
    window.outline_view.select_path((0,))
    window.outline_view.add_sibling("新加的章节", edit=False)
    _change_elsewhere(path)

    window.act_save.trigger()
    box = await _find_box(window, "externalChangeBox")
    click_button(box, "取消")
    await wait_for(lambda: window.findChild(QMessageBox, "externalChangeBox") is None)  # answered and gone
    assert load_project(path).outline.outline[0].title == "别人写的章节"  # untouched

    window.act_save.trigger()
    box = await _find_box(window, "externalChangeBox")
    click_button(box, "覆盖")
    await wait_for(lambda: [c.title for c in load_project(path).outline.outline] == ["我的章节", "新加的章节"])

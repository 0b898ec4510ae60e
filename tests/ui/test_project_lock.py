"""Two windows on one project (issue 30, item 6): the project is locked while open, a second
open offers read-only or a copy, and each window autosaves to its own recovery file."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.outline import OutlineDocument, OutlineNode
from app.core.project import Project, load_project, save_project
from app.core.project_lock import live_holder, lock_file_for
from app.core.recovery import load_recovery, pending_recoveries
from app.core.session import ProjectSession, SessionError
from app.ui.project.autosave import Autosaver
from tests.ui.test_project_persistence import WindowFactory, _find_box, make_window  # noqa: F401
from tests.ui.ui_helpers import click_button

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


def _project_file(tmp_path: Path) -> Path:
    path = tmp_path / "共享.bidproj"
    save_project(Project(title="共享", outline=OutlineDocument(outline=[OutlineNode(id="1", title="总体方案")])), path)
    return path


def test_a_second_session_sees_the_lock_and_cannot_save_over_the_first(tmp_path: Path) -> None:
    path = _project_file(tmp_path)
    first, second = ProjectSession(), ProjectSession()
    first.open(path)
    assert lock_file_for(path).exists()
    holder = live_holder(path, second.session_id)
    assert holder is not None and holder.session == first.session_id
    second.apply(load_project(path), path, read_only=True)
    with pytest.raises(SessionError):
        second.save()
    first.save()  # the holder saves as usual
    first.release()
    assert not lock_file_for(path).exists() and live_holder(path, second.session_id) is None


def test_each_window_autosaves_to_its_own_recovery_file(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _project_file(tmp_path)
    folder = tmp_path / "recovery"
    work_a = Project(title="A 的修改", outline=OutlineDocument(outline=[OutlineNode(title="A 写的章节")]))
    a = Autosaver(lambda: work_a, interval_ms=60_000, folder=folder, project_path=path)
    b = Autosaver(lambda: Project(title="B"), interval_ms=60_000, folder=folder, project_path=path)
    assert a.recovery_path != b.recovery_path
    a.notify_changed()
    assert a.autosave_now()
    a.stop()  # A is killed: its timer dies with it, its file stays
    b.notify_changed()
    assert b.autosave_now()
    b.notify_saved(path)  # B saves: only B's recovery file goes
    b.close()
    [left] = pending_recoveries(folder)
    assert left.path == a.recovery_path
    assert load_recovery(left).outline.outline[0].title == "A 写的章节"  # A's work survives B's save


async def test_opening_a_project_another_window_edits_offers_read_only_or_a_copy(
        make_window: WindowFactory, tmp_path: Path) -> None:  # noqa: F811
    path = _project_file(tmp_path)
    first = make_window(model_configured=False)
    assert await first.open_project(path)
    second = make_window(model_configured=False)

    opening = second.controller.spawn("test-open", second.open_project(path))
    box = await _find_box(second, "projectLockedBox")
    assert "正被" in box.text()
    click_button(box, "只读打开")
    await opening
    assert second.controller.session.read_only and second.controller.session.path == path
    assert "只读" in second.statusBar().currentMessage()

    third = make_window(model_configured=False)
    opening = third.controller.spawn("test-open", third.open_project(path))
    click_button(await _find_box(third, "projectLockedBox"), "打开副本")
    await opening
    assert third.controller.session.path is None and third.controller.session.outline.chapters[0].title == "总体方案"

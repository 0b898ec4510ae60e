"""Autosave to a recovery file, recovery after a simulated crash, clean-up on save and close."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from app.core import atomic_file
from app.core.outline import Outline, OutlineNode
from app.core.project import Project, load_project, save_project
from app.core.recovery import discard_recovery, load_recovery, pending_recoveries, read_recovery_info
from app.ui.project.autosave import Autosaver, recovery_choice, recovery_message_box


class Editor:
    """Stands in for the main window: an outline being edited and a snapshot function."""

    def __init__(self) -> None:
        self.outline = Outline([OutlineNode(title="总体方案")])
        self.snapshots = 0

    def snapshot(self) -> Project:
        self.snapshots += 1
        return Project(title="测试项目", outline=self.outline.to_document())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "recovery"


def test_autosave_after_changes_and_recovery_after_crash(qtbot, tmp_path: Path, folder: Path) -> None:
    project_path = tmp_path / "标书.bidproj"
    editor = Editor()
    save_project(editor.snapshot(), project_path)
    os.utime(project_path, (time.time() - 10, time.time() - 10))  # saved a while ago

    saver = Autosaver(editor.snapshot, interval_ms=30, folder=folder, project_path=project_path)
    qtbot.wait(100)
    assert not saver.recovery_path.exists()  # nothing changed: nothing written
    assert editor.snapshots == 1

    editor.outline.append((), OutlineNode(title="实施计划"))
    saver.notify_changed()
    with qtbot.waitSignal(saver.autosaved, timeout=2000) as sig:
        pass
    assert Path(sig.args[0]) == saver.recovery_path
    assert pending_recoveries(folder)[0].path == saver.recovery_path
    writes = editor.snapshots
    qtbot.wait(100)
    assert editor.snapshots == writes  # no rewrite without new changes

    editor.outline.update((1,), title="实施计划与进度")
    saver.notify_changed()
    qtbot.waitUntil(lambda: editor.snapshots > writes, timeout=2000)

    # Crash: the process dies without close(); only the timer stops with it.
    saver.stop()
    recovery_file = saver.recovery_path
    del saver

    found = pending_recoveries(folder)
    assert [i.path for i in found] == [recovery_file]
    info = found[0]
    assert info.project_path == project_path.resolve()
    assert info.newer_than_project
    restored = load_recovery(info)
    assert [c.title for c in restored.outline.outline] == ["总体方案", "实施计划与进度"]
    assert [c.title for c in load_project(project_path).outline.outline] == ["总体方案"]  # project untouched

    # After the user restores and saves normally, the recovery file is gone.
    again = Autosaver(lambda: restored, interval_ms=60_000, folder=folder, project_path=project_path)
    assert again.recovery_path != recovery_file  # one file per session: two windows never share one
    discard_recovery(recovery_file)  # what the restore does once the work is back in a window
    again.notify_changed()
    assert again.autosave_now()
    save_project(restored, project_path)
    again.notify_saved(project_path)
    assert not recovery_file.exists()
    assert pending_recoveries(folder) == []
    again.close()
    assert not again.timer.isActive()


def test_recovery_older_than_the_project_is_not_newer(qtbot, tmp_path: Path, folder: Path) -> None:
    project_path = tmp_path / "p.bidproj"
    editor = Editor()
    save_project(editor.snapshot(), project_path)
    saver = Autosaver(editor.snapshot, interval_ms=60_000, folder=folder, project_path=project_path)
    saver.notify_changed()
    assert saver.autosave_now()
    saver.stop()
    past = time.time() - 60
    os.utime(saver.recovery_path, (past, past))  # project saved after the autosave (e.g. by another copy)
    [info] = pending_recoveries(folder)
    assert not info.newer_than_project
    project_path.unlink()
    assert info.newer_than_project  # the project file is gone: the recovery is all there is


def test_untitled_work_close_and_save_as(qtbot, tmp_path: Path, folder: Path) -> None:
    editor = Editor()
    saver = Autosaver(editor.snapshot, interval_ms=60_000, folder=folder)
    saver.notify_changed()
    assert saver.autosave_now()
    untitled = saver.recovery_path
    assert untitled.name.startswith("untitled-")
    info = read_recovery_info(untitled)
    assert info.project_path is None and info.newer_than_project and info.display_name == "测试项目"

    # Save As: the untitled recovery goes, pending state follows to the new path.
    saver.set_project_path(tmp_path / "new.bidproj")
    assert not untitled.exists()
    assert saver.autosave_now()
    assert saver.recovery_path.exists()
    saver.close()  # normal close removes it and stops the timer
    assert not saver.recovery_path.exists()
    assert not saver.timer.isActive()
    assert list(folder.iterdir()) == []


def test_autosave_failure_is_reported_not_raised(qtbot, monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    editor = Editor()
    saver = Autosaver(editor.snapshot, interval_ms=60_000, folder=folder)

    def full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic_file.os, "fsync", full)
    saver.notify_changed()
    with qtbot.waitSignal(saver.failed) as sig:
        assert not saver.autosave_now()
    assert "自动保存失败" in sig.args[0] and "磁盘空间不足" in sig.args[0]
    monkeypatch.undo()
    assert saver.autosave_now()  # still pending, so the next tick retries
    saver.close()


def test_an_adopted_recovery_file_goes_only_after_the_work_is_written_elsewhere(
        qtbot, monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Issue 37 §3.1: restoring must not delete the earlier file before the work is safe again."""
    editor = Editor()
    earlier = Autosaver(editor.snapshot, interval_ms=60_000, folder=folder)
    earlier.notify_changed()
    assert earlier.autosave_now()
    earlier.stop()  # the earlier process died; its file stays
    old_file = earlier.recovery_path

    saver = Autosaver(editor.snapshot, interval_ms=60_000, folder=folder)

    def full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic_file.os, "fsync", full)
    assert not saver.adopt(old_file)  # the restored work could not be written: the old file stays
    assert old_file.exists() and saver.adopted == [old_file]
    monkeypatch.undo()
    assert saver.autosave_now()  # the next tick writes it: now the old file may go
    assert not old_file.exists() and saver.recovery_path.exists() and saver.adopted == []
    saver.close()
    assert list(folder.iterdir()) == []


def test_broken_recovery_files_are_set_aside(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "x.recovery.json").write_text("{half", encoding="utf-8")
    assert pending_recoveries(folder) == []
    assert (folder / "x.recovery.json.broken").exists()


def test_recovery_question(qtbot, tmp_path: Path, folder: Path) -> None:
    editor = Editor()
    saver = Autosaver(editor.snapshot, interval_ms=60_000, folder=folder, project_path=tmp_path / "甲.bidproj")
    saver.notify_changed()
    saver.autosave_now()
    saver.stop()
    [info] = pending_recoveries(folder)
    box = recovery_message_box(info)
    qtbot.addWidget(box)
    assert "甲.bidproj" in box.text() and "是否恢复" in box.text()
    assert recovery_choice(box) == "later"
    labels = {b.text(): b for b in box.buttons()}
    assert set(labels) == {"恢复", "丢弃", "稍后决定"}
    labels["恢复"].click()
    assert recovery_choice(box) == "restore"
    box2 = recovery_message_box(info)
    qtbot.addWidget(box2)
    next(b for b in box2.buttons() if box2.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole).click()
    assert recovery_choice(box2) == "discard"

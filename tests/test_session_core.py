"""ProjectSession (Qt-free): one bid's content, file and unsaved state; new/open/save/save-as/close."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from app.core.analysis import Analysis, ScoringGroup
from app.core.outline import OutlineDocument, OutlineNode
from app.core.project import Project, ProjectCorruptError, RunRecord, load_project, save_project
from app.core.session import ProjectSession, SessionChange, SessionError


def _session() -> tuple[ProjectSession, list[SessionChange]]:
    session = ProjectSession()
    seen: list[SessionChange] = []
    session.subscribe(seen.append)
    return session, seen


def test_save_needs_a_path_then_saves_in_place_and_is_clean(tmp_path: Path) -> None:
    session, seen = _session()
    session.outline.replace([OutlineNode(title="总体方案")])
    session.set_edits_clean(False)  # the UI reports an undo step
    assert session.is_dirty and seen == ["dirty"]
    with pytest.raises(SessionError):
        session.save()
    written = session.save(tmp_path / "投标项目")  # save as: the suffix is added
    assert written == tmp_path / "投标项目.bidproj" and session.path == written
    assert not session.is_dirty and seen[-2:] == ["dirty", "saved"]
    assert session.display_name() == "投标项目"
    session.guidance = "突出本地化服务"
    session.set_edits_clean(False)
    assert session.save() == written  # save: in place
    assert load_project(written).guidance == "突出本地化服务"


def test_open_replaces_everything_and_keeps_what_the_ui_does_not_edit(tmp_path: Path) -> None:
    created = datetime(2024, 1, 2, tzinfo=timezone.utc)
    project = Project(title="旧项目", created_at=created, generation_mode="one_to_one", guidance="要点",
                      analysis=Analysis(groups=[ScoringGroup(id="R1", title="服务方案", points=10)]),
                      outline=OutlineDocument(outline=[OutlineNode(title="服务方案")]),
                      runs=[RunRecord(kind="outline", status="ok")])
    path = tmp_path / "a.bidproj"
    save_project(project, path)
    session, seen = _session()
    session.outline.replace([OutlineNode(title="另一个项目的章")])
    tree = session.outline
    session.open(path)
    assert session.outline is tree  # one tree object for the views, new content
    assert [c.title for c in session.outline.chapters] == ["服务方案"]
    assert session.outline.chapters[0].id == "1"
    assert session.analysis.has_technical_scoring and session.generation_mode == "one_to_one"
    assert session.path == path and not session.is_dirty and seen == ["reset"]
    again = session.snapshot()
    assert again.created_at == created and again.runs == project.runs and again.guidance == "要点"


def test_a_broken_file_leaves_the_session_as_it_was(tmp_path: Path) -> None:
    bad = tmp_path / "坏.bidproj"
    bad.write_text("{not json", encoding="utf-8")
    session, seen = _session()
    session.outline.replace([OutlineNode(title="正在写的章")])
    with pytest.raises(ProjectCorruptError):
        session.open(bad)
    assert [c.title for c in session.outline.chapters] == ["正在写的章"] and seen == []


def test_new_and_close_forget_the_old_bid(tmp_path: Path) -> None:
    session, seen = _session()
    tender = tmp_path / "招标.txt"
    tender.write_text("招标", encoding="utf-8")
    session.set_tender(tender, object())
    session.outline.replace([OutlineNode(title="章")])
    session.analysis = Analysis(groups=[ScoringGroup(id="R1", title="服务方案")])
    session.save(tmp_path / "p.bidproj")
    session.new()
    assert (session.path, session.tender_path, session.document, len(session.outline)) == (None, None, None, 0)
    assert not session.analysis.groups and session.runs == [] and session.display_name() == "未命名项目"
    assert seen[-1] == "reset" and not session.is_dirty
    session.close()
    assert seen[-1] == "reset"


def test_replacing_the_tender_under_an_outline_is_an_unsaved_change(tmp_path: Path) -> None:
    first, second = tmp_path / "甲.txt", tmp_path / "乙.txt"
    first.write_text("甲", encoding="utf-8")
    second.write_text("乙", encoding="utf-8")
    session, seen = _session()
    session.set_tender(first, object())
    assert not session.is_dirty  # opening a tender into an empty untitled session is not "work"
    session.outline.replace([OutlineNode(title="章")])
    session.save(tmp_path / "p.bidproj")
    session.set_tender(first, object())  # the project's own tender read again: nothing changed
    assert not session.is_dirty
    session.set_tender(second, object())
    assert session.is_dirty and "changed" in seen and session.display_name() == "p"
    assert Path(session.snapshot().tender.path).name == "乙.txt"  # type: ignore[union-attr]


def test_a_recorded_run_and_recovered_work_need_saving() -> None:
    session, seen = _session()
    session.record_run(RunRecord(kind="analysis", status="ok"))
    assert session.is_dirty and seen == ["dirty", "changed"]
    session.apply(Project(title="恢复的工作"), None, restored=True)
    assert session.is_dirty and session.display_name() == "恢复的工作"
    session.apply(Project(), None)
    assert not session.is_dirty


def test_drafted_texts_come_back_on_surviving_headings() -> None:
    from app.core.kept_texts import drafted_texts, restore_texts
    from app.core.outline import Outline

    old = Outline([
        OutlineNode(title="配送服务方案", children=[OutlineNode(title="1.1 配送流程", content="流程正文"),
                                                 OutlineNode(title="车辆管理", content="车辆正文")]),
        OutlineNode(title="应急方案", children=[OutlineNode(title="配送流程", content="应急里的流程正文")]),
    ])
    kept = drafted_texts(old)
    assert [k.content for k in kept] == ["流程正文", "车辆正文", "应急里的流程正文"]
    new = Outline([
        OutlineNode(title="应急方案", children=[OutlineNode(title="配送流程"), OutlineNode(title="应急小组")]),
        OutlineNode(title="配送服务方案", children=[OutlineNode(title="配送流程（2）"), OutlineNode(title="人员配置")]),
    ])
    restored, left = restore_texts(new, kept)
    assert restored == 2 and [k.content for k in left] == ["车辆正文"]  # 车辆管理 did not survive
    assert new.node((0, 0)).content == "应急里的流程正文"  # the same chapter's text wins
    assert new.node((1, 0)).content == "流程正文"
    assert drafted_texts(new, under=(1,))[0].content == "流程正文"

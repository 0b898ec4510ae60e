"""The forms' user values in the project file: format v5, an older file opens unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from app.core.bid_forms import BidFormsState, FormsExportChoice
from app.core.project import FORMAT_VERSION, Project, load_project, save_project
from app.core.session import ProjectSession


def test_v4_file_opens_unchanged_without_forms(tmp_path: Path) -> None:
    old = tmp_path / "v4.bidproj"
    raw = json.dumps({"format": "bidstudio-project", "format_version": 4, "title": "旧项目",
                      "outline": {"outline": [{"title": "服务方案"}]}}, ensure_ascii=False)
    old.write_text(raw, encoding="utf-8")
    project = load_project(old)
    assert project.migrated_from == 4 and project.format_version == FORMAT_VERSION == 5
    assert project.bid_forms is None and project.outline.outline[0].title == "服务方案"
    assert old.read_text(encoding="utf-8") == raw  # opening never rewrites the file


def test_forms_state_round_trips(tmp_path: Path) -> None:
    state = BidFormsState(values={"price": "1286500", "date": "2026-06-30"}, blank_values={"投标函@1#3": "某某"},
                          done=["投标函@1"], not_applicable=["联合体协议书@1"],
                          export=FormsExportChoice(placement="before_technical"))
    path = tmp_path / "p.bidproj"
    save_project(Project(title="t", bid_forms=state), path)
    assert json.loads(path.read_text(encoding="utf-8"))["bid_forms"]["values"]["price"] == "1286500"
    assert load_project(path).bid_forms == state


def test_session_keeps_forms_and_marks_the_project_unsaved(tmp_path: Path) -> None:
    session = ProjectSession()
    assert session.bid_forms.is_empty and not session.is_dirty
    session.set_bid_forms(BidFormsState(values={"price": "100"}))
    assert session.is_dirty
    path = session.save(tmp_path / "s.bidproj")
    other = ProjectSession()
    other.open(path)
    assert other.bid_forms.values == {"price": "100"}
    other.set_bid_forms(other.bid_forms.model_copy())  # the same values: nothing to save
    assert not other.is_dirty
    other.release()
    session.release()

"""Project files: round trip, atomic writes, migrations, and clear errors for bad files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.core import atomic_file
from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.core.outline import Outline, OutlineDocument, OutlineNode
from app.core.project import (
    FORMAT_VERSION,
    MAX_RUNS,
    Project,
    ProjectCorruptError,
    ProjectForeignError,
    ProjectInvalidError,
    ProjectNotFoundError,
    ProjectSaveError,
    ProjectTooNewError,
    RunRecord,
    SectionState,
    TenderRef,
    load_project,
    outline_chapters,
    save_project,
    tender_status,
    with_project_suffix,
)

V0_FILE = """{
  "app": "bidstudio",
  "version": 0,
  "title": "旧原型项目",
  "tender_file": "/nonexistent/招标文件.pdf",
  "tender_sha256": "abc123",
  "saved": "2026-01-05 10:30:00",
  "analysis": {"overview": {"project_name": "某市智慧水务平台"},
               "groups": [{"id": "R1", "title": "总体技术方案", "points": 10}]},
  "outline": [
    {"id": "1", "title": "总体技术方案", "children": [
      {"id": "1.1", "title": "建设目标", "description": "说明目标"},
      {"id": "1.2", "title": "总体架构"}
    ]},
    {"id": "2", "title": "实施方案", "children": []}
  ],
  "drafts": {"1.1": "本项目建设目标是……", "9.9": "orphan"}
}
"""


def _sample_project(tender: Path | None = None) -> Project:
    outline = Outline([
        OutlineNode(title="总体技术方案", source_requirement_id="R1", children=[
            OutlineNode(title="建设目标", description="目标与原则", content="正文第一段"),
            OutlineNode(title="总体架构"),
        ]),
        OutlineNode(title="实施方案"),
    ])
    outline.renumber()
    project = Project(
        title="智慧水务",
        tender=TenderRef.from_file(tender) if tender else None,
        analysis=Analysis(overview=ProjectOverview(project_name="某市智慧水务平台"),
                          groups=[ScoringGroup(id="R1", title="总体技术方案", points=10.0)]),
        generation_mode="one_to_one",
        outline=outline.to_document(),
        sections={"1.1": SectionState(status="done", model="qwen", completion_tokens=321)},
    )
    project.add_run(RunRecord(kind="outline", mode="one_to_one", model="qwen", status="ok", calls=3))
    return project


def test_round_trip_keeps_everything(tmp_path: Path) -> None:
    tender = tmp_path / "招标文件.pdf"
    tender.write_bytes(b"%PDF-1.7 fake")
    project = _sample_project(tender)
    path = tmp_path / "工程.bidproj"
    save_project(project, path)

    text = path.read_text(encoding="utf-8")
    assert "总体技术方案" in text  # readable Chinese, not \\u escapes
    assert json.loads(text)["format_version"] == FORMAT_VERSION

    loaded = load_project(path)
    assert loaded.migrated_from is None
    assert loaded.model_dump() == project.model_dump()
    assert loaded.outline.outline[0].children[0].content == "正文第一段"
    assert loaded.outline.outline[0].children[0].id == "1.1"
    assert loaded.sections["1.1"].completion_tokens == 321
    assert loaded.runs[0].kind == "outline"
    assert loaded.analysis is not None and loaded.analysis.groups[0].points == 10.0
    assert loaded.tender is not None and loaded.tender.relative_path == "招标文件.pdf"
    assert Outline(outline_chapters(loaded)).to_document() == project.outline


def test_tender_status_notices_moves_and_changes(tmp_path: Path) -> None:
    folder = tmp_path / "a"
    folder.mkdir()
    tender = folder / "招标文件.pdf"
    tender.write_bytes(b"one")
    project = _sample_project(tender)
    save_project(project, folder / "p.bidproj")
    assert tender_status(project, folder / "p.bidproj") == ("ok", tender)

    moved = tmp_path / "b"
    folder.rename(moved)  # the whole folder was moved: found relative to the project
    loaded = load_project(moved / "p.bidproj")
    assert tender_status(loaded, moved / "p.bidproj") == ("ok", moved / "招标文件.pdf")
    (moved / "招标文件.pdf").write_bytes(b"changed")
    assert tender_status(loaded, moved / "p.bidproj")[0] == "changed"
    (moved / "招标文件.pdf").unlink()
    assert tender_status(loaded, moved / "p.bidproj") == ("missing", None)
    assert tender_status(Project()) == ("none", None)


def test_tender_hash_is_cached_until_the_file_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core import project as project_module

    calls: list[Path] = []
    real = project_module.sha256_file

    def counting(path: Path) -> str:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(project_module, "sha256_file", counting)
    tender = tmp_path / "t.pdf"
    tender.write_bytes(b"x" * 1000)
    first = TenderRef.from_file(tender)
    assert TenderRef.from_file(tender).sha256 == first.sha256
    assert len(calls) == 1  # autosave snapshots do not re-hash an unchanged tender
    tender.write_bytes(b"y" * 1001)
    assert TenderRef.from_file(tender).sha256 != first.sha256
    assert len(calls) == 2


@pytest.mark.parametrize("failing", ["fsync", "replace", "write"])
def test_failed_save_leaves_old_file_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str) -> None:
    path = tmp_path / "p.bidproj"
    save_project(_sample_project(), path)
    before = path.read_bytes()

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    if failing == "write":
        real_fdopen = os.fdopen

        class HalfWriter:
            def __init__(self, fd: int, mode: str) -> None:
                self._f = real_fdopen(fd, mode)

            def __enter__(self) -> HalfWriter:
                return self

            def __exit__(self, *exc: object) -> None:
                self._f.close()

            def write(self, data: bytes) -> int:
                self._f.write(data[: len(data) // 2])  # half the bytes reach the disk, then ENOSPC
                raise OSError(28, "No space left on device")

        monkeypatch.setattr(atomic_file.os, "fdopen", HalfWriter)
    else:
        monkeypatch.setattr(atomic_file.os, failing, boom)

    changed = _sample_project()
    changed.title = "改过的标题"
    with pytest.raises(ProjectSaveError) as info:
        save_project(changed, path)
    monkeypatch.undo()
    assert "磁盘空间不足" in info.value.message_zh and "原有文件未被改动" in info.value.message_zh
    assert path.read_bytes() == before
    assert load_project(path).title == "智慧水务"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.bidproj"]  # no temp file left


def test_save_into_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ProjectSaveError) as info:
        save_project(Project(), tmp_path / "nope" / "p.bidproj")
    assert "文件夹不存在" in info.value.message_zh


def test_save_keeps_permissions(tmp_path: Path) -> None:
    path = tmp_path / "p.bidproj"
    save_project(Project(), path)
    assert path.stat().st_mode & 0o777 == 0o644
    path.chmod(0o600)
    save_project(Project(title="x"), path)
    assert path.stat().st_mode & 0o777 == 0o600


def test_v0_file_is_migrated_and_not_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "old.bidproj"
    path.write_text(V0_FILE, encoding="utf-8")
    project = load_project(path)

    assert path.read_text(encoding="utf-8") == V0_FILE  # loading never touches the file
    assert project.migrated_from == 0
    assert project.format_version == FORMAT_VERSION
    assert project.title == "旧原型项目"
    assert project.tender is not None and project.tender.path == "/nonexistent/招标文件.pdf"
    assert project.tender.sha256 == "abc123"
    assert project.created_at.year == 2026 and project.created_at.hour == 10
    assert project.analysis is not None
    assert project.analysis.overview.project_name == "某市智慧水务平台"
    first = project.outline.outline[0]
    assert [c.title for c in first.children] == ["建设目标", "总体架构"]
    assert first.children[0].content == "本项目建设目标是……"
    assert first.children[1].content == ""
    assert project.sections == {"1.1": SectionState(status="done")}  # orphan draft 9.9 dropped
    assert tender_status(project)[0] == "missing"

    # Saving writes the new format; loading that is a plain v1 load.
    save_project(project, tmp_path / "new.bidproj")
    again = load_project(tmp_path / "new.bidproj")
    assert again.migrated_from is None
    assert again.outline == project.outline


@pytest.mark.parametrize(
    ("content", "error", "words"),
    [
        (b"", ProjectCorruptError, "是空的"),
        (b'{"format": "bidstudio-project", "format_version": 1, "outl', ProjectCorruptError, "已损坏或不完整"),
        (b"\xff\xfe\x00garbage", ProjectCorruptError, "已损坏"),
        (b"[1, 2, 3]", ProjectForeignError, "不是标书工坊项目文件"),
        (b'{"name": "some-npm-package", "version": "1.0.0"}', ProjectForeignError, "缺少格式标记"),
        (b'{"format": "bidstudio-project", "format_version": 99}', ProjectTooNewError, "更新版本"),
        (b'{"format": "bidstudio-project", "format_version": "1"}', ProjectCorruptError, "版本号无效"),
        (b'{"format": "bidstudio-project", "format_version": 1, "outline": {"outline": [{"title": ""}]}}',
         ProjectInvalidError, "outline.outline.0.title"),
    ],
)
def test_bad_files_give_chinese_errors_and_stay_untouched(
    tmp_path: Path, content: bytes, error: type[Exception], words: str
) -> None:
    path = tmp_path / "bad.bidproj"
    path.write_bytes(content)
    with pytest.raises(error) as info:
        load_project(path)
    assert words in info.value.message_zh  # type: ignore[attr-defined]
    assert path.read_bytes() == content


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(ProjectNotFoundError, match="找不到"):
        load_project(tmp_path / "none.bidproj")
    with pytest.raises(ProjectNotFoundError, match="文件夹"):
        load_project(tmp_path)


def test_bom_and_unknown_keys_are_tolerated(tmp_path: Path) -> None:
    data = json.loads(_sample_project().model_dump_json())
    data["future_panel_state"] = {"x": 1}
    path = tmp_path / "p.bidproj"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(data, ensure_ascii=False).encode("utf-8"))
    assert load_project(path).title == "智慧水务"


def test_run_history_is_bounded_and_suffix_helper() -> None:
    project = Project()
    for i in range(MAX_RUNS + 7):
        project.add_run(RunRecord(kind="draft", message=str(i)))
    assert len(project.runs) == MAX_RUNS
    assert project.runs[0].message == "7"
    assert with_project_suffix("a/b") == Path("a/b.bidproj")
    assert with_project_suffix("a/b.BIDPROJ") == Path("a/b.BIDPROJ")
    assert Project(outline=OutlineDocument()).display_name() == "未命名项目"


def test_a_v3_file_with_past_bid_sources_in_descriptions_opens_with_them_in_origin_source(tmp_path: Path) -> None:
    """Up to v3 a 历史标书 node noted its source in the description; v4 keeps it in ``origin_source``."""
    whole = "来源：历史标书“2023年东湖运维” › 服务方案"
    appended = "说明巡检的频次和记录方式（来源：历史标书“2023年东湖运维” › 服务方案）"
    chapters = [{"title": "服务方案", "children": [
        {"title": "服务内容", "origin": "history", "description": whole},
        {"title": "服务流程", "origin": "history", "description": appended,
         "children": [{"title": "日常巡检", "origin": "history", "description": whole}]},
        {"title": "培训", "origin": "model", "description": whole},  # not a past-bid node: left alone
        {"title": "应急", "origin": "history", "description": "巡检要点"}]}]
    old = tmp_path / "v3.bidproj"
    old.write_text(json.dumps({"format": "bidstudio-project", "format_version": 3, "outline": {"outline": chapters}},
                              ensure_ascii=False), "utf-8")
    project = load_project(old)
    assert project.migrated_from == 3 and project.format_version == FORMAT_VERSION
    content, flow, training, emergency = project.outline.outline[0].children
    source = "历史标书“2023年东湖运维” › 服务方案"
    assert (content.description, content.origin_source) == ("", source)
    assert (flow.description, flow.origin_source) == ("说明巡检的频次和记录方式", source)
    assert flow.children[0].origin_source == source
    assert (training.description, training.origin_source) == (whole, "")
    assert (emergency.description, emergency.origin_source) == ("巡检要点", "")
    # saved again: the field is in the file, and a node without a source writes nothing new
    new = tmp_path / "v4.bidproj"
    save_project(project, new)
    data = json.loads(new.read_text("utf-8"))
    nodes = data["outline"]["outline"][0]["children"]
    assert nodes[0]["origin_source"] == source and "origin_source" not in nodes[2]
    assert load_project(new).outline.outline[0].children[1].origin_source == source

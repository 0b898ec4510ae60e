"""Saving keeps everything a project holds; unfinished drafting resumes after reopening."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from app.core.outline import OutlineDocument, OutlineNode
from app.core.project import Project, RunRecord, SectionState, load_project, save_project
from app.ui.run.controller import AppController
from app.ui.shell.errors import ErrorReporter
from app.ui.shell.main_window import MainWindow
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.ui.conftest import make_client_factory
from tests.ui.ui_helpers import click_button, close_window, wait_for

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

WindowFactory = Callable[..., MainWindow]
TITLE_RE = re.compile(r"【本节标题】(.*)")


@pytest.fixture
async def make_window(qapp: Any, tmp_path: Path, llm_server: OpenAIServer,
                      monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[WindowFactory]:
    """Windows on the scripted server (isolated data folders); all closed afterwards."""
    monkeypatch.setenv("BIDSTUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("BIDSTUDIO_CONFIG_DIR", str(tmp_path / "config"))
    qapp.setQuitOnLastWindowClosed(False)
    made: list[MainWindow] = []

    def make(model_configured: bool = True) -> MainWindow:
        reporter = ErrorReporter(tmp_path / "data")
        ctl = AppController(client_factory=make_client_factory(llm_server), reporter=reporter)
        win = MainWindow(ctl, reporter=reporter, model_configured=model_configured,
                         qsettings=QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
        win.show()
        made.append(win)
        return win

    yield make
    for win in made:
        await close_window(win)
    await asyncio.sleep(0)




async def _find_box(window: MainWindow, name: str) -> QMessageBox:
    found: list[QMessageBox] = []

    def visible() -> bool:
        box = window.findChild(QMessageBox, name)
        if box is not None and box.isVisible():
            found.append(box)
            return True
        return False

    await wait_for(visible)
    return found[0]




def _chapters() -> list[OutlineNode]:
    return [OutlineNode(id="1", title="配送服务方案", children=[
        OutlineNode(id="1.1", title="配送流程", content="已写好的配送流程正文。"),
        OutlineNode(id="1.2", title="车辆管理"),
        OutlineNode(id="1.3", title="应急保障"),
    ])]


async def test_save_keeps_sections_runs_and_created_at(make_window: WindowFactory, tmp_path: Path) -> None:
    created = datetime(2024, 3, 5, 8, 30, tzinfo=timezone.utc)
    run = RunRecord(kind="outline", mode="free", model="qwen", status="ok", message="目录生成完成",
                    calls=4, prompt_tokens=1200, completion_tokens=800, extra={"attempts": 2},
                    started_at=created, finished_at=created)
    original = Project(
        title="食堂项目", created_at=created, outline=OutlineDocument(outline=_chapters()),
        sections={"1.1": SectionState(status="done", model="qwen", prompt_tokens=300, completion_tokens=500,
                                      updated_at=created),
                  "1.2": SectionState(status="failed", error="模型拒绝回答", model="qwen"),
                  "1.3": SectionState(status="queued", partial_text="应急预案分为三级")},
        runs=[run],
    )
    first = tmp_path / "项目.bidproj"
    save_project(original, first)

    window = make_window(model_configured=False)  # no resume question: a status-bar hint instead
    assert await window.open_project(first)
    assert "2 节正文尚未完成" in window.statusBar().currentMessage()
    resumable, failed = window.controller.drafting.unfinished()
    assert (resumable, failed) == (["1.3"], ["1.2"])
    window.outline_view.select_path((0,))
    window.outline_view.add_sibling("售后服务", edit=False)  # an edit, so the save is not a no-op
    second = tmp_path / "另存.bidproj"
    assert window.save_to(second)

    saved = load_project(second)
    assert saved.created_at == created
    assert saved.modified_at > created
    assert [r.model_dump() for r in saved.runs] == [run.model_dump()]
    assert {k: (s.status, s.error, s.partial_text, s.prompt_tokens) for k, s in saved.sections.items()} == {
        "1.1": ("done", "", "", 300), "1.2": ("failed", "模型拒绝回答", "", 0), "1.3": ("queued", "", "应急预案分为三级", 0)}
    assert [c.title for c in saved.outline.outline] == ["配送服务方案", "售后服务"]
    assert saved.outline.outline[0].children[0].content == "已写好的配送流程正文。"

    # Reopen in a fresh window and save once more: nothing is lost on the second round either.
    window.controller.session.release()  # done with the file (as on closing): a second window may edit it
    again = make_window(model_configured=False)
    assert await again.open_project(second)
    third = tmp_path / "第三次.bidproj"
    assert again.save_to(third)
    resaved = load_project(third)
    assert resaved.created_at == created
    assert resaved.runs == saved.runs
    assert resaved.sections == saved.sections
    assert resaved.outline == saved.outline
    # Autosave writes the same snapshot.
    assert again.snapshot_project().created_at == created


async def test_mid_draft_save_then_reopen_resumes_only_unfinished(make_window: WindowFactory, tmp_path: Path,
                                                                  llm_server: OpenAIServer) -> None:
    body = {"配送流程": "订单在每日十六点前汇总，分拣后按线路装车，次日六点前送达并由采购人签收。" * 2,
            "车辆管理": "配送车辆均为冷藏车，出车前检查制冷设备和车厢卫生，并记录温度。" * 2,
            "应急保障": "遇到车辆故障时十五分钟内调派备用车辆，并电话告知采购人预计到达时间。" * 3,
            "人员培训": "新入职配送人员上岗前接受食品安全与服务礼仪培训，考核合格后方可上岗。" * 2}
    partial_seen: list[str] = []

    def first_session(req: RecordedRequest) -> Reply:
        title = _title(req)
        if title == "配送流程":
            return Reply.error(500, "upstream exploded")
        if title == "应急保障":  # slow: the project is saved while this one is being written
            return Reply.text(body[title], chunk_size=4, chunk_delay=0.05)
        return Reply.text(body[title])

    llm_server.handler = first_session
    window = make_window()
    c = window.controller
    chapters = _chapters()
    chapters[0].children[0].content = ""
    chapters[0].children.append(OutlineNode(id="1.4", title="人员培训"))
    c.outline.replace(chapters)
    c.outline.renumber()
    task = c.spawn("drafting", c.drafting.draft(None))
    partial = ""

    def writing_some() -> bool:
        nonlocal partial
        d = c.drafting.draft_of("1.3")
        partial = d.text if d is not None and d.status == "writing" else ""
        return len(partial) >= 12

    await wait_for(writing_some)
    path = tmp_path / "撰写中.bidproj"
    assert window.save_to(path)
    await c.cancel()
    await asyncio.wait([task], timeout=3)
    first_requests = len(llm_server.completion_requests)

    saved = load_project(path)
    states = {k: s.status for k, s in saved.sections.items()}
    assert states == {"1.1": "failed", "1.2": "done", "1.3": "queued", "1.4": "queued"}
    assert saved.sections["1.3"].partial_text.startswith(partial) and len(saved.sections["1.3"].partial_text) < len(
        body["应急保障"])
    assert saved.sections["1.4"].partial_text == ""
    assert saved.outline.outline[0].children[1].content.startswith("配送车辆均为冷藏车")

    def second_session(req: RecordedRequest) -> Reply:
        title = _title(req)
        if len(req.messages) > 1:  # a continuation: the partial text comes back as the assistant turn
            partial_seen.append(str(req.messages[1].get("content", "")))
            return Reply.text(body[title][len(str(req.messages[1].get("content", ""))):])
        return Reply.text(body[title])

    llm_server.handler = second_session
    window.controller.session.release()  # done with the file (as on closing): a second window may edit it
    reopened = make_window()
    r = reopened.controller
    assert await reopened.open_project(path)
    kept = r.outline.node((0, 1)).content
    reopened.outline_view.select_path((0, 2))  # an interrupted section is not stuck as "queued"
    editor = reopened.section_editor
    assert editor.key == "1.3" and editor.draft_button.isEnabled() and not editor.text.isReadOnly()
    assert "上次未写完" in editor.state_label.text()
    box = await _find_box(reopened, "resumeDraftsBox")
    assert "2 节尚未写完" in box.text() and "1 节撰写失败" in box.text()
    click_button(box, "继续撰写")
    await wait_for(lambda: "drafting" in r.tasks)
    await wait_for(lambda: not r.busy, timeout=15)

    later = llm_server.completion_requests[first_requests:]
    assert sorted(_title(q) for q in later) == sorted(["配送流程", "应急保障", "人员培训"])  # never 车辆管理
    assert partial_seen and partial_seen[0].startswith(partial)
    contents = {n.id: n.content for _p, n in r.outline.walk() if not n.children}
    assert contents["1.2"] == kept  # finished text untouched
    assert contents["1.1"].startswith("订单在每日十六点前汇总")
    assert contents["1.3"].startswith(saved.sections["1.3"].partial_text.strip()[:12])
    assert "十五分钟内调派备用车辆" in contents["1.3"]
    assert contents["1.4"].startswith("新入职配送人员")
    assert r.undo_stack.count() == 3  # one undoable command per section that landed
    assert r.drafting.unfinished() == ([], [])

    final = tmp_path / "完成.bidproj"
    assert reopened.save_to(final)
    done = load_project(final)
    assert {k: s.status for k, s in done.sections.items()} == dict.fromkeys(("1.1", "1.2", "1.3", "1.4"), "done")
    assert all(not s.partial_text for s in done.sections.values())
    assert done.runs and done.runs[-1].kind == "draft" and done.runs[-1].mode == "resume"
    assert done.runs[-1].status == "ok" and done.runs[-1].completion_tokens > 0
    assert done.runs[-1].model == "test-model"


def _title(req: RecordedRequest) -> str:
    match = TITLE_RE.search(req.prompt_text)
    assert match is not None, req.prompt_text[:200]
    return match.group(1).strip()

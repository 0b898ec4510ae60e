"""The controller running the real pipeline against the local OpenAI-compatible server: live tree, cancel, resume, undo, errors."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from app.core.outline import OutlineNode
from app.ui.run.controller import GENERATION, AppController
from app.ui.shell.errors import ErrorReporter
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router, sample_analysis
from tests.ui.ui_helpers import wait_for

FREE = ["运维服务总体方案", "信息安全保障", "设备巡检方案"]


def _outline_json(titles: list[str], sections: int = 3, leaves: int = 2) -> str:
    """A whole free-mode outline as the JSON strategy asks for it (keys in schema order)."""
    chapters = []
    for c, title in enumerate(titles):
        kids = [{"title": f"{title}措施{s + 1}", "description": "做法",
                 "children": [{"title": f"{title}措施{s + 1}要点{k + 1}", "description": ""} for k in range(leaves)]}
                for s in range(sections)]
        chapters.append({"title": title, "description": f"第{c + 1}章说明", "children": kids})
    return json.dumps({"outline": chapters}, ensure_ascii=False)


def _router(full: Reply | None = None, slow_chapter: str = "", delay: float = 0.05) -> Router:
    """The scripted model: a whole outline for free mode, chapters and reviews by the router's defaults.

    ``slow_chapter``'s answer streams slowly (a stream to cancel in the middle of).
    """

    def default(kind: str, req: RecordedRequest) -> Reply:
        if kind == "full":
            return full or Reply.text(_outline_json(FREE))
        reply = Router._default(kind, req)
        if slow_chapter and kind == f"chapter:{slow_chapter}":
            reply.chunk_size, reply.chunk_delay = 12, delay
        return reply

    return Router(default)


def _consistent(ctl: AppController) -> None:
    """The tree and the model agree, ids are positional, depth and bounds hold."""
    outline, model = ctl.outline, ctl.model
    for path, node in outline.walk():
        assert node.id == ".".join(str(i + 1) for i in path)
        assert len(path) <= 3 and len(node.children) <= 12
        idx = model.index_for_path(path)
        assert model.node_for_index(idx) is node
        assert model.rowCount(idx) == len(node.children)
    assert model.rowCount() == len(outline.chapters)


def _count_resets(ctl: AppController) -> list[int]:
    resets: list[int] = []
    ctl.model.modelAboutToBeReset.connect(lambda: resets.append(1))
    return resets


async def test_json_answer_streams_into_the_tree_title_by_title_as_one_undo_step(controller: AppController,
                                                                                 llm_server: OpenAIServer) -> None:
    llm_server.handler = _router(Reply.text(_outline_json(FREE), chunk_size=40, chunk_delay=0.005))
    inserted: list[tuple[int, int, bool]] = []  # (rows inserted, nodes in tree, request still streaming)

    def on_rows(_parent: object, first: int, last: int) -> None:
        streaming = bool(llm_server.completion_requests) and not llm_server.completion_requests[0].finished
        inserted.append((last - first + 1, len(controller.outline), streaming))

    controller.model.rowsInserted.connect(on_rows)
    resets = _count_resets(controller)
    running: list[int] = []
    controller.running_changed.connect(running.append)
    task = controller.spawn(GENERATION, controller.generate_outline("free", "突出质量保障"))
    while not running and not task.done():
        await asyncio.sleep(0.01)
    assert controller.model.read_only  # the user cannot edit while the run owns the tree
    outcome = await task
    assert outcome.ok, outcome.message
    assert running == [1, 0]
    assert [c.title for c in controller.outline.chapters] == FREE
    assert len(controller.outline) == 3 * (1 + 3 + 3 * 2)
    # Every heading arrived on its own, while the answer was still streaming; nothing was reset.
    assert [n for n, _, _ in inserted] == [1] * 30 and [size for _, size, _ in inserted] == list(range(1, 31))
    assert inserted[0][2] and sum(streaming for _, _, streaming in inserted) >= 20
    assert resets == []
    _consistent(controller)
    assert "突出质量保障" in llm_server.completion_requests[0].prompt_text
    assert llm_server.completion_requests[0].body["stream"] is True
    assert not controller.model.read_only
    # One Ctrl+Z takes the whole run back, redo brings it again.
    assert controller.undo_stack.count() == 1
    controller.undo_stack.undo()
    assert len(controller.outline) == 0
    controller.undo_stack.redo()
    assert len(controller.outline) == 30
    _consistent(controller)


async def test_cancel_mid_chapter_then_run_again_continues_with_the_unfinished_chapters(
        controller: AppController, llm_server: OpenAIServer) -> None:
    router = _router(slow_chapter="质量保障措施")
    llm_server.handler = router
    controller.outline.replace([OutlineNode(title="用户原有章节")])
    controller.set_analysis(sample_analysis())
    resets = _count_resets(controller)
    task = controller.spawn(GENERATION, controller.generate_outline("aligned"))
    outline = controller.outline
    await wait_for(lambda: len(outline.chapters) == 3 and len(outline.chapters[1].children) >= 1, timeout=10)
    first_chapter = outline.to_data()["outline"][0]
    t0 = time.monotonic()
    assert await controller.cancel()
    assert time.monotonic() - t0 < 0.5
    assert task.cancelled()
    _consistent(controller)
    partial = outline.to_data()
    # The server saw the client hang up, and nothing arrives after the cancel.
    slow = [r for r in llm_server.completion_requests if "质量保障措施" in r.prompt_text][-1]
    await wait_for(lambda: bool(slow.finished), timeout=2)
    await asyncio.sleep(0.1)
    assert outline.to_data() == partial
    assert not controller.model.read_only
    assert controller.undo_stack.count() == 1 and controller.can_resume("aligned")
    assert not controller.can_resume("free")

    # Running again keeps the finished chapter and asks only for the other two.
    asked_before = len(router.seen)
    outcome = await controller.generate_outline("aligned")
    assert outcome.ok, outcome.message
    asked = router.seen[asked_before:]
    assert "chapter:服务方案" not in asked and {"chapter:质量保障措施", "chapter:售后服务方案"} <= set(asked)
    assert outline.to_data()["outline"][0] == first_chapter
    assert all(len(c.children) >= 2 for c in outline.chapters)
    assert resets == []
    _consistent(controller)
    # Two runs, two undo steps: back to the partial tree, then to the user's own outline.
    controller.undo_stack.undo()
    assert outline.to_data() == partial
    controller.undo_stack.undo()
    assert [c.title for c in outline.chapters] == ["用户原有章节"]


async def test_a_new_run_cancels_the_old_one(controller: AppController, llm_server: OpenAIServer) -> None:
    llm_server.handler = _router(slow_chapter="质量保障措施", delay=0.2)
    controller.set_analysis(sample_analysis())
    first = controller.spawn(GENERATION, controller.generate_outline("aligned"))
    await wait_for(lambda: len(controller.outline.chapters) == 3 and bool(controller.outline.chapters[1].children))
    second = controller.spawn(GENERATION, controller.generate_outline("aligned"))
    llm_server.handler = _router()
    outcome = await second
    assert first.cancelled()
    assert outcome.ok, outcome.message
    assert [c.title for c in controller.outline.chapters] == ["服务方案", "质量保障措施", "售后服务方案"]
    _consistent(controller)
    assert controller.tasks == {}


async def test_a_run_that_produces_nothing_gives_the_user_outline_back(controller: AppController,
                                                                       llm_server: OpenAIServer) -> None:
    llm_server.default = Reply.error(500, "model crashed")
    controller.outline.replace([OutlineNode(title="用户原有章节")])
    finished: list[tuple[int, str]] = []
    controller.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    outcome = await controller.generate_outline("free")
    assert not outcome.ok and finished == [(0, outcome.message)]
    assert [c.title for c in controller.outline.chapters] == ["用户原有章节"]
    assert controller.undo_stack.count() == 0 and not controller.can_resume("free")


async def test_no_model_configured_is_a_friendly_error(qapp: object, reporter: ErrorReporter) -> None:
    """No error dialog: the run ends saying how to get a model, and the settings are asked to open."""
    ctl = AppController(reporter=reporter)
    got: list[tuple[str, str, str]] = []
    reporter.error_reported.connect(lambda *a: got.append(a))
    finished: list[tuple[bool, str]] = []
    ctl.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    missing: list[bool] = []
    ctl.model_missing.connect(lambda: missing.append(True))
    await ctl.run_task(GENERATION, ctl.generate_outline("free"))
    await ctl.shutdown()
    assert got == []
    assert finished and not finished[0][0] and "模型设置" in finished[0][1] and "本地" in finished[0][1]
    assert missing == [True]
    assert not reporter.crash_log_path.exists()  # an expected error is not a crash


async def test_server_error_ends_the_run_with_a_message(controller: AppController, llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.error(401, "bad key"))
    finished: list[tuple[int, str]] = []
    controller.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    await controller.run_task(GENERATION, controller.generate_outline("free"))
    assert finished and finished[0][0] == 0
    assert "密钥" in finished[0][1] or "401" in finished[0][1]
    assert not controller.model.read_only and not controller.busy


async def test_broken_file_reports_a_chinese_message(controller: AppController, reporter: ErrorReporter,
                                                      tmp_path: pytest.TempPathFactory) -> None:
    bad = tmp_path / "损坏的招标文件.pdf"  # type: ignore[operator]
    bad.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 200)
    got: list[tuple[str, str, str]] = []
    reporter.error_reported.connect(lambda *a: got.append(a))
    await controller.run_task("open", controller.open_tender(bad))
    assert len(got) == 1
    assert "Traceback" not in got[0][1] and any("\u4e00" <= ch <= "\u9fff" for ch in got[0][1])
    assert controller.document is None


async def test_one_to_one_chapters_come_from_code_locked_and_one_undo_step(controller: AppController,
                                                                           llm_server: OpenAIServer) -> None:
    from app.ui.outline.model import LockedRole

    router = Router()
    llm_server.handler = router
    controller.outline.replace([OutlineNode(title="手写的旧目录")])
    resets = _count_resets(controller)
    controller.set_analysis(sample_analysis())
    stages: list[str] = []
    controller.stage_changed.connect(stages.append)
    outcome = await controller.generate_outline("aligned")
    assert outcome.ok, outcome.message
    assert [c.title for c in controller.outline.chapters] == ["服务方案", "质量保障措施", "售后服务方案"]
    assert all(len(c.children) >= 2 for c in controller.outline.chapters)
    assert router.count("chapter:") == 3
    assert [c.source_requirement_id for c in controller.outline.chapters] == ["R1", "R2", "R3"]
    assert controller.model.locked_top_level
    assert controller.model.data(controller.model.index(0, 0), LockedRole)
    assert any("生成章节" in s or "检查目录" in s for s in stages)
    assert resets == []
    _consistent(controller)
    controller.undo_stack.undo()
    assert [c.title for c in controller.outline.chapters] == ["手写的旧目录"]


async def test_cancel_mid_call_then_draft_reaches_the_server_at_once(controller: AppController,
                                                                     llm_server: OpenAIServer) -> None:
    """After Cancel the controller starts the next job at once: the draft request reaches the server."""
    controller.outline.replace([OutlineNode(title="服务方案", children=[OutlineNode(title="人员配置方案"),
                                                                      OutlineNode(title="实施进度计划")])])
    controller.outline.renumber()
    def requests() -> list[object]:
        return list(llm_server.completion_requests)

    def answer(req: object) -> Reply:
        if len(llm_server.completion_requests) == 1:  # the outline call: slow, still in flight at Cancel
            return Reply.text('{"outline": []}', delay=0.4, chunk_size=2, chunk_delay=0.3)
        return Reply.text("我公司为本项目配置专职运维人员，负责日常巡检、故障处理与应急响应，确保服务质量稳定可靠。")

    llm_server.handler = answer
    task = controller.spawn(GENERATION, controller.generate_outline("free"))
    for _ in range(500):
        if requests() or task.done():
            break
        await asyncio.sleep(0.01)
    assert requests() and not task.done()
    assert await controller.cancel()
    if controller.undo_stack.count():
        controller.undo_stack.undo()  # back to the user's outline
    key = controller.outline.node((0, 0)).id
    state = await asyncio.wait_for(controller.drafting.draft([key]), 10)
    sent = llm_server.completion_requests
    assert len(sent) == 2 and "人员配置方案" in sent[1].prompt_text
    assert state.sections[key].status == "done"
    assert "专职运维人员" in controller.outline.node((0, 0)).content


async def test_status_bar_shows_the_live_call(controller: AppController, llm_server: OpenAIServer, qtbot) -> None:
    from app.ui.run.status_panel import StatusPanel

    panel = StatusPanel()
    qtbot.addWidget(panel)
    controller.call_progress.connect(panel.set_call)
    controller.running_changed.connect(panel.set_running)
    controller.outline.replace([OutlineNode(title="服务方案", children=[OutlineNode(title="人员配置方案"),
                                                                      OutlineNode(title="实施进度计划")])])
    controller.outline.renumber()
    llm_server.push(Reply.text("我公司为本项目配置专职运维人员，负责日常巡检与应急响应。" * 8, chunk_size=6, chunk_delay=0.03))
    key = controller.outline.node((0, 0)).id
    task = asyncio.ensure_future(controller.drafting.draft([key]))
    seen: list[str] = []
    for _ in range(400):
        if task.done():
            break
        text = panel.call.text()
        if "tokens/秒" in text:
            seen.append(text)
            break
        await asyncio.sleep(0.01)
    await task
    assert seen and "撰写正文" in seen[0] and "已输出" in seen[0] and "秒" in seen[0]
    assert panel.call.text() == ""  # cleared when the call ends


@pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")
def test_progress_updates_wait_for_the_next_paint(qtbot) -> None:
    """QProgressBar.setValue alone repaints at once, and that paints every pending change of the
    window inside the call (a streaming tree included); the panel lets the next paint show it."""
    from PySide6.QtCore import QEvent, QObject

    from app.ui.run.status_panel import StatusPanel

    class Paints(QObject):
        count = 0

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                Paints.count += 1
            return False

    panel = StatusPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_running(True)
    qtbot.waitExposed(panel)
    qtbot.wait(50)
    paints = Paints()
    panel.progress.installEventFilter(paints)
    bare = panel.progress.value()
    panel.progress.setValue(bare + 7)  # what Qt does on its own: a paint inside the call
    assert Paints.count >= 1
    Paints.count = 0
    for value in (20, 40, 60):
        panel.set_progress(value)
        assert Paints.count == 0 and panel.progress.value() == value
    qtbot.waitUntil(lambda: Paints.count >= 1, timeout=2000)  # shown by the next ordinary paint
    panel.set_progress(-1)
    assert panel.progress.maximum() == 0 and panel.progress.updatesEnabled()

"""The controller against the local OpenAI-compatible server: live stream, cancel, undo, errors."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from app.core.outline import OutlineNode
from app.ui.controller import GENERATION, AppController
from app.ui.errors import ErrorReporter
from app.ui.generation_backend import stream_outline_runner
from tests.openai_server import OpenAIServer, Reply


def _instructions(chapters: int, sections: int = 3, leaves: int = 2) -> str:
    lines = ["我先列出章节，然后逐章展开。"]
    for c in range(chapters):
        lines.append(json.dumps({"op": "append", "path": "/outline", "value": {"title": f"第{c + 1}部分方案", "description": "说明"}}, ensure_ascii=False))
        for s in range(sections):
            lines.append(json.dumps({"op": "append", "path": f"/outline/{c}/children", "value": {"title": f"措施{c + 1}-{s + 1}"}}, ensure_ascii=False))
            for leaf in range(leaves):
                lines.append(json.dumps({"op": "append", "path": f"/outline/{c}/children/{s}/children", "value": {"title": f"要点{c + 1}-{s + 1}-{leaf + 1}"}}, ensure_ascii=False))
    lines.append('{"op":"done"}')
    return "\n".join(lines) + "\n"


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


async def test_live_stream_fills_the_tree_and_is_one_undo_step(controller: AppController, llm_server: OpenAIServer) -> None:
    controller.runner = stream_outline_runner
    llm_server.push(Reply.text(_instructions(3), chunk_size=40, chunk_delay=0.01))
    seen_sizes: list[int] = []
    controller.model.rowsInserted.connect(lambda *a: seen_sizes.append(len(controller.outline)))
    running: list[int] = []
    controller.running_changed.connect(running.append)
    task = controller.spawn(GENERATION, controller.generate_outline("free", "突出质量保障"))
    while not running and not task.done():
        await asyncio.sleep(0.01)
    assert controller.model.read_only  # the user cannot edit while the run owns the tree
    outcome = await task
    assert outcome.ok, outcome.message
    assert running == [1, 0]
    assert len(controller.outline) == 3 * (1 + 3 + 3 * 2)
    assert seen_sizes[0] == 1 and len(seen_sizes) == len(controller.outline)  # nodes arrived one by one
    assert controller.outline.node((2, 2, 1)).title == "要点3-3-2"
    _consistent(controller)
    assert "突出质量保障" in llm_server.completion_requests[0].prompt_text
    assert not controller.model.read_only
    # One Ctrl+Z takes the whole run back, redo brings it again.
    assert controller.undo_stack.count() == 1
    controller.undo_stack.undo()
    assert len(controller.outline) == 0
    controller.undo_stack.redo()
    assert len(controller.outline) == 30
    _consistent(controller)


async def test_cancel_mid_stream_stops_quickly_and_leaves_a_consistent_tree(controller: AppController,
                                                                         llm_server: OpenAIServer) -> None:
    controller.runner = stream_outline_runner
    controller.outline.replace([OutlineNode(title="用户原有章节")])
    llm_server.push(Reply.text(_instructions(8), chunk_size=30, chunk_delay=0.05))
    task = controller.spawn(GENERATION, controller.generate_outline("free"))
    while len(controller.outline) < 5:
        await asyncio.sleep(0.02)
    t0 = time.monotonic()
    assert await controller.cancel()
    elapsed = time.monotonic() - t0
    assert elapsed < 0.5
    assert task.cancelled()
    partial = len(controller.outline)
    assert partial >= 5
    _consistent(controller)
    # The server saw the client hang up.
    deadline = time.monotonic() + 2
    while not llm_server.completion_requests[0].finished and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.2)
    assert len(controller.outline) == partial  # nothing arrives after the cancel
    assert not controller.model.read_only
    # The partial run is one undo step that restores the user's outline.
    controller.undo_stack.undo()
    assert [c.title for c in controller.outline.chapters] == ["用户原有章节"]


async def test_a_new_run_cancels_the_old_one(controller: AppController, llm_server: OpenAIServer) -> None:
    controller.runner = stream_outline_runner
    llm_server.push(Reply.text(_instructions(6), chunk_size=30, chunk_delay=0.05), Reply.text(_instructions(2)))
    first = controller.spawn(GENERATION, controller.generate_outline("free"))
    while len(controller.outline) < 3:
        await asyncio.sleep(0.02)
    second = controller.spawn(GENERATION, controller.generate_outline("free"))
    outcome = await second
    assert first.cancelled()
    assert outcome.ok
    assert len(controller.outline) == 2 * 10
    _consistent(controller)
    assert controller.tasks == {}


async def test_no_model_configured_is_a_friendly_error(qapp: object, reporter: ErrorReporter) -> None:
    ctl = AppController(reporter=reporter)
    got: list[tuple[str, str, str]] = []
    reporter.error_reported.connect(lambda *a: got.append(a))
    await ctl.run_task(GENERATION, ctl.generate_outline("free"))
    await ctl.shutdown()
    assert len(got) == 1 and "模型设置" in got[0][1]
    assert not reporter.crash_log_path.exists()  # an expected error is not a crash


async def test_server_error_ends_the_run_with_a_message(controller: AppController, llm_server: OpenAIServer,
                                                       reporter: ErrorReporter) -> None:
    controller.runner = stream_outline_runner
    llm_server.push(Reply.error(401, "bad key"))
    got: list[tuple[str, str, str]] = []
    reporter.error_reported.connect(lambda *a: got.append(a))
    finished: list[tuple[int, str]] = []
    controller.run_finished.connect(lambda ok, msg: finished.append((ok, msg)))
    await controller.run_task(GENERATION, controller.generate_outline("free"))
    assert finished and finished[0][0] == 0
    assert got and "401" in got[0][1]
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


async def test_one_to_one_mode_chapters_come_from_code_and_stay_locked(controller: AppController,
                                                                      llm_server: OpenAIServer) -> None:
    from app.core.analysis import Analysis, ScoringGroup
    from app.ui.outline_model import LockedRole

    controller.runner = stream_outline_runner
    controller.set_analysis(Analysis(groups=[ScoringGroup(id="R1", title="配送服务方案", points=6),
                                             ScoringGroup(id="R2", title="应急方案", points=6)]))
    lines = [
        '{"op":"append","path":"/outline","value":{"title":"模型自作主张的章"}}',  # refused: chapters are code's
        '{"op":"set","path":"/outline/0/title","value":"改名"}',  # refused
        '{"op":"append","path":"/outline/0/children","value":{"title":"配送流程"}}',
        '{"op":"append","path":"/outline/0/children/0/children","value":{"title":"订单接收"}}',
        '{"op":"append","path":"/outline/1/children","value":{"title":"食物中毒应急处置"}}',
        '{"op":"done"}',
    ]
    llm_server.push(Reply.text("\n".join(lines) + "\n"))
    outcome = await controller.generate_outline("aligned")
    assert outcome.ok and outcome.rejected == 2
    assert [c.title for c in controller.outline.chapters] == ["配送服务方案", "应急方案"]
    assert [c.source_requirement_id for c in controller.outline.chapters] == ["R1", "R2"]
    assert controller.outline.node((0, 0, 0)).title == "订单接收"
    assert "/outline/1：应急方案" in llm_server.completion_requests[0].prompt_text
    assert controller.model.locked_top_level
    assert controller.model.data(controller.model.index(0, 0), LockedRole)
    _consistent(controller)


async def test_pipeline_runner_one_to_one_fills_tree_and_is_one_undo_step(controller: AppController,
                                                                          llm_server: OpenAIServer) -> None:
    from app.ui.generation_backend import pipeline_outline_runner
    from tests.pipeline_support import Router, sample_analysis

    router = Router()
    llm_server.handler = router
    controller.runner = pipeline_outline_runner
    controller.outline.replace([OutlineNode(title="手写的旧目录")])
    controller.set_analysis(sample_analysis())
    stages: list[str] = []
    controller.stage_changed.connect(stages.append)
    outcome = await controller.generate_outline("aligned")
    assert outcome.ok, outcome.message
    assert [c.title for c in controller.outline.chapters] == ["服务方案", "质量保障措施", "售后服务方案"]
    assert all(len(c.children) >= 2 for c in controller.outline.chapters)
    assert router.count("chapter:") == 3
    assert controller.model.locked_top_level
    assert any("生成章节" in s or "检查目录" in s for s in stages)
    _consistent(controller)
    controller.undo_stack.undo()
    assert [c.title for c in controller.outline.chapters] == ["手写的旧目录"]

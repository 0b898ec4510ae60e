"""Live filling through the app's own pipeline: GUI-thread stalls, socket-to-model latency, resets.

Run from the repository root::

    python tests/benchmarks/bench_stream_stall.py [--chapters 20] [--chunk 64] [--chunk-delay 0]

The real main window (tree view, adapter model, log pane, status bar) is shown offscreen, with an
empty data folder (no past-bid library). 生成目录 is clicked in one-to-one mode and the controller runs the pipeline (the default whole-JSON strategy) against
the local OpenAI-compatible test server, which answers each of ``--chapters`` chapter
prompts with 5 sections x 4 points as fast as it can (or paced by ``--chunk-delay``);
every title becomes a tree node the moment its closing quote is parsed. Printed:

* the longest stall of the GUI thread (a 2 ms QTimer records the gaps between its ticks;
  the longest gap minus the interval; target < 50 ms) over the whole run and from the first
  heading on, next to two baselines that show how busy the machine is;
* the time from the chunk holding a title's closing quote leaving the server's socket to
  the node being in the Qt item model (median, p95, max; target <= 50 ms);
* item-model resets during the run (target 0);
* the GUI thread's CPU time during the run (steadier than the stalls on a shared machine).

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync  # noqa: E402
from PySide6.QtCore import QElapsedTimer, QModelIndex, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QDockWidget  # noqa: E402

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup  # noqa: E402
from app.llm.client.llm_client import EndpointConfig, LLMClient  # noqa: E402
from app.ui.run.controller import GENERATION, AppController  # noqa: E402
from app.ui.shell.main import freeze_startup_objects  # noqa: E402
from app.ui.shell.main_window import MainWindow  # noqa: E402
from tests.openai_server import OpenAIServer, RecordedRequest, Reply  # noqa: E402
from tests.pipeline_support import Router, chapter_title_of  # noqa: E402

TICK_MS = 2
SECTIONS, POINTS = 5, 4


SECTION_WORDS = ("组织架构", "工作流程", "质量控制", "进度安排", "应急处置", "人员培训", "设备保障")
POINT_WORDS = ("岗位职责", "交接记录", "巡查频次", "考核办法", "台账管理", "问题整改", "沟通机制", "检测手段",
               "资料归档", "风险识别", "物资储备", "演练计划", "服务承诺", "回访制度", "持续改进", "安全交底",
               "信息报送", "分级响应", "验收标准", "记录表单", "奖惩措施", "例会制度", "节点控制")


def chapter_answer(chapter: str) -> str:
    """One chapter's JSON answer: 5 sections x 4 points, titles unique and varied like a good model's."""
    sections = []
    for s in range(SECTIONS):
        words = [POINT_WORDS[(s * 5 + p * 3 + len(chapter)) % len(POINT_WORDS)] for p in range(POINTS)]
        sections.append({"title": f"{chapter}{SECTION_WORDS[s]}", "description": f"{SECTION_WORDS[s]}的具体做法",
                         "children": [{"title": f"{chapter}{SECTION_WORDS[s]}{w}", "description": "责任人与检查方式"}
                                      for w in words]})
    return json.dumps({"children": sections}, ensure_ascii=False)


def analysis(chapters: int) -> Analysis:
    names = ["配送", "仓储", "质量", "安全", "应急", "售后", "培训", "人员", "设备", "信息化"]
    groups = [ScoringGroup(id=f"R{i + 1}", title=f"{names[i % 10]}服务方案{i + 1}", points=5.0) for i in range(chapters)]
    return Analysis(overview=ProjectOverview(project_name="某单位后勤服务项目"), groups=groups, source="table")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


async def run(chapters: int, chunk: int, chunk_delay: float, hidden: bool) -> None:
    answers: dict[str, str] = {}

    def model(kind: str, req: RecordedRequest) -> Reply:
        title = chapter_title_of(req)
        if title is not None:
            answers[title] = chapter_answer(title)
            return Reply.text(answers[title], chunk_size=chunk, chunk_delay=chunk_delay)
        return Router._default(kind, req)

    with OpenAIServer() as server, tempfile.TemporaryDirectory() as tmp:
        # an empty data folder: the user's own library (历史标书 beside the text) does not change the figures
        os.environ["BIDSTUDIO_DATA_DIR"] = str(Path(tmp, "data"))
        server.handler = Router(model)

        def factory() -> LLMClient:
            return LLMClient(EndpointConfig(base_url=server.base_url, api_key="k", model="test-model",
                                            max_tokens=100_000, max_retries=0, timeout=60))

        controller = AppController(client_factory=factory)
        controller.set_analysis(analysis(chapters))
        window = MainWindow(controller, qsettings=QSettings(str(Path(tmp, "ui.ini")), QSettings.Format.IniFormat))
        if not hidden:
            window.show()
        await asyncio.sleep(0.2)
        freeze_startup_objects()  # as app.ui.shell.main does once the window is shown
        gaps: list[float] = []
        clock = QElapsedTimer()
        clock.start()
        last = [clock.nsecsElapsed()]

        def tick() -> None:
            now = clock.nsecsElapsed()
            gaps.append((now - last[0]) / 1e6)
            last[0] = now

        timer = QTimer()
        timer.setInterval(TICK_MS)
        timer.timeout.connect(tick)
        timer.start()
        await asyncio.sleep(2.0)  # baseline: the same window, idle (shows how busy the machine is)
        idle = sorted(max(0.0, g - TICK_MS) for g in gaps)
        gaps.clear()
        # Second baseline: plain CPU work in 8 ms slices with a yield between them, no Qt work.
        last[0] = clock.nsecsElapsed()
        end = time.perf_counter() + 2.0
        while time.perf_counter() < end:
            slice_end = time.perf_counter() + 0.008
            while time.perf_counter() < slice_end:
                pass
            await asyncio.sleep(0)
        busy = sorted(max(0.0, g - TICK_MS) for g in gaps)

        model_ = controller.model
        arrived: dict[str, float] = {}
        resets: list[int] = []

        first_row: list[int] = []  # tick index when the first heading arrived

        def on_rows(parent: QModelIndex, first: int, last_row: int) -> None:
            now = time.perf_counter()
            if not first_row:
                first_row.append(len(gaps))
            for row in range(first, last_row + 1):
                arrived.setdefault(model_.node_for_index(model_.index(row, 0, parent)).title, now)

        model_.rowsInserted.connect(on_rows)
        model_.modelAboutToBeReset.connect(lambda: resets.append(1))
        gaps.clear()
        last[0] = clock.nsecsElapsed()
        t0, cpu0 = time.perf_counter(), time.thread_time()
        # The user's path: 一一对应 chosen, 生成目录 clicked; the click spawns the named generation task.
        window.mode_box.setCurrentIndex(window.mode_box.findData("aligned"))
        window.generate_button.click()
        while controller.tasks.get(GENERATION) is None:
            await asyncio.sleep(0.001)
        outcome = await controller.tasks[GENERATION]
        elapsed, gui_cpu = time.perf_counter() - t0, time.thread_time() - cpu0
        timer.stop()
        stalls = sorted(max(0.0, g - TICK_MS) for g in gaps)
        streaming = sorted(max(0.0, g - TICK_MS) for g in gaps[first_row[0] if first_row else 0:])

        latencies: list[float] = []
        for req in server.completion_requests:
            title = chapter_title_of(req)
            if title is None or title not in answers or not req.sent:
                continue
            text = answers[title]
            for key in json.loads(text)["children"]:
                for node in [key, *key["children"]]:
                    quote = text.index(json.dumps(node["title"], ensure_ascii=False)) + len(node["title"]) + 1
                    sent_at = next(t for n, t in req.sent if n > quote)
                    if node["title"] in arrived:
                        latencies.append((arrived[node["title"]] - sent_at) * 1000)
        nodes = len(controller.outline)
        workspace = getattr(window, "workspace", None)
        if workspace is not None:
            shown = [d.windowTitle() for d in window.findChildren(QDockWidget) if workspace.on_show(d)]
            print(f"stage on show: {workspace.current}; panels on show: {', '.join(shown)}")
        print(f"outline: {len(controller.outline.chapters)} chapters, {nodes} nodes; run ok: {outcome.ok} "
              f"({outcome.message})")
        print(f"chunk size: {chunk} chars, chunk delay: {chunk_delay * 1000:.0f} ms; "
              f"run time: {elapsed:.2f} s ({nodes / elapsed:.0f} nodes/s)")
        print(f"idle baseline over {len(idle)} ticks: longest {idle[-1]:.1f} ms, median {statistics.median(idle):.2f} ms; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"busy baseline (8 ms CPU slices, no Qt work) over {len(busy)} ticks: longest {busy[-1]:.1f} ms, "
              f"p99 {percentile(busy, 0.99):.1f} ms")
        print(f"GUI-thread stalls over {len(gaps)} ticks of {TICK_MS} ms: longest {stalls[-1]:.1f} ms, "
              f"p99 {percentile(stalls, 0.99):.1f} ms, median {statistics.median(stalls):.2f} ms (target < 50 ms)")
        print(f"  of which while headings stream in (from the first one on), {len(streaming)} ticks: longest "
              f"{streaming[-1]:.1f} ms, p99 {percentile(streaming, 0.99):.1f} ms (the first run also builds the "
              f"HTTP client and imports the model modules)")
        marks, at = [], 0.0
        for g in gaps:
            at += g
            marks.append((g, at))
        worst = sorted(marks, reverse=True)[:3]
        print("longest stalls at (ms into the run): " + ", ".join(f"{g - TICK_MS:.0f} ms @ {t:.0f}" for g, t in worst))
        if latencies:
            print(f"closing quote on the socket -> item in the Qt model, {len(latencies)} titles: "
                  f"median {statistics.median(latencies):.1f} ms, p95 {percentile(latencies, 0.95):.1f} ms, "
                  f"max {max(latencies):.1f} ms (target <= 50 ms)")
        print(f"item-model resets during the run: {len(resets)} (target 0)")
        print(f"GUI-thread CPU time during the run: {gui_cpu * 1000:.0f} ms, {gui_cpu * 1e6 / max(1, nodes):.0f} µs per "
              f"node (what the window does, whatever else the machine runs)")
        window._close_ok = True
        window.close()
        await controller.shutdown()
        window.deleteLater()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chapters", type=int, default=20, help="one-to-one chapters (scoring items)")
    parser.add_argument("--chunk", type=int, default=64, help="characters per streamed chunk")
    parser.add_argument("--chunk-delay", type=float, default=0.0, help="seconds between chunks")
    parser.add_argument("--hidden", action="store_true", help="do not show the window (cost without painting)")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv)
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(run(args.chapters, args.chunk, args.chunk_delay, args.hidden))


if __name__ == "__main__":
    main()

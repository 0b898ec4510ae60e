"""Take the README screenshot: a real tender loaded, its scoring table analysed, an outline generated.

    python tests/tools/screenshot_main.py [--tender ../shared/tenders/yangjiang-tax-canteen.pdf] [--out docs/screenshot-main.png]

Runs offscreen (or under Xvfb) with the real main window. The "model" is the local
OpenAI-compatible test server playing scripted chapter answers, so the picture is
reproducible; the outline is generated in one-to-one mode through the app's own pipeline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.llm.client.llm_client import EndpointConfig, LLMClient  # noqa: E402
from app.ui.run.controller import AppController  # noqa: E402
from app.ui.shell.main import _pick_font  # noqa: E402
from app.ui.shell.main_window import MainWindow  # noqa: E402
from tests.openai_server import OpenAIServer, RecordedRequest, Reply  # noqa: E402
from tests.pipeline_support import Router  # noqa: E402

SECTIONS: dict[str, list[tuple[str, str, list[str]]]] = {
    "配送车辆情况": [
        ("配送车辆配置", "自有与租赁车辆的数量、车型和冷链能力", ["冷藏配送车辆", "常温配送车辆"]),
        ("车辆管理与维护", "车辆调度、消毒和定期保养制度", ["车辆清洁消毒", "车辆定期检修"]),
    ],
    "配送加工场地情况": [
        ("加工场地概况", "场地位置、面积和功能分区", ["场地面积与布局", "功能分区说明"]),
        ("场地卫生管理", "清洁、防鼠防虫和废弃物处理", ["日常清洁制度", "虫害防治措施"]),
    ],
    "冷藏库仓储能力": [
        ("冷藏库配置", "冷藏库容积、温区和监控设备", ["冷藏库容积", "温湿度监控"]),
        ("仓储管理制度", "入库、在库和出库的管理要求", ["先进先出管理", "库存盘点"]),
    ],
    "食品安全管理保障": [
        ("食品安全管理团队", "专职人员配置与资质", ["高级食品安全管理人员", "岗位职责分工"]),
        ("食品安全培训", "人员培训计划与考核", ["岗前培训", "定期考核"]),
    ],
    "配送服务方案": [
        ("配送组织架构", "项目管理团队与职责", ["项目负责人", "配送班组"]),
        ("配送流程", "从下单到验收的全流程", ["订单接收与确认", "分拣与装车", "送达与验收"]),
        ("配送时效保障", "准时送达的保障措施", ["配送时间安排", "延误处理"]),
    ],
    "应急方案": [
        ("应急组织与预案", "应急小组和响应流程", ["应急小组职责", "响应分级"]),
        ("典型突发情况处置", "补货、停水停电、车辆故障等", ["应急补货", "食物中毒处置", "恶劣天气配送"]),
    ],
    "食品质量、安全管理方案": [
        ("食材来源管理", "供应商准入与产地溯源", ["供应商评估", "产地溯源"]),
        ("加工包装质量控制", "加工和包装各环节的质量控制", ["加工过程控制", "包装标识"]),
        ("检验检测", "进货查验与快速检测", ["农药残留快检", "留样制度"]),
    ],
    "售后服务方案": [
        ("售后服务计划", "服务承诺与回访安排", ["服务承诺", "定期回访"]),
        ("增值服务", "为采购人提供的额外服务", ["营养配餐建议", "节假日保障"]),
        ("售后保证措施", "投诉处理与持续改进", ["投诉受理流程", "整改与反馈"]),
    ],
}


def model(kind: str, req: RecordedRequest) -> Reply:
    """The scripted model: each one-to-one chapter's sections and points as JSON; reviews pass."""
    if kind.startswith("chapter:"):
        title = kind.split(":", 1)[1]
        sections = SECTIONS.get(title, [(f"{title}总体思路", "", ["目标", "措施"])])
        answer = {"children": [{"title": sec, "description": desc, "children": [{"title": p} for p in points]}
                               for sec, desc, points in sections]}
        return Reply.text(json.dumps(answer, ensure_ascii=False), chunk_size=40, chunk_delay=0.002)
    return Router._default(kind, req)


async def take(tender: Path, out: Path, page: int) -> None:
    with OpenAIServer() as server, tempfile.TemporaryDirectory() as tmp:

        def factory() -> LLMClient:
            return LLMClient(
                EndpointConfig(
                    base_url=server.base_url,
                    api_key="k",
                    model="qwen2.5-7b-instruct",
                    max_retries=0,
                    timeout=30,
                )
            )

        controller = AppController(client_factory=factory)
        window = MainWindow(
            controller, qsettings=QSettings(str(Path(tmp, "ui.ini")), QSettings.Format.IniFormat)
        )
        window.status.provider = "dashscope"
        window.resize(1600, 960)
        window.show()
        await window.open_path(tender)
        groups = [g.title for g in controller.analysis.technical_groups]
        server.handler = Router(model)
        window.guidance.setText("突出冷链配送和食品安全")
        window.start_generation("aligned")
        await asyncio.sleep(0.5)
        while controller.busy:
            await asyncio.sleep(0.1)
        window.analysis_dock.raise_()
        await asyncio.sleep(0.3)
        analysis_shot = window.grab()
        window.document_dock.raise_()
        pane = window.document_pane
        for _ in range(300):  # the document pane lays out and renders pages off the GUI thread
            if getattr(pane, "page_count", lambda: 1)() > 0:
                break
            await asyncio.sleep(0.1)
        show_page = getattr(pane, "show_page", None)
        if show_page is not None:
            show_page(page)
        window.outline_view.select_path((1, 1))
        window.outline_view.scrollToTop()
        await asyncio.sleep(3.0)
        shot = window.grab()
        out.parent.mkdir(parents=True, exist_ok=True)
        shot.save(str(out), "PNG")
        analysis_shot.save(str(out.with_name(out.stem.replace("-main", "") + "-analysis.png")), "PNG")
        print(
            f"saved {out} ({out.stat().st_size // 1024} KB), groups: {len(groups)}, nodes: {len(controller.outline)}"
        )
        window._close_ok = True
        window.close()
        await controller.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--tender", type=Path, default=REPO.parent / "shared" / "tenders" / "yangjiang-tax-canteen.pdf"
    )
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshot-main.png")
    parser.add_argument("--page", type=int, default=67)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv)
    app.setQuitOnLastWindowClosed(False)
    _pick_font(app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(take(args.tender, args.out, args.page))


if __name__ == "__main__":
    main()

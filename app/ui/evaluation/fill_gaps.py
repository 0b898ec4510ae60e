"""补写 and 模型复核 from the 评审模拟 dock, as undo steps and checked model answers.

:func:`fill_gaps` writes each chosen gap into its place (``app.pipeline.evaluation.fill``):
a paragraph appended to the section that mentions a thin point, or a new heading with the
paragraph for a missing one — one undo step per point, nothing else touched. Without a
model a missing point still gets its heading (with a writing hint); a thin one is left to
the writer. A paragraph the model wrote but code refused (too short, not about the point)
changes nothing at all: the status bar says why. "补写全部缺项" shows its progress in the panel and can be cancelled there; what
was written before the cancel stays (each point is its own undo step).
:func:`check_with_model` asks the closed questions and keeps the checked answers.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from app.core.outline import OutlineNode
from app.llm.client.errors import LLMError
from app.pipeline.evaluation.fill import draft_point, fill_target
from app.pipeline.evaluation.questions import ask_points
from app.pipeline.evaluation.review import review_bid
from app.ui.outline.commands import EditFieldCommand, InsertNodeCommand

if TYPE_CHECKING:
    from app.llm.client.llm_client import LLMClient
    from app.ui.evaluation.review_host import ReviewHost
    from app.ui.shell.window_host import WindowHost

log = logging.getLogger("bidstudio.ui")


def _client(window: WindowHost) -> LLMClient | None:
    """The configured model client, or None when no model is configured."""
    try:
        return window.controller.client()
    except Exception as exc:  # NoModelConfigured, or settings that cannot make a client
        log.info("review: no model client (%s)", exc)
        return None


async def fill_one(window: WindowHost, group_id: str, index: int, client: LLMClient | None) -> str:
    """补写 one point; returns what was done (for the status bar)."""
    c = window.controller
    review = review_bid(c.analysis, c.outline.chapters)
    item = next((i for i in review.items if i.group.id == group_id), None)
    if item is None or not 0 <= index < len(item.points):
        return "该评分项已不存在，请刷新评审结果"
    point = item.points[index]
    if point.status == "answered":
        return f"“{point.label}”已有回应"
    target = fill_target(item, point, c.outline.chapters)
    text, problem = "", None
    if client is not None:
        section = target.title if target.kind == "insert" else c.outline.node(target.path).title
        existing = c.outline.node(target.path).content if target.kind == "append" else ""
        text, problem = await draft_point(client, item, point, section, existing)
        if problem is not None:  # a refused paragraph changes nothing: no empty heading, no partial text
            log.info("review fill refused for %s: %s", point.label, problem)
            return f"未补写“{point.label}”：{problem}，目录和正文未作改动（可重试或手动补写）"
    if target.kind == "append":
        if not text:
            return problem or f"未配置模型：请在“{c.outline.node(target.path).title}”中手动补写“{point.label}”"
        node = c.outline.node(target.path)
        joined = f"{node.content.rstrip()}\n{text}" if node.content.strip() else text
        c.undo_stack.push(EditFieldCommand(c.outline, target.path, "content", joined, f"补写 {point.label}"))
        return f"已在“{node.title}”补写“{point.label}”"
    hint = f"补写提示：回应评分要点“{point.label}”（{item.group.title}）"
    node = OutlineNode(title=target.title, description=hint[:200], content=text, origin="tender")
    c.undo_stack.push(InsertNodeCommand(c.outline, target.path, target.index, node, f"补写 {point.label}"))
    if text:
        return f"已添加“{target.title}”并补写正文"
    return f"已添加小标题“{target.title}”（未配置模型，请手动补写正文）"


async def fill_gaps(window: WindowHost, dock: ReviewHost, gaps: list[tuple[str, int]]) -> int:
    """补写 each of ``gaps`` in turn with progress in the panel; returns how many were written."""
    c = window.controller
    if c.busy_generating:
        window.statusBar().showMessage("正在生成目录，请等生成结束后再补写", 6000)
        return 0
    client = _client(window)
    panel = dock.panel
    panel.start_progress(len(gaps))
    written = 0
    message = ""
    try:
        for k, (group_id, index) in enumerate(gaps):
            panel.set_progress(k, f"补写 {k + 1}/{len(gaps)}")
            before = c.undo_stack.count()
            message = await fill_one(window, group_id, index, client)
            written += c.undo_stack.count() > before
            window.statusBar().showMessage(message, 8000)
        panel.set_progress(len(gaps), "")
        if len(gaps) > 1:
            message = f"补写完成：{written}/{len(gaps)} 项（每项可单独撤销）"
    except asyncio.CancelledError:
        window.statusBar().showMessage(f"已取消补写：已完成 {written} 项（每项可单独撤销）", 8000)
        raise
    except LLMError as exc:
        message = f"补写中断：{exc.message_zh}（已完成 {written} 项）"
    finally:
        panel.end_progress()
        dock.schedule()
    window.statusBar().showMessage(message, 10000)
    return written


async def check_with_model(window: WindowHost, dock: ReviewHost) -> None:
    """Ask the model about the thin and missing points; keep the answers whose quote is in the passage."""
    client = _client(window)
    if client is None:
        window.statusBar().showMessage("未配置模型：评审结果由程序比对得出", 6000)
        return
    dock.refresh()
    review = dock.review
    if review is None:
        return
    panel = dock.panel
    panel.start_progress(0)
    try:
        stats = await ask_points(client, review, window.controller.outline.chapters)
    except LLMError as exc:
        window.statusBar().showMessage(f"模型复核失败：{exc.message_zh}", 10000)
        return
    finally:
        panel.end_progress()
    dock.keep_model_answers(review)
    panel.set_review(review)
    window.statusBar().showMessage(
        f"模型复核：问了 {stats.asked} 个要点，采信 {stats.kept} 个，"
        f"引文不在正文中而未采信 {stats.quote_rejected} 个，无有效回答 {stats.failed} 个", 12000)

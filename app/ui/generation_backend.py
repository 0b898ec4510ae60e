"""The seam between the controller and the outline pipeline.

The controller calls one :data:`OutlineRunner` ``(client, outline, request, progress)`` and
never knows how the outline is produced. :func:`pipeline_outline_runner` (the default) is
the pipeline's validated run drafting into the tree; :func:`stream_outline_runner` is a thin
instruction-stream run (client stream -> ``InstructionParser`` -> tree edits) that fills the
tree node by node, used by the stream tests and the stall benchmark. Everything here is plain async code without Qt; the UI only adapts it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from app.core.analysis import Analysis
from app.core.outline import Outline, OutlineError, OutlineNode, number_for
from app.core.pipeline_events import PipelineEvent, ProgressCallback
from app.core.pointer import PointerError, pointer_to_target
from app.core.resources import load_prompt

if TYPE_CHECKING:
    from app.llm.client import LLMClient

log = logging.getLogger(__name__)

#: The streamed run gives the event loop (and so the GUI) a turn at least this often.
YIELD_EVERY_S = 0.005

Mode = Literal["free", "aligned"]
_TEXT_FIELDS = ("title", "description", "source_requirement_id", "source_requirement_title")


@dataclass
class OutlineRequest:
    """What the user asked for: mode, optional guidance, and what the tender says."""

    mode: Mode = "free"
    guidance: str = ""
    analysis: Analysis = field(default_factory=Analysis)
    tender_text: str = ""
    max_tokens: int | None = None
    requirements: str = ""  # the requirement breakdown as prompt text, when there is one


@dataclass
class OutlineOutcome:
    """How a run ended: ``ok``, a Chinese message for the status bar, counts and tokens."""

    ok: bool
    message: str
    applied: int = 0
    rejected: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


OutlineRunner = Callable[["LLMClient", Outline, OutlineRequest, ProgressCallback], Awaitable[OutlineOutcome]]


# --------------------------------------------------------------------------- the thin stream run


def locked_chapters(analysis: Analysis) -> list[OutlineNode]:
    """One chapter per technical scoring group, in order, carrying the group's id and title."""
    return [OutlineNode(title=g.title[:60], source_requirement_id=g.id, source_requirement_title=g.title)
            for g in analysis.technical_groups[:12]]


def _requirements(request: OutlineRequest) -> str:
    groups = request.analysis.technical_groups
    if request.mode == "aligned" and groups:
        lines = ["一级章节已由程序按技术评分项建立（不要新增、删除或修改一级章节），请为每章添加二级和三级标题："]
        for i, g in enumerate(groups):
            criteria = (g.description or "；".join(g.detail_points))[:160].replace("\n", " ")
            lines.append(f"/outline/{i}：{g.title}" + (f"（评分标准：{criteria}）" if criteria else ""))
        return "\n".join(lines)
    if groups:
        return "技术评分项：\n" + "\n".join(f"- {g.title}" for g in groups)
    text = request.analysis.technical_requirements or request.tender_text
    return "招标文件摘录：\n" + text[:3000] if text else ""


def build_stream_prompt(request: OutlineRequest) -> str:
    """The instruction-stream prompt from ``resources/prompts/outline_stream_ui.md``."""
    overview = request.analysis.overview
    return load_prompt("outline_stream_ui").format(
        project=overview.project_name or "本项目",
        summary=(overview.summary or overview.scope)[:600],
        requirements=_requirements(request),
        guidance=("用户的补充要求：" + request.guidance) if request.guidance.strip() else "",
    ).strip()


class TreeWriter:
    """Applies parsed instructions to the tree with the checks code can guarantee.

    Accepts ``append``/``insert``/``set``/``remove``; rejects anything addressing a missing
    node, breaking depth 3 or the 12-children bound, with a reason. New nodes get their
    positional number at once (code owns ids).
    """

    def __init__(self, outline: Outline, max_depth: int = 3, locked_top_level: bool = False) -> None:
        self.outline = outline
        self.max_depth = max_depth
        self.locked_top_level = locked_top_level
        self.applied = 0
        self.rejected: list[str] = []

    def apply(self, op: str, tokens: tuple[str, ...], value: Any) -> bool:
        """Apply one instruction; False (and a recorded reason) when it is refused."""
        try:
            target = pointer_to_target(list(tokens))
            self._apply(op, target.path, target.field, value)
        except (PointerError, OutlineError, ValueError, TypeError) as exc:
            self.rejected.append(f"{op} {'/'.join(tokens)}: {exc}")
            return False
        self.applied += 1
        return True

    def _node_from(self, value: Any) -> OutlineNode:
        if isinstance(value, str):
            value = {"title": value}
        if not isinstance(value, dict):
            raise ValueError("节点必须是对象")
        data = {k: v for k, v in value.items() if k in _TEXT_FIELDS and v is not None}
        data["title"] = str(data.get("title", "")).strip()[:60]
        if "description" in data:
            data["description"] = str(data["description"])[:400]
        node = OutlineNode(**data)
        for child in value.get("children") or []:
            node.children.append(self._node_from(child))
        return node

    def _apply(self, op: str, path: tuple[int, ...], fld: str | None, value: Any) -> None:
        o = self.outline
        if self.locked_top_level and (len(path) <= 1 and not (op in ("append", "insert") and fld == "children" and path)):
            raise ValueError("一级章节由评分项决定，不能修改")
        if op in ("append", "insert"):
            if fld == "children":
                parent, index = path, len(o.node(path).children)
            elif fld is None and path:
                parent, index = path[:-1], path[-1]
            else:
                raise ValueError("append/insert 需要指向子节点列表")
            node = self._node_from(value)
            if len(parent) + node.depth() > self.max_depth:
                raise ValueError("超过三级目录")
            if len(o.node(parent).children) >= 12:
                raise ValueError("同级节点过多")
            new_path = o.insert(parent, min(index, len(o.node(parent).children)), node)
            if new_path[-1] == len(o.node(parent).children) - 1:
                self._number_subtree(new_path)
            else:
                o.renumber()
        elif op == "set":
            if fld in _TEXT_FIELDS:
                text = str(value).strip() if fld == "title" else str(value)
                o.update(path, **{fld: text[:60] if fld == "title" else text[:400]})
            elif fld is None and path and isinstance(value, dict):
                fields = {k: str(v) for k, v in value.items() if k in _TEXT_FIELDS and v is not None}
                o.update(path, **fields)
            else:
                raise ValueError(f"不能设置字段 {fld}")
        elif op == "remove":
            if fld is not None or not path:
                raise ValueError("remove 需要指向节点")
            o.remove(path)
            o.renumber()
        else:
            raise ValueError(f"不支持的操作 {op}")

    def _number_subtree(self, path: tuple[int, ...]) -> None:
        self.outline.update(path, id=number_for(path))
        for i in range(len(self.outline.node(path).children)):
            self._number_subtree((*path, i))


async def stream_outline_runner(client: LLMClient, outline: Outline, request: OutlineRequest,
                                progress: ProgressCallback) -> OutlineOutcome:
    """One streamed instruction run that edits ``outline`` as lines arrive.

    Cancelling the awaiting task stops the stream promptly (the client closes the HTTP
    stream); every applied edit is a complete tree operation, so the tree stays consistent.
    """
    from app.llm.instruction_stream import Instruction, InstructionParser, MalformedInstruction

    progress(PipelineEvent("outline", "正在生成目录……", strategy="stream"))
    aligned = request.mode == "aligned" and request.analysis.has_technical_scoring
    if aligned:  # code owns the one-to-one chapters; the model only writes below them
        outline.replace(locked_chapters(request.analysis))
        outline.renumber()
    messages = [{"role": "user", "content": build_stream_prompt(request)}]
    writer = TreeWriter(outline, locked_top_level=aligned)
    parser = InstructionParser()
    done = False

    def handle(events: list[Any]) -> None:
        nonlocal done
        for ev in events:
            if isinstance(ev, Instruction):
                if ev.op == "done":
                    done = True
                elif writer.apply(ev.op, ev.tokens, ev.value):
                    if writer.applied % 25 == 1:
                        progress(PipelineEvent("outline", f"已写入 {writer.applied} 条目录指令", strategy="stream"))
                else:
                    log.warning("instruction rejected: %s", writer.rejected[-1], extra={"stage": "outline"})
            elif isinstance(ev, MalformedInstruction):
                writer.rejected.append(ev.issue)
                log.warning("malformed instruction: %s", ev.issue, extra={"stage": "outline"})

    stream = client.stream(messages, max_tokens=request.max_tokens, stage="outline")
    last_yield = time.perf_counter()
    async for delta in stream:
        handle(parser.feed(delta))
        # Buffered chunks arrive without a real suspension; hand the GUI thread back regularly.
        if time.perf_counter() - last_yield > YIELD_EVERY_S:
            await asyncio.sleep(0)
            last_yield = time.perf_counter()
    handle(parser.close())
    comp = stream.result
    outline.renumber()
    usage = comp.usage
    event = PipelineEvent("done", "目录生成完成", calls=1, prompt_tokens=usage.prompt_tokens,
                          completion_tokens=usage.completion_tokens, tokens_estimated=usage.estimated)
    progress(event)
    ok = writer.applied > 0
    if ok:
        message = f"目录生成完成：{len(outline)} 个节点" + (f"，{len(writer.rejected)} 条指令被拒绝" if writer.rejected else "")
    else:
        message = "模型没有给出可用的目录指令，请重试或更换模型。"
    if comp.truncated and not done:
        message += "（输出被截断）"
    return OutlineOutcome(ok, message, writer.applied, len(writer.rejected), usage.prompt_tokens,
                          usage.completion_tokens)


# --------------------------------------------------------------------------- choosing the runner


async def pipeline_outline_runner(client: LLMClient, outline: Outline, request: OutlineRequest,
                                  progress: ProgressCallback) -> OutlineOutcome:
    """The pipeline's validated run (free or one-to-one, repair, review), drafting into ``outline``."""
    from app.pipeline.outline_job import OutlineSettings
    from app.pipeline.outline_run import generate_outline

    settings = OutlineSettings(mode=request.mode, guidance=request.guidance, requirements=request.requirements)
    result = await generate_outline(client, request.analysis, settings, progress=progress, draft=outline)
    if result.chapters and outline.to_document() != result.document():
        outline.replace([c.model_copy(deep=True) for c in result.chapters])
    outline.renumber()
    meter = result.meter
    if result.failure is not None:
        message = result.failure.message_zh
    else:
        message = f"目录生成完成：{len(outline.chapters)} 章，共 {len(outline)} 个标题"
        extra = [*result.notes, *result.warnings]
        if extra:
            message += "（" + "；".join(extra[:2]) + "）"
    return OutlineOutcome(result.ok, message, applied=len(outline), prompt_tokens=meter.prompt_tokens,
                          completion_tokens=meter.completion_tokens)


def default_outline_runner() -> OutlineRunner:
    """The runner the app uses: the pipeline's validated run."""
    return pipeline_outline_runner

"""The seam between a front end (the desktop controller) and the outline pipeline.

A front end calls one :data:`OutlineRunner` ``(client, outline, request, progress)``: the
pipeline's validated run (free or one-to-one mode, repair, review) writing into the live
``outline`` as the model streams. :func:`run_outline` is the runner the app uses and the
tests and benchmarks drive; there is no other. Plain async code without Qt.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from app.core.analysis import Analysis
from app.core.limits import OutlineLimits
from app.core.outline import Outline
from app.core.pipeline_events import ProgressCallback

if TYPE_CHECKING:
    from app.library.store import LibraryStore
    from app.llm.client.llm_client import LLMClient

Mode = Literal["free", "aligned"]


@dataclass
class OutlineRequest:
    """What the user asked for: mode, optional guidance, what the tender says, and whether to resume."""

    mode: Mode = "free"
    guidance: str = ""
    analysis: Analysis = field(default_factory=Analysis)
    requirements: str = ""  # the requirement breakdown as prompt text, when there is one
    limits: OutlineLimits = field(default_factory=OutlineLimits)
    resume: bool = False  # the tree holds an interrupted run: keep complete chapters, generate the rest
    library: LibraryStore | None = None  # the user's past bids (历史标书): candidates for each chapter


@dataclass
class OutlineOutcome:
    """How a run ended: ``ok``, a Chinese message for the status bar, counts and tokens."""

    ok: bool
    message: str
    applied: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    code_only: bool = False  # the endpoint never answered as an OpenAI endpoint: nothing here is the model's


def not_openai_message(calls: int, why: str) -> str:
    """The run's message when none of ``calls`` answers was an OpenAI answer (a web page, broken events)."""
    why = why or "返回的不是 OpenAI 接口的应答；请检查接口地址（通常以 /v1 结尾）和网络代理。"
    return f"模型服务的 {calls} 次应答都不是 OpenAI 接口的应答，模型没有参与生成：{why.rstrip('。')}"


OutlineRunner = Callable[["LLMClient", Outline, OutlineRequest, ProgressCallback], Awaitable[OutlineOutcome]]


async def run_outline(client: LLMClient, outline: Outline, request: OutlineRequest,
                      progress: ProgressCallback) -> OutlineOutcome:
    """The pipeline's validated run, editing ``outline`` live (never replacing the whole tree).

    Cancelling the awaiting task stops the model call at once; every edit made so far is a
    whole tree operation, so the tree stays consistent and a later ``resume`` continues it.
    """
    from app.pipeline.outline.job import OutlineSettings
    from app.pipeline.outline.run import generate_outline

    settings = OutlineSettings(mode=request.mode, guidance=request.guidance, requirements=request.requirements,
                               limits=request.limits, library=request.library)
    from app.pipeline.outline.user_outline import has_locks

    keep_user = has_locks(outline.chapters)  # the user's locked outline is the base the model fills in
    base = [c.model_copy(deep=True) for c in outline.chapters] if (request.resume or keep_user) and outline.chapters else None
    result = await generate_outline(client, request.analysis, settings, progress=progress, draft=outline,
                                    base=base, resume=request.resume)
    outline.renumber()
    meter = result.meter
    health = getattr(getattr(client, "transport", None), "health", None)
    if health is not None and health.never_answered:  # a web page or broken events every time: the address
        return OutlineOutcome(False, not_openai_message(health.not_openai, health.not_openai_detail),
                              applied=len(outline), code_only=True)
    if result.failure is not None:
        message = result.failure.message_zh
    else:
        message = f"目录生成完成：{len(outline.chapters)} 章，共 {len(outline)} 个标题"
        extra = [*result.notes, *result.warnings]
        if extra:
            message += "（" + "；".join(extra[:2]) + "）"
    return OutlineOutcome(result.ok, message, applied=len(outline), prompt_tokens=meter.prompt_tokens,
                          completion_tokens=meter.completion_tokens)

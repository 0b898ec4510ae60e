"""A model proposes the data of a figure (org chart, flowchart, Gantt) for one section.

The answer is validated like every other model answer: :func:`~app.llm.json.collect.collect_json`
against the core data model (bounded, simple), then the figure rules of :mod:`app.core.figures`
(one root, known parents, arrows to existing steps, tasks within the 工期) as business rules,
so a weak model gets its exact mistakes back to repair. The result is a figure for the user
to check in the editor, or a Chinese message; nothing in the outline changes here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel

from app.core.figures import (
    KIND_ZH,
    Figure,
    Flowchart,
    GanttChart,
    OrgChart,
    flow_issues,
    gantt_issues,
    org_issues,
)
from app.core.resources import load_prompt
from app.llm.client.errors import LLMConnectionError, LLMResponseError
from app.llm.json.collect import collect_json

if TYPE_CHECKING:
    from app.core.analysis import Analysis
    from app.core.outline import OutlineNode
    from app.llm.client.llm_client import LLMClient

_CONTENT_CHARS: Final = 1800
_FORMATS: Final = {
    "org": ('输出格式：{"units": [{"name": "项目经理", "parent": "", "note": ""}, '
            '{"name": "技术负责人", "parent": "项目经理", "note": ""}]}。'
            "units 是岗位列表；parent 填上级岗位的 name，最上级只有一个且 parent 为空字符串。"),
    "flow": ('输出格式：{"steps": [{"id": "1", "text": "接到报告", "shape": "start", "next": []}, '
             '{"id": "2", "text": "是否重大", "shape": "decision", "next": [{"to": "3", "label": "是"}, '
             '{"to": "4", "label": "否"}]}]}。shape 只能是 start、process、decision、end；'
             "next 为空时流向下一步；判断步骤用 next 写出各去向。"),
    "gantt": ('输出格式：{"total_days": 90, "tasks": [{"name": "施工准备", "start": 1, "days": 10}, '
              '{"name": "竣工验收", "start": 90, "days": 0}]}。start 是第几天（从 1 起），days 是持续天数，'
              "里程碑 days 为 0；total_days 是总工期天数（不知道时为 null）。"),
}
_MODELS: Final[dict[str, type[BaseModel]]] = {"org": OrgChart, "flow": Flowchart, "gantt": GanttChart}


@dataclass(frozen=True)
class FigureProposal:
    """The proposed figure (None when the model gave nothing valid) and what to tell the user."""

    figure: Figure | None
    message_zh: str
    attempts: int = 0


def _rules(kind: str) -> list[Callable[[Any], Sequence[object]]]:
    """The figure rules of ``kind`` as collect_json business rules (each issue goes back to the model)."""
    if kind == "org":
        return [lambda value: org_issues(value)]
    if kind == "flow":
        return [lambda value: flow_issues(value)]
    return [lambda value: gantt_issues(value)]


def figure_prompt(kind: str, node: OutlineNode, analysis: Analysis | None, requirements: list[str] | None = None) -> str:
    """The filled ``figure_data`` prompt for a figure of ``kind`` in section ``node``."""
    overview = analysis.overview if analysis else None
    reqs = "\n".join(f"- {r}" for r in (requirements or [])[:8])
    return load_prompt("figure_data").format_map({
        "kind_zh": KIND_ZH[kind],
        "project": (overview.project_name if overview else "") or "（未填写）",
        "period": (overview.service_period if overview else "") or "（未说明）",
        "section": node.title,
        "description": node.description or "（无）",
        "content": node.content.strip()[:_CONTENT_CHARS] or "（尚未撰写）",
        "requirements": f"相关的招标要求：\n{reqs}" if reqs else "",
        "format": _FORMATS[kind],
    }).strip()


async def propose_figure(client: LLMClient, kind: str, node: OutlineNode, analysis: Analysis | None = None,
                         requirements: list[str] | None = None, max_attempts: int = 3) -> FigureProposal:
    """Ask the model for a ``kind`` figure's data for ``node``; never raises for model trouble."""
    prompt = figure_prompt(kind, node, analysis, requirements)
    try:
        res = await collect_json(client, [{"role": "user", "content": prompt}], _MODELS[kind], rules=_rules(kind),
                                 max_attempts=max_attempts, stage=f"figure/{kind}", temperature=0.2, max_tokens=1500)
    except (LLMConnectionError, LLMResponseError) as exc:
        return FigureProposal(None, f"模型调用失败：{exc.message_zh}")
    if not res.ok or res.value is None:
        detail = "；".join(res.issues[:3]) or "没有得到有效的数据"
        return FigureProposal(None, f"模型没有给出可用的{KIND_ZH[kind]}数据（{detail}），请手工填写表格", res.attempts)
    figure = Figure(title=f"{node.title}{KIND_ZH[kind]}" if KIND_ZH[kind] not in node.title else node.title,
                    data=res.value.model_dump())  # type: ignore[arg-type]
    return FigureProposal(figure, f"模型已提出{KIND_ZH[kind]}数据，请核对后确定", res.attempts)

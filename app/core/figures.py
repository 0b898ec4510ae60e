"""Figures of a bid drawn from data: organisation chart, flowchart and Gantt chart.

A :class:`Figure` belongs to one outline section (it is stored in the node's ``figures``)
and holds a caption and one of three data models. The data is small and structured so a
model can propose it as JSON and a user can fill it as a table: :func:`figure_issues`
checks what pydantic cannot (unknown references, cycles, two roots, an end before a start)
and says what is wrong in Chinese; :func:`from_rows` / :func:`to_rows` turn a table of
text cells into data and back for the editor. Qt-free and renderer-free: the export
layer draws these (``app.export.figures``).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

FigureKind = Literal["org", "flow", "gantt"]
#: What each kind is called in the UI and in messages.
KIND_ZH: dict[str, str] = {"org": "组织机构图", "flow": "流程图", "gantt": "进度计划横道图"}
MAX_ITEMS = 200
_LABEL_MAX = 60


class FigureError(ValueError):
    """Figure data that cannot be drawn; ``message_zh`` says why, in Chinese."""

    def __init__(self, message_zh: str) -> None:
        super().__init__(message_zh)
        self.message_zh = message_zh


# --------------------------------------------------------------------------- data models


class OrgUnit(BaseModel):
    """One box of an organisation chart; ``parent`` is the label of the box above (root: empty)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=_LABEL_MAX, description="岗位或部门名称")
    parent: str = Field(default="", max_length=_LABEL_MAX, description="上级岗位名称，最上级留空")
    note: str = Field(default="", max_length=_LABEL_MAX, description="人员或职责（可空）")


class OrgChart(BaseModel):
    """An organisation chart: a tree of units linked by their parent's name."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["org"] = "org"
    units: list[OrgUnit] = Field(min_length=1, max_length=MAX_ITEMS)


StepShape = Literal["start", "process", "decision", "end"]
SHAPE_ZH: dict[str, str] = {"start": "开始", "process": "步骤", "decision": "判断", "end": "结束"}


class FlowLink(BaseModel):
    """An arrow to another step, optionally labelled (是/否 after a decision)."""

    model_config = ConfigDict(extra="forbid")

    to: str = Field(min_length=1, max_length=20, description="目标步骤编号")
    label: str = Field(default="", max_length=10, description="箭头上的文字，如 是/否")


class FlowStep(BaseModel):
    """One step of a flowchart; without ``next`` it flows to the following step in the list."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=20, description="步骤编号，如 1、2、3")
    text: str = Field(min_length=1, max_length=_LABEL_MAX, description="步骤内容")
    shape: StepShape = "process"
    next: list[FlowLink] = Field(default_factory=list, max_length=4)


class Flowchart(BaseModel):
    """A flowchart: steps in reading order, with arrows (implicit to the next step when none)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["flow"] = "flow"
    steps: list[FlowStep] = Field(min_length=1, max_length=MAX_ITEMS)


class GanttTask(BaseModel):
    """A task from day ``start`` (1 = the first day) for ``days`` days; 0 days is a milestone.

    An ``end`` day instead of ``days`` (what a schedule table or a model often gives) is read as
    ``days = end - start + 1``.
    """

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _end_to_days(cls, data: Any) -> Any:
        if isinstance(data, dict) and "end" in data:
            data = dict(data)
            end, start = data.pop("end"), data.get("start")
            if "days" not in data and isinstance(end, int) and isinstance(start, int):
                data["days"] = end - start + 1
        return data

    name: str = Field(min_length=1, max_length=_LABEL_MAX, description="任务名称")
    start: int = Field(ge=1, le=3660, description="开始日（第几天，从 1 起）")
    days: int = Field(ge=0, le=3660, description="持续天数，0 表示里程碑")


class GanttChart(BaseModel):
    """A schedule: tasks with start day and duration, milestones with zero duration."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["gantt"] = "gantt"
    tasks: list[GanttTask] = Field(min_length=1, max_length=MAX_ITEMS)
    total_days: int | None = Field(default=None, ge=1, le=3660, description="总工期（天），可空")


FigureData = Annotated[OrgChart | Flowchart | GanttChart, Field(discriminator="kind")]


class Figure(BaseModel):
    """A figure attached to an outline section: caption text plus the data it is drawn from."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:10])
    title: str = Field(min_length=1, max_length=80, description="图题（不含编号）")
    data: FigureData

    @property
    def kind(self) -> FigureKind:
        """``org``, ``flow`` or ``gantt``."""
        return self.data.kind


# --------------------------------------------------------------------------- rules


def org_issues(chart: OrgChart) -> list[str]:
    """What makes an organisation chart undrawable: duplicates, unknown parents, no single root, cycles."""
    issues: list[str] = []
    names = [u.name.strip() for u in chart.units]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            issues.append(f"岗位“{name}”重复出现，请合并或改名")
        seen.add(name)
    for unit in chart.units:
        parent = unit.parent.strip()
        if parent and parent not in seen:
            issues.append(f"“{unit.name}”的上级“{parent}”不在图中")
        if parent == unit.name.strip():
            issues.append(f"“{unit.name}”不能是自己的上级")
    roots = [u.name for u in chart.units if not u.parent.strip()]
    if not roots:
        issues.append("没有最上级岗位：请把一个岗位的“上级”留空")
    elif len(roots) > 1:
        issues.append(f"最上级岗位只能有一个，现在有 {len(roots)} 个：{'、'.join(roots[:5])}")
    if not issues:
        parent_of = {u.name.strip(): u.parent.strip() for u in chart.units}
        for name in parent_of:
            steps, cur = 0, name
            while parent_of.get(cur) and steps <= len(parent_of):
                cur, steps = parent_of[cur], steps + 1
            if steps > len(parent_of):
                issues.append(f"“{name}”的上级关系形成了循环")
                break
    return issues


def flow_issues(chart: Flowchart) -> list[str]:
    """Duplicate step numbers and arrows to steps that do not exist."""
    issues: list[str] = []
    ids: set[str] = set()
    for step in chart.steps:
        if step.id in ids:
            issues.append(f"步骤编号“{step.id}”重复")
        ids.add(step.id)
    for step in chart.steps:
        for link in step.next:
            if link.to not in ids:
                issues.append(f"步骤“{step.id}”指向的步骤“{link.to}”不存在")
    return issues


def gantt_issues(chart: GanttChart) -> list[str]:
    """Tasks that run past the stated total duration."""
    issues: list[str] = []
    if chart.total_days is not None:
        for task in chart.tasks:
            end = task.start + max(task.days, 1) - 1
            if end > chart.total_days:
                issues.append(f"任务“{task.name}”在第 {end} 天结束，超过总工期 {chart.total_days} 天")
    return issues


def figure_issues(figure: Figure) -> list[str]:
    """Every rule violation of a figure's data, in Chinese (empty: drawable)."""
    data = figure.data
    if isinstance(data, OrgChart):
        return org_issues(data)
    if isinstance(data, Flowchart):
        return flow_issues(data)
    return gantt_issues(data)


def check_figure(figure: Figure) -> Figure:
    """``figure`` itself, or a :class:`FigureError` listing what is wrong."""
    issues = figure_issues(figure)
    if issues:
        raise FigureError(f"{KIND_ZH[figure.kind]}“{figure.title}”有问题：" + "；".join(issues[:5]))
    return figure


def validation_zh(exc: ValidationError, row_numbers: Sequence[int] | None = None) -> str:
    """A pydantic error on figure data, as one Chinese sentence naming the row and field.

    ``row_numbers`` maps an item's index to the table row the user sees (blank rows skipped).
    """
    parts = []
    names = {"name": "名称", "parent": "上级", "text": "内容", "id": "编号", "start": "开始日", "days": "天数",
             "title": "图题", "to": "去向", "shape": "类型", "total_days": "总工期"}
    for err in exc.errors()[:3]:
        loc = [p for p in err["loc"] if p not in ("data", "units", "steps", "tasks", "org", "flow", "gantt")]
        row = next((p for p in loc if isinstance(p, int)), None)
        field = next((names.get(str(p), str(p)) for p in reversed(loc) if isinstance(p, str)), "")
        if row is not None:
            row = row_numbers[row] if row_numbers is not None and row < len(row_numbers) else row + 1
        where = (f"第 {row} 行" if row is not None else "") + (f"“{field}”" if field else "")
        kind = err["type"]
        why = {"string_too_short": "不能为空", "missing": "未填写", "too_short": "至少要有一行",
               "greater_than_equal": "太小", "less_than_equal": "太大", "int_parsing": "应为整数",
               "string_too_long": "太长", "too_long": "行数太多", "literal_error": "取值不对"}.get(kind, err["msg"])
        parts.append(f"{where}{why}" if where else why)
    return "；".join(parts)


# --------------------------------------------------------------------------- table form

#: Column headers of the editor's table for each kind.
COLUMNS: dict[str, tuple[str, ...]] = {
    "org": ("岗位/部门", "上级", "人员或职责"),
    "flow": ("编号", "步骤内容", "类型（开始/步骤/判断/结束）", "去向（如 3 或 是→4；否→2）"),
    "gantt": ("任务", "开始日", "天数（0 为里程碑）"),
}
_SHAPE_BY_ZH = {v: k for k, v in SHAPE_ZH.items()}


def _int_cell(text: str, row: int, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise FigureError(f"第 {row} 行“{what}”应为整数，现在是“{text.strip()}”") from None


def _links(text: str, row: int) -> list[FlowLink]:
    links: list[FlowLink] = []
    for part in text.replace(";", "；").replace(",", "；").replace("，", "；").split("；"):
        part = part.strip()
        if not part:
            continue
        label, _, target = part.rpartition("→") if "→" in part else part.rpartition("->")
        if not target.strip():
            raise FigureError(f"第 {row} 行“去向”写法不对：“{part}”")
        links.append(FlowLink(to=target.strip(), label=label.strip()))
    return links


def from_rows(kind: str, rows: Sequence[Sequence[str]], title: str, figure_id: str | None = None,
              total_days: int | None = None) -> Figure:
    """A checked figure from the editor's table (blank rows skipped); :class:`FigureError` in Chinese."""
    kept = [(i, [c.strip() for c in r]) for i, r in enumerate(rows, start=1) if any(c.strip() for c in r)]
    if not kept:
        raise FigureError("表格是空的：至少填写一行")
    if kind not in COLUMNS:
        raise FigureError(f"不认识的图类型：{kind}")
    items: list[dict[str, object]] = []
    for i, r in kept:
        if kind == "org":
            items.append({"name": r[0], "parent": _cell(r, 1), "note": _cell(r, 2)})
        elif kind == "flow":
            shape_zh = _cell(r, 2) or "步骤"
            if shape_zh not in _SHAPE_BY_ZH and shape_zh not in SHAPE_ZH:
                raise FigureError(f"第 {i} 行“类型”只能是开始、步骤、判断或结束，现在是“{shape_zh}”")
            items.append({"id": r[0], "text": _cell(r, 1), "shape": _SHAPE_BY_ZH.get(shape_zh, shape_zh),
                          "next": [link.model_dump() for link in _links(_cell(r, 3), i)]})
        else:
            items.append({"name": r[0], "start": _int_cell(_cell(r, 1), i, "开始日"),
                          "days": _int_cell(_cell(r, 2), i, "天数")})
    key = {"org": "units", "flow": "steps", "gantt": "tasks"}[kind]
    data: dict[str, object] = {"kind": kind, key: items}
    if kind == "gantt":
        data["total_days"] = total_days
    raw: dict[str, object] = {"title": title.strip() or KIND_ZH[kind], "data": data}
    if figure_id:
        raw["id"] = figure_id
    try:
        figure = Figure.model_validate(raw)
    except ValidationError as exc:
        raise FigureError(validation_zh(exc, [i for i, _ in kept])) from None
    return check_figure(figure)


def _cell(row: Sequence[str], i: int) -> str:
    return row[i] if i < len(row) else ""


def to_rows(figure: Figure) -> list[list[str]]:
    """The editor's table for a figure (the inverse of :func:`from_rows`)."""
    data = figure.data
    if isinstance(data, OrgChart):
        return [[u.name, u.parent, u.note] for u in data.units]
    if isinstance(data, Flowchart):
        return [[s.id, s.text, SHAPE_ZH[s.shape],
                 "；".join(f"{n.label}→{n.to}" if n.label else n.to for n in s.next)] for s in data.steps]
    return [[t.name, str(t.start), str(t.days)] for t in data.tasks]


def sample_figure(kind: str) -> Figure:
    """A small starting figure for a new one of ``kind`` (the user edits it)."""
    rows = {
        "org": [["项目经理", "", ""], ["技术负责人", "项目经理", ""], ["质量负责人", "项目经理", ""]],
        "flow": [["1", "开始", "开始", ""], ["2", "受理需求", "步骤", ""], ["3", "是否满足要求", "判断", "是→4；否→2"],
                 ["4", "结束", "结束", ""]],
        "gantt": [["准备阶段", "1", "10"], ["实施阶段", "11", "60"], ["验收", "71", "0"]],
    }[kind]
    return from_rows(kind, rows, KIND_ZH[kind])

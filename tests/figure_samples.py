"""Figure data shared by the figure tests and the figure benchmark (invented, no real tender)."""

from __future__ import annotations

from app.core.figures import Figure, Flowchart, FlowLink, FlowStep, GanttChart, GanttTask, OrgChart, OrgUnit

_DEPARTMENTS = ("技术保障部", "质量管理部", "安全管理部", "运维服务部", "综合保障部")


def org_figure(units: int = 40) -> Figure:
    """A project-manager-rooted org chart with ``units`` boxes (5 departments, posts under them)."""
    items = [OrgUnit(name="项目经理", note="总体负责")]
    items += [OrgUnit(name=d, parent="项目经理") for d in _DEPARTMENTS]
    i = 0
    while len(items) < units:
        dept = _DEPARTMENTS[i % len(_DEPARTMENTS)]
        items.append(OrgUnit(name=f"{dept[:2]}岗位{i // len(_DEPARTMENTS) + 1}", parent=dept))
        i += 1
    return Figure(title="项目组织机构图", data=OrgChart(units=items[:units]))


def flow_figure(steps: int = 20) -> Figure:
    """An emergency procedure of ``steps`` steps with two decisions looping back."""
    out = [FlowStep(id="1", text="开始", shape="start")]
    for n in range(2, steps):
        if n % 6 == 0:
            out.append(FlowStep(id=str(n), text=f"第{n}步处置是否完成", shape="decision",
                                next=[FlowLink(to=str(n + 1), label="是"), FlowLink(to=str(n - 2), label="否")]))
        else:
            out.append(FlowStep(id=str(n), text=f"第{n}步：按应急预案处置并记录"))
    out.append(FlowStep(id=str(steps), text="结束", shape="end"))
    return Figure(title="应急处置流程图", data=Flowchart(steps=out))


def gantt_figure(tasks: int = 30) -> Figure:
    """A schedule of ``tasks`` tasks (every fifth a milestone) within a 180-day duration."""
    items = []
    for n in range(tasks):
        start = 1 + n * 5
        items.append(GanttTask(name=f"阶段任务{n + 1}", start=start, days=0 if n % 5 == 4 else 15))
    return Figure(title="项目实施进度计划横道图", data=GanttChart(tasks=items, total_days=180))

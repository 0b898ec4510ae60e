"""Every label of an exported figure is drawn whole, inside its box (issue 37: `4名渗透…`).

The drawing functions are the ones the Word export and the editor's preview call; each text
of a drawn figure is matched to the shape it sits in and its rendered extent is checked
against that shape, and its characters against the data.
"""

from __future__ import annotations

from typing import Any

import pytest
from matplotlib.patches import FancyBboxPatch, Polygon

from app.core.figures import Flowchart, FlowLink, FlowStep, GanttChart, GanttTask, OrgChart, OrgUnit
from app.export.figures.flowchart import draw_flowchart
from app.export.figures.gantt import draw_gantt
from app.export.figures.org_chart import draw_org_chart

LONG = "网络安全渗透测试与漏洞复测工作小组（含夜间值守及应急响应）"


def _boxed_texts(fig: Any) -> list[tuple[str, bool]]:
    """(text without line breaks, inside its shape) for every text centred on a shape."""
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    shapes = [p for p in ax.patches if isinstance(p, FancyBboxPatch | Polygon)]
    out = []
    for text in ax.texts:
        x, y = text.get_position()
        holder = next((p for p in shapes if p.contains_point(ax.transData.transform((x, y)))), None)
        if holder is None:
            continue
        inner = text.get_window_extent(renderer)
        outer = holder.get_window_extent(renderer)
        inside = (outer.x0 <= inner.x0 and inner.x1 <= outer.x1 and outer.y0 <= inner.y0 and inner.y1 <= outer.y1)
        out.append((text.get_text().replace("\n", ""), inside))
    return out


def test_org_chart_boxes_hold_their_whole_label() -> None:
    units = [OrgUnit(name="项目经理", note="总体负责"),
             OrgUnit(name="渗透测试组", parent="项目经理", note="4名渗透测试工程师"),
             OrgUnit(name=LONG, parent="项目经理"),
             OrgUnit(name="安全运维组", parent="项目经理", note="2名安全运维工程师及1名驻场值守人员"),
             OrgUnit(name="组长", parent="渗透测试组"), OrgUnit(name="测试工程师", parent="渗透测试组"),
             *[OrgUnit(name=f"值守岗位{i}", parent="项目经理", note="负责7×24小时安全监测与日志审计") for i in range(5)]]
    fig = draw_org_chart(OrgChart(units=units))
    drawn = _boxed_texts(fig)
    wanted = {u.name + u.note for u in units}
    assert {t for t, _ in drawn} == wanted  # every label whole: nothing ends in …
    assert all(inside for _, inside in drawn), [t for t, ok in drawn if not ok]
    stacked = draw_org_chart(OrgChart(units=[OrgUnit(name="项目经理"), OrgUnit(name="测试组", parent="项目经理"),
                                             OrgUnit(name="驻场", parent="项目经理"),
                                             *[OrgUnit(name=f"岗位{i}", parent="测试组", note="4名渗透测试工程师")
                                               for i in range(3)]]))
    drawn = _boxed_texts(stacked)  # posts stacked under their unit, in the narrower boxes
    assert sum(t.endswith("4名渗透测试工程师") for t, _ in drawn) == 3 and all(inside for _, inside in drawn)


def test_flowchart_shapes_hold_their_whole_text() -> None:
    steps = [FlowStep(id="1", text="开始", shape="start"),
             FlowStep(id="2", text=LONG + "到场后立即开展现场勘查并记录"),
             FlowStep(id="3", text="渗透测试结果是否满足安全基线要求并经甲方确认", shape="decision",
                      next=[FlowLink(to="4", label="是"), FlowLink(to="2", label="否")]),
             FlowStep(id="4", text="结束", shape="end")]
    drawn = _boxed_texts(draw_flowchart(Flowchart(steps=steps)))
    assert {t for t, _ in drawn} == {s.text for s in steps}
    assert all(inside for _, inside in drawn), [t for t, ok in drawn if not ok]


@pytest.mark.parametrize("name", ["渗透测试与漏洞复测", LONG])
def test_gantt_task_names_are_whole(name: str) -> None:
    fig = draw_gantt(GanttChart(tasks=[GanttTask(name=name, start=1, days=10),
                                       GanttTask(name="验收", start=11, days=0)], total_days=12))
    labels = [t.get_text().replace("\n", "") for t in fig.axes[0].get_yticklabels()]
    assert labels == [name, "验收"]

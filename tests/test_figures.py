"""Figures from data: the table form, the rules with Chinese messages, and drawing all three kinds."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from app.core.figures import (
    Figure,
    FigureError,
    GanttChart,
    GanttTask,
    OrgChart,
    OrgUnit,
    check_figure,
    from_rows,
    sample_figure,
    to_rows,
)
from app.core.outline import OutlineDocument, OutlineNode
from app.core.project import Project, load_project, save_project
from app.export.figures.fonts import FALLBACK_FAMILY, cjk_font, find_cjk_font
from app.export.figures.render import clear_cache, render_png, render_svg
from tests.figure_samples import flow_figure, gantt_figure, org_figure


@pytest.mark.parametrize("kind", ["org", "flow", "gantt"])
def test_table_rows_round_trip(kind: str) -> None:
    figure = sample_figure(kind)
    again = from_rows(kind, to_rows(figure), figure.title, figure.id)
    assert again == figure


def test_flow_rows_read_labelled_links_and_shapes() -> None:
    figure = from_rows("flow", [["1", "开始", "开始", ""], ["2", "检查", "判断", "是→3；否→1"], ["3", "完成", "结束", ""]],
                       "巡检流程")
    step = figure.data.steps[1]  # type: ignore[union-attr]
    assert step.shape == "decision"
    assert [(n.label, n.to) for n in step.next] == [("是", "3"), ("否", "1")]


@pytest.mark.parametrize(("kind", "rows", "expected"), [
    ("org", [["项目经理", "", ""], ["技术负责人", "总监", ""]], "上级“总监”不在图中"),
    ("org", [["项目经理", "", ""], ["副经理", "", ""]], "最上级岗位只能有一个"),
    ("org", [["甲", "乙", ""], ["乙", "甲", ""]], "没有最上级岗位"),
    ("org", [["甲", "", ""], ["乙", "丙", ""], ["丙", "乙", ""]], "循环"),
    ("org", [["甲", "", ""], ["甲", "甲", ""]], "重复"),
    ("flow", [["1", "开始", "开始", "9"]], "步骤“9”不存在"),
    ("flow", [["1", "开始", "菱形", ""]], "类型”只能是"),
    ("gantt", [["设计", "三", "10"]], "应为整数"),
    ("gantt", [["设计", "0", "10"]], "第 1 行“开始日”太小"),
    ("gantt", [["", "", ""]], "表格是空的"),
])
def test_bad_rows_give_a_chinese_message(kind: str, rows: list[list[str]], expected: str) -> None:
    with pytest.raises(FigureError) as info:
        from_rows(kind, rows, "图")
    assert expected in info.value.message_zh


def test_gantt_beyond_total_duration_is_refused() -> None:
    chart = GanttChart(tasks=[GanttTask(name="实施", start=50, days=20)], total_days=60)
    with pytest.raises(FigureError, match="超过总工期 60 天"):
        check_figure(Figure(title="进度", data=chart))


def test_gantt_task_reads_an_end_day_as_a_duration() -> None:
    task = GanttTask.model_validate({"name": "试运行", "start": 10, "end": 39})
    assert task.days == 30
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        GanttTask.model_validate({"name": "倒排", "start": 10, "end": 5})


def _image(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


@pytest.mark.parametrize("make", [org_figure, flow_figure, gantt_figure])
def test_each_kind_renders_a_print_resolution_png(make: object) -> None:
    clear_cache()
    figure = make()  # type: ignore[operator]
    rendered = render_png(figure)
    image = _image(rendered.png)
    assert image.format == "PNG"
    # 300 dpi: the pixel size is the natural size in inches times 300.
    assert abs(image.width - rendered.width_in * 300) <= 2 and abs(image.height - rendered.height_in * 300) <= 2
    dark = image.convert("L").histogram()[:128]
    dark = sum(dark)  # type: ignore[assignment]
    assert dark > 1000  # lines and text, not a blank canvas
    assert render_png(figure) is rendered  # unchanged data: cached
    assert rendered.cjk_font == cjk_font().cjk


def test_drawing_follows_the_data() -> None:
    small, big = render_png(org_figure(12)), render_png(org_figure(40))
    assert big.height_in > small.height_in
    short, long = render_png(gantt_figure(5)), render_png(gantt_figure(30))
    assert long.height_in > short.height_in
    assert render_png(flow_figure(20)).height_in > render_png(flow_figure(6)).height_in


def test_svg_has_text_as_outlines() -> None:
    svg = render_svg(flow_figure(5)).decode("utf-8")
    assert svg.lstrip().startswith("<?xml") and "<path" in svg
    assert "<text" not in svg  # glyphs are paths: the file needs no Chinese font where it opens


def test_invalid_data_in_a_file_is_refused_in_chinese_when_drawing() -> None:
    broken = Figure(title="组织机构", data=OrgChart(units=[OrgUnit(name="甲"), OrgUnit(name="乙")]))
    with pytest.raises(FigureError, match="最上级岗位只能有一个"):
        render_png(broken)


def test_font_choice_prefers_cjk_and_falls_back_without_one() -> None:
    assert find_cjk_font({"DejaVu Sans": "a.ttf", "Noto Sans CJK SC": "b.ttc"}).family == "Noto Sans CJK SC"
    assert find_cjk_font({"DejaVu Sans": "a.ttf", "My Song Ti": "c.ttf"}).family == "My Song Ti"
    none = find_cjk_font({"DejaVu Sans": "a.ttf"})
    assert none.family == FALLBACK_FAMILY and not none.cjk


def test_figures_live_on_nodes_but_never_in_the_model_schema() -> None:
    node = OutlineNode(title="组织机构", figures=[org_figure(6)])
    data = OutlineDocument(outline=[node]).model_dump(mode="json")
    back = OutlineDocument.model_validate(data)
    assert back.outline[0].figures == node.figures
    assert "figures" not in json.dumps(OutlineDocument.model_json_schema())
    assert "figures" not in OutlineNode(title="空").model_dump(mode="json")  # files without figures unchanged


def test_figures_survive_save_and_load_and_a_v2_file_still_opens(tmp_path: Path) -> None:
    chapters = [OutlineNode(title="组织机构", children=[OutlineNode(title="人员", figures=[org_figure(10)])]),
                OutlineNode(title="进度计划", figures=[gantt_figure(8), flow_figure(5)])]
    project = Project(outline=OutlineDocument(outline=chapters))
    path = tmp_path / "bid.bidproj"
    save_project(project, path)
    loaded = load_project(path)
    assert loaded.format_version >= 3
    assert loaded.outline.outline[0].children[0].figures == chapters[0].children[0].figures
    assert [f.kind for f in loaded.outline.outline[1].figures] == ["gantt", "flow"]
    data = json.loads(path.read_text("utf-8"))
    data["format_version"] = 2
    for chapter in data["outline"]["outline"]:
        chapter.pop("figures", None)
        for child in chapter["children"]:
            child.pop("figures", None)
    old = tmp_path / "old.bidproj"
    old.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    migrated = load_project(old)
    assert migrated.migrated_from == 2 and migrated.outline.outline[1].figures == []


def test_figures_come_back_on_surviving_headings_after_a_rebuild() -> None:
    from app.core.kept_texts import restore_figures, section_figures
    from app.core.outline import Outline

    org, gantt = org_figure(6), gantt_figure(4)
    old = Outline([OutlineNode(title="项目组织", figures=[org], children=[OutlineNode(title="人员配置")]),
                   OutlineNode(title="进度计划", children=[OutlineNode(title="1.1 总体进度", figures=[gantt])])])
    kept = section_figures(old)
    assert [k.title for k in kept] == ["项目组织", "总体进度"]
    new = Outline([OutlineNode(title="项目组织", children=[OutlineNode(title="岗位职责")]),
                   OutlineNode(title="实施计划", children=[OutlineNode(title="工期安排")])])
    restored, left = restore_figures(new, kept)
    assert restored == 1 and new.node((0,)).figures == [org]
    assert [k.figures for k in left] == [(gantt,)]  # 总体进度 did not survive: the caller says so
    assert restore_figures(new, section_figures(new)) == (1, [])  # still in the tree: kept where it is


def test_matplotlib_loads_with_the_first_figure_not_at_program_start() -> None:
    import os
    import subprocess
    import sys

    code = ("import sys, app.ui.shell.main_window, app.export.docx_writer; "
            "print('matplotlib' in sys.modules)")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=True)
    assert out.stdout.strip() == "False"

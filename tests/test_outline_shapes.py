"""Shapes a skilled writer (or a strong model) uses come through every path intact.

A two-level outline, an uneven one (a section left undivided beside divided ones, a single
sub-item, a fourth level in one branch), a list of 14 and an outline of 13 chapters: through
the whole-JSON and the instruction-stream paths of ``generate_outline`` (answers from the
loopback server, at the depth the writer wrote), the local repair, the stored item model, and the
Word export. At a smaller depth than the answer's, the levels beyond it are said in a description.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import docx
import pytest

from app.core.analysis import Analysis, ProjectOverview, ScoringGroup
from app.core.limits import OutlineLimits
from app.core.outline import Outline, OutlineDocument, OutlineNode
from app.core.project import Project
from app.core.rules.outline import check_outline, clean_title
from app.export import ExportOptions, export_docx
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.repair import repair_outline
from app.pipeline.outline.run import generate_outline
from tests.export_sample import sample_meta
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import as_instructions, is_stream, kind_of, make_client

N = OutlineNode


def _n(title: str, *children: OutlineNode) -> OutlineNode:
    return N(title=title, children=list(children))


TWO_LEVELS = [
    _n("监理工作方案", _n("工程概况"), _n("监理服务范围"), _n("监理工作依据")),
    _n("质量控制", _n("质量控制原则"), _n("质量控制点设置"), _n("质量事故处理程序")),
    _n("进度控制", _n("进度控制目标"), _n("工程延期的申报与审批")),
]
UNEVEN = [
    _n("施工组织综合说明", _n("编制说明"), _n("工程概况", _n("地理位置")), _n("工程目标")),
    _n("专项施工方案", _n("总体施工工艺"),
       _n("机房防雷接地系统", _n("防雷防浪涌系统"), _n("接地系统", _n("接地装置的安装"), _n("接地电阻测试")))),
    _n("附件"),
]
STEPS = ["施工前准备", "平整场地", "测量放样", "基坑开挖及边坡支护", "地基处理", "底面防水处理", "钢筋砼浇筑",
         "变形缝及施工缝的处理", "墙身及顶板防水处理", "基坑回填", "总体质量要求", "进度计划表",
         "人员、材料、机械计划表", "临时设施布置及施工用水、用电情况"]
LONG_LIST = [_n("专项施工方案", _n("主要材料用量及要求"), _n("各施工工序专项施工方案", *(_n(s) for s in STEPS))),
             _n("保证措施", _n("质量保证措施"), _n("安全保证措施"), _n("工期保证措施"))]
CHAPTER_NAMES = ["物业管理整体设想", "管理机构设置", "人员配备与培训", "管理制度", "档案管理", "房屋维修养护",
                 "共用设备管理", "安全保卫", "清洁卫生", "绿化养护", "社区文化", "便民服务", "服务承诺"]
THIRTEEN = [_n(t, _n(f"{t}要点")) for t in CHAPTER_NAMES]
SHAPES = {"two_levels": TWO_LEVELS, "uneven": UNEVEN, "list_of_14": LONG_LIST, "13_chapters": THIRTEEN}


def _tree(nodes: list[OutlineNode]) -> list[object]:
    return [(n.title, _tree(n.children)) for n in nodes]


def _answer(nodes: list[OutlineNode]) -> list[dict[str, object]]:
    return [{"title": n.title, **({"children": _answer(n.children)} if n.children else {})} for n in nodes]


def _model(shape: list[OutlineNode]) -> object:
    """A strong model answering with ``shape`` (whole outline, or one chapter when asked for one)."""
    def handler(req: RecordedRequest) -> Reply:
        kind = kind_of(req)
        if kind == "review":
            return Reply.text('{"passed": true, "suggestions": []}')
        if kind == "full":
            items, base, key = _answer(shape), "/outline", "outline"
        elif kind.startswith("chapter:"):
            chapter = next((c for c in shape if c.title == kind.split(":", 1)[1]), None)
            if chapter is None:
                return Reply.error(500, f"unexpected {kind}")
            items, base, key = _answer(chapter.children), "/outline/0/children", "children"
        else:
            return Reply.error(500, f"unexpected {kind}")
        if is_stream(req):
            return Reply.text(as_instructions(items, base))
        return Reply.text(json.dumps({key: items}, ensure_ascii=False))
    return handler


def _analysis(shape: list[OutlineNode], aligned: bool) -> Analysis:
    groups = [ScoringGroup(id=f"R{i + 1}", title=c.title, points=5.0) for i, c in enumerate(shape)] if aligned else []
    return Analysis(overview=ProjectOverview(project_name="某综合服务项目"), groups=groups,
                    source="table" if aligned else "none", technical_requirements="" if aligned else "按要求编写。")


@pytest.mark.parametrize("strategy", ["json", "stream"])
@pytest.mark.parametrize("mode", ["free", "aligned"])
@pytest.mark.parametrize("name", list(SHAPES))
async def test_a_shape_comes_through_generation_intact(llm_server: OpenAIServer, name: str, mode: str,
                                                       strategy: str) -> None:
    shape = SHAPES[name]
    if mode == "aligned":  # a chapter asked for alone must come back with a section: an empty answer is not
        shape = [c for c in shape if c.children]  # taken as content (weak models answer so); free mode keeps 附件
    llm_server.handler = _model(shape)
    draft = Outline()
    depth = max(3, max(c.depth() for c in shape))  # the user asks for the depth the writer wrote: a depth is a limit
    settings = OutlineSettings(mode=mode, strategy=strategy, limits=OutlineLimits(depth=depth))  # type: ignore[arg-type]
    async with make_client(llm_server) as client:
        res = await generate_outline(client, _analysis(shape, mode == "aligned"), settings, draft=draft)
    assert res.ok, res.report()
    assert _tree(res.chapters) == _tree(shape)  # every heading, in place, nothing cut or added
    assert _tree(draft.chapters) == _tree(shape)  # the live tree shows the same
    assert res.heading_sources.get("tender", 0) == 0  # code filled nothing in (a library-like title the model wrote
    # keeps the library's mark, which is a label, not a replacement: the tree above is the model's)


@pytest.mark.parametrize("strategy", ["json", "stream"])
async def test_a_fourth_level_beyond_the_depth_asked_is_said_in_its_parents_description(
        llm_server: OpenAIServer, strategy: str) -> None:
    llm_server.handler = _model(UNEVEN)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, _analysis(UNEVEN, False), OutlineSettings(mode="free", strategy=strategy))
    assert res.ok and max(c.depth() for c in res.chapters) == 3, res.report()
    grounding = next(n for _, n in res.chapters[1].walk() if n.title == "接地系统")
    assert not grounding.children and "接地装置的安装" in grounding.description and "接地电阻测试" in grounding.description


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_shape_passes_the_rules_and_the_repair_keeps_it(name: str) -> None:
    shape = SHAPES[name]
    assert check_outline(shape) == []
    assert _tree(repair_outline(shape)) == _tree(shape)


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_shape_is_stored_and_exported_whole(tmp_path: Path, name: str) -> None:
    shape = SHAPES[name]
    project = Project(outline=OutlineDocument(outline=[n.model_copy(deep=True) for n in shape]))
    path = tmp_path / "p.json"
    path.write_text(project.model_dump_json(), encoding="utf-8")
    again = Project.model_validate_json(path.read_text(encoding="utf-8"))  # the stored item model validates it
    assert _tree(again.outline.outline) == _tree(shape)
    out = export_docx(shape, tmp_path / "out.docx", sample_meta(), ExportOptions(include_cover=False))
    doc = docx.Document(str(out))
    headings = [p.text for p in doc.paragraphs if re.fullmatch(r"Heading \d", p.style.name)]
    titles = [n.title for c in shape for n in (c, *(x for _, x in c.walk()))]
    assert len(headings) == len(titles) and all(t in h for t, h in zip(titles, headings, strict=True))


@pytest.mark.parametrize(("raw", "clean"), [
    ("1.1工程概况", "工程概况"), ("（一）编制说明", "编制说明"), ("(一)公司简况", "公司简况"), ("1)施工准备", "施工准备"),
    ("1工程概况", "工程概况"), ("2.1项目监理组织机构设置", "项目监理组织机构设置"), ("第一条 食堂经营宗旨", "食堂经营宗旨"),
    ("一 机房工程设计方案", "机房工程设计方案"), ("2.2.1 设计思想", "设计思想"), ("①人员配置", "人员配置"),
    ("24小时服务响应", "24小时服务响应"), ("10KV电缆终端头制作", "10KV电缆终端头制作"), ("1.5小时响应", "1.5小时响应"),
    ("5S现场管理", "5S现场管理"), ("三级安全教育", "三级安全教育"),
    # the prompts' own source labels, copied by Gemma on the cleaners tender
    ("人员配置原则（常用结构）", "人员配置原则"), ("2.1 保密措施方案(招标文件)", "保密措施方案"),
    ("投标人对项目理解（含难点）", "投标人对项目理解（含难点）"),
])
def test_clean_title_strips_numbering_and_only_numbering(raw: str, clean: str) -> None:
    assert clean_title(raw) == clean


def test_a_long_title_is_kept_whole_and_the_rule_says_it_is_long() -> None:
    title = "为确保本工程顺利实施而采取的全部组织技术经济和合同措施以及其他一切必要手段和保障条件的总体说明"
    assert len(title) > 40
    assert clean_title(title, 60) == title  # not cut mid-word
    issues = check_outline([_n(title, _n("组织措施")), _n("技术措施", _n("施工工艺"))])
    assert [i.code for i in issues] == ["long_title"] and "40" in issues[0].message


def test_a_heading_one_character_off_its_parent_is_refused_and_repaired_away() -> None:
    """Gemma's huangpu chapter: 服务质量保障措施与服务质量承诺 under 服务质量保证措施与服务质量承诺. The shape
    check refuses it like an exact copy and the repair drops it while a sibling remains; a short title
    a word apart (专项服务方案 under 分项服务方案) and an ordinal (第二阶段 under 第一阶段) stay."""
    from app.core.outline import OutlineNode
    from app.core.rules.outline import check_outline
    from app.pipeline.outline.repair import repair_outline

    def chapter(parent: str, *kids: str) -> list[OutlineNode]:
        return [OutlineNode(title="服务方案", children=[
            OutlineNode(title=parent, children=[OutlineNode(title=k) for k in kids]),
            OutlineNode(title="应急服务方案", children=[OutlineNode(title="应急预案编制")])]),
            OutlineNode(title="培训方案", children=[OutlineNode(title="培训计划", children=[OutlineNode(title="岗前培训")])])]

    bad = chapter("服务质量保证措施与服务质量承诺", "服务质量保障措施与服务质量承诺", "质量检查机制")
    assert [i.code for i in check_outline(bad, None)] == ["same_as_parent"]
    fixed = repair_outline(bad)
    assert [c.title for c in fixed[0].children[0].children] == ["质量检查机制"]
    for parent, kid in (("分项服务方案", "专项服务方案"), ("第一阶段施工进度安排", "第二阶段施工进度安排")):
        ok = chapter(parent, kid, "质量检查机制")
        assert check_outline(ok, None) == [], parent

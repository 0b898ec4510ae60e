"""Issue 38.4: whatever the model does, each scoring item's criteria points are answered under its own chapter.

A weak model (Gemma 3 270M on a train-depot cleaning tender) thinned chapters code had planned well:
it answered one item's chapter with a single leaf titled like an overview, put a section that
answers that item's points under the next chapter, and picked numbers that were not on the list.
The plan's point fill runs before the model; the run's last step answers what the model's outline
left unanswered: code headings from the criteria's own words (marked ``tender``), within the depth
asked, never repeating a sibling, and a heading under another chapter does not count for the item.

The tender is generated here (python-docx), read and analysed by code as the app does; the model is
the loopback server playing those answers.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.core.analysis import Analysis
from app.core.limits import OutlineLimits
from app.core.outline import OutlineNode
from app.core.rules.outline import normalize_title
from app.documents.loader import load_tender
from app.pipeline.analysis.tender import analyze_tender
from app.pipeline.evaluation.outline_points import outline_coverage
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.run import generate_outline
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router, as_instructions, is_stream, make_client
from tests.scoring_fixtures import _doc, _table

GARBAGE = "我不太明白你的意思，请再说一遍。"
RULES, CHECKS, WORK = "规章制度", "检查与考核", "养护作业组织"


def _tender(path: Path) -> Path:
    """A park-maintenance tender whose items list numbered criteria with enumerations (有…的甲、乙、丙)."""
    d = _doc("第一章 招标公告", "项目名称：某市城市公园绿化养护服务采购项目", "服务内容：公园绿地、行道树及附属设施的日常养护。",
             "第三章 评标办法", "本项目采用综合评分法，技术部分评分标准如下：")
    _table(d, [["序号", "评分因素", "分值", "评分标准"],
               ["1", WORK, "6", "1.日常养护作业安排，各时段衔接无空缺。安排细致合理的得1分；安排简单的得0.5分。\n"
                                "2.病虫害防治措施方案。方案周密具有可操作性的得1分；方案简单的得0.5分。"],
               ["2", RULES, "8", "1.有项目部组织架构图和岗位分工体系。体系健全、分工明确的，得1分；体系健全但分工简单的，得0.5分。\n"
                                 "2.有建立绿化养护的各岗位安全生产责任制。内容细致的，得1分；内容简单的，得0.5分。\n"
                                 "3.有绿化养护的各工种、各片区养护标准、作业指导书、作业流程、养护台账。制度健全且内容细致的，"
                                 "得1分；内容简单的，得0.5分。\n"
                                 "4.有绿化养护的各类机械、工具、药剂管理制度。制度健全且内容细致的，得1分；内容简单的，得0.5分。"],
               ["3", CHECKS, "4", "有绿化养护的质量巡查制度、奖惩制度。内容细致的，每项制度得1分；内容简单的，每项制度得0.5分；"
                                  "未提供的，不得分。"],
               ["4", "投标报价", "30", "满足招标文件要求且投标价格最低的投标报价为评标基准价，其价格分为满分。"]])
    d.save(str(path))
    return path


async def _analysis(tmp_path: Path) -> Analysis:
    return await analyze_tender(None, load_tender(_tender(tmp_path / "park.docx")))


def _children(req: RecordedRequest, nodes: list[dict[str, object]]) -> Reply:
    """``nodes`` in the form the request asks for (instruction lines or one JSON object)."""
    if is_stream(req):
        return Reply.text(as_instructions(nodes, "/outline/0/children"))
    return Reply.text(json.dumps({"children": nodes}, ensure_ascii=False))


def _gemma_like(kind: str, req: RecordedRequest) -> Reply:
    """The shapes a 270M model gave: one leaf titled like an overview, another item's section, invalid picks."""
    if kind == f"chapter:{RULES}":
        return _children(req, [{"title": "制度体系概述", "description": ""}])
    if kind == f"chapter:{CHECKS}":  # its first section answers the other item's points (作业指导书, 作业流程)
        return _children(req, [
            {"title": "作业指导书与作业流程", "children": [{"title": "修剪作业指导"}, {"title": "浇灌作业流程"}]},
            {"title": "日常巡查安排", "children": [{"title": "巡查路线"}, {"title": "巡查记录"}]}])
    if kind.startswith("chapter:"):  # parsed, but what it names is its own title again: the rules refuse it
        title = kind.split(":", 1)[1]
        return _children(req, [{"title": title}, {"title": title}])
    if kind == "pick":
        return Reply.text('{"picks": [0, 99, 99]}')
    if kind == "subsections":
        return Reply.text('{"titles": []}')
    if kind == "review":
        return Reply.text(json.dumps({"passed": False, "suggestions": [{"chapter": 2, "text": "内容不够具体"}]},
                                     ensure_ascii=False))
    return Reply.text(GARBAGE)


def _depth(nodes: list[OutlineNode]) -> int:
    return max((n.depth() for n in nodes), default=0)


async def test_every_criteria_point_is_answered_under_its_own_chapter_whatever_the_model_wrote(
        llm_server: OpenAIServer, tmp_path: Path) -> None:
    a = await _analysis(tmp_path)
    assert [g.title for g in a.technical_groups] == [WORK, RULES, CHECKS]
    router = Router(_gemma_like)
    llm_server.handler = router
    async with make_client(llm_server) as client:
        res = await generate_outline(client, a, OutlineSettings(mode="aligned"))
    assert router.count(f"chapter:{RULES}"), (router.seen, json.dumps(res.report(), ensure_ascii=False))
    assert router.count("pick") and router.count("review")  # the path was taken
    assert res.valid, res.report()
    chapters = res.chapters
    for item in outline_coverage(a, chapters):
        assert item.missing == [], (item.group.title, item.missing, [n.title for _, n in chapters[1].walk()])
    assert res.uncovered == {}, res.uncovered
    rules = chapters[1]
    assert len(rules.children) >= 2  # no longer one overview leaf
    added = [n for _, n in rules.walk() if n.origin == "tender"]
    assert added and all(n.origin == "tender" for n in added)
    assert _depth(chapters) <= 3
    for _, node in (p for ch in chapters for p in ch.walk()):  # no heading repeats a sibling
        keys = [normalize_title(c.title) for c in node.children]
        assert len(keys) == len(set(keys)), [c.title for c in node.children]
    # the other chapter's section answering 作业指导书 did not count for 规章制度: 规章制度 has its own
    own = [n.title for _, n in rules.walk()]
    assert any("作业指导书" in t for t in own) or any("作业指导书" in n.description for _, n in rules.walk()), own


async def test_the_depth_asked_is_a_limit_for_the_last_point_fill(llm_server: OpenAIServer, tmp_path: Path) -> None:
    a = await _analysis(tmp_path)
    llm_server.handler = Router(_gemma_like)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, a, OutlineSettings(mode="aligned", review=False,
                                                               limits=OutlineLimits(depth=2)))
    assert res.valid, res.report()
    assert _depth(res.chapters) <= 2
    for item in outline_coverage(a, res.chapters):
        assert item.missing == [], (item.group.title, item.missing)


def test_a_numbered_clause_gives_its_points_without_its_number_and_verb() -> None:
    from app.pipeline.headings.detail_points import split_points

    assert split_points("3.有绿化养护的各工种、各片区养护标准、作业指导书、作业流程。制度健全的得1分。") == [
        "绿化养护的各工种养护标准", "各片区养护标准", "作业指导书", "作业流程"]
    assert split_points("（2）有建立各岗位的巡检记录、交接班记录、维修台账") == ["各岗位的巡检记录", "交接班记录", "维修台账"]
    assert split_points("有害生物防治、绿化修剪、保洁服务") == ["有害生物防治", "绿化修剪", "保洁服务"]  # a word, not the verb


def test_a_bare_each_shares_the_thing_the_next_part_names() -> None:
    from app.pipeline.headings.criteria_points import split_criteria

    points = split_criteria("3.有绿化养护的各工种、各片区养护标准、作业指导书、养护台账。制度健全的得1分。\n"
                            "4.有各岗位、各班组考核制度。内容细致的得1分。")
    items = [x for p in points for x in p.items]
    assert items[:4] == ["各工种养护标准", "各片区养护标准", "作业指导书", "养护台账"]  # not 各工种 alone
    assert items[4:] == ["各岗位考核制度", "各班组考核制度"]

"""The outline pipeline end to end against the scripted OpenAI-compatible server.

One test per branch of the issue: clean run, repair round, stepwise fallback (free mode and
inside a chapter), review rejects then passes, review failure keeps the outline, locked
one-to-one titles, budget exhaustion, one chapter regenerated alone, no technical scoring.
"""

from __future__ import annotations

import json
import re

import pytest

from app.core.outline import Outline, OutlineNode
from app.core.pipeline_events import PipelineEvent
from app.core.rules.outline import check_outline
from app.pipeline.outline.budget import RunBudget
from app.pipeline.outline.job import OutlineSettings
from app.pipeline.outline.run import generate_outline, locked_chapters, regenerate_node, verify_locked
from tests.eval.outline_quality import evaluate
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import (
    GROUPS,
    Router,
    as_instructions,
    chapter_children,
    make_client,
    sample_analysis,
)

TITLES = [t for t, _ in GROUPS]


def _titles(chapters: list) -> list[str]:  # type: ignore[type-arg]
    return [c.title for c in chapters]


async def test_clean_aligned_run_locks_chapters_and_reports(llm_server: OpenAIServer) -> None:
    router = Router()
    llm_server.handler = router
    events: list[PipelineEvent] = []
    draft = Outline()
    changes: list[str] = []
    draft.subscribe(lambda phase, ev: changes.append(type(ev).__name__) if phase == "after" else None)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned"),
                                     progress=events.append, draft=draft)
    assert res.ok and res.valid and res.failure is None
    assert _titles(res.chapters) == TITLES
    assert [c.source_requirement_id for c in res.chapters] == ["R1", "R2", "R3"]
    assert check_outline(res.chapters) == []
    assert [c.id for c in res.chapters] == ["1", "2", "3"] and res.chapters[0].children[1].id == "1.2"
    assert router.seen == [f"chapter:{t}" for t in TITLES] + ["review"]
    assert res.review_passed is True and res.uncovered == {}
    report = res.report()
    assert report["llm_calls"] == 4 and report["mode"] == "aligned" and report["strategy"] == "json"
    assert report["prompt_tokens"] > 0 and report["completion_tokens"] > 0 and report["valid"] is True
    # detail points of each group reach the prompt of its chapter
    first = llm_server.completion_requests[0].prompt_text
    assert "项目人员配置方案" in first and "质量检查流程" not in first
    # progress: chapter i of n, calls never decrease, ends with done
    chapter_events = [e for e in events if e.stage == "chapter"]
    assert [(e.chapter, e.chapters) for e in chapter_events] == [(1, 3), (2, 3), (3, 3)]
    assert [e.calls for e in events] == sorted(e.calls for e in events)
    assert events[-1].stage == "done"
    # the live draft ends equal to the result and saw incremental inserts
    assert draft.to_document() == res.document()
    assert "Inserted" in changes


async def test_repair_round_fixes_a_chapter(llm_server: OpenAIServer) -> None:
    router = Router()
    bad = chapter_children("服务方案", ["项目人员配置方案", "实施进度计划"])
    bad["children"][1]["children"] = [{"title": "三级目录"}]  # type: ignore[index]  # an echo, and nothing else
    router.add("chapter:服务方案", bad)
    llm_server.handler = router
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False))
    assert res.ok
    assert router.count("chapter:服务方案") == 2
    repair = [r for r in llm_server.completion_requests if "现在只写其中一章“服务方案”" in r.prompt_text][1]
    # the exact issue (where, and what) went back to the model with its previous answer
    assert "/children/1/children/0/title" in repair.prompt_text and "三级目录" in repair.prompt_text
    assert len(res.chapters[0].children[1].children) >= 2


async def test_stream_repair_round_appends_missing_child(llm_server: OpenAIServer) -> None:
    router = Router()
    nodes = chapter_children("服务方案", ["项目人员配置方案", "实施进度计划"])["children"]
    router.add("chapter:服务方案", "我先想一想。\n{\"op\":\"done\"}\n",  # nothing under the chapter: a defect
               as_instructions([nodes[0], {"title": "进度偏差纠正"}], "/outline/0/children", thinking=False))
    llm_server.handler = router
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", strategy="stream",
                                                                                 review=False))
    assert res.ok and res.strategy == "stream"
    assert "进度偏差纠正" in [n.title for n in res.chapters[0].children]
    assert router.count("chapter:服务方案") == 2  # initial stream + one repair round


async def test_free_mode_falls_back_to_stepwise(llm_server: OpenAIServer) -> None:
    router = Router()
    flat = {"outline": [{"title": "总体方案", "children": [{"title": "一级目录"}]}, {"title": "运维服务", "children": []}]}
    router.add("full", flat, flat)
    router.add("top", {"chapters": [{"title": "总体服务方案"}, {"title": "运维保障措施"}, {"title": "信息安全管理"}]})
    llm_server.handler = router
    events: list[PipelineEvent] = []
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis([]), OutlineSettings(mode="free", review=False),
                                     progress=events.append)
    assert res.ok, res.report()
    assert _titles(res.chapters) == ["总体服务方案", "运维保障措施", "信息安全管理"]
    assert router.count("full") == 2 and router.count("top") == 1
    assert [router.count(f"chapter:{t}") for t in _titles(res.chapters)] == [1, 1, 1]
    assert any(e.stage == "stepwise" for e in events)
    assert "逐章" in " ".join(res.notes)


async def test_chapter_falls_back_to_children_first_then_each_child(llm_server: OpenAIServer) -> None:
    def default(kind: str, req: object) -> Reply:
        title = kind.split(":", 1)[-1]
        if title == "服务方案":  # the whole chapter keeps coming back with echoed titles
            return Reply.text(json.dumps({"children": [{"title": "二级目录", "children": [{"title": "三级目录"}, {"title": "三级目录"}]},
                                                       {"title": "二级目录", "children": [{"title": "三级目录"}]}]}, ensure_ascii=False))
        if kind.startswith("chapter:"):
            return Reply.text(json.dumps(chapter_children(title, dict(GROUPS).get(title)), ensure_ascii=False))
        return Reply.text('{"passed": true, "suggestions": []}')

    router = Router(default)
    llm_server.handler = router
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False,
                                                                                 switch_after=10))
    assert res.ok, res.report()
    sections = _titles(res.chapters[0].children)
    assert sections == ["项目人员配置方案", "实施进度计划", "设备配置和技术工具方案"]  # seeded from the detail points
    for s in sections:
        assert router.count(f"chapter:{s}") == 1  # each section's children in its own small call
    assert res.uncovered == {}


async def test_review_rejects_then_passes_and_only_concerned_chapter_is_regenerated(llm_server: OpenAIServer) -> None:
    router = Router()
    router.add("review", {"passed": False, "suggestions": [{"chapter": 2, "text": "加入信息安全保障内容"}]},
               {"passed": True, "suggestions": []})
    llm_server.handler = router
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review_rounds=2))
    assert res.ok and res.review_passed is True
    assert router.count("review") == 2
    assert [router.count(f"chapter:{t}") for t in TITLES] == [1, 2, 1]
    regen = [r for r in llm_server.completion_requests if "现在只写其中一章“质量保障措施”" in r.prompt_text][1]
    assert "加入信息安全保障内容" in regen.prompt_text
    review_prompt = next(r for r in llm_server.completion_requests if "审核" in r.prompt_text).prompt_text
    assert "共 3 章" in review_prompt  # facts computed by code reach the reviewer


async def test_review_failure_is_a_warning_and_keeps_the_outline(llm_server: OpenAIServer) -> None:
    router = Router()
    router.add("review", "这不是 JSON", "还是不是 JSON")
    llm_server.handler = router
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned"))
    assert res.ok and res.valid and res.review_passed is None
    assert any("审核" in w for w in res.warnings)
    assert _titles(res.chapters) == TITLES


async def test_review_endpoint_error_keeps_the_outline(llm_server: OpenAIServer) -> None:
    router = Router()
    router.add("review", *[Reply.error(500, "boom")] * 6)
    llm_server.handler = router
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned"))
    assert res.ok and res.review_passed is None and res.warnings


async def test_one_to_one_titles_are_locked_against_the_stream(llm_server: OpenAIServer) -> None:
    router = Router()
    nodes = chapter_children("服务方案", ["项目人员配置方案", "实施进度计划"])["children"]
    sneaky = '{"op":"set","path":"/outline/0/title","value":"改过的章名"}\n' + as_instructions(nodes, "/outline/0/children")  # type: ignore[arg-type]
    router.add("chapter:服务方案", sneaky)
    llm_server.handler = router
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", strategy="stream",
                                                                                 review=False))
    assert res.ok
    assert _titles(res.chapters) == TITLES
    groups = sample_analysis().technical_groups
    assert verify_locked(res.chapters, groups) == []
    tampered = [c.model_copy(deep=True) for c in res.chapters]
    tampered[0].title = "改过的章名"
    assert verify_locked(tampered, groups) and verify_locked(tampered[:2], groups)
    assert [c.title for c in locked_chapters(groups)] == TITLES


async def test_budget_exhausted_fills_the_rest_from_the_plan_and_says_so(llm_server: OpenAIServer) -> None:
    llm_server.handler = Router()
    settings = OutlineSettings(mode="aligned", budget=RunBudget(max_calls=2))
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), settings)
    assert len(llm_server.completion_requests) == 2
    assert res.ok, res.failure
    assert res.valid and res.issues == []
    assert _titles(res.chapters) == TITLES
    third = res.chapters[2]
    assert third.children and all(n.origin in ("tender", "library") for _, n in third.walk())
    assert any("2" in w and "补全" in w for w in res.warnings), res.warnings
    report = res.report()
    assert report["valid"] is True and report["failure"] is None and report["filled_nodes"] > 0


async def test_budget_exhausted_without_code_fill_is_a_structured_failure(llm_server: OpenAIServer) -> None:
    llm_server.handler = Router()
    settings = OutlineSettings(mode="aligned", budget=RunBudget(max_calls=2), code_fill=False)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), settings)
    assert not res.ok and res.failure is not None
    assert res.failure.kind == "budget" and "2" in res.failure.message_zh
    assert len(llm_server.completion_requests) == 2
    assert [bool(c.children) for c in res.chapters] == [True, True, False]
    assert check_outline([res.chapters[0]], None) == [] or res.chapters[0].children
    report = res.report()
    assert report["valid"] is False and report["failure"]["kind"] == "budget"


async def test_one_chapter_regenerated_alone_with_guidance(llm_server: OpenAIServer) -> None:
    router = Router()
    llm_server.handler = router
    async with make_client(llm_server) as client:
        first = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False))
        assert first.ok
        before = len(llm_server.completion_requests)
        leaves = iter(["目标分解", "目标考核", "过程控制点", "控制记录", "日常检查", "考核细则", "问题分析", "改进跟踪"])
        finer = {"children": [{"title": t, "children": [{"title": next(leaves)}, {"title": next(leaves)}]}
                              for t in ["质量目标", "质量控制流程", "质量检查与考核", "持续改进机制"]]}
        router.add("chapter:质量保障措施", finer)
        res = await regenerate_node(client, sample_analysis(), first.chapters, (1,), "把这一章拆得更细")
    assert res.ok
    new_requests = llm_server.completion_requests[before:]
    assert len(new_requests) == 1 and "把这一章拆得更细" in new_requests[0].prompt_text
    assert _titles(res.chapters[1].children) == ["质量目标", "质量控制流程", "质量检查与考核", "持续改进机制"]
    for i in (0, 2):
        assert res.chapters[i].model_dump() == first.chapters[i].model_dump()


async def test_regeneration_failure_keeps_the_old_subtree(llm_server: OpenAIServer) -> None:
    router = Router()
    llm_server.handler = router
    async with make_client(llm_server) as client:
        first = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False))
        router.default = lambda kind, req: Reply.text('{"children": [{"title": "一级目录"}]}')
        res = await regenerate_node(client, sample_analysis(), first.chapters, (0,), "重写",
                                    OutlineSettings(stepwise=False, code_fill=False))
    assert res.failure is not None and res.failure.stage == "regenerate"
    assert [c.model_dump() for c in res.chapters] == [c.model_dump() for c in first.chapters]


async def test_a_chapter_the_model_cannot_rewrite_is_filled_by_code_and_marked(llm_server: OpenAIServer) -> None:
    router = Router()
    llm_server.handler = router
    async with make_client(llm_server) as client:
        first = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False))
        router.default = lambda kind, req: Reply.text('{"children": [{"title": "一级目录"}]}')
        res = await regenerate_node(client, sample_analysis(), first.chapters, (0,), "重写",
                                    OutlineSettings(stepwise=False))
    assert res.ok and res.failure is None and res.code_filled == [0]
    chapter = res.chapters[0]
    assert chapter.title == first.chapters[0].title and chapter.children
    assert any(n.origin == "model" for _, n in first.chapters[0].walk())  # the model wrote the first one
    assert all(n.origin in ("tender", "library") for _, n in chapter.walk() if n is not chapter)  # code's, marked
    for i in (1, 2):
        assert res.chapters[i].model_dump() == first.chapters[i].model_dump()
    assert res.warnings[0].startswith("模型未能重新写出“服务方案”，“服务方案”已由程序依据招标文件要点和标题库补全（已标注来源）")


async def test_a_chapter_past_its_time_limit_is_filled_by_code_without_a_call(llm_server: OpenAIServer) -> None:
    router = Router()
    llm_server.handler = router
    async with make_client(llm_server) as client:
        first = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False))
        before = len(llm_server.completion_requests)
        res = await regenerate_node(client, sample_analysis(), first.chapters, (1,), "",
                                    OutlineSettings(budget=RunBudget(max_minutes=0.0)))
    assert len(llm_server.completion_requests) == before
    assert res.ok and res.code_filled == [1] and res.warnings[0].startswith("生成时间已达上限")
    assert all(n.origin in ("tender", "library") for _, n in res.chapters[1].walk() if n is not res.chapters[1])


async def test_no_technical_scoring_goes_to_free_mode(llm_server: OpenAIServer) -> None:
    router = Router()
    full = {"outline": [chapter_children(t) | {"title": t} for t in ["运维服务总体方案", "信息安全保障", "设备巡检方案"]]}
    router.add("full", full)
    llm_server.handler = router
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis([]), OutlineSettings(mode="aligned"))
    assert res.ok and res.mode == "free"
    assert any("自由模式" in n for n in res.notes)
    assert "7×24 小时运维服务" in llm_server.completion_requests[0].prompt_text
    assert _titles(res.chapters) == ["运维服务总体方案", "信息安全保障", "设备巡检方案"]


async def test_json_strategy_switches_to_stream_when_it_keeps_failing(llm_server: OpenAIServer) -> None:
    def default(kind: str, req: object) -> Reply:
        from tests.pipeline_support import is_stream

        title = kind.split(":", 1)[1] if ":" in kind else ""
        if kind.startswith("chapter:"):
            nodes = chapter_children(title, dict(GROUPS).get(title))["children"]
            if is_stream(req):  # type: ignore[arg-type]
                return Reply.text(as_instructions(nodes, "/outline/0/children"))  # type: ignore[arg-type]
            return Reply.text("抱歉，我无法输出 JSON。")
        return Reply.text('{"passed": true, "suggestions": []}')

    llm_server.handler = Router(default)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", switch_after=1,
                                                                                 review=False))
    assert res.ok and res.strategy == "stream"


async def test_wrong_key_is_a_config_failure(llm_server: OpenAIServer) -> None:
    llm_server.require_key = "right"
    llm_server.handler = Router()
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned"))
    assert res.failure is not None and res.failure.kind == "config"
    assert "401" in res.failure.message_zh


async def test_free_mode_streams_the_whole_outline_live_into_the_draft(llm_server: OpenAIServer) -> None:
    router = Router()
    chapters = [chapter_children(t) | {"title": t} for t in ["运维服务总体方案", "信息安全保障", "设备巡检方案"]]
    router.add("full", as_instructions(chapters, "/outline"))  # type: ignore[arg-type]
    llm_server.handler = router
    draft = Outline([OutlineNode(title="旧目录")])
    sizes: list[int] = []
    kinds: list[str] = []
    draft.subscribe(lambda phase, ev: (sizes.append(len(draft)), kinds.append(type(ev).__name__))
                    if phase == "after" else None)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis([]), OutlineSettings(mode="free", strategy="stream"),
                                     draft=draft)
    assert res.ok and res.strategy == "stream" and router.count("full") == 1
    assert _titles(res.chapters) == ["运维服务总体方案", "信息安全保障", "设备巡检方案"]
    assert sizes[:4] == [0, 1, 2, 3] and max(sizes) == len(draft)  # the old tree removed, then nodes one by one
    assert "Reset" not in kinds
    assert draft.to_document() == res.document()


async def test_free_mode_json_answer_fills_the_draft_title_by_title(llm_server: OpenAIServer) -> None:
    router = Router()
    chapters = [chapter_children(t) | {"title": t, "description": f"{t}的总体说明"}
                for t in ["运维服务总体方案", "信息安全保障", "设备巡检方案"]]
    text = json.dumps({"outline": chapters}, ensure_ascii=False, indent=1)
    router.add("full", Reply.text(text, chunk_size=9))
    llm_server.handler = router
    draft = Outline([OutlineNode(title="旧目录", children=[OutlineNode(title="旧节")])])
    seen: list[tuple[str, int]] = []
    draft.subscribe(lambda phase, ev: seen.append((type(ev).__name__, len(draft))) if phase == "after" else None)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis([]), OutlineSettings(mode="free"), draft=draft)
    assert res.ok and res.strategy == "json" and router.count("full") == 1
    assert llm_server.completion_requests[0].body["stream"] is True
    assert _titles(res.chapters) == ["运维服务总体方案", "信息安全保障", "设备巡检方案"]
    kinds = [k for k, _ in seen]
    assert "Reset" not in kinds
    assert seen[0] == ("Removed", 0)  # the old outline goes in one edit
    inserted = [n for k, n in seen if k == "Inserted"]
    assert inserted == list(range(1, len(draft) + 1))  # then one heading per closed title string
    assert draft.node((0,)).description == "运维服务总体方案的总体说明"
    assert draft.to_document() == res.document()


async def test_start_from_an_existing_outline_rewrites_each_chapter(llm_server: OpenAIServer) -> None:
    router = Router()
    llm_server.handler = router
    async with make_client(llm_server) as client:
        first = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False))
        before = len(llm_server.completion_requests)
        res = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False),
                                     base=first.chapters)
    assert res.ok
    rewrites = llm_server.completion_requests[before:]
    assert len(rewrites) == 3 and all("现有内容" in r.prompt_text for r in rewrites)
    assert first.chapters[0].children[0].title in rewrites[0].prompt_text


@pytest.mark.parametrize("code_fill", [False, True])
async def test_weak_model_mode_resamples_hotter_instead_of_repairing(llm_server: OpenAIServer, code_fill: bool) -> None:
    echo = json.dumps({"children": [{"title": "服务方案", "children": [{"title": "服务方案"}, {"title": "服务方案"}]},
                                    {"title": "服务方案", "children": [{"title": "服务方案"}, {"title": "服务方案"}]}]},
                      ensure_ascii=False)
    llm_server.handler = Router(lambda kind, req: Reply.text(echo))
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(GROUPS[:2]),
                                     OutlineSettings(mode="aligned", review=False, switch_after=10, code_fill=code_fill))
    if code_fill:  # code fills both chapters from the tender and the library; the model wrote nothing
        assert res.ok and res.heading_sources.get("model", 0) == 0
    else:
        assert not res.ok and res.failure is not None and res.failure.stage == "chapter"
    chapter_calls = [r for r in llm_server.completion_requests if "现在只写其中一章" in r.prompt_text]
    temps = [r.body.get("temperature") for r in chapter_calls]
    repairs = ["没有通过检查" in r.prompt_text for r in chapter_calls]
    assert repairs[:4] == [False, True, False, True]  # first two steps: answer + one model repair each
    assert not any(repairs[4:])  # then a weak model is re-sampled, never asked to repair
    assert max(temps[4:]) > max(temps[:4]) and min(temps[4:]) >= 0.8


async def test_code_fill_is_grounded_marked_and_counted(llm_server: OpenAIServer) -> None:
    echo = json.dumps({"children": [{"title": "一级目录", "children": [{"title": "二级目录"}, {"title": "二级目录"}]},
                                    {"title": "一级目录", "children": [{"title": "二级目录"}, {"title": "二级目录"}]}]},
                      ensure_ascii=False)
    router = Router(lambda kind, req: Reply.text(echo))
    llm_server.handler = router
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(GROUPS[:2]), OutlineSettings(mode="aligned", review=False))
    assert res.valid and check_outline(res.chapters, None) == []
    assert _titles(res.chapters[0].children)[:3] == ["项目人员配置方案", "实施进度计划", "设备配置和技术工具方案"]
    nodes = [n for ch in res.chapters for _, n in ch.walk()]
    assert {n.origin for n in nodes} == {"tender", "library"}
    assert all(not n.description.startswith("【模板补全") for n in nodes)
    report = evaluate(res.chapters)
    assert report.ok and report.count("generic") == 0  # no pattern repeated under every chapter
    assert res.report()["filled_nodes"] == len(nodes) and res.report()["model_nodes"] == 0
    assert any("程序补全" in w and "标题库" in w for w in res.warnings)
    assert router.count("pick") >= 1 and router.count("refine") >= 1  # the model was asked its small part


async def test_the_model_picks_orders_adapts_and_describes_what_code_filled(llm_server: OpenAIServer) -> None:
    echo = json.dumps({"children": [{"title": "一级目录", "children": [{"title": "二级目录"}]}]}, ensure_ascii=False)
    refined: list[str] = []

    def answer(kind: str, req: RecordedRequest) -> Reply:
        if kind == "pick":  # closed question: numbers of the listed sections, in writing order
            listed = re.findall(r"^(\d+)\. ", req.prompt_text, re.M)
            return Reply.text(json.dumps({"picks": [int(x) for x in reversed(listed)][:3]}))
        if kind == "refine":
            sections = re.findall(r"^\d+\. (.+)$", req.prompt_text, re.M)
            items = [{"title": t, "description": f"介绍本项目{t}的具体安排与责任分工"} for t in sections]
            items[0]["title"] = "政务" + sections[0]  # the project's own word: an adaptation that is kept
            items[1]["title"] = "宇宙" + sections[1]  # a word the tender never uses: refused
            items[-1]["description"] = "请您填写以下内容"  # an echo of instructions is never kept
            refined.extend(sections)
            return Reply.text(json.dumps({"items": items}, ensure_ascii=False))
        return Reply.text(echo)

    llm_server.handler = Router(answer)
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis([("培训方案", []), ("应急预案", [])]),
                                     OutlineSettings(mode="aligned", review=False))
    assert res.ok
    first = res.chapters[0].children
    assert len(first) == 3
    assert first[0].title == "政务" + refined[0] and first[0].origin == "model"
    assert first[1].title == refined[1] and first[1].origin == "library"
    assert first[0].description.startswith("介绍本项目") and first[-1].description == ""
    assert evaluate(res.chapters).ok and res.heading_sources["model"] == 2  # one adapted title per chapter


async def test_a_subtree_below_a_chapter_is_regenerated_alone(llm_server: OpenAIServer) -> None:
    router = Router()
    llm_server.handler = router
    async with make_client(llm_server) as client:
        first = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False))
        section = first.chapters[0].children[1].title
        router.add(f"chapter:{section}", {"children": [{"title": "里程碑计划"}, {"title": "进度预警机制"}, {"title": "进度纠偏措施"}]})
        res = await regenerate_node(client, sample_analysis(), first.chapters, (0, 1), "加入进度预警")
    assert res.ok
    assert _titles(res.chapters[0].children[1].children) == ["里程碑计划", "进度预警机制", "进度纠偏措施"]
    assert "所属章节：服务方案" in llm_server.completion_requests[-1].prompt_text
    untouched = [c.model_dump() for c in res.chapters]
    untouched[0]["children"][1]["children"] = [c.model_dump() for c in first.chapters[0].children[1].children]
    assert untouched == [c.model_dump() for c in first.chapters]


async def test_requirement_breakdown_reaches_the_reviewer(llm_server: OpenAIServer) -> None:
    router = Router()
    llm_server.handler = router
    requirements = "需响应的任务：\n- 提供7×24小时驻场运维\n风险与实质性条款：\n- ★不得转包"
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(),
                                     OutlineSettings(mode="aligned", requirements=requirements))
    assert res.ok and res.review_passed is True
    review_prompt = next(r for r in llm_server.completion_requests if "审核" in r.prompt_text).prompt_text
    assert "提供7×24小时驻场运维" in review_prompt and "★不得转包" in review_prompt
    chapter_prompt = llm_server.completion_requests[0].prompt_text
    assert "★不得转包" not in chapter_prompt  # only the review receives the breakdown


async def test_time_budget_ends_valid_with_the_rest_filled_by_code(llm_server: OpenAIServer) -> None:
    llm_server.handler = Router()
    settings = OutlineSettings(mode="aligned", budget=RunBudget(max_minutes=0.0))
    async with make_client(llm_server) as client:
        res = await generate_outline(client, sample_analysis(), settings)
    assert llm_server.completion_requests == []
    assert res.ok and _titles(res.chapters) == TITLES
    assert all(n.origin in ("tender", "library") for ch in res.chapters for _, n in ch.walk())
    assert any("生成时间已达上限" in w for w in res.warnings), res.warnings


async def test_a_slow_answer_stops_when_the_chapters_time_is_up(llm_server: OpenAIServer) -> None:
    """The run's time limit also ends the call in flight: a valid answer that would arrive after it is not
    waited for (without the in-call deadline the model's slow chapter would be taken), code fills the chapter."""
    router = Router()
    llm_server.handler = router
    async with make_client(llm_server) as client:
        first = await generate_outline(client, sample_analysis(), OutlineSettings(mode="aligned", review=False))
        title = first.chapters[0].title
        slow = json.dumps(chapter_children(title, dict(GROUPS).get(title)), ensure_ascii=False)
        router.add(f"chapter:{title}", Reply.text(slow, chunk_size=1, chunk_delay=0.05))
        before = len(llm_server.completion_requests)
        res = await regenerate_node(client, sample_analysis(), first.chapters, (0,), "",
                                    OutlineSettings(stepwise=False, budget=RunBudget(max_minutes=0.04)))
    assert len(slow) * 0.05 > 6  # the answer takes longer than the chapter's 2.4 s
    assert len(llm_server.completion_requests) == before + 1  # stopped mid-answer; no call after the limit
    assert res.ok and res.code_filled == [0] and "已由程序依据招标文件要点和标题库补全" in res.warnings[0]
    assert all(n.origin in ("tender", "library") for n in res.chapters[0].children)


def test_level3_headings_another_chapter_has_are_dropped_while_enough_remain() -> None:
    from app.pipeline.outline.run import drop_repeats

    def section(title: str, *kids: str) -> OutlineNode:
        return OutlineNode(title=title, children=[OutlineNode(title=k) for k in kids])

    sections = [section("原料验收", "关键控制点管理", "索证索票", "感官检验"),
                section("加工过程", "关键控制点管理", "生熟分开"),  # would fall below two: kept whole
                section("留样管理", "感官检验", "留样记录", "留样柜管理")]  # repeats the first section
    out = drop_repeats(sections, {"关键控制点管理"}, 2)
    assert [[c.title for c in s.children] for s in out] == [["索证索票", "感官检验"], ["关键控制点管理", "生熟分开"],
                                                            ["留样记录", "留样柜管理"]]
    assert drop_repeats(sections[1:2], set(), 2) == sections[1:2]

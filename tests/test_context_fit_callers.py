"""The calls that send long text shorten it to fit the model's context (issue 30, attack 13).

Overview of the tender, requirement breakdown, drafting with reference material and the
评审模拟 question each run against the loopback server with a small context. Every request
the server receives must fit that context — prompt (counted more conservatively than the
client counts) plus the answer budget asked for — and still carry what matters. Where
nothing can fit, nothing is sent and the caller reports the typed error's Chinese message.
"""

from __future__ import annotations

import json
from pathlib import Path

import docx

from app.core.analysis import ScoringGroup
from app.documents.clauses import PageText
from app.documents.loader import load_tender
from app.pipeline.analysis.breakdown import run_breakdown
from app.pipeline.analysis.tender import analyze_tender
from app.pipeline.drafting.context import SectionRequest
from app.pipeline.drafting.engine import DraftingEngine
from app.pipeline.evaluation.questions import QuestionStats, ask_point
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router, kind_of, make_client
from tests.test_llm_client_context import conservative_tokens


def _fits(req: RecordedRequest, context: int) -> bool:
    framing = 4 * len(req.messages)
    return conservative_tokens(req.prompt_text) + framing + int(req.body.get("max_tokens") or 0) <= context


def _filler(label: str, n: int) -> str:
    """``n`` distinct sentences (no loop a detector would stop, no duplicate a rule would drop)."""
    return "".join(f"{label}第{i}条：投标人应按要求提交材料并说明响应情况，编号{(i * 7919) % 997}。" for i in range(n))


def _tender(path: Path) -> Path:
    d = docx.Document()
    d.add_paragraph("第一章 招标公告")
    d.add_paragraph("项目名称：某市园林绿化养护服务项目")
    d.add_paragraph("采购人：某市城市管理局")
    for i in range(40):
        d.add_paragraph(f"公告说明第{i}条：递交投标文件的时间、地点、保证金和开标程序等事项，编号{i * 37 % 101}。")
    d.save(str(path))
    return path


async def test_the_overview_call_cuts_the_tender_text_to_fit(llm_server: OpenAIServer, tmp_path: Path) -> None:
    router = Router()
    router.add("overview", {"project_name": "某市园林绿化养护服务项目", "buyer": "某市城市管理局"})
    llm_server.handler = router
    doc = load_tender(_tender(tmp_path / "t.docx"))
    async with make_client(llm_server, context_size=1024) as client:
        a = await analyze_tender(client, doc, model_groups=False)
    asked = [r for r in llm_server.completion_requests if kind_of(r) == "overview"]
    assert len(asked) == 1
    req = asked[0]
    assert _fits(req, 1024), (conservative_tokens(req.prompt_text), req.body.get("max_tokens"))
    assert int(req.body["max_tokens"]) >= 400  # a real answer budget, not the scraps
    assert "某市园林绿化养护服务项目" in req.prompt_text  # the opening lines are what is kept
    assert a.overview.project_name == "某市园林绿化养护服务项目"


def _breakdown_answer(req: RecordedRequest) -> Reply:
    return Reply.text(json.dumps({"status": "executable", "background": "为城市绿地提供一年的养护服务。",
                                  "goals": [{"text": "绿地养护达到合同标准"}],
                                  "tasks": [{"text": "提交养护实施方案并按月报告"}], "risks": []}, ensure_ascii=False))


async def test_breakdown_chunks_and_clause_lists_fit_a_small_context(llm_server: OpenAIServer) -> None:
    llm_server.handler = _breakdown_answer
    pages = [PageText(p, "第二章 采购需求\n" + "\n".join(
        f"{i}.★投标人须按第{p}页第{i}项要求完成绿地养护作业并提交记录，编号{(p * 31 + i) % 97}。" for i in range(1, 25)))
        for p in range(5, 9)]
    async with make_client(llm_server, context_size=2048, max_tokens=2048) as client:
        out = await run_breakdown(client, pages)
    reqs = llm_server.completion_requests
    assert reqs and all(_fits(r, 2048) for r in reqs), [
        (conservative_tokens(r.prompt_text), r.body.get("max_tokens")) for r in reqs]
    assert out.failed_chunks == 0 and out.breakdown.status == "executable"
    assert len(out.clauses) == 96 and len(out.breakdown.clause_risks()) == 96  # every clause kept by code


def _section(references: list[str], **kw: object) -> SectionRequest:
    group = ScoringGroup(id="R1", title="养护实施方案", points=20, description="养护方案完善得20分。",
                         detail_points=["修剪", "施肥"])
    params: dict[str, object] = {"key": "1.1", "title": "修剪作业安排", "path_titles": ["1 养护实施方案"],
                                 "group": group, "overview": "项目名称：某市园林绿化养护服务项目",
                                 "references": references, "reference_sources": [f"往期标书{i}" for i in
                                                                                 range(len(references))]}
    params.update(kw)
    return SectionRequest(**params)  # type: ignore[arg-type]


DRAFT = "".join(f"修剪作业第{i}项：由养护班组按季节安排，乔木每年修剪两次，绿篱每月修剪一次，记录编号{i * 13 % 89}。"
                for i in range(8))


async def test_drafting_clips_reference_material_to_fit(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text(DRAFT))
    refs = [f"（往期标书{i}）\n" + _filler(f"参考{i}", 40) for i in range(2)]
    async with make_client(llm_server, context_size=2048, max_tokens=1024) as client:
        engine = DraftingEngine(client)
        state = await engine.run([_section(refs)])
    (req,) = llm_server.completion_requests
    assert _fits(req, 2048), (conservative_tokens(req.prompt_text), req.body.get("max_tokens"))
    assert "修剪作业安排" in req.prompt_text and "参考0第0条" in req.prompt_text  # the heading and a clipped reference
    assert "参考0第39条" not in req.prompt_text
    draft = state.sections["1.1"]
    assert draft.status == "done" and "乔木每年修剪两次" in draft.text


async def test_a_section_whose_bare_prompt_cannot_fit_fails_with_the_reason(llm_server: OpenAIServer) -> None:
    llm_server.push(Reply.text(DRAFT))
    async with make_client(llm_server, context_size=700, max_tokens=1024) as client:
        engine = DraftingEngine(client)
        state = await engine.run([_section([], overview=_filler("概况", 6))])
    assert llm_server.completion_requests == []  # nothing was sent
    draft = state.sections["1.1"]
    assert draft.status == "failed"
    assert "提示词过长" in draft.error and "700 tokens" in draft.error and "模型设置" in draft.error
    assert "内部错误" not in draft.error


async def test_the_review_question_cuts_the_passage_to_fit(llm_server: OpenAIServer) -> None:
    quote = "现场负责人五分钟内启动三级响应程序"
    passage = "应急处置预案\n" + quote + "。" + _filler("保障", 60)
    llm_server.push(Reply.text(json.dumps({"quote": quote, "answer": "是"}, ensure_ascii=False)))
    stats = QuestionStats()
    async with make_client(llm_server, context_size=1024) as client:
        verdict = await ask_point(client, "应急处置预案", passage, stats)
    (req,) = llm_server.completion_requests
    assert _fits(req, 1024), (conservative_tokens(req.prompt_text), req.body.get("max_tokens"))
    assert quote in req.prompt_text and "保障第59条" not in req.prompt_text
    assert verdict is not None and verdict.kept and verdict.answer == "是"


async def test_a_continuation_resends_only_the_tail_that_fits(llm_server: OpenAIServer) -> None:
    first = "".join(f"第{i}段：养护班组按计划完成修剪、施肥和病虫害防治，并填写作业记录，编号{i * 17 % 83}。" for i in range(40))
    llm_server.push(Reply.truncated(first), Reply.text("以上措施由项目经理每月检查落实。"))
    async with make_client(llm_server, context_size=2048, max_tokens=600) as client:
        engine = DraftingEngine(client)
        state = await engine.run([_section([])])
    reqs = llm_server.completion_requests
    assert len(reqs) == 2
    assert all(_fits(r, 2048) for r in reqs), [(conservative_tokens(r.prompt_text), r.body.get("max_tokens"))
                                               for r in reqs]
    assert first[-60:] in reqs[1].prompt_text and first[:40] not in reqs[1].prompt_text  # the tail, not the whole
    draft = state.sections["1.1"]
    assert draft.status == "done" and draft.continuations == 1
    assert "第0段" in draft.text and "每月检查落实" in draft.text  # the section keeps all it was given


async def test_the_review_fill_cuts_the_existing_text_to_its_tail(llm_server: OpenAIServer) -> None:
    from app.core.analysis import Analysis
    from app.core.outline import OutlineNode
    from app.pipeline.evaluation.fill import draft_point
    from app.pipeline.evaluation.review import review_bid

    criteria = "方案内容包含但不限于：①人员配置方案；②应急处置预案。方案完整的得10分；未提供的不得分。"
    analysis = Analysis(groups=[ScoringGroup(id="R1", title="服务方案", description=criteria, points=10)])
    chapters = [OutlineNode(title="服务方案", source_requirement_id="R1",
                            children=[OutlineNode(title="人员配置方案", content="项目经理一名，保洁员十二名。")])]
    item = review_bid(analysis, chapters).items[0]
    point = next(p for p in item.points if "应急" in p.label)
    existing = _filler("现有正文", 30)  # ~1000 characters; only its end is context for the new paragraph
    paragraph = "针对应急处置预案，我方建立火情、停电和食物中毒三级响应程序，现场负责人五分钟内到场处置，事后形成书面报告。"
    llm_server.push(Reply.text(paragraph))
    async with make_client(llm_server, context_size=1536) as client:
        text, problem = await draft_point(client, item, point, "服务方案", existing)
    (req,) = llm_server.completion_requests
    assert _fits(req, 1536), (conservative_tokens(req.prompt_text), req.body.get("max_tokens"))
    assert existing[-30:] in req.prompt_text and existing[:30] not in req.prompt_text
    assert int(req.body["max_tokens"]) >= 800  # the context text gives way, not the paragraph's answer budget
    assert "三级响应程序" in text and problem is None

"""The scoring-extraction call fits the endpoint's context (issue 30, attack 13).

A tender whose scoring table sits among pages of unrelated text is analysed against the
loopback server with a small advertised context. The request the server receives must
fit that context (counted conservatively: more tokens than the client's
own estimate) with the answer budget it asks for, carry the scoring table's rows, and
leave out the surrounding pages. A table too large for the context is not sent at all,
and the analysis says so in Chinese and keeps the table as code read it.
"""

from __future__ import annotations

from pathlib import Path

import docx

from app.documents.loader import load_tender
from app.pipeline.analysis.tender import analyze_tender
from tests.openai_server import OpenAIServer, RecordedRequest
from tests.pipeline_support import Router, kind_of, make_client

ROWS = [("1", "养护实施方案", "40", "养护方案包括修剪、施肥、病虫害防治、浇灌排涝，方案完善得40分。"),
        ("2", "应急保障措施", "20", "应急预案包括台风、暴雨、干旱应对，措施具体得20分。"),
        ("3", "企业业绩", "10", "每个业绩得2分。"),
        ("4", "投标报价", "30", "基准价法。")]


def _tender(path: Path, rows: list[tuple[str, str, str, str]] = ROWS) -> Path:
    """One DOCX page: 30 paragraphs of notice text, the scoring table, 30 paragraphs of contract terms."""
    d = docx.Document()
    d.add_paragraph("第一章 招标公告")
    d.add_paragraph("项目名称：某市园林绿化养护服务项目")
    for i in range(30):
        d.add_paragraph(f"投标人须知第{i}条：递交要求、保证金退还、开标程序和纪律要求等事项的说明。" * 2)
    d.add_paragraph("第三章 评标办法")
    d.add_paragraph("评分标准如下表：")
    table = d.add_table(rows=len(rows) + 1, cols=4)
    table.style = "Table Grid"
    for i, row in enumerate([("序号", "评审因素", "分值", "评审标准"), *rows]):
        for j, text in enumerate(row):
            table.cell(i, j).text = text
    for i in range(30):
        d.add_paragraph(f"合同条款第{i}条：甲乙双方的权利义务、付款方式、违约责任和争议解决。" * 2)
    d.save(str(path))
    return path


def _tokens(text: str) -> int:
    """A conservative count: a token per CJK character and per two other characters (tokenizers do better)."""
    cjk = sum(1 for ch in text if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef")
    return cjk + (len(text) - cjk + 1) // 2


def _fits(req: RecordedRequest, context: int) -> bool:
    """The prompt plus the answer budget it asks for within the context."""
    return _tokens(req.prompt_text) + int(req.body.get("max_tokens") or 0) <= context


async def test_the_scoring_call_sends_the_table_not_the_pages_and_fits_a_small_context(
        llm_server: OpenAIServer, tmp_path: Path) -> None:
    router = Router()
    router.add("overview", {"project_name": "某市园林绿化养护服务项目"})
    router.add("scoring", {"groups": [{"title": "养护实施方案", "points": 40, "detail_points": ["修剪", "施肥"]}]})
    llm_server.handler = router
    doc = load_tender(_tender(tmp_path / "t.docx"))
    async with make_client(llm_server, context_size=2048) as client:
        a = await analyze_tender(client, doc, model_groups=True)
    scoring = [r for r in llm_server.completion_requests if kind_of(r) == "scoring"]
    assert len(scoring) == 1
    req = scoring[0]
    text = req.prompt_text
    assert "养护实施方案" in text and "应急预案包括台风、暴雨、干旱应对" in text and "｜40｜" in text
    assert "投标人须知第" not in text and "合同条款第" not in text  # not the pages around the table
    assert _fits(req, 2048), (_tokens(text), req.body.get("max_tokens"))
    assert [g.title for g in a.technical_groups] == ["养护实施方案", "应急保障措施"]
    assert a.technical_groups[0].detail_points == ["修剪", "施肥"]


async def test_a_table_too_large_for_the_context_is_not_sent_and_the_analysis_says_so(
        llm_server: OpenAIServer, tmp_path: Path) -> None:
    rows = [(str(i), f"第{i}项技术服务措施方案", "1", f"第{i}项措施完整、具体、可行的得1分，否则不得分。")
            for i in range(1, 61)]
    router = Router()
    router.add("overview", {"project_name": "某市园林绿化养护服务项目"})
    llm_server.handler = router
    doc = load_tender(_tender(tmp_path / "big.docx", rows))
    async with make_client(llm_server, context_size=2048) as client:
        a = await analyze_tender(client, doc, model_groups=True)
    assert router.count("scoring") == 0
    assert all(_fits(r, 2048) for r in llm_server.completion_requests)
    assert len(a.technical_groups) == 60  # the table as code read it
    assert any("超出模型上下文" in n and "沿用程序" in n for n in a.notes), a.notes


async def test_long_criteria_are_shortened_to_fit_and_the_analysis_says_so(
        llm_server: OpenAIServer, tmp_path: Path) -> None:
    long = "，".join(f"第{k}款要求投标人说明养护作业的具体做法与检查标准" for k in range(12))  # ~290 characters
    rows = [(str(i), name, "10", f"{name}：{long}。") for i, name in
            enumerate(["养护实施方案", "应急保障措施", "人员配置方案", "机械设备配置", "质量保证措施"], 1)]
    router = Router()
    router.add("overview", {"project_name": "某市园林绿化养护服务项目"})
    router.add("scoring", {"groups": [{"title": "养护实施方案", "points": 10}]})
    llm_server.handler = router
    doc = load_tender(_tender(tmp_path / "long.docx", rows))
    async with make_client(llm_server, context_size=2048) as client:
        a = await analyze_tender(client, doc, model_groups=True)
    req = next(r for r in llm_server.completion_requests if kind_of(r) == "scoring")
    assert _fits(req, 2048), (_tokens(req.prompt_text), req.body.get("max_tokens"))
    assert all(name in req.prompt_text for _, name, _, _ in rows)  # every row is still there
    assert "第11款" not in req.prompt_text  # the criteria were cut
    assert any("评分标准只保留前" in n for n in a.notes), a.notes

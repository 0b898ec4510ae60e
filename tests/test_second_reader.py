"""The second reader: the model reads the scoring pages on its own, code checks each row, and the
analysis is confirmed only when two independent readings agree.

The loopback server (tests/openai_server.py) plays a model that reads right, one that reads
wrong, and one that answers garbage, on generated tenders (tests/second_reading_fixtures.py);
code's reading is the real parser's.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.core.analysis import Analysis, ScoringGroup, ScoringTableInfo
from app.documents.loader import load_tender
from app.documents.scoring.model import ScoringResult, ScoringRow, ScoringTable
from app.pipeline.analysis.reading_check import check_reading, name_core
from app.pipeline.analysis.scoring_groups import scoring_tables
from app.pipeline.analysis.tender import analyze_tender
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router, kind_of, make_client
from tests.second_reading_fixtures import Row, build


def _rows_json(rows: list[Row]) -> str:
    return json.dumps({"rows": [{"name": n, "points": p, "category": c, "group": g} for n, p, c, g in rows]},
                      ensure_ascii=False)


def _model(reading: str) -> Router:
    """A model whose every answer to the second reading's question is ``reading``; overview etc. as usual."""
    router = Router()
    fallback = router.default

    def answer(kind: str, req: RecordedRequest) -> Reply:
        if kind == "overview":
            return Reply.text('{"project_name": "某市第二人民医院后勤综合服务采购项目"}')
        if kind == "second_reading":
            return Reply.text(reading)
        if '"answer"' in req.prompt_text:  # code's closed questions (which table, which category): code's choice
            return Reply.text('{"answer": 1}')
        return fallback(kind, req)

    router.default = answer
    return router


async def _analyze(server: OpenAIServer, path: Path) -> Analysis:
    async with make_client(server) as client:
        return await analyze_tender(client, load_tender(path), model_groups=False)


async def test_a_right_reading_that_agrees_confirms_what_code_alone_could_not(llm_server: OpenAIServer,
                                                                                tmp_path: Path) -> None:
    path, right = build("plain", tmp_path)
    code_only = await analyze_tender(None, load_tender(path))
    assert not code_only.scoring_confirmed and code_only.scoring_doubt  # a category guessed from a name
    llm_server.handler = router = _model(_rows_json(right))
    a = await _analyze(llm_server, path)
    assert router.count("second_reading") == 1
    sent = next(r for r in llm_server.completion_requests if kind_of(r) == "second_reading").prompt_text
    assert "保洁服务方案" in sent and "评分项名称" in sent
    reading = a.second_reading
    assert reading is not None and reading.verified and reading.agrees and not reading.to_compare
    assert a.scoring_confirmed and not a.scoring_doubt and not a.needs_scoring_confirmation
    assert not any(g.doubt for g in a.groups)
    assert any("逐项一致" in n for n in a.notes)
    assert [g.title for g in a.groups] == [n for n, _, _, _ in right]  # code's rows stay the items


async def test_a_verified_reading_that_differs_is_kept_beside_code_s_and_confirms_nothing(
        llm_server: OpenAIServer, tmp_path: Path) -> None:
    path, right = build("plain", tmp_path)
    all_technical = [(n, p, "技术" if c == "商务" else c, g) for n, p, c, g in right]  # names and points right
    llm_server.handler = _model(_rows_json(all_technical))
    a = await _analyze(llm_server, path)
    reading = a.second_reading
    assert reading is not None and reading.verified and not reading.agrees and reading.to_compare
    assert not a.scoring_confirmed and a.needs_scoring_confirmation
    assert "不一致" in a.scoring_doubt and "企业信誉" in a.scoring_doubt
    assert any("“企业信誉”类别：程序读为商务，模型读为技术" == d for d in reading.differences)
    assert [g.category for g in reading.rows][3:5] == ["technical", "technical"]


async def test_wrong_points_fail_the_check_and_never_confirm(llm_server: OpenAIServer, tmp_path: Path) -> None:
    path, right = build("plain", tmp_path)
    wrong = [(n, 20 if n == "保洁服务方案" else 15 if n == "应急预案" else p, c, g) for n, p, c, g in right]
    llm_server.handler = _model(_rows_json(wrong))
    a = await _analyze(llm_server, path)
    reading = a.second_reading
    assert reading is not None and not reading.verified
    assert next(g for g in reading.rows if g.title == "保洁服务方案").doubt == "原文中该名称旁边没有 20 分"
    assert reading.credible and reading.to_compare  # four rows of six found: shown beside code's, and it differs
    assert not a.scoring_confirmed


async def test_garbage_changes_nothing_and_costs_one_question(llm_server: OpenAIServer, tmp_path: Path) -> None:
    path, _right = build("plain", tmp_path)
    code_only = await analyze_tender(None, load_tender(path))
    llm_server.handler = router = _model("好的，我来读一下评分表：这是一个很好的项目。")
    a = await _analyze(llm_server, path)
    assert router.count("second_reading") == 2  # the question and one repair, then no other page is asked
    assert a.second_reading is None
    assert a.groups == code_only.groups and a.scoring_confirmed == code_only.scoring_confirmed
    assert a.scoring_doubt == code_only.scoring_doubt
    assert any("模型没有给出可用的评分表读取结果" in n for n in a.notes)


async def test_invented_names_are_not_found_and_change_nothing(llm_server: OpenAIServer, tmp_path: Path) -> None:
    path, _right = build("plain", tmp_path)
    code_only = await analyze_tender(None, load_tender(path))
    invented = [("一级目录", 50, "技术", ""), ("二级目录", 50, "技术", "")]  # what a weak model writes
    llm_server.handler = _model(_rows_json(invented))
    a = await _analyze(llm_server, path)
    assert a.second_reading is not None and not a.second_reading.credible and not a.second_reading.to_compare
    assert a.scoring_confirmed == code_only.scoring_confirmed and a.scoring_doubt == code_only.scoring_doubt
    assert any("未通过原文核对" in n for n in a.notes)


async def test_a_summary_table_taken_for_the_scheme_is_not_confirmed_against_a_right_reading(
        llm_server: OpenAIServer, tmp_path: Path) -> None:
    path, right = build("summary", tmp_path)
    llm_server.handler = _model(_rows_json(right))
    a = await _analyze(llm_server, path)
    reading = a.second_reading
    assert reading is not None and reading.verified
    code_right = sorted(g.title for g in a.technical_groups) == sorted(n for n, _, c, _ in right if c == "技术")
    assert a.scoring_confirmed == code_right  # whatever code read: confirmed exactly when it read the details
    if not code_right:
        assert reading.to_compare and "不一致" in a.scoring_doubt


async def test_a_model_that_reads_the_summary_rows_is_refused_by_the_check(llm_server: OpenAIServer,
                                                                           tmp_path: Path) -> None:
    path, _right = build("summary", tmp_path)
    summary = [("投标报价", 40, "价格", ""), ("商务部分", 18, "商务", ""), ("技术部分", 42, "技术", "")]
    llm_server.handler = _model(_rows_json(summary))
    a = await _analyze(llm_server, path)
    reading = a.second_reading
    assert reading is not None and not reading.verified
    assert "是一个部分的名称" in next(g.doubt for g in reading.rows if g.title == "技术部分")
    assert not (reading.agrees and a.scoring_confirmed and reading.verified)  # never a confirmation by agreement


async def test_a_dropped_connection_keeps_code_s_reading_with_a_note(tmp_path: Path) -> None:
    path, _right = build("plain", tmp_path)
    with OpenAIServer() as server:
        router = _model("")

        def handler(req: RecordedRequest) -> Reply:
            return Reply.error(503, "down") if kind_of(req) == "second_reading" else router(req)

        server.handler = handler
        a = await _analyze(server, path)
    assert a.second_reading is None and a.groups
    assert any("模型服务出错" in n and "仍以程序读取为准" in n for n in a.notes)


def test_the_check_finds_names_across_wrapped_cells_and_points_in_the_next_cell(tmp_path: Path) -> None:
    path, right = build("summary", tmp_path)
    doc = load_tender(path)
    check = check_reading(doc, [1], [(n, p, c, g) for n, p, c, g in right])
    assert check.verified, (check.problems, [c.problem for c in check.rows])
    assert name_core("3.1 同类项目业绩（6 分）") == "同类项目业绩"
    bad = check_reading(doc, [1], [("同类项目业绩", 9, "商务", ""), ("投标报价", 91, "价格", "")])
    assert bad.rows[0].problem == "原文中该名称旁边没有 9 分" and not bad.verified


def test_two_candidates_read_from_one_table_get_keys_of_their_own() -> None:
    def table(name: str, used: bool) -> ScoringTable:
        return ScoringTable(table_ids=["t9"], pages=[4], rows=[ScoringRow(factor=name, points=50, table_id="t9",
                                                                           pages=[4])])

    first, second = table("服务方案", True), table("实施计划", False)
    second.score = 5.0
    infos = scoring_tables(ScoringResult(found=True, tables=[first], candidates=[first, second]))
    assert [t.key for t in infos] == ["t9", "t9#2"]
    assert [g.table_key for g in infos[1].groups] == ["t9#2"]
    assert isinstance(infos[0], ScoringTableInfo) and isinstance(infos[1].groups[0], ScoringGroup)


def test_cli_analyze_with_a_model_reports_both_readings(llm_server: OpenAIServer, tmp_path: Path) -> None:
    from app.cli import main

    path, right = build("summary", tmp_path)
    llm_server.handler = _model(_rows_json(right))
    out = tmp_path / "analysis.json"
    assert main(["analyze", str(path), "--base-url", llm_server.base_url, "--model", "test-model",
                 "-o", str(out)]) == 0
    analysis = json.loads(out.read_text(encoding="utf-8"))["analysis"]
    reading = analysis["second_reading"]
    assert reading["verified"] and reading["model"] == "test-model"
    assert [r["title"] for r in reading["rows"]] == [n for n, _, _, _ in right]
    technical = sorted(g["title"] for g in analysis["groups"] if g["category"] == "technical")
    assert analysis["scoring_confirmed"] == (technical == sorted(n for n, _, c, _ in right if c == "技术"))


def test_a_shortened_name_with_the_same_points_is_the_same_item_and_other_points_are_not() -> None:
    from app.pipeline.analysis.reading_compare import compare

    code = [ScoringGroup(id="R1", title="投标人具备近五年内具有与本项目类似的业绩", points=1.0, category="business"),
            ScoringGroup(id="R2", title="主要实施方案", points=12.5)]
    same = [ScoringGroup(id="M1", title="本项目类似业绩", points=1.0, category="business"),
            ScoringGroup(id="M2", title="主要实施方案", points=12.5)]
    assert compare(code, same).agrees
    other = [same[0].model_copy(update={"points": 2.0}), same[1]]
    result = compare(code, other)
    assert not result.agrees and "（1分）" in "".join(result.differences) and "（2分）" in "".join(result.differences)

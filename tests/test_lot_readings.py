"""Lots scored apart, in the analysis: every lot's scheme kept, one chosen, the second reader verifying the
chosen lot's reading; and a weighted scheme verified on the points its pages print (issue 36).

Generated tenders (tests/lot_fixtures.py, tests/scoring_fixtures_chapter.py); the model is the loopback
server (tests/openai_server.py) playing a reader of the pages.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.scoring_edit import choose_lot, move_to_category
from app.documents.loader import load_tender
from app.pipeline.analysis.tender import analyze_tender
from tests.lot_fixtures import LOTS, TECHNICAL, two_lots
from tests.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.pipeline_support import Router, kind_of, make_client
from tests.scoring_fixtures_unseen import build_any
from tests.second_reading_fixtures import Row


def _model(rows: list[Row]) -> Router:
    """A model that reads ``rows`` off whatever scoring pages it is given."""
    router = Router()
    fallback = router.default
    reading = json.dumps({"rows": [{"name": n, "points": p, "category": c, "group": g} for n, p, c, g in rows]},
                         ensure_ascii=False)

    def answer(kind: str, req: RecordedRequest) -> Reply:
        if kind == "overview":
            return Reply.text('{"project_name": "某市政务信息系统运维及设备采购项目"}')
        if kind == "second_reading":
            return Reply.text(reading)
        if '"answer"' in req.prompt_text:
            return Reply.text('{"answer": 1}')
        return fallback(kind, req)

    router.default = answer
    return router


async def test_every_lot_is_kept_and_choosing_one_swaps_items_and_verdict(tmp_path: Path) -> None:
    path = tmp_path / "lots.docx"
    two_lots(path)
    a = await analyze_tender(None, load_tender(path))
    assert [lot.name for lot in a.scoring_lots] == ["A包", "B包"] and a.scoring_lot == 0 and a.lot_name == "A包"
    assert [g.title for g in a.technical_groups] == TECHNICAL["A包"]
    assert [[g.title for g in lot.groups] for lot in a.scoring_lots] == [[n for n, *_ in r] for r in LOTS.values()]

    b = choose_lot(a, 1)
    assert b.scoring_lot == 1 and b.lot_name == "B包"
    assert [g.title for g in b.technical_groups] == TECHNICAL["B包"]
    assert [g.id for g in b.groups] == ["R1", "R2", "R3", "R4"]
    used = [t for t in b.scoring_tables if t.used]
    assert len(used) == 1 and used[0].key == b.scoring_lots[1].tables[0].key
    assert b.scoring_doubt == a.scoring_lots[1].doubt and not b.scoring_confirmed

    edited = move_to_category(b, [b.groups[1].id], "technical")  # the user's edit of lot B stays with lot B
    back = choose_lot(edited, 0)
    assert [g.title for g in back.technical_groups] == TECHNICAL["A包"]
    again = choose_lot(back, 1)
    assert next(g for g in again.groups if g.title == "同类项目业绩").category == "technical"
    assert choose_lot(again, 1) is again and choose_lot(again, 7) is again


async def test_the_second_reader_verifies_the_chosen_lot_only(llm_server: OpenAIServer, tmp_path: Path) -> None:
    """The model is given lot B's table alone (lot A's sits on the same page) and its reading confirms lot B."""
    path = tmp_path / "lots.docx"
    two_lots(path)
    llm_server.handler = router = _model(LOTS["B包"])
    async with make_client(llm_server) as client:
        a = await analyze_tender(client, load_tender(path), model_groups=False, lot="B包")
    assert router.count("second_reading") == 1
    sent = next(r for r in llm_server.completion_requests if kind_of(r) == "second_reading").prompt_text
    assert "设备供货方案" in sent and "系统运维方案" not in sent  # the other lot's table is left out
    assert a.lot_name == "B包" and [g.title for g in a.technical_groups] == TECHNICAL["B包"]
    reading = a.second_reading
    assert reading is not None and reading.verified and reading.agrees, (reading and reading.problems)
    assert a.scoring_confirmed and not a.scoring_doubt
    assert a.scoring_lots[1].confirmed and a.scoring_lots[1].second_reading == reading
    assert not a.scoring_lots[0].confirmed  # lot A was never read twice
    assert not choose_lot(a, 0).scoring_confirmed and choose_lot(choose_lot(a, 0), 1).scoring_confirmed


async def test_a_reading_of_the_other_lot_confirms_nothing(llm_server: OpenAIServer, tmp_path: Path) -> None:
    path = tmp_path / "lots.docx"
    two_lots(path)
    llm_server.handler = _model(LOTS["A包"])  # the model reads lot A's rows while lot B is chosen
    async with make_client(llm_server) as client:
        a = await analyze_tender(client, load_tender(path), model_groups=False, lot="B包")
    assert a.second_reading is not None and not a.second_reading.agrees
    assert not a.scoring_confirmed


WEIGHTED_PRINTED: list[Row] = [
    ("投标人统一得基本分", 80, "商务", "资信分（100分），权重20%"),
    ("投标人拟派项目负责人具有高级工程师证书", 10, "商务", "资信分（100分），权重20%"),
    ("投标人近三年具有同类项目业绩的", 10, "商务", "资信分（100分），权重20%"),
    ("总体实施方案", 40, "技术", "技术分（100分），权重50%"), ("运维保障方案", 40, "技术", "技术分（100分），权重50%"),
    ("培训方案", 20, "技术", "技术分（100分），权重50%"), ("商务标", 100, "价格", "商务标评审（满分100分，权重30%）"),
]


async def test_a_weighted_scheme_is_verified_on_the_points_its_pages_print(llm_server: OpenAIServer,
                                                                           tmp_path: Path) -> None:
    """The model reads 80/10/10, 40/40/20 and 100 where code weighs them into 16/2/2, 20/20/10 and 30."""
    path, _ = build_any("weighted_parts", tmp_path)
    llm_server.handler = _model(WEIGHTED_PRINTED)
    async with make_client(llm_server) as client:
        a = await analyze_tender(client, load_tender(path), model_groups=False)
    reading = a.second_reading
    assert reading is not None and reading.verified and reading.agrees, (reading and (reading.problems,
                                                                                      reading.differences))
    assert [g.points for g in reading.rows] == [16, 2, 2, 20, 20, 10, 30]  # on the scheme's scale …
    assert [g.raw_points for g in reading.rows] == [80, 10, 10, 40, 40, 20, 100]  # … with what the page prints
    assert [g.raw_points for g in a.groups] == [80, 10, 10, 40, 40, 20, 100]
    assert a.scoring_confirmed


async def test_a_weighted_reading_with_a_misread_point_is_caught(llm_server: OpenAIServer, tmp_path: Path) -> None:
    path, _ = build_any("weighted_parts", tmp_path)
    wrong = [(n, p + 5 if n == "运维保障方案" else p, c, g) for n, p, c, g in WEIGHTED_PRINTED]
    llm_server.handler = _model(wrong)
    async with make_client(llm_server) as client:
        a = await analyze_tender(client, load_tender(path), model_groups=False)
    reading = a.second_reading
    assert reading is not None and not (reading.verified and reading.agrees)
    assert any("运维保障方案" in d for d in reading.differences)


def test_cli_analyze_reads_the_lot_asked_for_and_says_which_lots_there_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import main

    path = tmp_path / "lots.docx"
    two_lots(path)
    assert main(["analyze", str(path), "--lot", "B", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["scoring"]
    assert data["lot"] == "B包" and [r["factor"] for t in data["tables"] for r in t["rows"]] == [
        n for n, *_ in LOTS["B包"]]
    assert main(["analyze", str(path), "--lot", "C包"]) == 2
    err = capsys.readouterr().err
    assert "没有“C包”" in err and "A包、B包" in err


def test_cli_outline_makes_the_chosen_lot_s_technical_items_its_chapters(llm_server: OpenAIServer,
                                                                         tmp_path: Path) -> None:
    from app.cli import main

    llm_server.handler = Router()
    path = tmp_path / "lots.docx"
    two_lots(path)
    out = tmp_path / "outline.json"
    code = main(["outline", str(path), "--lot", "B包", "--mode", "aligned", "--analysis", "table", "--no-review",
                 "--base-url", llm_server.base_url, "--model", "m", "-o", str(out), "-q"])
    assert code == 0
    chapters = json.loads(out.read_text(encoding="utf-8"))["outline"]
    assert [c["title"] for c in chapters] == TECHNICAL["B包"]

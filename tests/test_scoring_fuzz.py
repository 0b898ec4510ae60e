"""Nothing inside scoring detection is fatal: perturbed tables never make the reader raise.

Each tender's tables are perturbed in memory — cells merged (``None``), tables split in two,
cells shuffled within a row, digits turned circled (①) or full-width (１２), spacer rows
inserted, rows cut short — and read again. The reading must return a result, and no
candidate may have been set aside because its own reading raised ("解析出错"): that would
mean the reader survived only through its last-resort guard. Runs on the generated fixtures
(always) and on the tenders in ../shared (skipped when absent).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from app.documents.ingest import ingest_tender
from app.documents.loader import load_tender
from app.documents.model import Table, TenderDocument
from app.documents.scoring.model import ScoringResult
from app.documents.scoring.table import parse_scoring, scoring_diagnostics
from tests.conftest import TENDERS
from tests.scoring_fixtures import build
from tests.scoring_fixtures_unseen import ALL_FIXTURES, build_any

Cells = list[str | None]
_CIRCLED = dict(zip("0123456789", "⓪①②③④⑤⑥⑦⑧⑨", strict=True))
_FULL = dict(zip("0123456789.", "０１２３４５６７８９．", strict=True))


def _digits(text: str | None, table: dict[str, str], rng: random.Random) -> str | None:
    if text is None or rng.random() < 0.5:
        return text
    return "".join(table.get(ch, ch) for ch in text)


def _merge(rows: list[Cells], rng: random.Random) -> list[Cells]:
    out = [list(r) for r in rows]
    for r in out[1:]:
        for j in range(len(r)):
            if rng.random() < 0.25:
                r[j] = None
    return out


def _shuffle(rows: list[Cells], rng: random.Random) -> list[Cells]:
    out = []
    for r in rows:
        r = list(r)
        if rng.random() < 0.4:
            rng.shuffle(r)
        out.append(r)
    return out


def _spacers(rows: list[Cells], rng: random.Random) -> list[Cells]:
    out: list[Cells] = []
    for r in rows:
        out.append(list(r))
        if rng.random() < 0.3:
            out.append(["" if rng.random() < 0.7 else None for _ in r])
    return out


def _ragged(rows: list[Cells], rng: random.Random) -> list[Cells]:
    return [list(r[: rng.randint(0, len(r))]) if rng.random() < 0.3 else list(r) for r in rows]


def _circled(rows: list[Cells], rng: random.Random) -> list[Cells]:
    return [[_digits(c, _CIRCLED, rng) for c in r] for r in rows]


def _full_width(rows: list[Cells], rng: random.Random) -> list[Cells]:
    return [[_digits(c, _FULL, rng) for c in r] for r in rows]


ROW_PERTURBATIONS: dict[str, Callable[[list[Cells], random.Random], list[Cells]]] = {
    "merge": _merge, "shuffle": _shuffle, "spacers": _spacers, "ragged": _ragged,
    "circled": _circled, "full_width": _full_width,
}


def _split(tables: list[Table], rng: random.Random) -> list[Table]:
    out: list[Table] = []
    for t in tables:
        if len(t.rows) < 3 or rng.random() < 0.5:
            out.append(t)
            continue
        k = rng.randint(1, len(t.rows) - 1)
        out.append(t.model_copy(update={"rows": t.rows[:k], "ends_page": True}))
        out.append(t.model_copy(update={"id": t.id + "s", "rows": t.rows[k:], "caption": "", "starts_page": True}))
    return out


def perturbed(doc: TenderDocument, how: str, seed: int) -> TenderDocument:
    """A copy of ``doc`` whose tables are perturbed ``how`` (a ROW_PERTURBATIONS key, "split" or "all")."""
    rng = random.Random(seed)
    tables = [t.model_copy(deep=True) for t in doc.tables]
    names = list(ROW_PERTURBATIONS) if how == "all" else [how] if how in ROW_PERTURBATIONS else []
    for t in tables:
        for name in names:
            t.rows = ROW_PERTURBATIONS[name](t.rows, rng)
    if how in ("split", "all"):
        tables = _split(tables, rng)
    return doc.model_copy(update={"tables": tables})


HOWS = [*ROW_PERTURBATIONS, "split", "all"]


def _assert_survives(result: ScoringResult) -> None:
    crashed = [c.rejected for c in result.candidates if c.rejected.startswith("解析出错")]
    crashed += [n for n in result.notes if n.startswith("解析出错")]
    assert not crashed, crashed
    assert result.found or result.message_zh
    scoring_diagnostics(result)  # the diagnostics the UI lists are built without raising


@pytest.mark.parametrize("name", sorted(ALL_FIXTURES))
def test_perturbed_fixture_never_raises(tmp_path: Path, name: str) -> None:
    path, _ = build_any(name, tmp_path)
    doc = load_tender(path)
    for seed, how in enumerate(HOWS * 3):
        _assert_survives(parse_scoring(perturbed(doc, how, seed)))


def test_a_reading_that_raises_is_a_rejected_candidate(tmp_path: Path) -> None:
    """The guard itself: a table whose cells are not text is set aside with the reason, not fatal."""
    path, _ = build("three_tables", tmp_path)
    doc = load_tender(path)
    bad = doc.tables[0].model_copy(update={"id": "bad", "rows": [["序号", "评分因素", "分值"], ["1", "方案", "10"]]})
    bad.rows[1][1] = 7  # type: ignore[call-overload]  # not a str: the reading of this table raises
    doc = doc.model_copy(update={"tables": [bad, *doc.tables]})
    result = parse_scoring(doc)
    failed = [c for c in result.candidates if c.rejected.startswith("解析出错")]
    assert [c.table_ids for c in failed] == [["bad"]]
    assert result.found and result.total_points == 100  # the other tables are still read
    assert any("解析出错" in d.message_zh for d in scoring_diagnostics(result))


def _labelled() -> list[str]:
    path = TENDERS / "labels.json"
    if not path.is_file():
        return []
    names = [n for n, v in json.loads(path.read_text(encoding="utf-8")).items() if v.get("has_table")]
    return sorted(n for n in names if n.endswith(".docx"))[:6] + sorted(n for n in names if n.endswith(".pdf"))[:3]


@pytest.mark.real_tender
@pytest.mark.parametrize("name", _labelled() or ["(no ../shared/tenders)"])
def test_perturbed_real_tender_never_raises(name: str, tenders_dir: Path) -> None:
    doc = ingest_tender(tenders_dir / name).document
    for seed, how in enumerate(HOWS):
        _assert_survives(parse_scoring(perturbed(doc, how, seed)))

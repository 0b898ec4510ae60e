"""Every labelled tender in ../shared/tenders read right (skipped when the folder is absent).

The comparison is the benchmark's own (``tests/eval/score_tables.py``): units with the right
name, points and category; the technical subtotal; no look-alike table claimed; a fitting
Chinese reason where a tender has no scoring table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.documents.ingest import ingest_tender
from tests.conftest import TENDERS
from tests.eval.score_tables import evaluate

pytestmark = pytest.mark.real_tender


def _labels() -> dict[str, Any]:
    path = TENDERS / "labels.json"
    if not path.is_file():
        return {}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


LABELS = _labels()


@pytest.mark.parametrize("name", sorted(LABELS) or ["(no ../shared/tenders)"])
def test_labelled_tender(name: str, tenders_dir: Path) -> None:
    label = LABELS[name]
    verdict = evaluate(name, label, ingest_tender(tenders_dir / name))
    wrong = [(u.name, u.found, u.parsed) for u in verdict.units if u.found != "ok"]
    assert not wrong, wrong
    assert verdict.tech_ok, (verdict.tech_found, verdict.tech_label)
    assert not verdict.wrong_tables, verdict.wrong_tables
    if verdict.reason_fits is not None:
        assert verdict.reason_fits, verdict.message

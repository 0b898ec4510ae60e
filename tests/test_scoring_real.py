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

# First look at the twenty tenders added on 2026-12-02 (issue 36): the reader as it stood gets these
# wrong. Each mark is removed when its layout class is read right; strict, so a fix shows at once.
_NOT_YET_READ: dict[str, str] = {
    # Read right but for the category of staff-credential rows, which the document leaves to a rule:
    # these labels file them under 商务 while the labels of sichuan (服务人员要求), zhejiang-gov
    # (项目团队情况), huangpu (拟投入本项目人员…) and baoshan-market (拟派人员能力) file the same kind
    # under 技术; no rule about the layout tells them apart, so the reading stays unconfirmed here.
    "shanghai-it-operations.pdf": "人员投入 (学历/业绩/证书 of the staff) labelled 商务 under the buyer's group 服务质量",
    "shanghai-ship-crew-labour.pdf": "拟派团队情况 (staff experience and certificates) labelled 商务 without any group",
}


def _cases() -> list[Any]:
    if not LABELS:
        return ["(no ../shared/tenders)"]
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=f"issue 36: {_NOT_YET_READ[name]}"))
            if name in _NOT_YET_READ else name for name in sorted(LABELS)]


@pytest.mark.parametrize("name", _cases())
def test_labelled_tender(name: str, tenders_dir: Path) -> None:
    label = LABELS[name]
    verdict = evaluate(name, label, ingest_tender(tenders_dir / name))
    wrong = [(u.name, u.found, u.parsed) for u in verdict.units if u.found != "ok"]
    assert not wrong, wrong
    assert verdict.tech_ok, (verdict.tech_found, verdict.tech_label)
    assert not verdict.wrong_tables, verdict.wrong_tables
    if verdict.reason_fits is not None:
        assert verdict.reason_fits, verdict.message

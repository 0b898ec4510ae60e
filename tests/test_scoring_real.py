"""Every labelled tender in ../shared/tenders read right (skipped when the folder is absent).

The comparison is the benchmark's own (``tests/eval/score_tables.py``): units with the right
name, points and category; the technical subtotal; no look-alike table claimed; a fitting
Chinese reason where a tender has no scoring table.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from app.documents.ingest import ingest_tender
from tests.conftest import TENDERS
from tests.eval.score_tables import as_pdf, evaluate

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
# The two left are read right but for staff rows whose category the document leaves to words, and
# there the labels contradict each other (``python tests/eval/category_rows.py ../shared/tenders``):
# staff credentials counted per certificate are 商务 here but 技术 in sichuan (服务人员要求) and
# zhejiang-gov (项目团队情况); staff experience judged in grades (综合打分) is 商务 in ship-crew but 技术
# in huangpu, baoshan-market, luodian, baoshan-police, jiaxing and shanghai-special-security. No rule
# from the criteria text meets all of these labels, so the reading stays unconfirmed and marked here.
_NOT_YET_READ: dict[str, str] = {
    "shanghai-it-operations.pdf": "人员投入 (学历/证书 counted per person) labelled 商务; sichuan, zhejiang-gov label the like 技术",
    "shanghai-ship-crew-labour.pdf": "拟派团队情况 (experience judged in grades) labelled 商务; huangpu, baoshan-market, luodian label the like 技术",
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


_DOCX = sorted(n for n in LABELS if n.endswith(".docx"))


@pytest.fixture(scope="module")
def as_pdf_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The labelled DOCX tenders as PDFs rendered by LibreOffice (Word's own PDF export looks alike),
    with their labels: another layout of the same tables, read by the PDF path."""
    if not TENDERS.is_dir():
        pytest.skip("../shared/tenders is not present")
    if not (shutil.which("soffice") or shutil.which("libreoffice")):
        pytest.skip("LibreOffice is not installed")
    return as_pdf(TENDERS, tmp_path_factory.mktemp("as_pdf"))


@pytest.mark.libreoffice
@pytest.mark.parametrize("name", _DOCX or ["(no ../shared/tenders)"])
def test_docx_tender_read_as_pdf(name: str, as_pdf_folder: Path) -> None:
    pdf = name.removesuffix(".docx") + ".pdf"
    labels = json.loads((as_pdf_folder / "labels.json").read_text(encoding="utf-8"))
    verdict = evaluate(pdf, labels[pdf], ingest_tender(as_pdf_folder / pdf))
    wrong = [(u.name, u.found, u.parsed) for u in verdict.units if u.found != "ok"]
    assert not wrong, wrong
    assert verdict.tech_ok, (verdict.tech_found, verdict.tech_label)
    if verdict.reason_fits is not None:
        assert verdict.reason_fits, verdict.message
    assert not (verdict.confirmed and not verdict.right), "a wrong reading shown as confirmed"

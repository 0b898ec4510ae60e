"""The format-chapter reader on the labelled shared tenders (skipped without ../shared/tenders).

The same pairing as ``tests/eval/forms_eval.py``: a floor for forms found, a ceiling for forms
no label names, and no tender without a format chapter given one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.eval.forms_eval import LABELS, evaluate

pytestmark = pytest.mark.real_tender


def _labels() -> dict[str, list[str]]:
    data = json.loads(LABELS.read_text(encoding="utf-8"))
    return {k: v["forms"] for k, v in data.items() if not k.startswith("_")}


def test_forms_found_against_the_labels(tenders_dir: Path) -> None:
    found = labelled = invented = 0
    for name, forms in _labels().items():
        v = evaluate(tenders_dir / name, forms, fill=False)
        found += v.matched
        labelled += len(forms)
        invented += len(v.invented)
        if not forms:
            assert v.found == [], name
    assert labelled >= 250
    assert found / labelled >= 0.90, (found, labelled)
    assert invented <= 15

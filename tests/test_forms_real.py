"""The format-chapter reader on the labelled shared tenders (skipped without ../shared/tenders).

The same pairing as ``tests/eval/forms_eval.py``: a floor for forms found and a ceiling for forms no
label names, on the development labels and on the check labels (tenders labelled after the rules were
written), and no tender without a format chapter given one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.eval.forms_eval import LABELS, evaluate

pytestmark = pytest.mark.real_tender


def _labels() -> dict[str, dict[str, object]]:
    data = json.loads(LABELS.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def test_forms_found_against_the_labels(tenders_dir: Path) -> None:
    totals: dict[str, list[int]] = {}
    for name, label in _labels().items():
        forms = list(label["forms"])  # type: ignore[call-overload]
        v = evaluate(tenders_dir / name, forms, fill=False)
        t = totals.setdefault(str(label.get("set", "dev")), [0, 0, 0])
        t[0] += v.matched
        t[1] += len(forms)
        t[2] += len(v.invented)
        if not forms:
            assert v.found == [], name
    found, labelled, invented = totals["dev"]
    assert labelled >= 290
    assert found / labelled >= 0.98, (found, labelled)  # 290/294 when written
    assert invented == 0
    found, labelled, invented = totals["check"]  # labelled after the rules: goods, works
    assert labelled >= 80
    assert found / labelled >= 0.97, (found, labelled)  # 85/85 when written
    assert invented <= 1

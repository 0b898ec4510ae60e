"""Issue 38.3/38.4 on every shared tender: what a broken model's user gets is valid and answers what is scored.

The loopback server answers every call with the same unusable sentence (``tests/eval/code_only.py``):
the breaker hands every chapter to code fill. Every readable tender must end with a valid outline,
no code heading the app's own rules refuse, and at least 90 % of its criteria points answered by a
heading or the description under it. Skipped without ``../shared/tenders``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.analysis import Analysis


@pytest.mark.real_tender
def test_every_shared_tender_gets_a_valid_outline_from_code_alone(tenders_dir: Path, tmp_path: Path) -> None:
    from tests.eval.code_only import generate, tenders_of
    from tests.eval.outline_quality import code_headings, judge, load_outline

    tenders = tenders_of(tenders_dir, [])
    generate(tenders, tmp_path)
    problems: list[str] = []
    readable = 0
    for t in tenders:
        status = json.loads((tmp_path / f"{t.stem}.status.json").read_text(encoding="utf-8"))
        if str(status.get("status", "")).startswith("unreadable"):
            continue
        readable += 1
        report = json.loads((tmp_path / f"{t.stem}.report.json").read_text(encoding="utf-8"))
        if not report["valid"]:
            problems.append(f"{t.name}: invalid {report['issues'][:2]}")
            continue
        analysis = Analysis.model_validate_json((tmp_path / f"{t.stem}.analysis.json").read_text(encoding="utf-8"))
        verdict = judge(load_outline(tmp_path / f"{t.stem}.outline.json"), analysis, t.stem)
        refused = [h.line() for h in code_headings(verdict) if h.refused]
        if refused:
            problems.append(f"{t.name}: refused {refused[:3]}")
        if verdict.points_share < 0.9:
            problems.append(f"{t.name}: points {verdict.points_covered}/{verdict.points_total}")
    assert readable >= 40 and problems == []

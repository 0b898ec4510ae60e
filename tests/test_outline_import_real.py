"""导入目录 on ../shared: which tenders prescribe a technical structure, and how chapters map to items.

Labels: tests/data/chapter_mapping_labels.json (by hand); figures: ``python tests/eval/chapter_mapping.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.eval.chapter_mapping import (
    labels,
    mapping_on_human_outlines,
    mapping_on_prescribed,
    prescribed_found,
)

pytestmark = pytest.mark.real_tender


def test_only_the_tenders_that_prescribe_a_technical_structure_offer_one(tenders_dir: Path) -> None:
    expected = {name: [c[0] for c in chapters] for name, chapters in labels()["prescribed"].items()}
    found = prescribed_found()
    assert len(found) >= 45
    assert {n: t for n, t in found.items() if t} == expected  # none elsewhere; these, chapter for chapter


def test_chapter_mapping_proposes_nothing_wrong_on_the_labelled_chapters(tenders_dir: Path) -> None:
    on_prescribed = mapping_on_prescribed()
    assert on_prescribed.wrong == []
    assert on_prescribed.must - len(on_prescribed.missed) >= 26, on_prescribed.missed  # of 29 (the earlier matcher: 27, and 1 wrong)
    human = mapping_on_human_outlines()
    assert human.wrong == [] and human.unjudged == []  # a new proposal must be judged in the labels first
    assert human.right >= 50  # of 72 judged right (the earlier matcher: 75, with 13 wrong)

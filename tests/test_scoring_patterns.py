"""Every hard scoring-table pattern on a generated tender (bare checkout, no ../shared needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.documents.loader import load_tender
from app.documents.scoring.model import ScoreCategory, ScoringResult
from app.documents.scoring.table import parse_scoring
from tests.scoring_fixtures_unseen import ALL_FIXTURES, build_any


def _read(name: str, tmp_path: Path) -> tuple[ScoringResult, object]:
    path, expect = build_any(name, tmp_path)
    return parse_scoring(load_tender(path)), expect


@pytest.mark.parametrize("name", sorted(ALL_FIXTURES))
def test_pattern_is_read_right(name: str, tmp_path: Path) -> None:
    path, expect = build_any(name, tmp_path)
    result = parse_scoring(load_tender(path))
    got = [(r.factor, r.points, r.category.value) for r in result.rows]
    assert got == [(n, float(p), c) for n, p, c in expect.rows], result.message_zh
    technical = sum(r.points or 0 for r in result.rows_in(ScoreCategory.TECHNICAL))
    assert technical == pytest.approx(expect.technical)
    assert result.absence == expect.absence
    if expect.rows:
        assert result.found and not result.issues, result.issues
        kinds = {"table", "paragraphs"} if expect.kind == "mixed" else {expect.kind}
        assert {t.kind for t in result.tables} == kinds
    else:
        assert not result.found and not result.tables
    reasons = " ".join(c.rejected for c in result.candidates)
    for word in expect.rejected:
        assert word in reasons, (word, reasons)
    for factor, points in expect.sub_points.items():
        row = next(r for r in result.rows if r.factor == factor)
        assert [i.points for i in row.scored_items] == points
    if name == "parts_as_factors":
        assert [i.name for i in result.rows[1].items] == ["运维服务方案", "故障响应机制", "备品备件保障"]
    if name == "sub_names":
        assert [i.name for i in result.rows[0].items] == ["总体部署", "进度计划", "质量保证"]
    if name == "tag_cut":  # the sub-item cut after its tag is named by what the next page holds
        assert [i.name for i in result.rows[1].items] == ["操作应用培训", "维修保养培训"]
    if name == "tag_cut_first":  # the row's one item at the break, named from the next page too
        assert [i.name for i in result.rows[1].items] == ["操作应用培训", "维修保养培训"]


@pytest.mark.parametrize(("cell", "points"), [
    ("≤10分", 10), ("10（每项2分）", 10), ("0~ 10", 10), ("30%", 30), ("0;3;6", 6), ("等次分值选择：0.0;3.0;6.0", 6),
    ("2024年", None), ("服务方案（25分）", None), ("①", None), ("１２", 12),
])
def test_points_cells(cell: str, points: float | None) -> None:
    from app.documents.scoring.cells import points_value

    assert points_value(cell) == points

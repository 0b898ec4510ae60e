"""评审模拟 on drafted bids built from real tenders' criteria: no false alarms, planted gaps found.

The full figures over every tender come from ``tests/eval/review_eval.py``; this checks a
few tenders with different criteria styles (graded sentences, ①②③ with sub-items,
numbered sub-criteria with points) so a regression shows in the test run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.export.submission_checks import submission_checks
from app.pipeline.evaluation.clauses import clause_coverage
from app.pipeline.evaluation.review import review_bid
from tests.review_bids import complete_bid, leak_name, remove_point, tender_analysis, unanswer_clause

pytestmark = pytest.mark.real_tender

TENDERS = ("guangdong-tax-services.pdf", "beijing-model-tender.pdf", "baoshan-police-property.docx",
           "yangjiang-tax-canteen.pdf")


@pytest.mark.parametrize("name", TENDERS)
def test_complete_bid_has_no_gap_and_each_removed_point_is_missing(tenders_dir: Path, name: str) -> None:
    path = tenders_dir / name
    if not path.is_file():
        pytest.skip(f"{name} is not in ../shared/tenders")
    analysis, risks = tender_analysis(path)
    bid = complete_bid(analysis, risks)
    review = review_bid(analysis, bid.chapters)
    assert review.items and all(p.status == "answered" for i in review.items for p in i.points)
    assert review.expected == pytest.approx(review.maximum)
    found = 0
    for group_id, index in bid.point_sections:
        item = next(i for i in review_bid(analysis, remove_point(bid, group_id, index).chapters).items
                    if i.group.id == group_id)
        found += item.points[index].status == "missing"
    assert found >= 0.75 * len(bid.point_sections)


def test_unanswered_star_clause_and_leaked_name_block(tenders_dir: Path) -> None:
    path = tenders_dir / "yangjiang-tax-canteen.pdf"
    if not path.is_file():
        pytest.skip("yangjiang-tax-canteen.pdf is not in ../shared/tenders")
    analysis, risks = tender_analysis(path)
    bid = complete_bid(analysis, risks)

    def checks(b: object, **kw: object) -> list[str]:
        addressed = {c.risk_index: c.answered_by for c in clause_coverage(b.breakdown, b.chapters)}  # type: ignore[attr-defined]
        return [f.rule for f in submission_checks(analysis, b.chapters, b.breakdown, addressed=addressed,  # type: ignore[attr-defined]
                                                  **kw) if f.blocking]  # type: ignore[arg-type]

    assert checks(bid) == []
    star = next(i for i, r in enumerate(bid.breakdown.risks) if r.mark == "★" and i in bid.clause_sections)
    assert checks(unanswer_clause(bid, star)) == ["★条款"]
    assert "暗标" in checks(leak_name(bid, "恒信配送"), anonymous=True, bidder="广州市恒信配送服务有限公司")

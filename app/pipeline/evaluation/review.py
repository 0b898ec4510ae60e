"""The 自评表: every technical scoring item, its points' statuses, evidence and expected score.

:func:`review_bid` reads the outline (titles and section text) once, then for every
technical item looks for each point first in the sections that answer the item (its
one-to-one chapter, the sections the user mapped to it) and, when it is not answered
there, in the whole bid — an answer in another chapter counts, with a note saying so,
because an evaluator may not look there. Pure code, no model; a 300-section bid takes a
fraction of a second.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.core.analysis import Analysis, ScoringGroup
from app.core.outline import OutlineNode, Path
from app.core.response_map import index_entries
from app.pipeline.evaluation.matching import BidText, Evidence, PointMatch, PointStatus, match_point
from app.pipeline.evaluation.terms import PointTerms, item_points, specific_grams
from app.pipeline.evaluation.tiers import RULE_ZH, Estimate, estimate, parse_rule

DecidedBy = Literal["code", "model"]


@dataclass
class PointReview:
    """One criteria point of an item: its status, where it is answered, and who decided."""

    label: str
    status: PointStatus
    evidence: list[Evidence] = field(default_factory=list)
    note: str = ""
    points: float | None = None
    decided_by: DecidedBy = "code"
    terms: PointTerms | None = None

    @property
    def paths(self) -> list[Path]:
        """The sections quoted as evidence."""
        return [e.path for e in self.evidence]


@dataclass
class ItemReview:
    """One technical scoring item as an evaluator would score it."""

    group: ScoringGroup
    points: list[PointReview]
    estimate: Estimate
    rule: str
    sections: tuple[Path, ...] = ()

    @property
    def gaps(self) -> list[PointReview]:
        """The points that lose marks (thin or missing)."""
        return [p for p in self.points if p.status != "answered"]


@dataclass
class BidReview:
    """The whole 自评表: items, the expected technical score and the maximum."""

    items: list[ItemReview]
    seconds: float = 0.0

    @property
    def expected(self) -> float:
        """The expected technical score (sum over items)."""
        return sum(i.estimate.expected for i in self.items)

    @property
    def maximum(self) -> float:
        """The technical maximum (items with stated points)."""
        return sum(i.estimate.maximum or 0.0 for i in self.items)

    def counts(self) -> dict[str, int]:
        """How many points are answered, thin and missing."""
        out = {"answered": 0, "thin": 0, "missing": 0}
        for item in self.items:
            for p in item.points:
                out[p.status] += 1
        return out


def _better(a: PointMatch, b: PointMatch) -> bool:
    return b.score > a.score


def item_words(group: ScoringGroup, others: Sequence[ScoringGroup]) -> frozenset[str]:
    """The specific bigrams of an item's title no other item's title has (食堂 for 食堂服务方案)."""
    own = set(specific_grams(group.title))
    for other in others:
        if other.id != group.id:
            own -= specific_grams(other.title)
    return frozenset(own)


def review_item(group: ScoringGroup, text: BidText, sections: Sequence[Path],
                words: frozenset[str] = frozenset()) -> ItemReview:
    """Review one item: each point matched in ``sections`` first, then in the whole bid.

    Outside the item's sections only passages about the item count (``words``: its title's
    distinctive bigrams, in the passage, its title or a parent's), so a sibling item's
    "驾驶服务人员管理制度" is not read as the answer to "食堂服务人员管理制度".
    """
    local = text.under(sections)
    wide_passages = text.with_words(words) if sections else text.passages
    reviews: list[PointReview] = []
    points = item_points(group)
    for terms in points:
        near, far = local, wide_passages
        if terms.context:  # a sub-item: around its parent point ("食品安全管理" for "储存")
            around = {p.path for p in text.with_words(terms.context, below_chapter=True)}
            near = [p for p in local if p.path in around]
            far = [p for p in wide_passages if p.path in around]
        found = match_point(terms, near, points) if near else PointMatch("missing")
        if found.status != "answered":
            wide = match_point(terms, far, points)
            if _better(found, wide):
                outside = [e for e in wide.evidence if not any(e.path[: len(s)] == s for s in sections)]
                status, note = wide.status, wide.note
                if outside and sections:  # the evaluator reads the item's own chapter
                    status = "thin"
                    note = f"答在“{outside[0].heading}”，不在本评分项对应章节"
                if not (outside and sections and wide.status != "answered"):  # a passing mention elsewhere is no answer
                    found = PointMatch(status, wide.evidence, note, wide.score)
        reviews.append(PointReview(terms.label, found.status, found.evidence, found.note, terms.points, terms=terms))
    sub = [p.points for p in reviews]
    rule = parse_rule(group.description, sub)
    est = estimate(rule, [p.status for p in reviews], group.points, sub)
    return ItemReview(group, reviews, est, RULE_ZH[rule.kind], tuple(sections))


def rescore(item: ItemReview) -> None:
    """Recompute ``item``'s estimate after a status changed (a model's closed answer)."""
    sub = [p.points for p in item.points]
    rule = parse_rule(item.group.description, sub)
    item.estimate = estimate(rule, [p.status for p in item.points], item.group.points, sub)


def review_bid(analysis: Analysis, chapters: Sequence[OutlineNode],
               overrides: Mapping[Path, str] | None = None) -> BidReview:
    """The 自评表 of the bid: every technical scoring item, in the analysis's order.

    ``overrides`` give some sections' text as it is being typed (not yet in the outline).
    """
    started = time.perf_counter()
    text = BidText(chapters, overrides)
    entries = {e.group.id: e.paths for e in index_entries(analysis, chapters)}
    technical = [g for g in analysis.groups if g.category == "technical"]
    items = [review_item(g, text, entries.get(g.id, ()), item_words(g, technical)) for g in technical]
    return BidReview(items, time.perf_counter() - started)

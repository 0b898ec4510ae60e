"""Which ★/▲ clauses the bid's text addresses, by code.

A clause is addressed when its own specific words come back in the bid: the section the
deviation table points at (``answered_in``) holds them, or some section of the bid does.
The 提交前检查 uses the answer to refuse the default 无偏离 on a ★ clause nothing in the
text answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.breakdown import Breakdown
from app.core.outline import OutlineNode
from app.core.response_map import find_section
from app.pipeline.evaluation.matching import BidText, Passage, coverage
from app.pipeline.evaluation.terms import PointTerms, point_terms

_MARKS = re.compile(r"^[\s★▲]*(?:\d{1,3}(?:\.\d{1,3}){0,3}\s*[、.．)）]?|[（(]\d{1,3}[)）]|[①-⑳])?\s*[★▲]?")


@dataclass(frozen=True)
class ClauseCoverage:
    """One ★/▲ clause: its index in the breakdown's risks, and the section heading that answers it (or "")."""

    risk_index: int
    mark: str
    answered_by: str


def clause_terms(text: str) -> PointTerms | None:
    """The terms of a clause: its first sentence without item numbers and marks."""
    body = _MARKS.sub("", text or "")
    first = re.split(r"[。；;\n]", body, maxsplit=1)[0][:60]
    return point_terms(first)


def _shown(terms: PointTerms, passages: Sequence[Passage]) -> Passage | None:
    for passage in passages:
        if coverage(terms, passage.title) >= 1.0 or any(coverage(terms, s) >= 1.0 for s in passage.sentences):
            return passage
    return None


def clause_coverage(breakdown: Breakdown | None, chapters: Sequence[OutlineNode]) -> list[ClauseCoverage]:
    """Every ★/▲ clause of ``breakdown`` with the section whose text addresses it ("" when none)."""
    if breakdown is None:
        return []
    text = BidText(chapters)
    out = []
    for index, risk in breakdown.marked():
        terms = clause_terms(risk.text)
        where: Passage | None = None
        if terms is not None:
            path = find_section(chapters, risk.answered_in) if risk.answered_in else None
            pointed = text.under([path]) if path is not None else []
            where = _shown(terms, pointed) or _shown(terms, text.passages)
        out.append(ClauseCoverage(index, risk.mark or "", where.heading if where is not None else ""))
    return out

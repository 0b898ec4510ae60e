"""Drafted bids built by code from a tender's criteria points, complete or with planted gaps.

The 评审模拟 benchmark (``tests/eval/review_eval.py``) and tests use them: a *complete* bid
has one chapter per technical scoring item (as one-to-one mode builds them), one section per
criteria point, titled after it, whose text speaks about the point in a few sentences (and
gives a number in every unit the point asks for), plus a chapter answering each ★/▲
clause. Gaps are planted by removing a point's section, emptying a clause's answer, or
writing the bidder's name into a section.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass, field
from pathlib import Path

from app.core.analysis import Analysis
from app.core.breakdown import Breakdown, RiskItem
from app.core.outline import OutlineNode
from app.documents.clauses import find_clauses
from app.documents.loader import load_tender
from app.pipeline.analysis.breakdown import clause_risk, requirement_input
from app.pipeline.analysis.tender import analyze_tender
from app.pipeline.evaluation.clauses import clause_terms
from app.pipeline.evaluation.terms import PointTerms, item_points
from app.pipeline.outline.run import locked_chapters

_FILLER = ("我方结合采购需求和现场条件，明确责任分工、工作流程和时间节点，对关键环节设置检查点，"
           "确保各项要求落实到位、过程可追溯、结果可验证。")
CLAUSE_CHAPTER = "技术响应与承诺"


def point_text(terms: PointTerms) -> str:
    """A few sentences about one point (with a number in each unit it asks for)."""
    label = terms.label.split("：")[-1]
    lines = [f"针对{label}，我方制定了专门的工作安排，由项目负责人统筹，明确岗位和职责。",
             f"{label}的具体做法包括事前计划、过程检查和事后复盘，每月形成记录并向采购人报告。"]
    lines += [f"{label}相关的时限和数量按 {n} {unit}执行。" for n, unit in zip((2, 3, 4, 5), terms.units, strict=False)]
    return "".join(lines) + _FILLER


@dataclass
class DraftedBid:
    """A bid as the app holds it, plus which section answers which point and clause."""

    analysis: Analysis
    chapters: list[OutlineNode]
    breakdown: Breakdown
    #: (group id, point index) -> (chapter index, section index)
    point_sections: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    #: risk index -> section index in the clause chapter
    clause_sections: dict[int, int] = field(default_factory=dict)

    def copy(self) -> DraftedBid:
        """A deep copy to plant a gap in."""
        return copy.deepcopy(self)


def tender_analysis(path: Path) -> tuple[Analysis, list[RiskItem]]:
    """The code-only analysis of a tender and its ★/▲ clauses as risks."""
    doc = load_tender(path)
    analysis = asyncio.run(analyze_tender(None, doc))
    pages, _heads = requirement_input(doc)
    risks = [clause_risk(c) for c in find_clauses(pages, phrases=False) if c.mark]
    return analysis, risks


def complete_bid(analysis: Analysis, risks: list[RiskItem], filler_sections: int = 0) -> DraftedBid:
    """The complete drafted bid for ``analysis`` (and ``filler_sections`` extra sections of general text)."""
    chapters = locked_chapters(analysis.technical_groups)
    bid = DraftedBid(analysis, chapters, Breakdown(status="executable"))
    for ci, (chapter, group) in enumerate(zip(chapters, analysis.technical_groups, strict=True)):
        for pi, terms in enumerate(item_points(group)):
            chapter.children.append(OutlineNode(title=terms.label[:40], content=point_text(terms)))
            bid.point_sections[(group.id, pi)] = (ci, len(chapter.children) - 1)
    if filler_sections:
        general = [OutlineNode(title=f"项目总体认识{k + 1}", children=[
            OutlineNode(title=f"总体安排{k + 1}.{i + 1}", content=_FILLER * 3)
            for i in range(min(12, filler_sections - 12 * k))]) for k in range(-(-filler_sections // 12))]
        chapters[:0] = general
        bid.point_sections = {k: (c + len(general), s) for k, (c, s) in bid.point_sections.items()}
    answers = OutlineNode(title=CLAUSE_CHAPTER)
    kept: list[RiskItem] = []
    for risk in risks:
        terms = clause_terms(risk.text)
        if terms is None:
            continue
        answers.children.append(OutlineNode(title=f"条款响应{len(kept) + 1}",
                                            content=f"我方完全响应：{risk.text[:200]}。" + _FILLER))
        kept.append(risk.model_copy(update={"answered_in": f"{len(chapters) + 1}.{len(answers.children)}"}))
        bid.clause_sections[len(kept) - 1] = len(answers.children) - 1
    if answers.children:
        chapters.append(answers)
    bid.breakdown = Breakdown(status="executable", risks=kept)
    for i, c in enumerate(chapters):
        c.id = str(i + 1)
    return bid


def remove_point(bid: DraftedBid, group_id: str, point: int) -> DraftedBid:
    """A copy of ``bid`` without the section answering ``point`` of ``group_id``."""
    out = bid.copy()
    ci, si = out.point_sections[(group_id, point)]
    out.chapters[ci].children[si] = out.chapters[ci].children[si].model_copy(update={"content": "", "title": "（已删除）"})
    del out.chapters[ci].children[si]
    return out


def unanswer_clause(bid: DraftedBid, risk_index: int) -> DraftedBid:
    """A copy of ``bid`` whose ★/▲ clause ``risk_index`` has no answering text (the row left at 无偏离)."""
    out = bid.copy()
    section = out.clause_sections[risk_index]
    out.chapters[-1].children[section].content = _FILLER
    out.chapters[-1].children[section].title = f"条款说明{section + 1}"
    out.breakdown.risks[risk_index].answered_in = None
    return out


def leak_name(bid: DraftedBid, name: str, chapter: int = 0) -> DraftedBid:
    """A copy of ``bid`` with ``name`` written into the first section of ``chapter``."""
    out = bid.copy()
    target = out.chapters[chapter].children[0] if out.chapters[chapter].children else out.chapters[chapter]
    target.content += f"{name}将为本项目组建专门团队。"
    return out

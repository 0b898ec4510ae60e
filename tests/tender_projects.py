"""A bid project built from a real tender by code alone (no model), for export checks and previews.

The scoring table gives the one-to-one chapters (as the app builds them), each chapter gets
three sections with a few paragraphs of filler text so the document runs over many pages,
and the ★/▲ clauses found by code become the deviation table, each answered by a section
in turn. Used by ``tests/test_export_layout.py`` and ``tests/tools/render_response_tables.py``.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
from dataclasses import dataclass
from pathlib import Path

from app.core.analysis import Analysis
from app.core.breakdown import Breakdown
from app.core.outline import OutlineNode
from app.documents.clauses import find_clauses
from app.documents.loader import load_tender
from app.export.options import ExportMeta
from app.pipeline.analysis.breakdown import clause_risk, requirement_input
from app.pipeline.analysis.tender import analyze_tender
from app.pipeline.outline.run import locked_chapters

_SECTIONS = ("总体思路", "具体措施", "保障机制")
_PARAGRAPH = (
    "针对本评分项，我方结合采购需求和项目特点制定了具体方案，明确责任分工、工作流程和时间节点，"
    "并对关键环节设置检查点，确保各项要求落实到位、过程可追溯、结果可验证。"
)


@dataclass
class TenderProject:
    """What the exporter needs: chapters, analysis, breakdown and cover data."""

    chapters: list[OutlineNode]
    analysis: Analysis
    breakdown: Breakdown
    meta: ExportMeta


def tender_project(path: Path, paragraphs: int = 6) -> TenderProject:
    """Build the project for the tender at ``path`` (scoring table and ★/▲ clauses read by code)."""
    doc = load_tender(path)
    analysis = asyncio.run(analyze_tender(None, doc))
    chapters = locked_chapters(analysis.technical_groups)
    for chapter in chapters:
        chapter.children = [
            OutlineNode(title=f"{chapter.title[:20]}{name}", content="\n".join(
                f"{i + 1}. {_PARAGRAPH}" if i % 3 == 2 else _PARAGRAPH for i in range(paragraphs)))
            for name in _SECTIONS
        ]
    pages, _heads = requirement_input(doc)
    risks = [clause_risk(c) for c in find_clauses(pages, phrases=False) if c.mark]
    for i, risk in enumerate(risks):
        chapter = i % len(chapters) if chapters else 0
        risk.answered_in = f"{chapter + 1}.{i % len(_SECTIONS) + 1}" if chapters else None
    meta = ExportMeta(project_name=analysis.overview.project_name or path.stem,
                      bidder_name="【投标人名称】", date=_dt.date(2026, 12, 8))
    return TenderProject(chapters, analysis, Breakdown(status="executable", risks=risks), meta)

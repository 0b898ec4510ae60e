"""The chapters of a free-mode outline when no model can propose them.

A tender without technical scoring, and a model that never answers usefully (or a run whose
budget ran out before the top level): :func:`free_chapters` takes the tender's own requirements
structure (its 采购需求 headings that name parts of the work), else the sections of the generic
plan written for the tender's kind and domains. Every chapter carries its ``origin`` (tender /
library); code fill then plans each one like any other chapter.
"""

from __future__ import annotations

import re

from app.core.analysis import Analysis
from app.core.outline import OutlineNode
from app.pipeline.headings.candidates import GENERIC_FOR, heading_defect
from app.pipeline.headings.domain import tender_profile
from app.pipeline.headings.library import HeadingLibrary, default_library
from app.pipeline.headings.match import rank_variants

#: Requirements headings that are not parts of the technical answer (background, the bid's own form, contract terms).
_NOT_A_PART = re.compile(r"概况|概述|背景|简介|基本情况|项目情况|项目说明|总则|采购范围|采购内容|采购清单|需求一览|"
                         r"响应文件|投标文件|编制要求|合同|付款|报价|商务|资格|交付时间|交货期|服务期限|地点|验收标准|"
                         r"预算|其他|说明|附件|评分|评审")
#: The generic plan for a tender whose kind its words do not say, by its first domain.
_PLAN_FOR_DOMAIN = {"works": "construction_org", "goods": "technical_solution"}
MAX_FREE_CHAPTERS = 8


def _requirement_chapters(analysis: Analysis) -> list[OutlineNode]:
    top = min((h.level for h in analysis.requirement_headings), default=1)
    out: list[OutlineNode] = []
    seen: set[str] = set()
    project = analysis.overview.project_name
    for h in analysis.requirement_headings:
        title = re.sub(r"\s+", "", h.text)
        if h.level != top or _NOT_A_PART.search(title) or title in seen or not 4 <= len(title) <= 20:
            continue
        if heading_defect(title, 1, project=project):
            continue
        seen.add(title)
        out.append(OutlineNode(title=title, origin="tender", description=f"采购需求：{h.text}"[:200]))
    return out[:MAX_FREE_CHAPTERS]


def _generic_chapters(analysis: Analysis, library: HeadingLibrary) -> list[OutlineNode]:
    profile = tender_profile(analysis)
    key: str = profile.kind or (profile.ranked[0] if profile.ranked else "services")
    plan = GENERIC_FOR.get(key) if key in ("works", "goods") else _PLAN_FOR_DOMAIN.get(key)
    ids = [plan or GENERIC_FOR["services"], GENERIC_FOR["services"]]
    for entry_id in ids:
        entry = library.get(entry_id)
        if entry is None or not profile.fits_entry(entry):
            continue
        variants = rank_variants(entry, analysis.technical_requirements, analysis.overview.project_name, profile)
        for v in variants:
            sections = [s for s in v.sections if profile.fits(s.kinds, s.domains)]
            if len(sections) >= 3:
                return [OutlineNode(title=s.title, description=s.description, origin="library",
                                    origin_source=f"标题库：{entry.name}") for s in sections]
    return []


def free_chapters(analysis: Analysis, library: HeadingLibrary | None = None) -> list[OutlineNode]:
    """Chapters for a free-mode outline no model could propose: the tender's requirements structure when it
    names at least three parts of the work, else the generic plan for the tender's kind and domains."""
    chapters = _requirement_chapters(analysis)
    if len(chapters) < 3:
        chapters = _generic_chapters(analysis, library or default_library())
    for i, ch in enumerate(chapters):
        ch.id = str(i + 1)
    return chapters

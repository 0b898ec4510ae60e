"""A one-to-one outline built by code alone, without any model (the bundled sample uses it).

Chapters are the technical scoring items (the same locked chapters a model run starts
from); sections and points come from what code can ground: the items' criteria and the
heading library (``plan_outline``). Every node carries its ``origin`` (tender / library),
so the UI can say the outline was not written by a model.
"""

from __future__ import annotations

from app.core.analysis import Analysis
from app.core.outline import OutlineNode
from app.pipeline.evaluation.point_fill import complete_plan
from app.pipeline.headings.candidates import plan_outline
from app.pipeline.outline.repair import renumber_nodes
from app.pipeline.outline.run import locked_chapters


def code_outline(analysis: Analysis) -> list[OutlineNode]:
    """One chapter per technical scoring item with code-planned sections and points ([] without items)."""
    groups = analysis.technical_groups
    chapters = locked_chapters(groups)
    if not chapters:
        return []
    plans = plan_outline([(ch.title, g) for ch, g in zip(chapters, groups, strict=True)], analysis, levels=2,
                         complete=complete_plan)
    built = [ch.model_copy(update={"children": [n.model_copy(deep=True) for n in plan.nodes], "origin": "tender"})
             for ch, plan in zip(chapters, plans, strict=True)]
    renumber_nodes(built)
    return built

"""Every pydantic model the app sends to a model as a response schema, for budget checks.

The outline schemas are built from settings (levels, item counts, with or without
descriptions); this lists each variant the settings can produce, so a test can build
the wire schema of every one and check it against the grammar budget
(:mod:`app.llm.json.wire_schema`). A new structured call adds its model here.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from app.core.breakdown import ModelBreakdown
from app.pipeline.analysis.second_reader import ReadRows
from app.pipeline.analysis.tender import ModelGroups, ModelOverview
from app.pipeline.headings.fill import pick_model, refine_model
from app.pipeline.headings.subsections import SubsectionTitles
from app.pipeline.outline.review import ReviewVerdict
from app.pipeline.outline.schemas import chapters_model, children_model, full_outline_model

#: Item counts the outline settings can ask for (the wire caps anything above).
_ITEM_COUNTS = range(2, 13)


def wire_models() -> Iterator[type[BaseModel]]:
    """Each response model the app can send, every outline variant included."""
    yield from (ModelOverview, ModelGroups, ModelBreakdown, ReviewVerdict, SubsectionTitles, ReadRows)
    for hi in _ITEM_COUNTS:
        for lo in range(2, min(hi, 4) + 1):
            yield chapters_model(lo, hi)
        for levels in (1, 2, 3):
            for descriptions in (True, False):
                yield children_model(levels, 2, hi, descriptions)
        for depth in (2, 3, 4):
            yield full_outline_model(depth, min(hi, 8), hi)
        yield pick_model(hi, min(hi, 3), hi)
        for descriptions in (True, False):
            yield refine_model(hi, descriptions)

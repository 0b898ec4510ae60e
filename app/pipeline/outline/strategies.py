"""The generation strategies a run may use, in default order."""

from __future__ import annotations

from app.pipeline.outline.steps import OutlineStrategy
from app.pipeline.outline.strategy_json import JsonStrategy
from app.pipeline.outline.strategy_stream import StreamStrategy


def make_strategies() -> list[OutlineStrategy]:
    """Fresh strategy objects: whole JSON and the instruction stream."""
    return [JsonStrategy(), StreamStrategy()]

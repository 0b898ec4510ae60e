"""``bidstudio-cli analyze TENDER --breakdown``: the requirement breakdown as JSON.

Adds the ``--breakdown`` flag to ``analyze`` and runs
:func:`app.pipeline.analysis.breakdown.run_document_breakdown` on the located requirement
section, with the endpoint options of :mod:`app.cli.endpoint`.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from app.cli.endpoint import endpoint_from_args

if TYPE_CHECKING:
    from app.documents.locate import LocatedSections
    from app.documents.model import TenderDocument
    from app.llm.client.llm_client import EndpointConfig
    from app.pipeline.analysis.breakdown import BreakdownOutcome


def add_breakdown_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--breakdown`` (the endpoint options come from :mod:`app.cli.endpoint`)."""
    parser.add_argument("--breakdown", action="store_true", help="用模型拆解采购需求（五字段，JSON 输出）")


async def _run(cfg: EndpointConfig, doc: TenderDocument, sections: LocatedSections) -> BreakdownOutcome:
    from app.llm.client.llm_client import LLMClient
    from app.pipeline.analysis.breakdown import run_document_breakdown

    async with LLMClient(cfg) as client:
        return await run_document_breakdown(client, doc, sections.requirements)


def breakdown_report(args: argparse.Namespace, doc: TenderDocument, sections: LocatedSections) -> tuple[dict[str, Any], bool]:
    """Run the breakdown; returns the JSON-able report and whether the model setup failed."""
    import asyncio

    outcome = asyncio.run(_run(endpoint_from_args(args), doc, sections))
    report = {
        "breakdown": outcome.breakdown.model_dump(mode="json"),
        "breakdown_run": {
            "requirements": sections.requirements.model_dump(mode="json") if sections.requirements else None,
            "clauses": {"★": sum(c.mark == "★" for c in outcome.clauses),
                        "▲": sum(c.mark == "▲" for c in outcome.clauses),
                        "phrase": sum(c.mark is None for c in outcome.clauses)},
            "chunks": outcome.chunks,
            "failed_chunks": outcome.failed_chunks,
            "calls": outcome.calls,
            "prompt_tokens": outcome.prompt_tokens,
            "completion_tokens": outcome.completion_tokens,
            "config_error": outcome.config_error,
        },
    }
    return report, bool(outcome.config_error)

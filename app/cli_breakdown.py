"""``bidstudio-cli analyze TENDER --breakdown``: the requirement breakdown as JSON.

Adds the ``--breakdown`` flag and the model endpoint options to ``analyze`` and runs
:func:`app.pipeline.breakdown.run_document_breakdown` on the located requirement
section. Endpoint settings come from options or the environment variables
``BIDSTUDIO_BASE_URL``, ``BIDSTUDIO_MODEL`` and ``BIDSTUDIO_API_KEY`` (``OPENAI_API_KEY``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

from app.documents.locate import LocatedSections
from app.documents.model import TenderDocument
from app.llm.client import EndpointConfig, LLMClient
from app.pipeline.breakdown import BreakdownOutcome, run_document_breakdown


class EndpointMissing(ValueError):
    """``--breakdown`` was asked for without a model endpoint (a usage error)."""

    message_zh = "--breakdown 需要模型设置：--base-url 和 --model（或环境变量 BIDSTUDIO_BASE_URL、BIDSTUDIO_MODEL）。"


def add_breakdown_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--breakdown`` and the endpoint options to a subcommand parser."""
    parser.add_argument("--breakdown", action="store_true", help="用模型拆解采购需求（五字段，JSON 输出）")
    group = parser.add_argument_group("模型设置（--breakdown 时使用）")
    group.add_argument("--base-url", default=os.environ.get("BIDSTUDIO_BASE_URL"), help="OpenAI 兼容接口地址")
    group.add_argument("--model", default=os.environ.get("BIDSTUDIO_MODEL"), help="模型名称")
    group.add_argument("--api-key", default=os.environ.get("BIDSTUDIO_API_KEY") or os.environ.get("OPENAI_API_KEY"),
                       help="API 密钥（本地服务可填任意字符串）")
    group.add_argument("--context-size", type=int, default=8192, help="模型上下文长度（token）")
    group.add_argument("--max-tokens", type=int, default=2048, help="每次输出的最大 token 数")
    group.add_argument("--timeout", type=float, default=120.0, help="单次请求超时（秒）")


def endpoint_from_args(args: argparse.Namespace) -> EndpointConfig:
    """The endpoint configuration given on the command line (EndpointMissing when incomplete)."""
    if not args.base_url or not args.model:
        raise EndpointMissing(EndpointMissing.message_zh)
    return EndpointConfig(base_url=args.base_url, api_key=args.api_key or "none", model=args.model,
                          context_size=args.context_size, max_tokens=args.max_tokens, timeout=args.timeout)


async def _run(cfg: EndpointConfig, doc: TenderDocument, sections: LocatedSections) -> BreakdownOutcome:
    async with LLMClient(cfg) as client:
        return await run_document_breakdown(client, doc, sections.requirements)


def breakdown_report(args: argparse.Namespace, doc: TenderDocument, sections: LocatedSections) -> tuple[dict[str, Any], bool]:
    """Run the breakdown; returns the JSON-able report and whether the model setup failed."""
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

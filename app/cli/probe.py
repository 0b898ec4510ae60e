"""``bidstudio-cli probe --base-url … --model …``: measure what an endpoint really does.

Prints the :class:`~app.llm.client.probe.EndpointProfile` (speed, first token, system messages,
structured output, context size) as a Chinese summary or, with ``--json``, as JSON that the
settings and ``outline --profile`` can take. Exit 0 when the endpoint answered, 5 when not.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from app.cli.common import EXIT_ENDPOINT, EXIT_OK, bounded_number, check_output_path, write_json
from app.cli.endpoint import add_endpoint_arguments, endpoint_from_args
from app.core.terminal_text import shown


def cmd_probe(args: argparse.Namespace) -> int:
    """Probe the endpoint and print (or write) its profile."""
    if args.local_servers:
        return _list_local_servers(args)
    from app.llm.client.probe import CONTEXT_STEPS, probe_endpoint

    check_output_path(args.output, "--output")  # before minutes of measuring
    cfg = endpoint_from_args(args)
    steps = [s for s in CONTEXT_STEPS if s <= max(2048, args.max_context)]

    def step(text: str) -> None:
        if not args.quiet:
            print(shown(text), file=sys.stderr, flush=True)

    profile = asyncio.run(probe_endpoint(cfg, context_steps=steps, on_step=step))
    if args.json or args.output:
        write_json(profile.to_dict(), args.output)
    if not args.json:
        print(f"{cfg.base_url}（{shown(cfg.model)}）：{shown(profile.summary_zh())}", file=sys.stderr)
        for note in profile.notes:
            print(f"提示：{shown(note)}", file=sys.stderr)
    return EXIT_OK if profile.reachable else EXIT_ENDPOINT


def _list_local_servers(args: argparse.Namespace) -> int:
    """``probe --local-servers``: the model servers answering on this machine's usual ports, and the built-in one."""
    from app.llm.local.discovery import find_local_servers
    from app.llm.local.embedded import embedded_status

    found = asyncio.run(find_local_servers())
    status = embedded_status()
    if args.json or args.output:
        write_json({"servers": [{"label": s.label, "preset": s.preset, "base_url": s.base_url,
                                 "models": list(s.models), "more_models": s.more_models} for s in found],
                    "embedded": {"ready": status.ready, "missing": status.missing_zh()}}, args.output)
    if not args.json:
        for server in found:
            print(server.summary_zh())  # model ids escaped there (the settings list shows the same line)
        if not found:
            print("本机常用端口（11434、1234、8080、8000）上没有找到模型服务。")
        print("内置本地模型：已安装（bidstudio-cli outline TENDER --local）" if status.ready else status.missing_zh())
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``probe`` to the CLI."""
    p = sub.add_parser("probe", help="测量模型服务：速度、上下文长度、系统消息、结构化输出")
    p.add_argument("--json", action="store_true", help="以 JSON 输出测量结果")
    p.add_argument("-o", "--output", metavar="PATH", help="把测量结果 JSON 写入文件")
    p.add_argument("--max-context", type=bounded_number(int, 256, 10_000_000), default=32768, help="测量上下文长度时最多尝试的 token 数")
    p.add_argument("--quiet", "-q", action="store_true", help="不打印进度")
    p.add_argument("--local-servers", action="store_true",
                   help="只列出本机（127.0.0.1）常用端口上正在运行的模型服务及其模型，不做测量")
    add_endpoint_arguments(p)
    p.set_defaults(func=cmd_probe)

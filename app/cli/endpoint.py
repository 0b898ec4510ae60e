"""Model endpoint options shared by every CLI subcommand that calls a model.

One set of options and one function turning them into an :class:`EndpointConfig`. The API
key is read from an environment variable (``--api-key-env``, default ``BIDSTUDIO_API_KEY``
then ``OPENAI_API_KEY``), never from the command line, where process listings and shell
history would show it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import TYPE_CHECKING

from app.cli.common import CliUsageError, bounded_number
from app.core.terminal_text import shown

if TYPE_CHECKING:
    from app.llm.client.llm_client import EndpointConfig

DEFAULT_KEY_VARIABLES = ("BIDSTUDIO_API_KEY", "OPENAI_API_KEY")
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


def add_endpoint_arguments(parser: argparse.ArgumentParser, title: str = "模型设置", timeout: float = 0.0) -> None:
    """Add ``--base-url --model --api-key-env --context-size --max-tokens --timeout --temperature``."""
    g = parser.add_argument_group(title)
    g.add_argument("--base-url", default=os.environ.get("BIDSTUDIO_BASE_URL"), help="OpenAI 兼容接口地址")
    g.add_argument("--model", default=os.environ.get("BIDSTUDIO_MODEL"), help="模型名称")
    g.add_argument("--api-key-env", metavar="VAR",
                   help="保存 API 密钥的环境变量名（默认 BIDSTUDIO_API_KEY，其次 OPENAI_API_KEY；本地服务可不设）")
    g.add_argument("--context-size", type=bounded_number(int, 256, 10_000_000), default=8192,
                   help="模型上下文长度（token）")
    g.add_argument("--max-tokens", type=bounded_number(int, 1, 1_000_000), default=2048, help="每次输出的最大 token 数")
    g.add_argument("--timeout", type=bounded_number(float, 0.0, 86_400.0), default=timeout,
                   help="每次调用的总时限（秒，不是每次读取的时限）；0 表示按输出长度和测得的速度自动确定")
    g.add_argument("--profile", metavar="PATH", help="probe 子命令输出的测量结果 JSON（按其中的速度、上下文设置调用）")
    g.add_argument("--temperature", type=bounded_number(float, 0.0, 2.0), default=0.3, help="采样温度（0–2）")
    g.add_argument("--local", action="store_true",
                   help="使用内置本地模型（无需联网，需先 pip install \"bidstudio[local]\"）：程序自己在本机启动并在结束时停止它")
    g.add_argument("--local-model", metavar="GGUF",
                   help="与 --local 一起使用：用这个 GGUF 模型文件代替内置的小模型（3B、7B 模型效果好得多）")


def local_endpoint(args: argparse.Namespace) -> EndpointConfig:
    """``--local``: a managed llama.cpp server on a free loopback port, kept on ``args.managed_server``.

    The server starts with the first call (``transport.lifecycle``) and the caller stops it.
    """
    from pathlib import Path

    from app.core.settings_model import data_dir
    from app.llm.client.llm_client import EndpointConfig
    from app.llm.local.embedded import (
        BUNDLED_ALIAS,
        BUNDLED_CHAT_FORMAT,
        ManagedServer,
        ServerSpec,
        bundled_model_file,
        embedded_status,
        machine_choice,
    )

    status = embedded_status()
    given = getattr(args, "local_model", None)
    if not status.server or (not given and not status.bundled_model):
        raise CliUsageError(status.missing_zh())
    if given:
        path = Path(given)
        if not path.is_file():
            raise CliUsageError(f"--local-model {given}：文件不存在")
        alias, chat_format = path.stem[:60] or "local", ""
    else:
        path, alias, chat_format = bundled_model_file(data_dir() / "models"), BUNDLED_ALIAS, BUNDLED_CHAT_FORMAT
    choice = machine_choice()
    context = min(args.context_size, choice.context) if args.context_size else choice.context

    def say(_state: str, message: str) -> None:
        if not getattr(args, "quiet", False):
            print(shown(message), file=sys.stderr, flush=True)

    server = ManagedServer(ServerSpec(model_path=path, alias=alias, context=context, threads=choice.threads,
                                      chat_format=chat_format),
                           log_file=data_dir() / "embedded-server.log", on_state=say)
    args.managed_server = server
    return EndpointConfig(base_url=server.base_url, api_key="not-needed", model=alias, max_tokens=args.max_tokens,
                          timeout=args.timeout, context_size=context, temperature=args.temperature, concurrency=1,
                          system_in_user=bool(chat_format))


def has_endpoint(args: argparse.Namespace) -> bool:
    """Whether both ``--base-url`` and ``--model`` were given (or set in the environment), or ``--local``."""
    return bool(getattr(args, "local", False)) or bool(getattr(args, "base_url", None) and getattr(args, "model", None))


def endpoint_from_args(args: argparse.Namespace) -> EndpointConfig:
    """The endpoint configuration from the options; a usage error when something is missing."""
    if getattr(args, "local", False):
        return local_endpoint(args)
    if not has_endpoint(args):
        raise CliUsageError("需要模型设置：--base-url 和 --model（或环境变量 BIDSTUDIO_BASE_URL、BIDSTUDIO_MODEL）")
    from app.llm.client.llm_client import EndpointConfig

    env = getattr(args, "api_key_env", None)
    if env:
        if not _VARIABLE_NAME.fullmatch(env):  # most likely the key itself: never echo it
            raise CliUsageError("--api-key-env 需要的是保存密钥的环境变量的名字（如 MY_API_KEY），不是密钥本身；"
                                "请先 export MY_API_KEY=密钥，再写 --api-key-env MY_API_KEY")
        key = os.environ.get(env, "")
        if not key:
            raise CliUsageError(f"环境变量 {env} 未设置（--api-key-env 指定的 API 密钥变量）")
    else:
        key = next((os.environ[v] for v in DEFAULT_KEY_VARIABLES if os.environ.get(v)), "")
    from app.llm.client.endpoint_values import api_key_problem, base_url_problem

    problem = base_url_problem(args.base_url) or api_key_problem(key)
    if problem:  # the message never contains the key
        raise CliUsageError(problem)
    cfg = EndpointConfig(base_url=args.base_url, api_key=key or "no-key", model=args.model,
                         max_tokens=args.max_tokens, timeout=args.timeout, context_size=args.context_size,
                         temperature=args.temperature)
    path = getattr(args, "profile", None)
    if path:
        import json
        from pathlib import Path

        from app.llm.client.probe import EndpointProfile

        try:
            profile = EndpointProfile.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError) as exc:
            raise CliUsageError(f"无法读取测量结果 {path}：{exc}") from exc
        cfg = profile.apply(cfg)
    return cfg

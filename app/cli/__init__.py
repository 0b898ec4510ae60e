"""``bidstudio-cli``: the headless entry point over the same code the GUI runs.

Each subcommand lives in its own module with a ``register(subparsers)`` function that adds
its parser and sets ``func`` to an ``(args) -> int`` handler. :data:`SUBCOMMANDS` lists them
explicitly. Modules import only the standard library at import time; a handler imports the
pipeline it needs when it runs, so ``--help`` stays fast.
Exit codes: 0 ok, 2 usage, 3 unreadable input, 4 model failure, 5 endpoint failure.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import TextIO, cast

from app.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    KEY_REFUSAL,
    CliArgumentParser,
    CliOutputError,
    CliUsageError,
    Handler,
    refuses_key_option,
)

#: Subcommand modules under ``app.cli``, in the order ``--help`` lists them.
SUBCOMMANDS = ("analyze", "outline", "probe")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand of :data:`SUBCOMMANDS`."""
    parser = CliArgumentParser(prog="bidstudio-cli", description="标书工坊 BidStudio 命令行")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"app.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (never raises for bad input)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    from app.core.secrets import ScrubbingStream, install_log_scrubber
    from app.core.terminal_text import TerminalStream

    install_log_scrubber()
    out, err = sys.stdout, sys.stderr
    # Secrets scrubbed, then no control or bidi character reaches the terminal (server text is also
    # printed through app.core.terminal_text.shown, which escapes its newlines too).
    safe_out, safe_err = cast("TextIO", TerminalStream(out)), cast("TextIO", TerminalStream(err))
    sys.stdout, sys.stderr = ScrubbingStream(safe_out), ScrubbingStream(safe_err)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if refuses_key_option(argv):  # checked before argparse, which would echo the value
        print(f"用法错误：{KEY_REFUSAL}", file=sys.stderr)
        return EXIT_USAGE
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    func: Handler | None = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    from app.documents.errors import DocumentError

    try:
        return func(args)
    except CliUsageError as exc:
        print(f"用法错误：{exc}", file=sys.stderr)
        return EXIT_USAGE
    except DocumentError as exc:
        print(f"无法读取招标文件：{exc.message_zh}", file=sys.stderr)
        return EXIT_UNREADABLE
    except CliOutputError as exc:
        print(f"无法写入输出文件：{exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # output piped into `head` and closed early
        return EXIT_OK
    except KeyboardInterrupt:
        print("已取消", file=sys.stderr)
        return 130
    except Exception as exc:  # last resort: a short message, never a traceback
        print(f"内部错误：{type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR


__all__ = ["SUBCOMMANDS", "build_parser", "main"]

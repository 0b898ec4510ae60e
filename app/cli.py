"""``bidstudio-cli``: the headless entry point over the same code the GUI runs.

Subcommands register themselves through :func:`subcommand`: a function that receives
the subparsers object, adds its parser and sets ``func`` to a ``(args) -> int`` handler.
Another layer adds a subcommand by writing one such function here (or importing a
module that does). Exit codes: 0 ok, 2 usage, 3 unreadable input, 4 model failure.
No traceback reaches the user for bad input: DocumentError becomes its Chinese message.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.documents.errors import DocumentError
from app.documents.ingest import ingest_tender
from app.documents.loader import DEFAULT_MAX_BYTES
from app.documents.locate import LocatedSections
from app.documents.model import DiagnosticCode, TenderDocument
from app.documents.scoring_model import ScoringResult

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_UNREADABLE = 3
EXIT_MODEL = 4

Handler = Callable[[argparse.Namespace], int]
Registrar = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]
_REGISTRARS: list[Registrar] = []


def subcommand(fn: Registrar) -> Registrar:
    """Decorator: register a function that adds one subcommand to the CLI."""
    _REGISTRARS.append(fn)
    return fn


class CliUsageError(Exception):
    """A bad option combination found by a handler (exit code 2)."""


def ingest(path: str, password: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple[
    TenderDocument, ScoringResult, LocatedSections
]:
    """Load a tender, parse its scoring tables and locate its sections (model-free)."""
    result = ingest_tender(path, password=password, max_bytes=max_bytes)
    return result.document, result.scoring, result.sections


def ingest_report(doc: TenderDocument, scoring: ScoringResult, sections: LocatedSections) -> dict[str, Any]:
    """The JSON-able report of ``analyze`` without a model."""
    return {
        "file": doc.source_path,
        "kind": doc.kind,
        "page_count": doc.page_count,
        "page_numbers_estimated": doc.page_numbers_estimated,
        "unreadable_pages": doc.unreadable_pages,
        "diagnostics": [d.model_dump(mode="json") for d in doc.diagnostics],
        "sections": {s.kind: s.model_dump(mode="json") for s in sections.all()},
        "scoring": {
            "found": scoring.found,
            "message_zh": scoring.message_zh,
            "confidence": scoring.confidence,
            "total_points": scoring.total_points,
            "points_by_category": scoring.points_by_category(),
            "checks_passed": scoring.checks_passed,
            "issues": scoring.issues,
            "tables": [t.model_dump(mode="json") for t in scoring.tables],
        },
    }


def _fmt_points(x: float | None) -> str:
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def print_report(doc: TenderDocument, scoring: ScoringResult, sections: LocatedSections) -> None:
    """Human-readable Chinese summary of the model-free analysis."""
    pages = f"{doc.page_count} 页" + ("（估算）" if doc.page_numbers_estimated else "")
    print(f"文件：{doc.source_path}（{doc.kind}，{pages}）")
    print("诊断：" if doc.diagnostics else "诊断：无问题")
    for d in doc.diagnostics:
        print(f"  [{d.severity.value}] {d.message_zh}")
    names = {"overview": "项目概况", "requirements": "采购需求", "scoring": "评分办法"}
    print("定位：" if sections.all() else "定位：未找到项目概况、采购需求或评分办法")
    for s in sections.all():
        title = f"（{s.title}）" if s.title else ""
        print(f"  {names[s.kind]}：{s.pages_zh}{title}")
    print(f"评分表：{scoring.message_zh}")
    if scoring.found:
        print(f"  可信度 {scoring.confidence:.2f}；按类别：" + "，".join(
            f"{k} {_fmt_points(v)} 分" for k, v in scoring.points_by_category().items()
        ))
        for t in scoring.tables:
            label = t.label or "评分表"
            print(f"  {label}（第{'、'.join(map(str, t.pages))}页）")
            for r in t.rows:
                num = f"{r.number} " if r.number else ""
                print(f"    {num}[{r.category.value}] {r.factor}：{_fmt_points(r.points)} 分（第{r.page}页）")
        for msg in scoring.checks_passed:
            print(f"  ✓ {msg}")
        for msg in scoring.issues:
            print(f"  ✗ {msg}")


def _write_json(data: dict[str, Any], output: str | None) -> None:
    """Print JSON to stdout, or write it to ``output`` via a temp file and rename."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    if not output:
        print(text)
        return
    target = Path(output)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(target)


def cmd_analyze(args: argparse.Namespace) -> int:
    """``analyze TENDER``: diagnostics, located sections and scoring rows."""
    if args.max_mb is not None and args.max_mb <= 0:
        raise CliUsageError("--max-mb 必须大于 0")
    max_bytes = int(args.max_mb * 1024 * 1024) if args.max_mb else DEFAULT_MAX_BYTES
    doc, scoring, sections = ingest(args.tender, password=args.password, max_bytes=max_bytes)
    if getattr(args, "breakdown", False):
        from app.cli_breakdown import breakdown_report

        extra, model_failed = breakdown_report(args, doc, sections)
        _write_json({**ingest_report(doc, scoring, sections), **extra}, args.output)
        return EXIT_MODEL if model_failed else EXIT_OK
    from app.cli_endpoint import has_endpoint

    if has_endpoint(args):  # model analysis (app/cli_outline.py)
        from app.cli_outline import model_analysis

        extra, code = model_analysis(args, doc, scoring)
        _write_json({**ingest_report(doc, scoring, sections), **extra}, args.output)
        return code
    if args.json or args.output:
        _write_json(ingest_report(doc, scoring, sections), args.output)
    else:
        print_report(doc, scoring, sections)
    if any(d.code == DiagnosticCode.NO_READABLE_TEXT for d in doc.diagnostics):
        return EXIT_UNREADABLE
    return EXIT_OK


@subcommand
def _add_analyze(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("analyze", help="读取招标文件：诊断、定位章节、解析评分表")
    p.add_argument("tender", help="招标文件（PDF、DOCX、DOC/WPS、TXT/MD）")
    p.add_argument("--json", action="store_true", help="以 JSON 输出")
    p.add_argument("--output", "-o", metavar="PATH", help="把 JSON 结果写入文件")
    p.add_argument("--password", help="PDF 的打开密码")
    p.add_argument("--max-mb", type=float, default=None, help="文件大小上限（MB），默认 200")
    from app.cli_breakdown import add_breakdown_arguments
    from app.cli_endpoint import add_endpoint_arguments

    add_breakdown_arguments(p)
    add_endpoint_arguments(p, "模型设置（--breakdown 或模型分析时使用）", timeout=120.0)
    p.set_defaults(func=cmd_analyze)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(prog="bidstudio-cli", description="标书工坊 BidStudio 命令行")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for registrar in _REGISTRARS:
        registrar(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (never raises for bad input)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    func: Handler | None = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return func(args)
    except CliUsageError as exc:
        print(f"用法错误：{exc}", file=sys.stderr)
        return EXIT_USAGE
    except DocumentError as exc:
        print(f"无法读取招标文件：{exc.message_zh}", file=sys.stderr)
        return EXIT_UNREADABLE
    except BrokenPipeError:  # output piped into `head` and closed early
        return EXIT_OK
    except KeyboardInterrupt:
        print("已取消", file=sys.stderr)
        return 130
    except Exception as exc:  # last resort: a short message, never a traceback
        print(f"内部错误：{type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR


from app import cli_outline as _cli_outline  # noqa: E402, F401  registers the "outline" subcommand

if __name__ == "__main__":
    from app.cli import main as _main  # the package module, where subcommands registered themselves

    sys.exit(_main())

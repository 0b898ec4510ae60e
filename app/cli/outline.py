"""``bidstudio-cli outline TENDER``: a whole run, tender to valid outline, headless.

Reads the tender, analyses it (table first, model for what needs language), runs the
outline pipeline in free or one-to-one (aligned) mode against any OpenAI-compatible
endpoint, and writes ``outline.json``, optionally a Word file and a JSON run report.
Exit codes: 0 valid outline, 3 unreadable tender, 4 no valid outline (model failure,
budget), 5 endpoint error (unreachable, 401/403, unknown model), 2 usage.
Also adds the model analysis to ``analyze`` when ``--base-url`` and ``--model`` are given.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from app.cli.common import (
    EXIT_CANCELLED,
    EXIT_ENDPOINT,
    EXIT_ERROR,
    EXIT_MODEL,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    CliOutputError,
    CliUsageError,
    add_lot_argument,
    add_tender_arguments,
    bounded_number,
    check_distinct_outputs,
    check_output_path,
    chosen_lot,
    ingest,
    ocr_off_hint,
    ocr_option,
    tender_options,
    write_json,
)
from app.cli.endpoint import add_endpoint_arguments, endpoint_from_args
from app.core.terminal_text import shown, shown_lines

if TYPE_CHECKING:
    from app.core.analysis import Analysis
    from app.core.pipeline_events import PipelineEvent
    from app.documents.model import TenderDocument
    from app.documents.scoring.model import ScoringResult
    from app.library.store import LibraryStore
    from app.llm.client.journal import CallJournal
    from app.llm.client.llm_client import EndpointConfig
    from app.pipeline.outline.job import OutlineSettings
    from app.pipeline.outline.result import OutlineResult

__all__ = ["EXIT_ENDPOINT", "cmd_outline", "model_analysis", "register"]


def _progress(quiet: bool) -> Any:
    def show(ev: PipelineEvent) -> None:
        if quiet:
            return
        where = f" [{ev.chapter}/{ev.chapters}]" if ev.chapter and ev.chapters else ""
        est = "≈" if ev.tokens_estimated else ""
        print(f"[{ev.stage}]{where} {shown(ev.message)}（调用 {ev.calls} 次，{est}{ev.tokens} tokens）", file=sys.stderr,
              flush=True)
    return show


async def _run_outline(args: argparse.Namespace, cfg: EndpointConfig, doc: TenderDocument,
                       scoring: ScoringResult, where: _Stage) -> tuple[Analysis, OutlineResult]:
    from app.core.rules.outline import OutlineLimits
    from app.llm.client.journal import CallJournal
    from app.pipeline.outline.budget import RunBudget
    from app.pipeline.outline.job import OutlineSettings

    settings = OutlineSettings(
        mode=args.mode, limits=OutlineLimits(depth=args.depth),
        budget=RunBudget(max_calls=args.max_calls, max_tokens=args.max_run_tokens, max_minutes=args.max_minutes),
        strategy=args.strategy or _profile_strategy(args), review=not args.no_review, guidance=args.guidance or "",
        switch_after=args.switch_after if args.switch_after > 0 else 10**6,
        json_attempts=max(1, args.json_attempts), chapter_attempts=max(1, args.chapter_attempts),
    )
    if args.no_code_fill:
        settings = replace(settings, code_fill=False)
    if args.compact:
        settings = replace(settings, descriptions=False, max_sections=4, max_leaves=3)
    past = _open_library(args.library) if args.library else None
    if past is not None:
        settings = replace(settings, library=past)
    progress = _progress(args.quiet)
    journal = CallJournal(Path(args.journal)) if args.journal else None
    try:
        return await _generate(args, cfg, doc, scoring, where, settings, progress, journal)
    finally:
        if past is not None:
            past.close()


async def _generate(args: argparse.Namespace, cfg: EndpointConfig, doc: TenderDocument, scoring: ScoringResult,
                    where: _Stage, settings: OutlineSettings, progress: Any,
                    journal: CallJournal | None) -> tuple[Analysis, OutlineResult]:
    from app.llm.client.llm_client import LLMClient
    from app.pipeline.analysis.tender import analyze_tender
    from app.pipeline.outline.budget import RunMeter
    from app.pipeline.outline.run import generate_outline

    async with LLMClient(cfg, journal=journal) as client:
        client.transport.lifecycle = getattr(args, "managed_server", None)  # --local: started with the first call
        meter = RunMeter(budget=settings.budget, progress=progress)
        where.name = "analysis"
        analysis = await analyze_tender(None if args.analysis == "table" else client, doc, scoring=scoring,
                                        meter=meter, model_groups=True if args.analysis == "model" else None)
        where.name = "outline"
        result = await generate_outline(client, analysis, settings, progress=progress, draft=where.draft)
        health = client.transport.health
        if health.never_answered:  # a web page or broken events every time: the address is wrong, not the model
            where.not_openai = (health.not_openai, health.not_openai_detail)
    # The analysis calls count towards the run's figures.
    result.meter.record("analysis", meter.calls, meter.prompt_tokens, meter.completion_tokens, meter.tokens_estimated)
    result.meter.started = min(result.meter.started, meter.started)
    return analysis, result


def _open_library(path: str) -> LibraryStore:
    """The user's library at ``path`` (a 资料库 file that exists); a usage error in Chinese otherwise."""
    from app.library.store import LibraryError, LibraryStore

    if not Path(path).is_file():
        raise CliUsageError(f"--library {path}：资料库文件不存在")
    try:
        return LibraryStore(Path(path))
    except LibraryError as exc:
        raise CliUsageError(f"--library {path}：{exc.message_zh}") from exc


def _profile_strategy(args: argparse.Namespace) -> Literal["json", "stream"]:
    """The strategy a probe profile suggests (``json`` where the schema is enforced), else ``json``."""
    path = getattr(args, "profile", None)
    if not path:
        return "json"
    from app.llm.client.probe import EndpointProfile

    try:
        profile = EndpointProfile.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
        return "json" if profile.suggested_strategy == "json" else "stream"
    except (OSError, ValueError, TypeError):
        return "json"


def _export_docx(result: OutlineResult, analysis: Analysis, path: str) -> str | None:
    try:
        from app.export import ExportMeta, export_docx
    except ImportError:  # pragma: no cover - export layer absent in a partial checkout
        return "导出模块不可用，未生成 Word 文件"
    try:
        export_docx(result.chapters, path, ExportMeta(project_name=analysis.overview.project_name))
    except Exception as exc:  # ExportError carries message_zh; anything else is reported too
        return f"导出 Word 失败：{getattr(exc, 'message_zh', exc)}"
    return None


class _Stage:
    """Which stage of a run is going on, so a failure report can name it."""

    def __init__(self) -> None:
        from app.core.outline import Outline

        self.name = "setup"
        self.draft = Outline()  # the live tree the run fills: what a cancel or SIGTERM still saves
        self.not_openai: tuple[int, str] | None = None  # (calls, why) when no call got an OpenAI answer


def _save_partial(args: argparse.Namespace, started: float, where: _Stage, why: str) -> None:
    """Cancelled (SIGINT) or terminated (SIGTERM): write the outline so far and a report saying so."""
    chapters = list(where.draft.chapters)
    note = "未生成任何章节"
    if chapters:
        try:
            write_json(where.draft.to_document().model_dump(mode="json"), args.output)
            note = f"已保存部分目录（{len(chapters)} 章）" + (f"到 {args.output}" if args.output else "")
        except (CliOutputError, ValueError) as exc:
            note = f"部分目录未能写入：{exc}"
    _failure_report(args, started, where.name, "cancelled", f"{why}：{note}", why, EXIT_CANCELLED)


def _terminate_as_interrupt() -> None:
    """SIGTERM ends the run like Ctrl+C does, so what was generated is written before exiting."""
    import signal

    def handler(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # not the main thread (a test calling main() from a worker)
        pass


def _not_openai_failure(not_openai: tuple[int, str], chapters: int, output: str | None) -> dict[str, Any]:
    """The report's failure when the endpoint never answered as an OpenAI endpoint (outline written by code)."""
    calls, why = not_openai
    where = f"已写入 {output}" if output else "已输出"
    why = why or "返回的不是 OpenAI 接口的应答；请检查接口地址（通常以 /v1 结尾）和网络代理"
    message = (f"错误：模型服务的 {calls} 次应答都不是 OpenAI 接口的应答，模型没有参与生成：{why}\n"
               f"目录（{chapters} 章）仅由程序依据招标文件和标题库生成（不是模型的结果），{where}，仅供参考；"
               "改正接口地址后请重新生成。")
    return {"stage": "outline", "kind": "endpoint", "cause": "not_openai", "message": message, "issues": [why]}


def _failure_report(args: argparse.Namespace, started: float, stage: str, kind: str, message: str,
                    cause: str, exit_code: int) -> None:
    """Print the reason and, with ``--report``, write a report naming stage and cause (never raises)."""
    print(message, file=sys.stderr)
    if not args.report:
        return
    report = {
        "valid": False, "exit_code": exit_code, "tender": Path(args.tender).name,
        "duration_s": round(time.monotonic() - started, 2), "llm_calls": None,
        "failure": {"stage": stage, "kind": kind, "message": message, "cause": cause, "issues": []},
    }
    try:
        write_json(report, args.report)
    except CliOutputError as exc:
        print(f"无法写入运行报告：{exc}", file=sys.stderr)


def _check_options(args: argparse.Namespace) -> tuple[str | None, int | None]:
    """Usage errors found before any work: numbers, output paths, the tender's password and limit."""
    if args.max_calls is not None and args.max_calls <= 0:
        raise CliUsageError("--max-calls 必须大于 0")
    if not 2 <= args.depth <= 4:
        raise CliUsageError("--depth 只能是 2–4")
    password, max_bytes = tender_options(args)
    for option, value in (("--output", args.output), ("--report", args.report), ("--docx", args.docx)):
        check_output_path(value, option, inputs=[args.tender])
    check_distinct_outputs(output=args.output, report=args.report, docx=args.docx)
    if args.journal:
        journal = Path(args.journal)
        if journal.exists() and not journal.is_dir():
            raise CliUsageError(f"--journal {args.journal}：不是文件夹")
        if not journal.exists() and not journal.parent.is_dir():
            raise CliUsageError(f"--journal {args.journal}：上级文件夹 {journal.parent} 不存在")
        _check_journal_writable(journal)
    if args.library:
        _open_library(args.library).close()  # a missing or broken 资料库 is a usage error before any work
    return password, max_bytes


def _check_journal_writable(folder: Path) -> None:
    """Create the journal folder and file now: a folder that cannot be written is a usage error."""
    from app.llm.client.journal import JOURNAL_FILE

    try:
        folder.mkdir(exist_ok=True)
        with open(folder / JOURNAL_FILE, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise CliUsageError(f"--journal {folder}：无法写入（{exc.strerror or exc}）") from None


def cmd_outline(args: argparse.Namespace) -> int:
    """``outline TENDER``: analyse, generate, validate; write outline, report and optional Word file.

    Every exit after the options were accepted writes ``--report`` (when given), naming the
    stage and the cause of a failure.
    """
    password, max_bytes = _check_options(args)
    cfg = endpoint_from_args(args)
    started = time.monotonic()
    from app.documents.errors import DocumentError
    from app.documents.model import DiagnosticCode
    from app.llm.client.errors import LLMConfigError, LLMConnectionError, LLMError
    from app.pipeline.outline.budget import BudgetExhausted

    try:
        doc, scoring, _sections = ingest(args.tender, password=password, max_bytes=max_bytes, ocr=ocr_option(args))
    except DocumentError as exc:
        _failure_report(args, started, "ingest", "unreadable", f"无法读取招标文件：{exc.message_zh}",
                        exc.code, EXIT_UNREADABLE)
        return EXIT_UNREADABLE
    if any(d.code == DiagnosticCode.NO_READABLE_TEXT for d in doc.diagnostics):
        msg = next(d.message_zh for d in doc.diagnostics if d.code == DiagnosticCode.NO_READABLE_TEXT)
        _failure_report(args, started, "ingest", "unreadable", f"无法读取招标文件：{msg}{ocr_off_hint(args)}",
                        "no_readable_text", EXIT_UNREADABLE)
        return EXIT_UNREADABLE
    lot = chosen_lot(args, doc, scoring)
    if isinstance(lot, str):
        _failure_report(args, started, "options", "usage", lot, "unknown_lot", EXIT_USAGE)
        return EXIT_USAGE
    scoring = lot
    where = _Stage()
    import asyncio

    _terminate_as_interrupt()
    try:
        analysis, result = asyncio.run(_run_outline(args, cfg, doc, scoring, where))
    except KeyboardInterrupt:
        _save_partial(args, started, where, "已取消")
        return EXIT_CANCELLED
    except LLMConfigError as exc:
        _failure_report(args, started, where.name, "config", f"模型设置错误：{exc.message_zh}",
                        type(exc).__name__, EXIT_ENDPOINT)
        return EXIT_ENDPOINT
    except LLMConnectionError as exc:
        _failure_report(args, started, where.name, "endpoint", f"模型服务连接失败：{exc.message_zh}",
                        type(exc).__name__, EXIT_ENDPOINT)
        return EXIT_ENDPOINT
    except LLMError as exc:  # the endpoint answered unusably (or a prompt did not fit): the model's side, not ours
        _failure_report(args, started, where.name, "model", f"模型调用失败：{exc.message_zh}",
                        type(exc).__name__, EXIT_MODEL)
        return EXIT_MODEL
    except BudgetExhausted as exc:
        _failure_report(args, started, where.name, "budget", f"预算用尽：{exc.message_zh}",
                        type(exc).__name__, EXIT_MODEL)
        return EXIT_MODEL
    except CliUsageError:
        raise
    except Exception as exc:  # an unforeseen failure still leaves a report naming where it happened
        _failure_report(args, started, where.name, "internal", f"内部错误：{type(exc).__name__}: {exc}",
                        type(exc).__name__, EXIT_ERROR)
        return EXIT_ERROR
    report = result.report()
    report["tender"] = Path(args.tender).name
    report["duration_s"] = round(time.monotonic() - started, 2)
    report["analysis"] = {"groups": len(analysis.technical_groups), "source": analysis.source,
                          "table_confident": analysis.table_confident, "notes": analysis.notes,
                          "scoring_confirmed": analysis.scoring_confirmed, "scoring_doubt": analysis.scoring_doubt,
                          "differences": [d.message for d in analysis.differences]}
    try:
        write_json(result.document().model_dump(mode="json"), args.output)
    except CliOutputError as exc:
        report["warnings"].append(f"目录 JSON 未能写入：{exc}")
        _failure_report(args, started, "write", "output", f"无法写入输出文件：{exc}", "AtomicWriteError", EXIT_ERROR)
        if args.report:
            write_json({**report, "exit_code": EXIT_ERROR}, args.report)
        return EXIT_ERROR
    docx_problem = _export_docx(result, analysis, args.docx) if args.docx and result.chapters else None
    if docx_problem:  # the Word file asked for was not written: an error exit, and the report says so
        report["docx_error"] = docx_problem
        print(docx_problem, file=sys.stderr)
    exit_code = EXIT_OK if result.valid else EXIT_MODEL
    if result.failure is not None:
        exit_code = EXIT_ENDPOINT if result.failure.kind in ("endpoint", "config") else EXIT_MODEL
    elif where.not_openai is not None:
        exit_code = EXIT_ENDPOINT
        report["failure"] = _not_openai_failure(where.not_openai, len(result.chapters), args.output)
        report["code_only"] = True
    elif docx_problem:
        exit_code = EXIT_ERROR
    report["exit_code"] = exit_code
    if docx_problem and exit_code == EXIT_ERROR:
        if args.report:
            write_json(report, args.report)
        return exit_code
    if args.report:
        write_json(report, args.report)
    if result.failure is not None:
        f = result.failure
        print(f"未能生成有效目录（{f.stage}）：{shown_lines(f.message_zh)}", file=sys.stderr)
        for issue in list(f.issues)[:10]:
            print(f"  - {shown(issue)}", file=sys.stderr)
        return exit_code
    for w in result.warnings:
        print(f"提示：{shown(w)}", file=sys.stderr)
    if where.not_openai is not None:  # the outline was written, but nothing in it is the model's
        print(report["failure"]["message"], file=sys.stderr)
        return exit_code
    if not args.quiet:
        who = "" if report["model_nodes"] else "；模型没有写出任何标题，各级标题均由程序依据招标文件和标题库补全"
        print(f"目录有效{who}：{len(result.chapters)} 章；模式 {result.mode}；策略 {result.strategy}；"
              f"调用 {report['llm_calls']} 次；{report['prompt_tokens'] + report['completion_tokens']} tokens；"
              f"{report['duration_s']} 秒", file=sys.stderr)
    return exit_code


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``outline`` to the CLI."""
    p = sub.add_parser("outline", help="用模型生成技术标三级目录")
    add_tender_arguments(p)
    p.add_argument("--mode", choices=["free", "aligned"], default="aligned", help="free 自由模式；aligned 与评分项一一对应")
    add_lot_argument(p)
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="目录 JSON 输出文件")
    p.add_argument("--docx", metavar="PATH", help="同时导出 Word 文件")
    p.add_argument("--report", metavar="PATH", help="运行报告 JSON 文件")
    p.add_argument("--strategy", choices=["json", "stream"], default=None,
                   help="首选生成策略（失败时自动切换）；默认 json，给了 --profile 时按测量结果选择")
    p.add_argument("--no-code-fill", action="store_true",
                   help="模型写不出的章节不由程序补全（默认从招标文件要点和标题库补全，标注来源，报告中计数）")
    p.add_argument("--template-fallback", action="store_true", help=argparse.SUPPRESS)  # old flag: code fill is the default
    p.add_argument("--json-attempts", type=bounded_number(int, 1, 20), default=2, help="每次结构化调用的尝试次数（含模型修复）")
    p.add_argument("--chapter-attempts", type=bounded_number(int, 1, 20), default=2, help="每章整体生成的尝试次数，之后改为逐节生成")
    p.add_argument("--switch-after", type=bounded_number(int, 0, 1000), default=2, help="首选策略连续失败几次后换用另一策略（0 表示不换）")
    p.add_argument("--depth", type=bounded_number(int, 2, 4), default=3, help="目录层级（2–4，默认 3）")
    p.add_argument("--max-calls", type=bounded_number(int, 1, 100_000), default=160, help="本次运行最多调用模型次数")
    p.add_argument("--max-run-tokens", type=bounded_number(int, 1000, 10**10), default=600_000, help="本次运行最多使用的 token 数")
    p.add_argument("--max-minutes", type=bounded_number(float, 0.1, 24 * 60), default=25.0,
                   help="本次运行调用模型的最长时间（分钟）；到时其余章节由程序依据招标文件和标题库补全")
    p.add_argument("--no-review", action="store_true", help="跳过模型审核")
    p.add_argument("--guidance", help="额外要求（如“加入信息安全保障”）")
    p.add_argument("--compact", action="store_true", help="只要标题、不要描述，每节最多 4 个小节（适合很慢的本地小模型）")
    p.add_argument("--analysis", choices=["auto", "table", "model"], default="auto",
                   help="评分项来源：auto 评分表可靠时不再问模型；table 只用评分表和程序读取（不调用模型）；model 总是请模型补充")
    p.add_argument("--library", metavar="PATH",
                   help="资料库文件（历史标书）：与评分项匹配的历史标书章节结构优先作为候选标题，标注“历史标书”及来源")
    p.add_argument("--journal", metavar="DIR", help="把每次模型调用记入 DIR/llm_calls.jsonl（便于排查）")
    p.add_argument("--quiet", "-q", action="store_true", help="不打印进度")
    add_endpoint_arguments(p)
    p.set_defaults(func=cmd_outline)


def model_analysis(args: argparse.Namespace, doc: TenderDocument, scoring: ScoringResult) -> tuple[dict[str, Any], int]:
    """The ``analyze`` addition with a model: the analysis JSON and the exit code it implies."""
    from app.llm.client.errors import LLMConfigError, LLMConnectionError
    from app.llm.client.llm_client import LLMClient
    from app.pipeline.analysis.tender import analyze_tender

    cfg = endpoint_from_args(args)

    async def run() -> Analysis:
        async with LLMClient(cfg) as client:
            client.transport.lifecycle = getattr(args, "managed_server", None)
            return await analyze_tender(client, doc, scoring=scoring)

    import asyncio

    try:
        analysis = asyncio.run(run())
    except (LLMConfigError, LLMConnectionError) as exc:
        return {"analysis_error": exc.message_zh}, EXIT_ENDPOINT
    return {"analysis": json.loads(analysis.model_dump_json())}, EXIT_OK

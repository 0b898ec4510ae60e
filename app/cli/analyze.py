"""``bidstudio-cli analyze TENDER``: diagnostics, located sections and scoring rows.

Without a model it prints (or writes as JSON) what code read; with ``--base-url`` and
``--model`` it adds the model analysis, with ``--breakdown`` the requirement breakdown.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from app.cli.common import (
    EXIT_MODEL,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    add_lot_argument,
    add_tender_arguments,
    check_output_path,
    chosen_lot,
    ingest,
    ocr_off_hint,
    ocr_option,
    tender_options,
    write_json,
)

if TYPE_CHECKING:
    from app.documents.locate import LocatedSections
    from app.documents.model import TenderDocument
    from app.documents.scoring.model import ScoringResult


def ingest_report(doc: TenderDocument, scoring: ScoringResult, sections: LocatedSections) -> dict[str, Any]:
    """The JSON-able report of ``analyze`` without a model."""
    return {
        "file": doc.source_path,
        "kind": doc.kind,
        "page_count": doc.page_count,
        "page_numbers_estimated": doc.page_numbers_estimated,
        "unreadable_pages": doc.unreadable_pages,
        "ocr_pages": [p.number for p in doc.pages if p.source == "ocr"],
        "diagnostics": [d.model_dump(mode="json") for d in doc.diagnostics],
        "sections": {s.kind: s.model_dump(mode="json") for s in sections.all()},
        "scoring": {
            "found": scoring.found,
            "message_zh": scoring.message_zh,
            "confidence": scoring.confidence,
            "confirmed": scoring.confirmed,
            "doubt_zh": scoring.doubt_zh,
            "total_points": scoring.total_points,
            "points_by_category": scoring.points_by_category(),
            "checks_passed": scoring.checks_passed,
            "issues": scoring.issues,
            "tables": [t.model_dump(mode="json") for t in scoring.tables],
            "absence": scoring.absence,
            "uncertain": scoring.uncertain,
            "lots": [lot.model_dump(mode="json") for lot in scoring.lots],
            "lot": scoring.lot_name,
            "candidates": [
                {"table_ids": t.table_ids, "pages": t.pages, "label": t.label, "kind": t.kind, "rows": len(t.rows),
                 "points_sum": t.points_sum, "score": t.score, "rejected": t.rejected,
                 "used": any(t is u for u in scoring.tables)}
                for t in scoring.candidates
            ],
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
        if scoring.lots:
            lots = "、".join(f"{lot.name}（{_fmt_points(lot.total)} 分，第{lot.pages[0]}页）" for lot in scoring.lots if lot.pages)
            print(f"  各包分别评分：{lots}；以下为{scoring.lot_name}")
        print(f"  可信度 {scoring.confidence:.2f}；按类别：" + "，".join(
            f"{k} {_fmt_points(v)} 分" for k, v in scoring.points_by_category().items()
        ))
        for t in scoring.tables:
            label = t.label or "评分表"
            print(f"  {label}（第{'、'.join(map(str, t.pages))}页）")
            for r in t.rows:
                num = f"{r.number} " if r.number else ""
                print(f"    {num}[{r.category.value}] {r.factor}：{_fmt_points(r.points)} 分（第{r.page}页）")
        for t in scoring.candidates:
            if t.rejected and all(t is not u for u in scoring.tables):
                name = t.label or t.caption.strip()[-24:] or '表格'
                print(f"  未采用：第{'、'.join(map(str, t.pages))}页 {name}（{t.rejected}）")
        if "table" in scoring.uncertain:
            print("  ? 有分数相近的其他候选评分表，请在分析页核对（连接模型后可由模型在候选中选择）")
        for msg in scoring.checks_passed:
            print(f"  ✓ {msg}")
        for msg in scoring.issues:
            print(f"  ✗ {msg}")
    if scoring.confirmed:
        print("  已确认（各项独立核对一致）")
    elif scoring.doubt_zh:
        print(f"  ? {scoring.doubt_zh}")


def cmd_analyze(args: argparse.Namespace) -> int:
    """``analyze TENDER``: diagnostics, located sections and scoring rows."""
    password, max_bytes = tender_options(args)
    check_output_path(args.output, "--output", inputs=[args.tender])
    doc, scoring, sections = ingest(args.tender, password=password, max_bytes=max_bytes,
                                    ocr=ocr_option(args))
    lot = chosen_lot(args, doc, scoring)
    if isinstance(lot, str):
        print(lot, file=sys.stderr)
        return EXIT_USAGE
    scoring = lot
    if getattr(args, "breakdown", False):
        from app.cli.breakdown import breakdown_report

        extra, model_failed = breakdown_report(args, doc, sections)
        write_json({**ingest_report(doc, scoring, sections), **extra}, args.output)
        return EXIT_MODEL if model_failed else EXIT_OK
    from app.cli.endpoint import has_endpoint

    if has_endpoint(args):  # model analysis (app/cli/outline.py)
        from app.cli.outline import model_analysis

        extra, code = model_analysis(args, doc, scoring)
        write_json({**ingest_report(doc, scoring, sections), **extra}, args.output)
        return code
    if args.json or args.output:
        write_json(ingest_report(doc, scoring, sections), args.output)
    else:
        print_report(doc, scoring, sections)
    from app.documents.model import DiagnosticCode

    if any(d.code == DiagnosticCode.NO_READABLE_TEXT for d in doc.diagnostics):
        if hint := ocr_off_hint(args):
            print(f"无法读取招标文件{hint}", file=sys.stderr)
        return EXIT_UNREADABLE
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``analyze`` to the CLI."""
    p = sub.add_parser("analyze", help="读取招标文件：诊断、定位章节、解析评分表")
    add_tender_arguments(p)
    add_lot_argument(p)
    p.add_argument("--json", action="store_true", help="以 JSON 输出")
    p.add_argument("--output", "-o", metavar="PATH", help="把 JSON 结果写入文件")
    from app.cli.breakdown import add_breakdown_arguments
    from app.cli.endpoint import add_endpoint_arguments

    add_breakdown_arguments(p)
    add_endpoint_arguments(p, "模型设置（--breakdown 或模型分析时使用）", timeout=120.0)
    p.set_defaults(func=cmd_analyze)

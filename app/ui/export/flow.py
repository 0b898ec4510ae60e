"""Export Word from the window: the choices dialog, the warnings, the export off the GUI thread.

Kept apart from the window's file handling so the export steps read in one place:

1. :func:`ask_export_choices` — the dialog (awaited), then one question listing what is
   still unanswered (★/▲ clauses, technical scoring items when the index is exported);
   "返回检查" brings the place to fix them to the front. Then the 提交前检查 list
   (``app.ui.evaluation.checks_dialog``) when something in it blocks (废标 risks, 暗标 leaks,
   empty sections, placeholders, the page limit).
2. :func:`export_word` — a copy of the outline, analysis and breakdown goes to a worker
   thread, which builds the document, lets LibreOffice lay it out (seconds) and saves it;
   the window stays responsive. The report's notes (no LibreOffice, a possible short name
   in a 暗标 file …) are shown; an ``ExportError`` is shown with its Chinese message.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QMessageBox

from app.core.response_map import index_entries, unanswered_groups
from app.ui.widgets.async_dialog import run_dialog

if TYPE_CHECKING:
    from app.core.analysis import Analysis
    from app.core.breakdown import Breakdown
    from app.core.outline import OutlineNode
    from app.export.docx_writer import ExportReport
    from app.export.review_sheet import ReviewRows
    from app.ui.export.dialog import ExportChoices
    from app.ui.shell.window_host import WindowHost

log = logging.getLogger("bidstudio.ui")


async def ask_export_choices(window: WindowHost) -> ExportChoices | None:
    """The export dialog, then a warning about what is unanswered; None when the user cancels."""
    from app.ui.export.dialog import ExportDialog, unanswered_items_text, unanswered_text

    c = window.controller
    chapters = c.outline.chapters
    clauses = c.breakdown.unanswered_marked() if c.breakdown is not None else []
    items = unanswered_groups(c.analysis, chapters)
    name = c.analysis.overview.project_name or window.display_name()
    dialog = ExportDialog(chapters, name, window.qsettings, unanswered=clauses, unanswered_items=items,
                          index_items=len(index_entries(c.analysis, chapters)),
                          clause_count=len(c.breakdown.marked()) if c.breakdown is not None else 0,
                          one_to_one=window.mode_box.currentData() == "aligned", parent=window)
    accepted = await run_dialog(dialog) == QDialog.DialogCode.Accepted.value
    choices = dialog.choices() if accepted else None
    warned_items = dialog.warned_items()
    dialog.deleteLater()
    if choices is None:
        return None
    if not (clauses or warned_items):
        return choices if await _submission_checks_pass(window, choices, clauses_warned=False) else None
    box = QMessageBox(window)
    box.setObjectName("unansweredClausesBox")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("有未响应的条款或评分项")
    box.setText("\n".join(t for t in (unanswered_text(clauses), unanswered_items_text(warned_items)) if t))
    box.setInformativeText("★/▲ 条款或评分项未逐条响应可能导致扣分或投标无效。仍要导出吗？")
    go = box.addButton("仍然导出", QMessageBox.ButtonRole.AcceptRole)
    back = box.addButton("返回检查", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(back)
    await run_dialog(box)
    clicked = box.clickedButton()
    box.deleteLater()
    if clicked is go:  # then the 提交前检查 list, for what that question did not cover
        return choices if await _submission_checks_pass(window, choices, clauses_warned=True) else None
    if clauses:
        window.show_breakdown()
    else:
        tables = getattr(window, "response_tables", None)
        if tables is not None:
            tables.show(0)
    return None


async def _submission_checks_pass(window: WindowHost, choices: ExportChoices, clauses_warned: bool) -> bool:
    """提交前检查 with the chosen 暗标 style and bidder; asks when something blocks. True to go on.

    ``clauses_warned``: the unanswered ★/▲ question was just answered, so those rows do not
    ask again (they stay in the list when something else blocks).
    """
    from app.export.presets import PRESETS
    from app.ui.evaluation.checks_dialog import confirm_export, window_findings

    preset = PRESETS.get(choices.options.preset)
    meta = choices.meta
    findings = window_findings(window, anonymous=bool(preset and preset.anonymous),
                               bidder=meta.bidder_name if meta.has_real_bidder() else "", aliases=meta.bidder_aliases)
    if not any(f.blocking and not (clauses_warned and f.rule.endswith("条款")) for f in findings):
        return True
    return await confirm_export(window, findings)


def _snapshot(window: WindowHost) -> tuple[list[OutlineNode], Analysis, Breakdown | None]:
    """Copies the worker thread may read while the user keeps editing."""
    c = window.controller
    chapters = [ch.model_copy(deep=True) for ch in c.outline.chapters]
    return chapters, c.analysis.model_copy(deep=True), (c.breakdown.model_copy(deep=True) if c.breakdown else None)


def _review_rows(chapters: list[OutlineNode], analysis: Analysis, choices: ExportChoices) -> ReviewRows | None:
    """The 自评表 for the Word file when the export option asks for it (code's review, fast)."""
    if not choices.options.review_table:
        return None
    from app.pipeline.evaluation.review import review_bid
    from app.pipeline.evaluation.table import HEADER, review_rows

    return HEADER, review_rows(review_bid(analysis, chapters))


def _default_choices(window: WindowHost) -> ExportChoices:
    from app.export import ExportMeta, ExportOptions
    from app.ui.export.dialog import ExportChoices

    name = window.controller.analysis.overview.project_name or window.display_name()
    return ExportChoices(ExportMeta(project_name=name), ExportOptions())


def _with_budget(window: WindowHost, choices: ExportChoices) -> ExportChoices:
    """The choices carrying the project's length budget (the layout pass reports pages against it)."""
    budget = window.controller.length_budget
    if budget is None or choices.options.length_budget is not None:
        return choices
    return dataclasses.replace(choices, options=dataclasses.replace(choices.options,
                                                                    length_budget=budget.model_copy(deep=True)))


def _export(path: Path, choices: ExportChoices, chapters: list[OutlineNode], analysis: Analysis,
            breakdown: Breakdown | None) -> ExportReport:
    from app.core.settings_model import data_dir
    from app.export.docx_writer import export_bid

    return export_bid(chapters, path, choices.meta, choices.options, analysis=analysis, breakdown=breakdown,
                      layout_profile=data_dir() / "lo-layout-profile", review=_review_rows(chapters, analysis, choices))


def _finish(window: WindowHost, outcome: ExportReport | BaseException) -> Path | None:
    from app.export import ExportError

    if isinstance(outcome, ExportError):
        log.warning("export refused: %s", outcome.message_zh, extra={"stage": "export"})
        window.show_error("无法导出 Word", outcome.message_zh, "")
        return None
    if isinstance(outcome, BaseException):
        if window.reporter is not None:
            window.reporter.report(outcome, "导出失败")
            return None
        raise outcome
    report = outcome
    window.statusBar().showMessage(report.summary_zh(), 12000)
    log.info("exported %s", report.path, extra={"stage": "export"})
    log.debug("page numbers laid out: %s (%s s)", report.laid_out, report.layout_seconds)
    over = _over_page_limit(window, report)
    box = QMessageBox(window)
    box.setObjectName("exportReportBox")
    box.setIcon(QMessageBox.Icon.Information if not (report.warnings or over) else QMessageBox.Icon.Warning)
    box.setWindowTitle("导出完成")
    box.setText(f"已导出：{report.path}")
    if report.notes or report.warnings or over:
        box.setInformativeText("\n".join((*over, *report.warnings, *report.notes)))
    open_file = box.addButton("打开文件", QMessageBox.ButtonRole.ActionRole)
    open_folder = box.addButton("打开所在文件夹", QMessageBox.ButtonRole.ActionRole)
    box.addButton("关闭", QMessageBox.ButtonRole.RejectRole)
    path = report.path
    open_file.clicked.connect(lambda: _open_local(window, path))
    open_folder.clicked.connect(lambda: _open_local(window, path.parent))
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # the window owns it until it is closed
    box.open()
    return report.path


def _open_local(window: WindowHost, path: Path) -> None:
    """Open a file or folder with the desktop's own program; say so when there is none."""
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices

    if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
        window.statusBar().showMessage(f"无法打开 {path}：系统没有可用的打开方式", 8000)


def _over_page_limit(window: WindowHost, report: ExportReport) -> tuple[str, ...]:
    """The 提交前检查 page rule on the laid-out page count (the tender's limit, when it states one)."""
    if report.body_pages is None:
        return ()
    from app.export.submission_checks import page_findings
    from app.ui.evaluation.checks_dialog import tender_page_limit

    return tuple(f.message for f in page_findings(tender_page_limit(window), report.body_pages, estimated=False))


def export_word_now(window: WindowHost, path: Path, choices: ExportChoices | None = None) -> Path | None:
    """Export on the calling thread (scripts and tests); same steps as :func:`export_word`."""
    chosen = _with_budget(window, choices or _default_choices(window))
    try:
        outcome: ExportReport | BaseException = _export(path, chosen, *_snapshot(window))
    except Exception as exc:
        outcome = exc
    return _finish(window, outcome)


async def export_word(window: WindowHost, path: Path, choices: ExportChoices | None = None) -> Path | None:
    """Export on a worker thread (the layout pass takes seconds); the window stays responsive."""
    chosen = _with_budget(window, choices or _default_choices(window))
    snapshot = _snapshot(window)
    window.statusBar().showMessage("正在导出 Word……" + ("（排版页码需要数秒）" if chosen.options.layout_pass else ""))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bidstudio-export") as pool:
        future = asyncio.get_running_loop().run_in_executor(pool, _export, path, chosen, *snapshot)
        try:
            outcome: ExportReport | BaseException = await future
        except Exception as exc:
            outcome = exc
    return _finish(window, outcome)

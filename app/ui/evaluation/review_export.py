"""导出自评表: the 评审模拟 table as a spreadsheet (.xlsx), chosen through a save dialog.

The rows are the dock's current review (code's statuses plus any checked model answers);
the file is written by ``app.export.review_sheet``. A write failure is shown with its
Chinese message, never a traceback.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog

from app.export.options import ExportError
from app.export.review_sheet import write_review_sheet
from app.pipeline.evaluation.table import HEADER, review_rows
from app.ui.widgets.async_dialog import run_dialog
from app.ui.widgets.file_dialogs import remember_folder, start_folder

if TYPE_CHECKING:
    from app.ui.evaluation.review_host import ReviewHost
    from app.ui.shell.window_host import WindowHost

log = logging.getLogger("bidstudio.ui")


def export_review(window: WindowHost, dock: ReviewHost, path: Path) -> Path | None:
    """Write the dock's current 自评表 to ``path``; None (with the error shown) when it fails."""
    if dock.review is None:
        dock.refresh()
    review = dock.review
    if review is None or not review.items:
        window.statusBar().showMessage("没有技术评分项，无法导出自评表", 6000)
        return None
    target = path if path.suffix.lower() == ".xlsx" else path.with_suffix(".xlsx")
    try:
        written = write_review_sheet(target, HEADER, review_rows(review))
    except ExportError as exc:
        window.show_error("无法导出自评表", exc.message_zh, "")
        return None
    window.statusBar().showMessage(f"已导出自评表：{written.name}", 8000)
    log.info("review table exported to %s", written)
    return written


async def choose_and_export(window: WindowHost, dock: ReviewHost) -> Path | None:
    """Ask for the file name, then write the spreadsheet."""
    suggested = start_folder(window, f"{window.display_name()}-自评表.xlsx")
    dialog = QFileDialog(window, "导出自评表", suggested, "Excel 工作簿 (*.xlsx)")
    dialog.setObjectName("reviewExportDialog")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    accepted = await run_dialog(dialog) == QFileDialog.DialogCode.Accepted.value
    files = dialog.selectedFiles()
    dialog.deleteLater()
    if not accepted or not files:
        return None
    remember_folder(window, files[0])
    return export_review(window, dock, Path(files[0]))

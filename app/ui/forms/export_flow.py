"""文件 → 导出商务标…: where to write, its own file or before the technical part, then the export.

:class:`FormsExportDialog` asks for the file and the placement (remembered in the project); the
export runs on a worker thread — the 商务 volume, and with 商务在前 the technical part exported
the usual way and put after it in the same file. The result (forms, blanks filled, blanks left,
copies inserted, notes) is shown in the status bar and the log.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.widgets.async_dialog import run_dialog

if TYPE_CHECKING:
    from app.export.forms.volume import FormsExportReport
    from app.ui.forms.board import FormsHostLike as FormsHost

log = logging.getLogger("bidstudio.ui")


class FormsExportDialog(QDialog):
    """The file to write and whether the technical part follows in the same file."""

    def __init__(self, suggested: Path, before_technical: bool, left: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("formsExportDialog")
        self.setWindowTitle("导出商务标")
        self.path_edit = QLineEdit(str(suggested))
        self.path_edit.setObjectName("formsExportPath")
        self.path_edit.setMinimumWidth(440)
        browse = QPushButton("浏览…")
        browse.clicked.connect(self._browse)
        self.separate = QRadioButton("商务部分单独成一个文件")
        self.separate.setObjectName("formsSeparate")
        self.before = QRadioButton("与技术部分合为一个文件（商务部分在前）")
        self.before.setObjectName("formsBefore")
        (self.before if before_technical else self.separate).setChecked(True)
        note = QLabel(f"还有 {left} 处空白无人填写，导出后保留为下划线空白，可在 Word 中补填。" if left else
                      "全部空白都已有内容（签字盖章处除外）。")
        note.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.path_edit, 1)
        row.addWidget(browse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = buttons.addButton("导出", QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok_button.setObjectName("formsExportOk")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("保存到："))
        layout.addLayout(row)
        layout.addWidget(self.separate)
        layout.addWidget(self.before)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "导出商务标", self.path_edit.text(), "Word 文件 (*.docx)")
        if path:
            self.path_edit.setText(path)


def _technical(window: Any, path: Path) -> Any:
    """The technical part exported the usual way (default options), for 商务在前; the merged file is laid out
    once afterwards, so this one is not."""
    from app.export import ExportMeta, ExportOptions, export_bid

    c = window.controller
    chapters = [ch.model_copy(deep=True) for ch in c.outline.chapters]
    meta = ExportMeta(project_name=c.analysis.overview.project_name or window.display_name())
    return export_bid(chapters, path, meta, ExportOptions(layout_pass=False), analysis=c.analysis.model_copy(deep=True))


def _export(host: FormsHost, path: Path, before: bool, job: dict[str, Any]) -> FormsExportReport:
    from dataclasses import replace

    from app.export.fields import BODY_START_BOOKMARK
    from app.export.forms.merge import place_before
    from app.export.forms.volume import FORMS_BODY_START, export_forms_volume

    if not before:
        return export_forms_volume(job["reading"], job["values"], path, certificates=job["certificates"],
                                   options=job["options"])
    report = export_forms_volume(job["reading"], job["values"], job["tmp"] / "商务部分.docx",
                                 certificates=job["certificates"], options=replace(job["options"], layout_pass=False))
    technical = _technical(host.window, job["tmp"] / "技术部分.docx")
    merged = place_before(report.path, technical.path, path, forms_start=FORMS_BODY_START,
                          technical_start=BODY_START_BOOKMARK, layout_pass=job["options"].layout_pass)
    notes = tuple(n for n in report.notes if "LibreOffice" not in n and "页码" not in n) + merged.notes
    return type(report)(merged.path, report.forms, report.filled, report.empty, report.copies, merged.laid_out, notes)


async def export_forms(host: FormsHost, path: Path | None = None, *, before: bool | None = None) -> Path | None:
    """Ask (unless ``path`` is given), then export; the written file or None."""
    from app.export.forms.volume import FormsVolumeOptions
    from app.export.options import ExportError

    window = host.window
    if host.board.reading is None or host.stale:
        await host.reload()
    board = host.board
    if not board.forms:
        window.statusBar().showMessage((board.reading.message if board.reading else "尚未打开招标文件") + "：没有可导出的商务部分", 10000)
        return None
    left = sum(board.status(f).empty for f in board.forms if not board.status(f).not_applicable)
    if path is None:
        suggested = Path(window.controller.session.path or Path.home() / "投标文件").with_name(
            f"{window.display_name()}-商务部分.docx")
        dialog = FormsExportDialog(suggested, board.state.export.placement == "before_technical", left, window)
        accepted = await run_dialog(dialog) == QDialog.DialogCode.Accepted.value
        path, before = Path(dialog.path_edit.text()), dialog.before.isChecked()
        dialog.deleteLater()
        if not accepted or not str(path):
            return None
        placement = "before_technical" if before else "separate"
        if board.state.export.placement != placement:
            board.state = board.state.model_copy(update={"export": board.state.export.model_copy(update={"placement": placement})})
            host.keep()
    company = board.company.get("bidder_name")
    tender_name = board.tender.get("project_name")
    job: dict[str, Any] = {"reading": board.reading, "values": board.values(), "certificates": list(board.certificates),
           "options": FormsVolumeOptions(left_out=frozenset(board.state.not_applicable),
                                         project_name=tender_name.value if tender_name else window.display_name(),
                                         bidder_name=company.value if company else "",
                                         date_text=board.state.values.get("date", ""))}
    window.statusBar().showMessage("正在导出商务标……")
    with tempfile.TemporaryDirectory(prefix="bidstudio-forms-") as tmp, \
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="bidstudio-forms-export") as pool:
        job["tmp"] = Path(tmp)
        try:
            report = await asyncio.get_running_loop().run_in_executor(pool, _export, host, path, bool(before), job)
        except ExportError as exc:
            window.statusBar().showMessage(f"导出商务标失败：{exc.message_zh}", 15000)
            log.warning("forms export failed: %s", exc.message_zh)
            return None
        except OSError as exc:
            window.statusBar().showMessage(f"导出商务标失败：无法写入“{path}”（{exc.strerror or exc}）", 15000)
            return None
    message = (f"商务标已导出：{report.path.name}（{report.forms} 份格式，填写 {report.filled} 处，"
               f"空白 {report.empty} 处，插入证书复印件 {report.copies} 份）")
    window.statusBar().showMessage(message, 15000)
    log.info("%s %s", message, "；".join(report.notes))
    return report.path

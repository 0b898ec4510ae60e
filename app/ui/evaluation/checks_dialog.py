"""提交前检查 in the window: collect the findings, list them, ask before an export goes on.

:func:`window_findings` runs the Qt-free rules (``app.export.submission_checks``) on the
window's outline, analysis and breakdown, with what only the window knows: which ★/▲
clauses the text addresses (code matching), the tender's page limit (from its text), and
the 暗标 choice with the bidder's name (the export dialog's, or the last one remembered).
:class:`SubmissionChecksDialog` lists them, blocking ones first and marked, a rule that comes
many times (95 空章节) as one row that opens to its sections; a double-click shows the section. :func:`confirm_export` is the question the export flow asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.export.submission_checks import Finding, FindingGroup, grouped, page_limit_in, submission_checks
from app.pipeline.evaluation.clauses import clause_coverage

if TYPE_CHECKING:
    from app.ui.evaluation.review_host import ReviewHost
    from app.ui.shell.window_host import WindowHost

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
SETTINGS_GROUP = "export"


def tender_page_limit(window: WindowHost) -> int | None:
    """The technical part's page limit stated in the open tender, or None."""
    doc = window.controller.document
    if doc is None:
        return None
    from app.documents.clauses import document_pages

    return page_limit_in("\n".join(p.text for p in document_pages(doc)))


def tender_prescribed_parts(window: WindowHost) -> list[str]:
    """The top-level parts the open tender prescribes for the technical part (须按以下顺序…), or []."""
    doc = window.controller.document
    if doc is None:
        return []
    from app.documents.clauses import document_pages
    from app.documents.outlines.prescribed import prescribed_outline

    return [s.title for s in prescribed_outline("\n".join(p.text for p in document_pages(doc)))]


def _remembered(window: WindowHost) -> tuple[bool, str, tuple[str, ...]]:
    """The last export's 暗标 choice, bidder and aliases (from the export dialog's settings)."""
    from app.export.presets import PRESETS
    from app.ui.export.dialog import split_aliases

    qs = window.qsettings
    preset = PRESETS.get(str(qs.value(f"{SETTINGS_GROUP}/preset", "标准投标版")))
    bidder = str(qs.value(f"{SETTINGS_GROUP}/bidder", "") or "")
    aliases = split_aliases(str(qs.value(f"{SETTINGS_GROUP}/aliases", "") or ""))
    return bool(preset and preset.anonymous), bidder, aliases


def window_findings(window: WindowHost, *, anonymous: bool | None = None, bidder: str | None = None,
                    aliases: Sequence[str] | None = None, pages: int | None = None) -> list[Finding]:
    """The 提交前检查 list for the window's bid (unset choices come from the last export)."""
    c = window.controller
    last_anonymous, last_bidder, last_aliases = _remembered(window)
    chapters = c.outline.chapters
    addressed = {cc.risk_index: cc.answered_by for cc in clause_coverage(c.breakdown, chapters)}
    forms = getattr(window, "forms", None)
    found = submission_checks(c.analysis, chapters, c.breakdown, addressed=addressed,
                             anonymous=last_anonymous if anonymous is None else anonymous,
                             bidder=last_bidder if bidder is None else bidder,
                             aliases=last_aliases if aliases is None else aliases,
                             page_limit=tender_page_limit(window), pages=pages,
                             prescribed=tender_prescribed_parts(window))
    if forms is not None:  # the 商务 part: 资格与符合性自查, one story through the whole bid (issue 39)
        found = sorted([*found, *forms.findings()], key=lambda f: not f.blocking)
    return found


class SubmissionChecksDialog(QDialog):
    """The 提交前检查 list: one row per finding, blocking ones marked; double-click shows the section.

    Signals:
        section_requested(object): the path of the section a finding is about.
    """

    section_requested = Signal(object)

    def __init__(self, findings: Sequence[Finding], parent: QWidget | None = None, *, asking: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("submissionChecksDialog")
        self.setWindowTitle("提交前检查")
        blocking = sum(1 for f in findings if f.blocking)
        self.summary = QLabel(
            "未发现问题。" if not findings else
            f"发现 {len(findings)} 项问题，其中 {blocking} 项可能导致废标或明显未完成（标“必须处理”）。双击可定位到章节。")
        self.summary.setWordWrap(True)
        self.list = QTreeWidget()
        self.list.setObjectName("checksList")
        self.list.setHeaderHidden(True)
        self.list.setRootIsDecorated(True)
        for entry in grouped(findings):
            if isinstance(entry, FindingGroup):
                row = self._row(entry.blocking, entry.rule, f"{entry.message}（展开查看各节）", None)
                for f in entry.findings:
                    row.addChild(self._row(f.blocking, f.rule, f.message, f.path))
            else:
                row = self._row(entry.blocking, entry.rule, entry.message, entry.path)
            self.list.addTopLevelItem(row)
        self.list.itemDoubleClicked.connect(self._on_double_clicked)
        buttons = QDialogButtonBox()
        self.go_button: QPushButton | None = None
        if asking:
            self.go_button = buttons.addButton("仍然导出", QDialogButtonBox.ButtonRole.AcceptRole)
            self.back_button = buttons.addButton("返回修改", QDialogButtonBox.ButtonRole.RejectRole)
            self.back_button.setDefault(True)
        else:
            self.back_button = buttons.addButton("关闭", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self.resize(640, 420)

    @staticmethod
    def _row(blocking: bool, rule: str, message: str, path: object) -> QTreeWidgetItem:
        row = QTreeWidgetItem([f"{'【必须处理】' if blocking else '【提醒】'}{rule}：{message}"])
        row.setData(0, PATH_ROLE, path)
        row.setToolTip(0, message)
        if blocking:
            row.setForeground(0, QBrush(QColor("#c62828")))
        return row

    def _on_double_clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        path = item.data(0, PATH_ROLE)
        if path is not None:
            self.section_requested.emit(tuple(path))


def open_checks(window: WindowHost, dock: ReviewHost) -> SubmissionChecksDialog:
    """Show the 提交前检查 list for the current bid (non-modal)."""
    dialog = SubmissionChecksDialog(window_findings(window), window)
    dialog.section_requested.connect(dock.show_section)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


async def confirm_export(window: WindowHost, findings: Sequence[Finding]) -> bool:
    """When blocking findings exist, ask whether to export anyway; True to go on."""
    from app.ui.widgets.async_dialog import run_dialog

    if not any(f.blocking for f in findings):
        return True
    dialog = SubmissionChecksDialog(findings, window, asking=True)
    dock = getattr(window, "review_dock", None)
    if dock is not None:
        dialog.section_requested.connect(dock.show_section)
    result = await run_dialog(dialog)
    dialog.deleteLater()
    return bool(result == QDialog.DialogCode.Accepted.value)

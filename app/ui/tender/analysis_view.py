"""The analysis page: project overview fields and the scoring items as read, with their checks.

The user sees which table was used (with its page, one click away in the document pane),
the total and subtotals with their check, every candidate table (look-alikes with the
reason they were set aside) and every scoring item with its category. Picking another
table, moving items between categories, editing a name or points, or marking an item as
not a chapter each produce a new ``Analysis`` handed to the controller through the
``analysis_edited`` signal (one undo step); one-to-one generation then uses exactly that.
Without technical scoring the page says why and offers free mode on the 采购需求.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.analysis import Analysis, ProjectOverview
from app.ui.tender.candidate_list import candidate_text
from app.ui.tender.page_preview import PageSource
from app.ui.tender.scoring_items_model import HEADERS, ScoringTableModel
from app.ui.tender.scoring_panel import ScoringPanel, no_scoring_text

__all__ = ["HEADERS", "AnalysisView", "ScoringTableModel", "candidate_text", "no_scoring_text"]


class AnalysisView(QWidget):
    """Overview form above the scoring items.

    Signals:
        analysis_edited(object): the user changed the analysis (a new ``Analysis``).
        page_requested(int): show this 1-based page of the tender.
        free_mode_requested(): generate in free mode from the 采购需求 (no technical scoring).
    """

    analysis_edited = Signal(object)
    page_requested = Signal(int)
    free_mode_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._analysis = Analysis()
        self._loading = False
        self.overview_box = self._overview_form()
        self.overview_box.setVisible(False)  # one line until opened: the scoring table gets the height
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(self._overview_header())
        layout.addWidget(self.overview_box)
        layout.addWidget(self._scoring_panel(), 1)

    def _overview_header(self) -> QHBoxLayout:
        """“项目概况 ▸” and the name, buyer and budget on one line; a click opens the form."""
        self.overview_toggle = QToolButton()
        self.overview_toggle.setObjectName("overviewToggle")
        self.overview_toggle.setText("项目概况")
        self.overview_toggle.setCheckable(True)
        self.overview_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.overview_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.overview_toggle.setToolTip("展开或收起项目名称、采购人、预算等信息（可直接修改）")
        self.overview_toggle.toggled.connect(self._on_overview_toggled)
        self.overview_line = QLabel()
        self.overview_line.setObjectName("overviewLine")
        self.overview_line.setTextFormat(Qt.TextFormat.RichText)
        self.overview_line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row = QHBoxLayout()
        row.addWidget(self.overview_toggle)
        row.addWidget(self.overview_line, 1)
        return row

    def _check_of(self, name: str, value: str) -> str:
        """The check line of a field; a value other than the one that was read is the user's own."""
        checks = self._analysis.overview_checks
        read = checks.get(f"{name}:value")
        if read is not None and value and value != read:
            return "✓ 已手工修改"
        return checks.get(name, "")

    def _on_overview_toggled(self, shown: bool) -> None:
        self.overview_box.setVisible(shown)
        self.overview_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    def _show_overview_line(self) -> None:
        """Name, buyer and budget on one line, each with its check (✓, or 待确认 and where)."""
        ov = self._analysis.overview
        parts, tips = [], []
        for name, label, value in (("project_name", "项目名称", ov.project_name), ("buyer", "采购人", ov.buyer),
                                   ("budget", "预算", ov.budget)):
            check = self._check_of(name, value)
            if not value and name != "project_name":
                continue
            # the mark goes before the value, so a long name that is cut off still shows it
            if check.startswith("✓"):
                mark = "<span style='color:#2e7d32'>✓</span>"
            elif check.startswith("待确认") or not value:
                mark = "<span style='color:#a05a00'>（待确认）</span>"
            else:
                mark = ""
            parts.append(f"{label}{mark}：{html.escape(value or '（未读到）')}")
            tips.append(f"{label}：{value or '（未读到）'}" + (f"\n  {check}" if check else ""))
        self.overview_line.setText(" · ".join(parts))
        self.overview_line.setToolTip("\n".join(tips) + "\n点“项目概况”展开核对和修改")
        for name, edit in (("project_name", self.project_name), ("buyer", self.buyer), ("budget", self.budget)):
            check = self._check_of(name, str(getattr(ov, name) or ""))
            edit.setToolTip(check)
            edit.setStyleSheet("QLineEdit{border:1px solid #e0a040;}" if check.startswith("待确认") else "")

    def _overview_form(self) -> QWidget:
        self.project_name = QLineEdit()
        self.buyer = QLineEdit()
        self.budget = QLineEdit()
        self.period = QLineEdit()
        self.summary = QPlainTextEdit()
        self.summary.setMaximumHeight(90)
        self.summary.setPlaceholderText("项目概况与采购内容")
        form = QFormLayout()
        form.addRow("项目名称", self.project_name)
        form.addRow("采购人", self.buyer)
        row = QHBoxLayout()
        row.addWidget(self.budget)
        row.addWidget(QLabel("服务期/工期"))
        row.addWidget(self.period)
        form.addRow("预算金额", row)
        form.addRow("项目概况", self.summary)
        for w in (self.project_name, self.buyer, self.budget, self.period):
            w.editingFinished.connect(self._on_overview_edited)
        self.summary.textChanged.connect(self._on_overview_edited)
        top = QWidget()
        top.setLayout(form)
        return top

    def _scoring_panel(self) -> QWidget:
        """The scoring part (:class:`ScoringPanel`); its widgets are reachable from the view as before."""
        panel = ScoringPanel(self.current_analysis, self._emit, self._on_groups_edited)
        panel.page_requested.connect(self.page_requested.emit)
        panel.free_mode_requested.connect(self.free_mode_requested.emit)
        self.scoring = panel
        self.source_label, self.jump_button, self.checks_label = panel.source_label, panel.jump_button, panel.checks_label
        self.candidates_toggle, self.candidates = panel.candidates_toggle, panel.candidates
        self.doubt_label, self.verdict_label = panel.doubt_label, panel.verdict_label
        self.confirm_button, self.fix_button = panel.confirm_button, panel.fix_button
        self.no_scoring, self.free_mode_button = panel.no_scoring, panel.free_mode_button
        self.table_model, self.table, self.row_actions = panel.table_model, panel.table, panel.row_actions
        self.move_buttons = panel.move_buttons
        self.not_chapter_button, self.chapter_button = panel.not_chapter_button, panel.chapter_button
        self.preview, self.preview_toggle, self.compare = panel.preview, panel.preview_toggle, panel.compare
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #555;")
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(panel, 1)
        layout.addWidget(self.notes)
        return box

    def set_page_source(self, source: PageSource | None) -> None:
        """Render the page beside the rows from ``source`` (the document pane)."""
        self.scoring.preview.set_source(source)

    def set_analysis(self, analysis: Analysis) -> None:
        """Show ``analysis`` (does not emit :attr:`analysis_edited`)."""
        self._loading = True
        try:
            self._analysis = analysis
            ov = analysis.overview
            self.project_name.setText(ov.project_name)
            self.buyer.setText(ov.buyer)
            self.budget.setText(ov.budget)
            self.period.setText(ov.service_period)
            self.summary.setPlainText(ov.summary or ov.scope)
            self._show_overview_line()
            self.scoring.show_analysis(analysis)
            notes = self.scoring.visible_notes(analysis)
            self.notes.setText("\n".join(notes))
            self.notes.setVisible(bool(notes))
        finally:
            self._loading = False

    def confirm_scoring(self) -> None:
        """The user checked the items: one-to-one generation no longer asks (one undo step)."""
        self.scoring.confirm_scoring()

    def current_analysis(self) -> Analysis:
        """The analysis as the user sees it now."""
        ov = self._analysis.overview.model_copy(update={
            "project_name": self.project_name.text().strip(), "buyer": self.buyer.text().strip(),
            "budget": self.budget.text().strip(), "service_period": self.period.text().strip(),
            "summary": self.summary.toPlainText().strip(),
        })
        return self._analysis.model_copy(update={"overview": ProjectOverview.model_validate(ov.model_dump()),
                                                 "groups": list(self.table_model.groups)})

    def _emit(self, analysis: Analysis) -> None:
        """Show a new analysis made by a scoring command and hand it on (one undo step)."""
        if analysis == self._analysis:
            return
        self.set_analysis(analysis)
        self.analysis_edited.emit(analysis)

    def _on_overview_edited(self) -> None:
        if not self._loading and self.current_analysis().overview != self._analysis.overview:
            self._analysis = self.current_analysis()
            self._show_overview_line()
            self.analysis_edited.emit(self._analysis)

    def _on_groups_edited(self) -> None:
        if not self._loading:
            self._analysis = self.current_analysis()
            self.scoring.refresh_after_edit()
            self.analysis_edited.emit(self._analysis)

    def show_group(self, group_id: str) -> None:
        """Select the item with ``group_id`` and ask for its page."""
        for row, g in enumerate(self.table_model.groups):
            if g.id == group_id:
                self.table.selectRow(row)
                if g.source_page:
                    self.page_requested.emit(g.source_page)
                return

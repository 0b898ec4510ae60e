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

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.analysis import CATEGORY_ZH, Analysis, ProjectOverview, ScoringCategory, ScoringTableInfo
from app.core.scoring_edit import move_to_category, scoring_checks, set_chapter, use_table
from app.ui.tender.scoring_items_model import (
    COL_CATEGORY,
    COL_CRITERIA,
    COL_PAGE,
    COL_POINTS,
    COL_TITLE,
    HEADERS,
    CategoryDelegate,
    ScoringTableModel,
)

__all__ = ["HEADERS", "AnalysisView", "ScoringTableModel"]


def _pages(pages: list[int]) -> str:
    if not pages:
        return ""
    return f"第{pages[0]}页" if len(pages) == 1 else f"第{pages[0]}–{pages[-1]}页"


def candidate_text(t: ScoringTableInfo) -> str:
    """One line per candidate table: where, what, how many items, the sum, why set aside."""
    kind = "评分条文" if t.kind == "paragraphs" else (t.label or "表格")
    total = f"{t.total:g}"
    line = f"{_pages(t.pages)} {kind} · {len(t.groups)} 项 · 合计 {total} 分"
    if t.stated_total is not None and abs(t.total - t.stated_total) >= 0.01:
        line += f"（标明 {t.stated_total:g} 分）"
    if t.rejected:
        line += f" — 不像评分表：{t.rejected}"
    return line


def no_scoring_text(analysis: Analysis) -> str:
    """Why there is no technical scoring, and what to do instead."""
    if any(t.used for t in analysis.scoring_tables):
        reason = "评分表中没有作为章节的技术评分项（可把评分项移到“技术”类或设为章节）"
    else:
        reason = analysis.scoring_message or "招标文件中没有找到评分表"
    if "自由模式" in reason:
        return reason
    return f"{reason}；可以用自由模式，依据采购需求生成目录"


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
        self.source_label = QLabel()
        self.source_label.setWordWrap(True)
        self.jump_button = QPushButton("查看原文")
        self.jump_button.setToolTip("在“招标文件”中显示所选评分项所在页（未选时显示评分表所在页）；"
                                    "也可以点评分项的“页码”")
        self.jump_button.clicked.connect(self._on_jump)
        self.candidates_toggle = QToolButton()
        self.candidates_toggle.setObjectName("candidatesToggle")
        self.candidates_toggle.setCheckable(True)
        self.candidates_toggle.setToolTip("显示找到的全部评分表，勾选评标使用的那几张")
        self.candidates = QListWidget()
        self.candidates.setMaximumHeight(72)
        source = QHBoxLayout()
        source.addWidget(self.source_label, 1)
        source.addWidget(self.jump_button)
        source.addWidget(self.candidates_toggle)
        self.candidates.setToolTip("勾选评标使用的评分表（可勾选多张：商务、技术、价格分表）")
        self.candidates.itemChanged.connect(self._on_candidate_toggled)
        self.candidates_toggle.toggled.connect(self.candidates.setVisible)
        self.checks_label = QLabel()
        self.checks_label.setWordWrap(True)
        self.doubt_label = QLabel()
        self.doubt_label.setObjectName("scoringDoubt")
        self.doubt_label.setWordWrap(True)
        self.doubt_label.setStyleSheet("color: #a05a00;")
        self.confirm_button = QPushButton("核对无误，确认评分项")
        self.confirm_button.setObjectName("confirmScoring")
        self.confirm_button.setToolTip("确认后，一一对应模式生成目录时不再询问")
        self.confirm_button.clicked.connect(self.confirm_scoring)
        doubt = QHBoxLayout()
        doubt.addWidget(self.doubt_label, 1)
        doubt.addWidget(self.confirm_button)
        self.no_scoring = QLabel()
        self.no_scoring.setWordWrap(True)
        self.no_scoring.setStyleSheet("color: #a05a00;")
        self.free_mode_button = QPushButton("用自由模式按采购需求生成目录")
        self.free_mode_button.clicked.connect(self.free_mode_requested.emit)
        self.table_model = ScoringTableModel(self)
        self.table_model.groups_edited.connect(self._on_groups_edited)
        self.table = QTableView()
        self.table.setModel(self.table_model)
        self.table.setItemDelegateForColumn(COL_CATEGORY, CategoryDelegate(self.table))
        self.table.setWordWrap(False)  # one line a row (the full criteria are in the tooltip): 8+ rows on a laptop
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 10)
        self.table.horizontalHeader().setSectionResizeMode(COL_CRITERIA, QHeaderView.ResizeMode.Stretch)
        for col, width in ((0, 40), (COL_CATEGORY, 44), (COL_TITLE, 160), (COL_POINTS, 44), (4, 40), (6, 40)):
            self.table.setColumnWidth(col, width)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.table.clicked.connect(self._on_clicked)  # only the 页码 cell jumps; other cells select and edit
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #555;")
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addLayout(source)
        bl.addWidget(self.candidates)
        bl.addWidget(self.checks_label)
        bl.addLayout(doubt)
        bl.addWidget(self.no_scoring)
        bl.addWidget(self.free_mode_button)
        bl.addLayout(self._buttons())
        bl.addWidget(self.table)
        bl.addWidget(self.notes)
        return bottom

    def _buttons(self) -> QVBoxLayout:
        """Two rows (caption, add/remove; then moving the selection) so the dock fits a laptop screen."""
        add = QPushButton("添加评分项")
        add.clicked.connect(lambda: self.table_model.add_group())
        remove = QPushButton("删除所选")
        remove.clicked.connect(self._remove_selected)
        caption = QLabel("评分项")
        caption.setToolTip("技术评分项在一一对应模式下各成一个一级章节")
        first = QHBoxLayout()
        first.addWidget(caption, 1)
        first.addWidget(add)
        first.addWidget(remove)
        second = QHBoxLayout()
        second.addWidget(QLabel("所选移到"))
        self.move_buttons: dict[str, QPushButton] = {}
        for cat, zh in CATEGORY_ZH.items():
            b = QPushButton(zh)
            b.setToolTip(f"把所选评分项移到{zh}类")
            b.setMinimumWidth(b.fontMetrics().horizontalAdvance(zh) + 24)
            b.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
            b.clicked.connect(lambda _checked=False, c=cat: self._move_selected(c))
            self.move_buttons[cat] = b
            second.addWidget(b)
        self.not_chapter_button = QPushButton("不作为章节")
        self.not_chapter_button.clicked.connect(lambda: self._chapter_selected(False))
        self.chapter_button = QPushButton("作为章节")
        self.chapter_button.clicked.connect(lambda: self._chapter_selected(True))
        second.addStretch(1)
        for b in (self.not_chapter_button, self.chapter_button):
            second.addWidget(b)
        buttons = QVBoxLayout()
        buttons.addLayout(first)
        buttons.addLayout(second)
        return buttons

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
            self._show_scoring(analysis)
            notes = list(dict.fromkeys([*analysis.notes, *(d.message for d in analysis.differences)]))
            if not analysis.has_technical_scoring and analysis.scoring_message:
                notes = [n for n in notes if analysis.scoring_message not in n]  # the banner says it
            self.notes.setText("\n".join(notes))
            self.notes.setVisible(bool(notes))
        finally:
            self._loading = False

    def _show_scoring(self, analysis: Analysis) -> None:
        self.table_model.set_groups(analysis.groups)
        used = [t for t in analysis.scoring_tables if t.used]
        if used:
            where = "；".join(f"{_pages(t.pages)} {t.label or ('评分条文' if t.kind == 'paragraphs' else '评分表')}"
                             for t in used)
            who = "（由模型选定）" if any("由模型" in d and "评分表" in d for d in analysis.scoring_decisions) else ""
            self.source_label.setText(f"使用的评分表：{where}{who}")
        else:
            self.source_label.setText(f"评分表：{analysis.scoring_message}" if analysis.scoring_message
                                      else "评分表：未读取")
        self.jump_button.setEnabled(bool(used and used[0].pages))
        self.candidates.clear()
        for t in analysis.scoring_tables:
            item = QListWidgetItem(candidate_text(t))
            item.setData(Qt.ItemDataRole.UserRole, t.key)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if t.used else Qt.CheckState.Unchecked)
            item.setToolTip("\n".join(t.evidence) or candidate_text(t))
            self.candidates.addItem(item)
        several = len(analysis.scoring_tables) > 1 or any(not t.used for t in analysis.scoring_tables)
        checks = scoring_checks(analysis) if analysis.groups else []
        self.checks_label.setText("；".join(c.text() for c in checks))
        bad = any(c.ok is False for c in checks)
        self.candidates_toggle.setText(f"候选评分表 {len(analysis.scoring_tables)} 张")
        self.candidates_toggle.setVisible(several)
        self.candidates_toggle.setChecked(several and (bad or not used))  # open when the reading needs a look
        self.candidates.setVisible(self.candidates_toggle.isChecked())
        self.checks_label.setStyleSheet("color: #b00020;" if bad else "color: #2e7d32;")
        self.checks_label.setVisible(bool(checks))
        self._show_doubt(analysis)
        without = not analysis.has_technical_scoring
        self.no_scoring.setText(no_scoring_text(analysis))
        self.no_scoring.setVisible(without)
        self.free_mode_button.setVisible(without)
        self.source_label.setVisible(bool(used) or not without)
        self.jump_button.setVisible(bool(used))

    def _show_doubt(self, analysis: Analysis) -> None:
        """The one sentence saying what code could not confirm, and the one-click confirmation."""
        asks = analysis.needs_scoring_confirmation
        doubtful = sum(1 for g in analysis.groups if g.doubt)
        text = analysis.scoring_doubt or "评分表未经程序确认，请核对评分项、分值和类别"
        if doubtful:
            text += f"。存疑的 {doubtful} 项已标为橙色"
        self.doubt_label.setText(text if asks else "")
        self.doubt_label.setVisible(asks)
        self.confirm_button.setVisible(asks)

    def confirm_scoring(self) -> None:
        """The user checked the items: one-to-one generation no longer asks (one undo step)."""
        self._emit(self.current_analysis().model_copy(update={"scoring_user_confirmed": True}))

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
            self._show_checks_only()
            self.analysis_edited.emit(self._analysis)

    def _show_checks_only(self) -> None:
        self._loading = True
        try:
            checks = scoring_checks(self._analysis) if self._analysis.groups else []
            self.checks_label.setText("；".join(c.text() for c in checks))
            bad = any(c.ok is False for c in checks)
            self.checks_label.setStyleSheet("color: #b00020;" if bad else "color: #2e7d32;")
        finally:
            self._loading = False

    def _selected_ids(self) -> list[str]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.table_model.groups[r].id for r in rows if r < len(self.table_model.groups)]

    def _move_selected(self, category: ScoringCategory) -> None:
        ids = self._selected_ids()
        if ids:
            self._emit(move_to_category(self.current_analysis(), ids, category))

    def _chapter_selected(self, chapter: bool) -> None:
        ids = self._selected_ids()
        if ids:
            self._emit(set_chapter(self.current_analysis(), ids, chapter))

    def _on_candidate_toggled(self, item: QListWidgetItem) -> None:
        if self._loading:
            return
        key = str(item.data(Qt.ItemDataRole.UserRole))
        self._emit(use_table(self.current_analysis(), key, item.checkState() == Qt.CheckState.Checked))

    def _on_jump(self) -> None:
        """The selected item's page, or the scoring table's first page when none is selected."""
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        groups = self.table_model.groups
        page = next((groups[r].source_page for r in rows if r < len(groups) and groups[r].source_page), None)
        if page is None:
            used = [t for t in self._analysis.scoring_tables if t.used and t.pages]
            page = used[0].pages[0] if used else None
        if page:
            self.page_requested.emit(page)

    def _remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()}, reverse=True)
        for r in rows:
            self.table_model.remove_group(r)

    def _on_clicked(self, index: QModelIndex) -> None:
        """A click on the 页码 cell shows that page; any other cell stays here (select, edit, move)."""
        if index.column() != COL_PAGE or not 0 <= index.row() < len(self.table_model.groups):
            return
        page = self.table_model.groups[index.row()].source_page
        if page:
            self.page_requested.emit(page)

    def show_group(self, group_id: str) -> None:
        """Select the item with ``group_id`` and ask for its page."""
        for row, g in enumerate(self.table_model.groups):
            if g.id == group_id:
                self.table.selectRow(row)
                if g.source_page:
                    self.page_requested.emit(g.source_page)
                return

"""The scoring part of the analysis page: which tables, the sums, the verdict, the rows, the page beside them.

Top to bottom: the table(s) in use (查看原文, 原文 to show the page beside the rows, the
candidate list with a tick per table and “只用此表”), the sums with their checks, the verdict —
what could not be confirmed and the one-click ways out (确认评分项; moving the rows that explain
a part's wrong sum), or who confirmed it (程序 / 程序与模型 / 你) — then the rows with their tools,
or, when the model's own reading differs from code's, both readings side by side; and the page
the selected row was read from, beside them, opened by itself while the reading is unconfirmed.
Every change is a new ``Analysis`` handed to ``emit`` (one undo step).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from typing_extensions import override

from app.core.analysis import CATEGORY_ZH, Analysis, ScoringCategory, ScoringGroup
from app.core.scoring_edit import (
    SELF_CHECK_NOTES,
    Explanation,
    choose_lot,
    confirm_scoring,
    explaining_rows,
    move_to_category,
    scoring_checks,
    set_chapter,
    take_reading,
    use_only_table,
    use_table,
    user_edited,
)
from app.ui.tender.candidate_list import CandidateList, _pages
from app.ui.tender.page_preview import PagePreview
from app.ui.tender.reading_compare_view import ReadingCompareView
from app.ui.tender.scoring_items_model import (
    COL_CATEGORY,
    COL_CRITERIA,
    COL_PAGE,
    COL_POINTS,
    COL_TITLE,
    CategoryDelegate,
    ScoringTableModel,
)
from app.ui.tender.scoring_row_actions import ScoringRowActions

#: Below this width the page goes under the rows instead of beside them.
SIDE_BY_SIDE_WIDTH = 720
_GREEN = "color: #2e7d32;"
_ORANGE = "color: #a05a00;"


def no_scoring_text(analysis: Analysis) -> str:
    """Why there is no technical scoring, and what to do instead."""
    if any(t.used for t in analysis.scoring_tables):
        reason = "评分表中没有作为章节的技术评分项（可把评分项移到“技术”类或设为章节）"
    else:
        reason = analysis.scoring_message or "招标文件中没有找到评分表"
    if "自由模式" in reason:
        return reason
    return f"{reason}；可以用自由模式，依据采购需求生成目录"


def verdict_text(analysis: Analysis) -> str:
    """Who confirmed the items, in words ("" when nobody has)."""
    if not analysis.groups:
        return ""
    if analysis.scoring_user_confirmed:
        return "✓ 评分项已由你核对确认"
    reading = analysis.second_reading
    if analysis.scoring_confirmed and reading is not None and reading.verified and reading.agrees:
        who = f"模型（{reading.model}）" if reading.model else "模型"
        return f"✓ 程序与{who}各自读取评分表，逐项一致，已确认"
    if analysis.scoring_confirmed:
        return "✓ 评分表已由程序核对确认（合计、小计与正文一致）"
    return ""


class ScoringPanel(QWidget):
    """The scoring tables, checks, verdict, rows and page of one analysis.

    Signals:
        page_requested(int): show this 1-based page in the document pane.
        free_mode_requested(): generate in free mode (no technical scoring).
    """

    page_requested = Signal(int)
    free_mode_requested = Signal()

    def __init__(self, current: Callable[[], Analysis], emit: Callable[[Analysis], None],
                 groups_edited: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._current = current
        self._emit = emit
        self._analysis = Analysis()
        self._explanation: Explanation | None = None
        self._preview_by_user: bool | None = None  # the user's own choice, once made, is kept
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._lot_row())
        layout.addLayout(self._source_row())
        layout.addWidget(self.candidates)
        self.checks_label = QLabel()
        self.checks_label.setWordWrap(True)
        layout.addWidget(self.checks_label)
        layout.addLayout(self._verdict_row())
        self.no_scoring = QLabel()
        self.no_scoring.setWordWrap(True)
        self.no_scoring.setStyleSheet(_ORANGE)
        self.free_mode_button = QPushButton("用自由模式按采购需求生成目录")
        self.free_mode_button.clicked.connect(self.free_mode_requested.emit)
        layout.addWidget(self.no_scoring)
        layout.addWidget(self.free_mode_button)
        self.table_model = ScoringTableModel(self)
        self.table_model.groups_edited.connect(groups_edited)
        self.table = self._rows_table()
        self.row_actions = ScoringRowActions(self.table, self.table_model, self._apply_rows, self)
        self.compare = ReadingCompareView()
        self.compare.take.connect(self._take)
        self.compare.row_chosen.connect(self._show_preview_page)
        self.preview = PagePreview()
        self.preview.open_requested.connect(self.page_requested.emit)
        rows = QWidget()
        rl = QVBoxLayout(rows)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(self._buttons())
        rl.addWidget(self.table, 1)
        self.stack = QStackedWidget()
        self.stack.addWidget(rows)
        self.stack.addWidget(self.compare)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.stack)
        self.splitter.addWidget(self.preview)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        layout.addWidget(self.splitter, 1)
        self.preview.setVisible(False)

    # ------------------------------------------------------------------ building
    def _lot_row(self) -> QHBoxLayout:
        """The lots, when the tender scores them apart: choosing one scores the bid by its scheme (one undo step)."""
        self.lot_label = QLabel("评分包：")
        box = QComboBox()
        box.setObjectName("scoringLot")
        box.setToolTip("本招标文件各包（标段）分别评分：选择投标的包，评分项、核对结果和一一对应目录随之改用该包的评分表")
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        box.activated.connect(self._on_lot_chosen)  # the user's choice only, never a refill
        self.lot_box = box
        self.lot_hint = QLabel("各包分别评分，请选择投标的包")
        self.lot_hint.setStyleSheet("color: #555;")
        self.lot_hint.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row = QHBoxLayout()
        row.addWidget(self.lot_label)
        row.addWidget(box)
        row.addWidget(self.lot_hint, 1)
        return row

    def _source_row(self) -> QHBoxLayout:
        self.source_label = QLabel()
        self.source_label.setWordWrap(True)
        self.jump_button = QPushButton("查看原文")
        self.jump_button.setToolTip("在“招标文件”中显示所选评分项所在页（未选时显示评分表所在页）；也可以点评分项的“页码”")
        self.jump_button.clicked.connect(self._on_jump)
        self.preview_toggle = QToolButton()
        self.preview_toggle.setObjectName("previewToggle")
        self.preview_toggle.setText("原文页")
        self.preview_toggle.setCheckable(True)
        self.preview_toggle.setToolTip("在评分项旁边显示所选评分项所在的原文页")
        self.preview_toggle.toggled.connect(self._on_preview_toggled)
        self.preview_toggle.clicked.connect(lambda on: setattr(self, "_preview_by_user", on))
        self.candidates_toggle = QToolButton()
        self.candidates_toggle.setObjectName("candidatesToggle")
        self.candidates_toggle.setCheckable(True)
        self.candidates_toggle.setToolTip("显示找到的全部评分表：勾选评标使用的那几张，或点“只用此表”改用一张")
        self.candidates = CandidateList()
        self.candidates.setMaximumHeight(84)
        self.candidates.toggled.connect(lambda key, on: self._emit(use_table(self._current(), key, on)))
        self.candidates.use_only.connect(lambda key: self._emit(use_only_table(self._current(), key)))
        self.candidates_toggle.toggled.connect(self.candidates.setVisible)
        row = QHBoxLayout()
        row.addWidget(self.source_label, 1)
        row.addWidget(self.jump_button)
        row.addWidget(self.preview_toggle)
        row.addWidget(self.candidates_toggle)
        return row

    def _verdict_row(self) -> QHBoxLayout:
        self.doubt_label = QLabel()
        self.doubt_label.setObjectName("scoringDoubt")
        self.doubt_label.setWordWrap(True)
        self.doubt_label.setStyleSheet(_ORANGE)
        self.verdict_label = QLabel()
        self.verdict_label.setObjectName("scoringVerdict")
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setStyleSheet(_GREEN)
        self.fix_button = QPushButton()
        self.fix_button.setObjectName("fixCategories")
        self.fix_button.setToolTip("把红色标出的评分项移到小计缺分的类别（可撤销）")
        self.fix_button.clicked.connect(self._fix_categories)
        self.confirm_button = QPushButton("核对无误，确认评分项")
        self.confirm_button.setObjectName("confirmScoring")
        self.confirm_button.setToolTip("确认后，一一对应模式生成目录时不再询问")
        self.confirm_button.clicked.connect(self.confirm_scoring)
        row = QHBoxLayout()  # the doubt or the verdict (never both), then the one-click ways out
        row.addWidget(self.doubt_label, 1)
        row.addWidget(self.verdict_label, 1)
        row.addWidget(self.fix_button)
        row.addWidget(self.confirm_button)
        return row

    def _rows_table(self) -> QTableView:
        table = QTableView()
        table.setModel(self.table_model)
        table.setItemDelegateForColumn(COL_CATEGORY, CategoryDelegate(table))
        table.setWordWrap(False)  # one line a row (the full criteria are in the tooltip): 8+ rows on a laptop
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 10)
        table.horizontalHeader().setSectionResizeMode(COL_CRITERIA, QHeaderView.ResizeMode.Stretch)
        for col, width in ((0, 40), (COL_CATEGORY, 44), (COL_TITLE, 160), (COL_POINTS, 44), (4, 40), (6, 40)):
            table.setColumnWidth(col, width)
        table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
                              | QAbstractItemView.EditTrigger.AnyKeyPressed)
        table.clicked.connect(self._on_clicked)  # only the 页码 cell jumps; other cells select and edit
        table.selectionModel().currentRowChanged.connect(self._on_current_row)
        return table

    def _buttons(self) -> QVBoxLayout:
        """The row tools, then moving the selection: two rows so the dock fits a laptop screen."""
        caption = QLabel("评分项")
        caption.setToolTip("技术评分项在一一对应模式下各成一个一级章节；右键评分项有更多操作")
        first = QHBoxLayout()
        first.addWidget(caption, 1)
        first.addLayout(self.row_actions.bar())
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

    # ------------------------------------------------------------------ showing
    def show_analysis(self, analysis: Analysis) -> None:
        """Show the scoring part of ``analysis``."""
        if [(t.key, t.pages) for t in analysis.scoring_tables] != [(t.key, t.pages) for t in self._analysis.scoring_tables]:
            self._preview_by_user = None  # another tender (or reading): the page opens by itself again
        self._analysis = analysis
        self._show_lots(analysis)
        self._explanation = explaining_rows(analysis) if analysis.groups else None
        marks = {i: self._explanation.why for i in self._explanation.ids} if self._explanation else {}
        self.table_model.set_groups(analysis.groups, marks)
        used = [t for t in analysis.scoring_tables if t.used]
        if used:
            where = "；".join(f"{_pages(t.pages)} {t.label or ('评分条文' if t.kind == 'paragraphs' else '评分表')}"
                             for t in used)
            who = "（由模型选定）" if any("由模型" in d and "评分表" in d for d in analysis.scoring_decisions) else ""
            self.source_label.setText(f"使用的评分表：{where}{who}")
        else:
            self.source_label.setText(f"评分表：{analysis.scoring_message}" if analysis.scoring_message else "评分表：未读取")
        self.jump_button.setEnabled(bool(used and used[0].pages))
        self.candidates.set_tables(analysis.scoring_tables)
        several = len(analysis.scoring_tables) > 1 or any(not t.used for t in analysis.scoring_tables)
        self.show_checks()
        bad = any(c.ok is False for c in scoring_checks(analysis)) if analysis.groups else False
        self.candidates_toggle.setText(f"候选评分表 {len(analysis.scoring_tables)} 张")
        self.candidates_toggle.setVisible(several)
        self.candidates_toggle.setChecked(several and not self.comparing(analysis)
                                          and (bad or not used or analysis.needs_scoring_confirmation))
        self.candidates.setVisible(self.candidates_toggle.isChecked())
        self._show_verdict(analysis)
        without = not analysis.has_technical_scoring
        self.no_scoring.setText(no_scoring_text(analysis))
        self.no_scoring.setVisible(without)
        self.free_mode_button.setVisible(without)
        self.source_label.setVisible(bool(used) or not without)
        self.jump_button.setVisible(bool(used))
        comparing = self.comparing(analysis)
        if comparing:
            self.compare.set_analysis(analysis)
        self.stack.setCurrentIndex(1 if comparing else 0)
        self._open_preview(analysis, comparing)

    def _show_lots(self, analysis: Analysis) -> None:
        """The lot choice, shown only when the tender scores two or more lots apart."""
        lots = analysis.scoring_lots
        shown = len(lots) >= 2
        self.lot_box.blockSignals(True)
        try:
            self.lot_box.clear()
            for k, lot in enumerate(lots):
                confirmed = lot.confirmed or lot.user_confirmed if k != analysis.scoring_lot else (
                    analysis.scoring_confirmed or analysis.scoring_user_confirmed)
                self.lot_box.addItem(f"{lot.name}（{lot.total:g} 分）{' ✓' if confirmed else ''}")
                pages = _pages(lot.pages)
                self.lot_box.setItemData(k, f"{lot.name}：{pages}的评分表" + (f"\n{lot.doubt}" if lot.doubt else ""),
                                         Qt.ItemDataRole.ToolTipRole)
            if shown:
                self.lot_box.setCurrentIndex(min(analysis.scoring_lot, len(lots) - 1))
        finally:
            self.lot_box.blockSignals(False)
        for w in (self.lot_label, self.lot_box, self.lot_hint):
            w.setVisible(shown)

    def _on_lot_chosen(self, index: int) -> None:
        current = self._current()
        if index != current.scoring_lot:
            self._emit(choose_lot(current, index))

    @staticmethod
    def comparing(analysis: Analysis) -> bool:
        """Whether both readings are shown side by side (they differ and the user has not chosen)."""
        reading = analysis.second_reading
        return reading is not None and reading.to_compare and not analysis.scoring_user_confirmed and bool(reading.rows)

    def refresh_after_edit(self) -> None:
        """After an edit in a cell: the sums, the rows that explain a wrong sum and the verdict, rows left as they are."""
        analysis = self._current()
        self._analysis = analysis
        self._explanation = explaining_rows(analysis) if analysis.groups else None
        self.table_model.explaining = {i: self._explanation.why for i in self._explanation.ids} if self._explanation else {}
        if self.table_model.groups:
            self.table_model.dataChanged.emit(self.table_model.index(0, 0),
                                              self.table_model.index(len(self.table_model.groups) - 1, 6))
        self.show_checks()
        self._show_verdict(analysis)

    def show_checks(self) -> None:
        """The sums and their checks, for the items as they are now."""
        analysis = self._current() if self.table_model.groups else self._analysis
        checks = scoring_checks(analysis) if analysis.groups else []
        self.checks_label.setText("；".join(c.text() for c in checks))
        bad = any(c.ok is False for c in checks)
        self.checks_label.setStyleSheet("color: #b00020;" if bad else _GREEN)
        self.checks_label.setVisible(bool(checks))

    def _show_verdict(self, analysis: Analysis) -> None:
        """What could not be confirmed (and the one-click ways out), or who confirmed it."""
        edited = bool(analysis.groups) and not analysis.scoring_user_confirmed and user_edited(analysis)
        asks = analysis.needs_scoring_confirmation or (self.comparing(analysis) and not analysis.groups) or edited
        doubtful = sum(1 for g in analysis.groups if self.table_model.marked(g))
        text = analysis.scoring_doubt or "评分表未经程序确认，请核对评分项、分值和类别"
        checks = scoring_checks(analysis) if analysis.groups else []
        if edited:  # what code doubted (or confirmed) was its own reading; these are the user's items
            bad = [c for c in checks if c.ok is False]
            sums = "、".join(c.text().replace(" ✓", "").replace("✓", "") for c in checks if c.ok)
            text = (f"评分项已按你的修改重新核对：{bad[0].text()}，请核对" if bad else
                    f"评分项已按你的修改重新核对：{sums or checks[0].text() if checks else '无可核对的合计'}，都相符；"
                    "核对无误后请点确认")
        if self._explanation is not None:
            text += f"。红色的{self._explanation.why}"
        elif doubtful:
            text += f"。存疑的 {doubtful} 项已标为橙色"
        self.doubt_label.setText(text if asks else "")
        self.doubt_label.setVisible(asks)
        self.confirm_button.setVisible(asks and bool(analysis.groups))
        verdict = "" if edited else verdict_text(analysis)
        self.verdict_label.setText(verdict)
        self.verdict_label.setVisible(bool(verdict) and not asks)
        explanation = self._explanation
        if explanation is not None:
            names = [g.title for g in analysis.groups if g.id in explanation.ids]
            what = f"“{names[0]}”" if len(names) == 1 else f"这 {len(names)} 项"
            self.fix_button.setText(f"把{what}移到{CATEGORY_ZH[explanation.category]}类")
        self.fix_button.setVisible(explanation is not None)

    def _open_preview(self, analysis: Analysis, comparing: bool) -> None:
        """The page beside the rows opens by itself while the reading is unconfirmed, on its first doubtful row
        (when the stage shows the document pane beside the analysis, that pane goes to the page instead)."""
        wanted = comparing or analysis.needs_scoring_confirmation
        QTimer.singleShot(0, self, lambda: self._open_preview_now(analysis, comparing, wanted))

    def _open_preview_now(self, analysis: Analysis, comparing: bool, wanted: bool) -> None:
        if analysis is not self._analysis:
            return
        beside = self.preview.source_on_screen()
        if self._preview_by_user is None:
            self.preview_toggle.setChecked(wanted and not beside)
        if wanted or self.preview_toggle.isChecked():
            self._preview_first_row(analysis, comparing)

    def _preview_first_row(self, analysis: Analysis, comparing: bool) -> None:
        """Show the page of the first doubtful row (or of the model's first row, or of the table in use)."""
        first = next((g for g in analysis.groups if self.table_model.marked(g) and g.source_page), None)
        if first is None and comparing and analysis.second_reading is not None:
            first = next((g for g in analysis.second_reading.rows if g.source_page), None)
        if first is not None:
            self._show_preview_page(first.source_page or 0, first.title)
        else:
            used = [t for t in analysis.scoring_tables if t.used and t.pages]
            if used:
                self._show_preview_page(used[0].pages[0], "")

    def _show_preview_page(self, page: int, needle: str) -> None:
        if not page:
            return
        if self.preview_toggle.isChecked():
            self.preview.show_page(page, needle)
        elif self._needs_look():
            self.preview.follow(page)  # the document pane, when the stage shows it beside the rows

    def _needs_look(self) -> bool:
        """Whether the reading still needs the user's look (unconfirmed, or two readings to compare)."""
        return self._analysis.needs_scoring_confirmation or self.comparing(self._analysis)

    def _on_preview_toggled(self, shown: bool) -> None:
        self.preview.setVisible(shown)
        if shown:  # the rows keep the larger share; the page shows the lines around the row
            total = sum(self.splitter.sizes()) or 1
            self.splitter.setSizes([total * 11 // 20, total * 9 // 20])
        if shown:
            row = self.table.currentIndex().row()
            groups = self.table_model.groups
            if 0 <= row < len(groups) and groups[row].source_page:
                self._show_preview_page(groups[row].source_page or 0, groups[row].title)
            elif not self.preview.page:
                self._open_preview(self._analysis, self.stack.currentIndex() == 1)

    @override
    def resizeEvent(self, event: QResizeEvent) -> None:
        """Qt override: the page goes beside the rows on a wide panel, under them on a narrow one."""
        super().resizeEvent(event)
        wide = self.width() >= SIDE_BY_SIDE_WIDTH
        self.splitter.setOrientation(Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)

    # ------------------------------------------------------------------ edits
    def confirm_scoring(self) -> None:
        """The user checked the items: confirmed by the user, doubts and the self-check note gone (one undo step)."""
        self._emit(confirm_scoring(self._current()))

    def _take(self, which: str) -> None:
        self._emit(take_reading(self._current(), which))

    def _fix_categories(self) -> None:
        explanation = self._explanation
        if explanation is not None:
            self._emit(move_to_category(self._current(), explanation.ids, explanation.category))

    def _apply_rows(self, groups: list[ScoringGroup], select: list[int], edit: int) -> None:
        """A row tool's result as one edit; the rows it produced stay selected (and a new row's title is edited)."""
        self._emit(self._current().model_copy(update={"groups": groups}))
        selection = self.table.selectionModel()
        rows = [r for r in select if 0 <= r < len(self.table_model.groups)]
        if rows:
            selection.setCurrentIndex(self.table_model.index(rows[0], COL_TITLE),
                                      QItemSelectionModel.SelectionFlag.NoUpdate)
        selection.clearSelection()
        for r in rows:
            selection.select(self.table_model.index(r, COL_TITLE),
                             QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
        if 0 <= edit < len(self.table_model.groups):
            self.table.edit(self.table_model.index(edit, COL_TITLE))
        self.row_actions.update_enabled()

    def selected_ids(self) -> list[str]:
        """Ids of the selected rows."""
        return [self.table_model.groups[r].id for r in self.row_actions.selected()]

    def _move_selected(self, category: ScoringCategory) -> None:
        ids = self.selected_ids()
        if ids:
            self._emit(move_to_category(self._current(), ids, category))

    def _chapter_selected(self, chapter: bool) -> None:
        ids = self.selected_ids()
        if ids:
            self._emit(set_chapter(self._current(), ids, chapter))

    # ------------------------------------------------------------------ pages
    def _on_jump(self) -> None:
        """The selected item's page, or the scoring table's first page when none is selected."""
        rows = self.row_actions.selected()
        groups = self.table_model.groups
        page = next((groups[r].source_page for r in rows if groups[r].source_page), None)
        if page is None:
            used = [t for t in self._analysis.scoring_tables if t.used and t.pages]
            page = used[0].pages[0] if used else None
        if page:
            self.page_requested.emit(page)

    def _on_clicked(self, index: QModelIndex) -> None:
        """A click on the 页码 cell shows that page; any other cell stays here (select, edit, move)."""
        if index.column() != COL_PAGE or not 0 <= index.row() < len(self.table_model.groups):
            return
        page = self.table_model.groups[index.row()].source_page
        if page:
            self.page_requested.emit(page)

    def _on_current_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        """The page beside the rows follows the selected row."""
        groups = self.table_model.groups
        if 0 <= current.row() < len(groups) and groups[current.row()].source_page:
            self._show_preview_page(groups[current.row()].source_page or 0, groups[current.row()].title)

    def visible_notes(self, analysis: Analysis) -> list[str]:
        """Notes to show: code's self-check note goes once the items are confirmed."""
        notes = list(dict.fromkeys([*analysis.notes, *(d.message for d in analysis.differences)]))
        if analysis.scoring_user_confirmed or analysis.scoring_confirmed:
            notes = [n for n in notes if not any(w in n for w in SELF_CHECK_NOTES)]
        if self.comparing(analysis) or analysis.scoring_user_confirmed:  # the page shows (or showed) the two readings
            notes = [n for n in notes if "见分析页的对照" not in n]
        if not analysis.has_technical_scoring and analysis.scoring_message:
            notes = [n for n in notes if analysis.scoring_message not in n]  # the banner says it
        return notes

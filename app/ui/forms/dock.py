"""The 投标文件组成 dock (视图 → 投标文件组成) and its wiring to the window.

It reads the open tender's format chapter once the dock is on show (a hidden dock does no work
while a run streams), fills the forms from the tender's facts and 企业资料, and shows the
checklist (which forms are required, which are done), the price and date typed once, and the
selected form with its blanks. What the user types or ticks goes into the project
(``ProjectSession.set_bid_forms``) and is saved with it. 文件 → 导出商务标… is added here too.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.core.bid_forms import FormsReading, TenderForm
from app.ui.forms.board import FormsBoard
from app.ui.forms.checklist_model import FormsChecklistModel
from app.ui.forms.form_view import FormView
from app.ui.forms.price_panel import PricePanel
from app.ui.shell.stages import register_panel

if TYPE_CHECKING:
    from app.core.session import SessionChange
    from app.export.submission_checks import Finding
    from app.ui.shell.window_host import WindowHost

log = logging.getLogger("bidstudio.ui")


class FormsPanel(QWidget):
    """The dock's widget: summary, price fields, the checklist beside the selected form, buttons."""

    def __init__(self, board: FormsBoard, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("formsPanel")
        self.summary = QLabel("打开招标文件后，这里列出招标文件“投标文件格式”章节规定的各份格式。")
        self.summary.setObjectName("formsSummary")
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("color:#34495e;")
        self.price = PricePanel()
        self.model = FormsChecklistModel(board, self)
        self.table = QTableView()
        self.table.setObjectName("formsChecklist")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for col in (0, 2, 3, 4):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.view = FormView()
        self.reload_button = QPushButton("重新读取")
        self.reload_button.setObjectName("formsReload")
        self.na_button = QPushButton("标记为不适用")
        self.na_button.setObjectName("formsNotApplicable")
        self.export_button = QPushButton("导出商务标…")
        self.export_button.setObjectName("formsExport")
        buttons = QHBoxLayout()
        for b in (self.reload_button, self.na_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        split = QSplitter(Qt.Orientation.Vertical)  # the column is narrow in the 审查 stage: list over form
        split.addWidget(self.table)
        split.addWidget(self.view)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(self.price)
        layout.addWidget(split, 1)
        layout.addLayout(buttons)


class FormsHost(QObject):
    """The dock, its board and the connections to one window.

    Signals:
        loaded(): the forms were read (again) and filled.
    """

    loaded = Signal()

    def __init__(self, window: WindowHost) -> None:
        super().__init__(window)
        self.window = window
        self.board = FormsBoard()
        self.panel = FormsPanel(self.board)
        self.dock = QDockWidget("投标文件组成", window)
        self.dock.setObjectName("bidFormsDock")
        self.dock.setWidget(self.panel)
        self.dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                              | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                              | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        # the 审查 stage, a tab beside 评审模拟: the forms are what a bid office checks before it hands in
        register_panel(window, self.dock, "review", area=Qt.DockWidgetArea.RightDockWidgetArea, tab_with="reviewDock")
        self._stale = True
        self.export_action: QAction | None = None
        self._task: asyncio.Future[FormsReading | None] | None = None
        self._export: asyncio.Future[Path | None] | None = None
        c = window.controller
        c.document_loaded.connect(self._on_document)
        c.analysis_changed.connect(lambda _a: self._on_analysis())
        self._unsubscribe = c.session.subscribe(self._on_session)
        window.destroyed.connect(self._unsubscribe)
        self._alive = True
        window.destroyed.connect(self._on_gone)
        self.dock.visibilityChanged.connect(self._on_visible)
        p = self.panel
        p.price.value_changed.connect(self._on_value)
        p.model.done_toggled.connect(self._on_done)
        p.table.selectionModel().currentRowChanged.connect(lambda cur, _prev: self._show(cur.row()))
        p.view.blank_edited.connect(self._on_blank)
        p.reload_button.clicked.connect(lambda _c=False: self.reload_soon(force=True))
        p.na_button.clicked.connect(lambda _c=False: self._toggle_not_applicable())
        p.export_button.clicked.connect(lambda _c=False: self.export_soon())
        self.board.state = c.session.bid_forms.model_copy(deep=True)
        p.price.set_values(self.board.state.values)

    # ------------------------------------------------------------------ reading
    def _on_document(self, _doc: object) -> None:
        self._stale = True
        if self.dock.isVisible():
            self.reload_soon()

    def _on_visible(self, visible: bool) -> None:
        if visible and self._stale:
            self.reload_soon()

    def _on_analysis(self) -> None:
        if self.board.reading is None:
            return
        from app.documents.forms.tender_values import tender_values

        self.board.tender = tender_values(self.window.controller.document, self.window.controller.analysis)
        self._refill()

    def _on_session(self, change: SessionChange) -> None:
        if change == "reset":
            self.board.state = self.window.controller.session.bid_forms.model_copy(deep=True)
            self.panel.price.set_values(self.board.state.values)
            self._stale = True
            if self.board.reading is not None:
                self._refill()

    def reload_soon(self, force: bool = False) -> None:
        """Read the forms again in the background (a PDF's chapter pages take a second or two)."""
        if force:
            self._stale = True
        if self._task is not None and not self._task.done():
            return
        self._task = asyncio.ensure_future(self.reload())

    async def reload(self) -> FormsReading | None:
        """Read the open tender's forms off the GUI thread, then fill and show them."""
        c = self.window.controller
        path, doc = c.tender_path, c.document
        if path is None or doc is None:
            self.board.reading = None
            self._stale = False
            self._show_reading()
            return None
        from app.documents.forms.finder import find_forms

        self.panel.summary.setText("正在读取招标文件中的投标文件格式……")
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bidstudio-forms") as pool:
            try:
                reading = await asyncio.get_running_loop().run_in_executor(pool, find_forms, Path(path), doc)
            except Exception as exc:  # a tender that reads as text but not as forms: say so, keep the rest
                log.warning("forms not read: %s", exc)
                reading = FormsReading(source_path=str(path), message=f"未能读取投标文件格式：{type(exc).__name__}")
        self.board.reading = reading
        self._stale = False
        if not self._alive:
            return reading
        try:
            self._load_facts()
            self._show_reading()
        except RuntimeError:  # the window closed while the forms were read
            return reading
        self.loaded.emit()
        return reading

    def _load_facts(self) -> None:
        """The tender's facts and 企业资料 the forms are filled from."""
        from app.documents.forms.tender_values import tender_values

        c = self.window.controller
        self.board.tender = tender_values(c.document, c.analysis)
        library = getattr(self.window, "library", None)
        store = library.store() if library is not None else None
        if store is None:
            self.board.company, self.board.lists, self.board.certificates = {}, [], []
            return
        from app.export.forms.copies import CertificateCopy
        from app.library.facts import load_facts
        from app.library.forms_facts import company_values_from, list_rows_from

        facts = [f for kind in ("company", "finance", "staff", "reference", "certificate", "equipment")
                 for f in load_facts(store, kind)]
        self.board.company = company_values_from(facts)
        self.board.lists = list_rows_from(facts)
        self.board.certificates = [CertificateCopy(f.data.get("name", ""), f.data.get("number", ""),
                                                   f.data.get("valid_until", ""), f.data.get("file", ""), f.expired())
                                   for f in facts if f.kind == "certificate"]

    def _show_reading(self) -> None:
        self.board.refill()
        reading = self.board.reading
        self.panel.model.reset(self.board)
        if reading is None:
            self.panel.summary.setText("尚未打开招标文件。")
        else:
            left = sum(1 for f in reading.forms if self.board.status(f).empty and f.requirement == "required")
            extra = f" 还有 {left} 份必须提供的格式有空白未填。" if left else ""
            company = "" if self.board.company else " 企业资料中没有“企业基本信息”，投标人名称等无法自动填写。"
            self.panel.summary.setText(reading.message + extra + company)
        if self.board.forms:
            self.panel.table.selectRow(0)
            self._show(0)
        else:
            self.panel.view.show_form(self.board, None)

    # ------------------------------------------------------------------ edits
    @property
    def stale(self) -> bool:
        """Whether the open tender's forms were not read yet (or it changed since)."""
        return self._stale

    def keep(self) -> None:
        """The board's state into the project (unsaved until saved)."""
        self._keep()

    def _keep(self) -> None:
        """The board's state into the project (unsaved until saved)."""
        self.window.controller.session.set_bid_forms(self.board.state.model_copy(deep=True))

    def _refill(self) -> None:
        self.board.refill()
        self.panel.model.refresh()
        self._show(self.panel.table.currentIndex().row())

    def _current(self) -> TenderForm | None:
        row = self.panel.table.currentIndex().row()
        return self.board.forms[row] if 0 <= row < len(self.board.forms) else None

    def _show(self, row: int) -> None:
        form = self.board.forms[row] if 0 <= row < len(self.board.forms) else None
        self.panel.view.show_form(self.board, form)
        if form is not None:
            self.panel.na_button.setText("恢复为需要提供" if self.board.status(form).not_applicable else "标记为不适用")

    def _on_value(self, key: str, value: str) -> None:
        if self.board.state.values.get(key, "") == value:
            return
        self.board.set_value(key, value)
        self._keep()
        self._refill()

    def _on_done(self, row: int, done: bool) -> None:
        if 0 <= row < len(self.board.forms):
            self.board.set_done(self.board.forms[row], done)
            self._keep()
            self.panel.model.refresh()

    def _on_blank(self, index: int, value: str) -> None:
        form = self._current()
        if form is None or not 0 <= index < len(form.blanks):
            return
        self.board.set_blank(form, form.blanks[index], value)
        self._keep()
        self._refill()

    def _toggle_not_applicable(self) -> None:
        form = self._current()
        if form is None:
            return
        self.board.set_not_applicable(form, not self.board.status(form).not_applicable)
        self._keep()
        self._refill()

    # ------------------------------------------------------------------ export
    def export_soon(self) -> None:
        """文件 → 导出商务标…: the export dialog, then the volume written off the GUI thread."""
        from app.ui.forms.export_flow import export_forms

        if self._export is None or self._export.done():
            self._export = asyncio.ensure_future(export_forms(self))

    def read_now(self) -> None:
        """Read the open tender's forms on the calling thread when they were not read yet (提交前检查 asks
        before export, whether or not the panel was ever on show)."""
        c = self.window.controller
        if not self._stale or c.tender_path is None or c.document is None:
            return
        from app.documents.forms.finder import find_forms

        try:
            self.board.reading = find_forms(Path(c.tender_path), c.document)
        except Exception as exc:  # a tender that reads as text but not as forms: the checks go on without them
            log.warning("forms not read: %s", exc)
            return
        self._stale = False
        self._load_facts()
        self._show_reading()

    def findings(self) -> list[Finding]:
        """The forms' 提交前检查 rows (资格与符合性自查, the same facts everywhere); the forms are read first
        when they were not yet."""
        from app.ui.forms.checks import forms_findings

        self.read_now()
        return forms_findings(self)

    def close(self) -> None:
        """The window closes: stop listening to the session."""
        self._unsubscribe()

    def _on_gone(self) -> None:
        self._alive = False
        for task in (self._task, self._export):
            if task is not None and not task.done():
                task.cancel()


def _menu(window: WindowHost, title_prefix: str) -> QMenu | None:
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text().startswith(title_prefix):
            return menu
    return None


def attach_forms(window: WindowHost) -> FormsHost:
    """Add the 投标文件组成 dock, 视图 → 投标文件组成 and 文件 → 导出商务标…."""
    host = FormsHost(window)
    export = QAction("导出商务标…", window)
    export.setObjectName("exportFormsAction")
    export.setStatusTip("把招标文件规定的投标文件格式填好后导出为商务部分（Word）")
    export.triggered.connect(lambda _c=False: host.export_soon())
    host.export_action = export
    file_menu, view_menu = _menu(window, "文件"), _menu(window, "视图")
    if file_menu is not None:
        anchor = next((a for a in file_menu.actions() if a.text().startswith("导出 Word")), None)
        if anchor is not None:
            actions = file_menu.actions()
            after = actions[actions.index(anchor) + 1] if actions.index(anchor) + 1 < len(actions) else None
            file_menu.insertAction(after, export) if after is not None else file_menu.addAction(export)
        else:
            file_menu.addAction(export)
    if view_menu is not None:
        toggle = host.dock.toggleViewAction()
        toggle.setObjectName("viewFormsAction")
        toggle.triggered.connect(lambda checked: host.dock.raise_() if checked else None)
        view_menu.addAction(toggle)
    return host

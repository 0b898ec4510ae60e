"""The main window: tender beside the outline, analysis, log, menus, status bar (Chinese UI).

It wires widgets to the :class:`AppController`; it owns no data. "Modified" comes from the
undo stack's clean state (plus analysis edits, which are not tree commands). Dialogs in
coroutines are awaited through ``finished`` (``app.ui.widgets.async_dialog``); closing the window
cancels running work and asks about unsaved changes first.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt, QTimer, QUrl
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QMenu,
    QMessageBox,
)

from app.core.about import about_html
from app.ui.project.files import ProjectFilesMixin
from app.ui.project.session_signals import SessionSignals
from app.ui.project.session_view import SessionViewMixin
from app.ui.run.generation_actions import GenerationActionsMixin
from app.ui.run.log_pane import QtLogHandler
from app.ui.run.status_panel import StatusPanel
from app.ui.shell.errors import ErrorDialog
from app.ui.shell.window_host import WindowHost
from app.ui.shell.window_layout import WindowLayoutMixin, window_settings
from app.ui.tender.document_pane import DocumentPane

if TYPE_CHECKING:
    from app.core.settings_model import AppSettings
    from app.documents.model import TenderDocument
    from app.ui.run.controller import AppController
    from app.ui.shell.errors import ErrorReporter

log = logging.getLogger("bidstudio.ui")

NO_MODEL_GUIDE = ("尚未配置模型。打开、编辑、保存和导出目录无需模型；要自动分析和生成目录，"
                  "请先 <a href='settings'>打开模型设置</a>，选择服务商并填写模型名称和密钥。")
#: While a run works, “正文共 N 字” is recounted at most this often (milliseconds).
BUSY_WORD_COUNT_MS = 1000
OPENABLE = (".pdf", ".docx", ".doc", ".wps", ".txt", ".bidproj")
ABOUT_HTML = about_html()  # version, licence and the source offer (app.core.about)


class MainWindow(SessionViewMixin, WindowLayoutMixin, ProjectFilesMixin, GenerationActionsMixin, WindowHost):
    """The application window; ``controller`` does the work, this class wires it to widgets."""

    def __init__(self, controller: AppController, *, settings: AppSettings | None = None,
                 reporter: ErrorReporter | None = None, qsettings: QSettings | None = None,
                 log_handler: QtLogHandler | None = None, model_configured: bool = True,
                 settings_path: Path | None = None) -> None:
        super().__init__()
        self.controller = controller
        self.reporter = reporter
        from app.core.settings_model import AppSettings

        self.settings = settings or AppSettings()
        self.qsettings = qsettings or window_settings()
        self.settings_path = settings_path
        self.error_dialogs: list[ErrorDialog] = []
        self._pending_page: int | None = None
        self._page_retry_connected = False
        self._close_ok = False
        self._had_scoring = False
        self._model_configured = model_configured
        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        self._fit_to_screen()
        self._build_central()
        self._build_docks()
        self.status = StatusPanel()
        self.status.provider = self.settings.model.provider
        self.statusBar().addPermanentWidget(self.status, 1)
        self._build_actions()
        self._build_menus()
        from app.ui.export.response_tables import attach_response_tables

        self.response_tables = attach_response_tables(self)  # 评分索引与偏离表 dock
        from app.ui.evaluation.review_dock import attach_review

        self.review_dock = attach_review(self)  # 评审模拟 dock, 工具 → 提交前检查
        from app.ui.outline.outline_import import attach_outline_import

        self.act_import_outline = attach_outline_import(self)  # 文件 → 导入目录…
        from app.ui.library.attach import attach_library

        self.library = attach_library(self)  # 资料库, 历史标书, 查重
        from app.ui.forms.dock import attach_forms

        self.forms = attach_forms(self)  # 投标文件组成 dock, 文件 → 导出商务标…
        self._connect(log_handler)
        self._restore_layout()  # the window's place, the stage on show and each stage's layout
        self.set_model_configured(model_configured)
        self._update_title()

    def _act(self, text: str, slot: Any, shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
             tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _build_actions(self) -> None:
        c = self.controller
        K = QKeySequence.StandardKey
        self.act_new = self._act("新建项目", lambda: self._spawn_ui("dialog", self.new_project()), K.New,
                                 tip="关闭当前项目，开始一个空白的新项目")
        self.act_open = self._act("打开招标文件…", lambda: self._spawn_ui("dialog", self.choose_and_open()), K.Open)
        self.act_open_project = self._act("打开项目…", lambda: self._spawn_ui("dialog", self.choose_and_open_project()))
        self.act_save = self._act("保存", lambda: self._spawn_ui("dialog", self.save()), K.Save)
        self.act_save_as = self._act("另存为…", lambda: self._spawn_ui("dialog", self.save_as()), K.SaveAs)
        self.act_export = self._act("导出 Word…", lambda: self._spawn_ui("dialog", self.choose_and_export()), "Ctrl+E")
        self.act_quit = self._act("退出", self.close, K.Quit)
        self.act_undo = c.undo_stack.createUndoAction(self, "撤销")
        self.act_undo.setShortcut(QKeySequence(K.Undo))
        self.act_redo = c.undo_stack.createRedoAction(self, "重做")
        self.act_redo.setShortcut(QKeySequence(K.Redo))
        self.act_analyze = self._act("分析招标文件", lambda: c.analyze_slot(), "Ctrl+R")
        self.act_breakdown = self._act("需求拆解", lambda: c.breakdown_slot(), "Ctrl+B")
        self.act_generate_free = self._act("生成目录（自由）", lambda: self.start_generation("free"), "Ctrl+G")
        self.act_generate_aligned = self._act("生成目录（一一对应评分项）", lambda: self.start_generation("aligned"),
                                              "Ctrl+Shift+G")
        self.act_draft_all = self._act("撰写全部正文", self.draft_all)
        self.act_draft_current = self._act("撰写本节正文", self.draft_current, "Ctrl+D")
        self.act_resume_drafts = self._act("继续未完成的正文", self.resume_drafts,
                                           tip="继续撰写上次未写完或失败的小节（已完成的正文不变）")
        self.act_cancel = self._act("取消", lambda: c.cancel_slot(), "Esc")
        self.act_cancel.setEnabled(False)
        self.act_find = self._act("在目录中查找…", self.search_bar.open_bar, K.Find, tip="按标题文字查找目录中的标题")
        self.act_settings = self._act("模型设置…", self.open_settings)
        self.act_budget = self._act("篇幅预算…", self.open_length_budget,
                                    tip="设定技术标的目标页数或字数，按分值分配到各章，撰写时按此控制篇幅")
        self.act_about = self._act("关于标书工坊", self.show_about)
        self.act_ocr_auto = self._act("自动文字识别（扫描件）", self._on_ocr_auto_toggled,
                                      tip="打开没有可用文字的招标文件时，自动在本机做文字识别（OCR）")
        self.act_ocr_auto.setCheckable(True)
        self.act_ocr_auto.setChecked(self.settings.ocr_auto)
        self.act_help = self._act("使用说明", self.show_help, K.HelpContents, tip="主要步骤和快捷键")
        self.act_reset_layout = self._act("重置布局", self.reset_layout,
                                          tip="把当前工作阶段的面板放回首次启动时的位置和大小")

    def _build_menus(self) -> None:
        mb = self.menuBar()
        m = mb.addMenu("文件(&F)")
        m.addActions([self.act_new, self.act_open, self.act_open_project])
        self.recent_menu = QMenu("最近文件", self)
        m.addMenu(self.recent_menu)
        m.addSeparator()
        m.addActions([self.act_save, self.act_save_as, self.act_export])
        m.addSeparator()
        m.addAction(self.act_quit)
        e = mb.addMenu("编辑(&E)")
        e.addActions([self.act_undo, self.act_redo])
        e.addSeparator()
        e.addAction(self.act_find)
        e.addSeparator()
        a = self.outline_view.actions_by_name
        for name in ("add_sibling", "add_child", "rename", "edit_description", "delete", None, "move_up", "move_down",
                     "indent", "outdent"):
            if name is None:
                e.addSeparator()
            else:
                e.addAction(a[name])
        g = mb.addMenu("生成(&G)")
        g.addActions([self.act_analyze, self.act_breakdown, self.act_generate_free, self.act_generate_aligned,
                      self.outline_view.actions_by_name["regenerate"]])
        g.addSeparator()
        g.addActions([self.act_draft_current, self.act_draft_all, self.act_resume_drafts, self.act_budget])
        g.addSeparator()
        g.addAction(self.act_cancel)
        s = mb.addMenu("设置(&S)")
        s.addAction(self.act_settings)
        s.addAction(self.act_ocr_auto)
        v = mb.addMenu("视图(&V)")
        stages = v.addMenu("工作阶段")
        stages.addActions(list(self.workspace.actions.values()))
        v.addSeparator()
        for dock in (self.document_dock, self.analysis_dock, self.breakdown_dock, self.section_dock, self.log_dock,
                     self.library_dock):
            v.addAction(dock.toggleViewAction())
        v.addSeparator()
        v.addAction(self.act_reset_layout)
        h = mb.addMenu("帮助(&H)")
        h.addAction(self.act_help)
        h.addSeparator()
        h.addAction(self.act_about)
        self._rebuild_recent()

    def _connect(self, log_handler: QtLogHandler | None) -> None:
        c = self.controller
        self._own_handler = log_handler is None
        self.log_handler = log_handler or QtLogHandler()
        if self._own_handler:
            for name in ("app", "bidstudio"):
                logging.getLogger(name).addHandler(self.log_handler)
                if logging.getLogger(name).level == logging.NOTSET or logging.getLogger(name).level > logging.INFO:
                    logging.getLogger(name).setLevel(logging.INFO)
        self.log_model.attach(self.log_handler)
        c.stage_changed.connect(self.status.set_stage)
        c.progress_changed.connect(self.status.set_progress)
        c.tokens_changed.connect(self.status.set_tokens)
        c.call_progress.connect(self.status.set_call)
        c.running_changed.connect(self._on_running_changed)
        c.run_finished.connect(self._on_run_finished)
        c.document_loaded.connect(self._on_document_loaded)
        ocr_finished = getattr(self.document_pane, "ocrFinished", None)
        if ocr_finished is not None:
            ocr_finished.connect(self._on_ocr_finished)
            self.document_pane.ocr_enabled = self.settings.ocr_auto
        c.analysis_changed.connect(self.analysis_view.set_analysis)
        c.analysis_changed.connect(self._on_analysis_changed)
        c.breakdown_changed.connect(self._on_breakdown_changed)
        self.breakdown_view.breakdown_edited.connect(self._on_breakdown_edited)
        self.breakdown_view.page_requested.connect(self._show_page)
        d, ed = c.drafting, self.section_editor
        d.section_delta.connect(ed.append_stream)
        d.section_state.connect(ed.apply_state)
        d.run_progress.connect(self._on_draft_progress)
        ed.draft_requested.connect(lambda key: self.draft_keys([key]))
        ed.cancel_requested.connect(d.cancel)
        ed.rewrite_requested.connect(lambda key, mode, g: self._spawn_ui("rewrite", d.rewrite(key, mode, g)))
        ed.text_edited.connect(lambda key, _old, new: d.apply_text(key, new, f"编辑正文 {key}"))
        self.outline_view.selectionModel().currentChanged.connect(self._on_current_node_changed)
        c.model.dataChanged.connect(self._on_node_data_changed)
        self._words_timer = QTimer(self)
        self._words_timer.setSingleShot(True)
        self._words_timer.timeout.connect(self._count_words)
        for signal in (c.model.dataChanged, c.model.rowsInserted, c.model.rowsRemoved, c.model.modelReset):
            signal.connect(self._update_word_count)
        ed.text.textChanged.connect(self._update_word_count)
        self.session_signals = SessionSignals(c.session, c.undo_stack, self)
        self.session_signals.reset.connect(self._on_session_reset)
        self.session_signals.dirty_changed.connect(self._on_dirty_changed)
        self.session_signals.saved.connect(self._on_dirty_changed)
        self.session_signals.tender_changed.connect(self._on_dirty_changed)
        self.mode_box.currentIndexChanged.connect(self._on_mode_chosen)
        self.guidance.textChanged.connect(self._on_guidance_edited)
        c.undo_stack.indexChanged.connect(self._on_outline_edited)
        c.model.modelReset.connect(self._on_outline_edited)
        c.model.modelReset.connect(self._on_outline_reset)
        c.undo_stack.indexChanged.connect(self._on_outline_reset)  # an undone step may take the section shown
        c.model.rowsInserted.connect(self._on_rows_changed)  # a streaming run fills the tree without undo steps
        c.model.rowsRemoved.connect(self._on_rows_changed)
        self.status.cancel_requested.connect(c.cancel_slot)
        self.analysis_view.analysis_edited.connect(self._on_analysis_edited)
        self.analysis_view.page_requested.connect(self._show_page)
        self.analysis_view.free_mode_requested.connect(lambda: self.start_generation("free"))
        if isinstance(self.document_pane, DocumentPane):  # the page beside the scoring rows renders with its processes
            self.analysis_view.set_page_source(self.document_pane)
        self.outline_view.source_requested.connect(self._show_requirement)
        self.outline_view.notice.connect(lambda text: self.statusBar().showMessage(text, 5000))
        self.outline_view.regenerate_requested.connect(self._on_regenerate_requested)
        self.outline_view.figure_proposer = self.propose_figure
        self.library_panel.insert_requested.connect(self._on_library_insert)
        if self.reporter is not None:
            self.reporter.error_reported.connect(self.show_error)

    def _on_library_insert(self, entry: str, variant: str, section: str) -> None:
        """Add a heading-library structure under the selected outline node (one undo step)."""
        from app.ui.outline.heading_library_view import insert_into

        c = self.controller
        problem = "正在生成目录，请稍后再添加" if c.model.read_only else insert_into(
            c.outline, c.undo_stack, self.outline_view.current_path(), (entry, variant, section), c.model.limits.deepest)
        if problem:
            self.statusBar().showMessage(problem, 6000)

    def _current_leaf(self) -> tuple[str, Any] | None:
        path = self.outline_view.current_path()
        if path is None:
            return None
        node = self.controller.outline.node(path)
        if node.children:
            return None
        return node.id or ".".join(str(i + 1) for i in path), node

    def _on_current_node_changed(self, *_args: object) -> None:
        leaf = self._current_leaf()
        if leaf is None:
            path = self.outline_view.current_path()
            if path is not None and self.controller.outline.exists(path):  # a heading with sections below
                self.section_editor.clear(f"“{self.controller.outline.node(path).title}”有下级标题，"
                                          "请选中其下的末级标题编写正文")
            else:  # no heading current (the one shown was taken away): nothing to show or to draft
                self.section_editor.clear()
            return
        key, node = leaf
        self.section_editor.show_section(key, node.title, node.content, self.controller.drafting.draft_of(key))
        if self.section_dock.isHidden() and self.workspace.current == "text":  # closed there: a section brings it back
            self.section_dock.show()

    def _on_outline_reset(self, *_args: object) -> None:
        """The outline changed as a whole or by an undo step (an import or a model run undone or redone,
        a project loaded): the 正文 pane follows the heading now current, or shows none — the one it
        showed may be gone, or its id taken by another. A section still current is left as it is (its
        text and cursor untouched)."""
        leaf = self._current_leaf()
        editor = self.section_editor
        if leaf is not None and leaf[0] == editor.key and editor.title_label.text() == f"{leaf[0]} {leaf[1].title}".strip():
            return
        self._on_current_node_changed()

    def _update_word_count(self, *_args: object) -> None:
        """“正文共 N 字” beside the outline, counting the section being typed as it is now.

        Counting walks the whole outline: while a run fills the tree or streams text it is done at
        most every :data:`BUSY_WORD_COUNT_MS`, not on every change (issue 37 §4).
        """
        if self.controller.busy:
            if not self._words_timer.isActive():
                self._words_timer.start(BUSY_WORD_COUNT_MS)
            return
        self._count_words()

    def _count_words(self) -> None:
        from app.core.word_count import text_chars

        self._words_timer.stop()
        ed, typing = self.section_editor, self.section_editor.showing_source
        total = 0
        for path, node in self.controller.outline.walk():
            if node.children:
                continue
            key = node.id or ".".join(str(i + 1) for i in path)
            total += text_chars(ed.text.toPlainText() if typing and key == ed.key else node.content)
        self.words_label.setText(f"正文共 {total} 字" if total else "")

    def _on_draft_progress(self, finished: int, total: int) -> None:
        """撰写全部正文 (or any drafting job) shows “n/total” in the status bar while it runs."""
        if total > 1:
            self.status.set_stage(f"正在撰写正文：已完成 {finished}/{total} 节")
            self.status.set_progress(round(100 * finished / total))

    def _on_node_data_changed(self, *_args: object) -> None:
        leaf = self._current_leaf()
        if leaf is None or leaf[0] != self.section_editor.key:
            return
        key, node = leaf
        self.section_editor.set_title(key, node.title)  # a renamed heading is renamed above its text too
        draft = self.controller.drafting.draft_of(key)
        if draft is None or draft.status != "writing":  # undo/redo or an applied draft: show the tree's text
            self.section_editor.set_text(key, node.content)

    def show_breakdown(self) -> None:
        """Bring the 需求拆解 dock to the front (e.g. to mark clauses answered)."""
        self.workspace.bring(self.breakdown_dock)

    def _on_breakdown_changed(self, breakdown: Any) -> None:
        from app.core.breakdown import Breakdown

        self.breakdown_view.set_breakdown(breakdown if breakdown is not None else Breakdown())
        if breakdown is not None:
            self.breakdown_dock.raise_()

    def _on_breakdown_edited(self, breakdown: Any) -> None:
        """An edit in the breakdown view (已响应章节) becomes one undoable command."""
        from app.ui.tender.analysis_commands import EditBreakdownCommand

        c = self.controller
        c.undo_stack.push(EditBreakdownCommand(self._store_breakdown, c.breakdown, breakdown))
        self._update_title()

    def _store_breakdown(self, breakdown: Any, refresh: bool) -> None:
        """Keep ``breakdown`` as the controller's; ``refresh`` shows it in the view (undo/redo)."""
        if refresh:
            self.controller.set_breakdown(breakdown)
        else:
            self.controller.breakdown = breakdown  # the view already shows it

    def set_model_configured(self, configured: bool, missing_key: str = "") -> None:
        """Show the first-run guide while no model is configured.

        ``missing_key``: address and model are saved and only the key is missing; the text says
        why (no keyring on this machine, say) instead of “尚未配置模型”.
        """
        self._model_configured = configured
        if missing_key:
            self.guide.setText(f"密钥未保存：{missing_key} 请 <a href='settings'>打开模型设置</a> 填写 API 密钥；"
                               "打开、编辑、保存和导出无需模型。")
        else:
            self.guide.setText(NO_MODEL_GUIDE)
        self.guide.setVisible(not configured)

    def _on_running_changed(self, running: bool) -> None:
        self.status.set_running(running)
        busy = bool(running)
        self.act_cancel.setEnabled(busy)
        for action in (self.act_analyze, self.act_breakdown, self.act_generate_free, self.act_generate_aligned,
                       self.act_open, self.act_open_project, self.act_draft_all, self.act_draft_current,
                       self.act_resume_drafts):
            action.setEnabled(not busy)
        self.generate_button.setEnabled(not busy)
        self.outline_view.set_streaming(busy)
        self.outline_view.update_actions()
        if not busy:
            self._count_words()  # what the run wrote, counted once it ended

    def _on_run_finished(self, ok: bool, message: str) -> None:
        self.statusBar().showMessage(message, 8000)
        if ok:
            self.outline_view.update_actions()

    def _on_document_loaded(self, doc: TenderDocument) -> None:
        show = getattr(self.document_pane, "set_document", None) or getattr(self.document_pane, "show_document", None)
        if show is not None:
            password = self.controller.tender_password
            if password:
                show(doc, password)
            else:
                show(doc)
        if self.controller.tender_path is not None:
            self.settings.add_recent(self.controller.tender_path)
            self._save_settings()
            self._rebuild_recent()
        if len(self.controller.outline) == 0:  # a new tender: its reading is the next thing to check
            self.workspace.switch("analysis")
        self.document_dock.raise_()
        self._update_empty_hint()
        self._update_title()

    def _on_ocr_finished(self, any_read: bool, message: str) -> None:
        """An OCR run in the document pane ended: say so, and re-read the tender with its pages."""
        self.statusBar().showMessage(message, 8000)
        if any_read:
            self.controller.reread_with_ocr_slot()

    def _on_ocr_auto_toggled(self) -> None:
        """Settings → 自动文字识别: remembered, and applied to the next tender opened."""
        self.settings.ocr_auto = self.act_ocr_auto.isChecked()
        if hasattr(self.document_pane, "ocr_enabled"):
            self.document_pane.ocr_enabled = self.settings.ocr_auto
        self._save_settings()

    def _show_page(self, page: int) -> None:
        """Jump the document pane to ``page``; if it is still laying the file out, once it can."""
        go = getattr(self.document_pane, "show_page", None)
        if go is None:
            return
        self.workspace.bring(self.document_dock)
        if go(page) is False:
            self._pending_page = page
            rendered = getattr(self.document_pane, "pageRendered", None)
            if rendered is not None and not self._page_retry_connected:
                rendered.connect(self._retry_pending_page)
                self._page_retry_connected = True

    def _retry_pending_page(self, *_args: object) -> None:
        page, self._pending_page = self._pending_page, None
        if page is not None:
            self.document_pane.show_page(page)

    def _show_requirement(self, requirement_id: str) -> None:
        self.workspace.bring(self.analysis_dock)
        self.analysis_view.show_group(requirement_id)

    def show_error(self, title: str, message: str, details: str) -> None:
        """The one error dialog (non-modal, copyable details)."""
        dialog = ErrorDialog(title, message, details, self)
        dialog.setObjectName("errorDialog")
        self.error_dialogs.append(dialog)
        dialog.finished.connect(lambda _r: self.error_dialogs.remove(dialog) if dialog in self.error_dialogs else None)
        dialog.open()

    # ------------------------------------------------------------------ files
    def _spawn_ui(self, name: str, coro: Any) -> None:
        self.controller.spawn(name, coro)

    # ------------------------------------------------------------------ settings and about
    def open_settings(self, tab: str = "") -> None:
        """Open the settings dialog (non-blocking) at ``tab`` ("library": 资料库); main.py sets the handler."""
        opener = getattr(self, "settings_opener", None)
        if opener is not None:
            opener(tab) if tab else opener()
        else:
            self.statusBar().showMessage("模型设置不可用", 5000)

    def show_help(self) -> None:
        """帮助 → 使用说明: the steps of the workflow and the keys (non-modal)."""
        from app.ui.shell.help_text import HELP_HTML

        box = QMessageBox(self)
        box.setWindowTitle("使用说明")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(HELP_HTML)
        box.setObjectName("helpBox")
        box.setWindowModality(Qt.WindowModality.NonModal)
        self.help_box = box
        box.show()

    async def propose_figure(self, kind: str, node: Any) -> Any:
        """Ask the configured model for a figure's data for ``node`` (the figure editor's button)."""
        from app.pipeline.drafting.context import related_requirements
        from app.pipeline.drafting.figure_proposal import FigureProposal, propose_figure
        from app.ui.run.controller import NoModelConfigured

        c = self.controller
        try:
            client = c.client()
        except NoModelConfigured:
            return FigureProposal(None, "尚未配置模型：请先在“设置 → 模型设置”中填写，或手工填写表格")
        requirements = related_requirements(c.breakdown, f"{node.title} {node.description}")
        return await propose_figure(client, kind, node, c.analysis, requirements)

    def open_length_budget(self) -> None:
        """Open the 篇幅预算 dialog (non-blocking)."""
        from app.ui.export.budget_dialog import open_budget_dialog

        self.budget_dialog = open_budget_dialog(self)

    def show_about(self) -> None:
        """Help → About, with the AGPL licence notice."""
        box = QMessageBox(self)
        box.setWindowTitle("关于标书工坊")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(ABOUT_HTML)
        box.setObjectName("aboutBox")
        box.open()

    # ------------------------------------------------------------------ drag and drop open
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Qt override: accept dragged tender and project files."""
        if _dropped_path(event.mimeData().urls()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        """Qt override: open the dropped file."""
        path = _dropped_path(event.mimeData().urls())
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self._spawn_ui("dialog", self.open_path(path))

    # ------------------------------------------------------------------ closing
    async def request_close(self) -> bool:
        """Cancel running work, settle unsaved changes, then close for real."""
        if self.controller.busy:
            await self.controller.cancel()
        if self.is_modified and not await self._settle_unsaved():
            return False
        self._close_ok = True
        self.close()
        return True

    def closeEvent(self, event: QCloseEvent) -> None:
        """Qt override: the first close asks (asynchronously); the confirmed one shuts down."""
        if not self._close_ok:
            event.ignore()
            self._spawn_ui("close", self.request_close())
            return
        stack = self.controller.undo_stack
        self.session_signals.detach()
        model = self.controller.model
        for signal, slot in ((stack.indexChanged, self._on_outline_edited), (model.modelReset, self._on_outline_edited),
                             (model.rowsInserted, self._on_rows_changed), (model.rowsRemoved, self._on_rows_changed)):
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):  # already gone
                pass
        self.save_layout()
        shutdown = getattr(self.document_pane, "shutdown", None)
        if shutdown is not None:
            shutdown()
        self.library.shutdown()
        autosaver = getattr(self, "autosaver", None)
        if autosaver is not None:
            autosaver.close()
        self.controller.session.release()  # the project's lock goes with the window
        if self._own_handler:
            for name in ("app", "bidstudio"):
                logging.getLogger(name).removeHandler(self.log_handler)
        event.accept()


def _dropped_path(urls: list[QUrl]) -> Path | None:
    for url in urls:
        if url.isLocalFile():
            p = Path(url.toLocalFile())
            if p.suffix.lower() in OPENABLE:
                return p
    return None


async def wait_closed(window: MainWindow) -> None:
    """Await until ``window`` is really closed (for scripts and tests)."""
    while window.isVisible():
        await asyncio.sleep(0.02)


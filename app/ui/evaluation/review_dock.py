"""The 评审模拟 dock and its wiring to the window (kept out of ``main_window``).

:func:`attach_review` adds the dock (视图 → 评审模拟) and the 工具 → 提交前检查 action.
The 自评表 follows the outline as the user writes: tree events, undo steps and analysis
changes schedule a refresh (at most every :data:`REFRESH_MS`, every :data:`BUSY_REFRESH_MS` while a
model streams); a dock that cannot be seen does no work and catches up when shown; typing in the section editor counts too, after a pause of
:data:`TYPING_REFRESH_MS`, with the text not yet committed to the outline. A click on a row shows its section in the outline; 补写, the
model's check and the spreadsheet export are started from the panel's buttons.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMenu

from app.ui.evaluation.review_panel import ReviewPanel
from app.ui.shell.stages import register_panel

if TYPE_CHECKING:
    from app.core.outline import Path, Phase, TreeEvent
    from app.pipeline.evaluation.questions import Verdict
    from app.pipeline.evaluation.review import BidReview
    from app.ui.shell.window_host import WindowHost

log = logging.getLogger("bidstudio.ui")

REFRESH_MS = 400
BUSY_REFRESH_MS = 1500
#: While the user types in the section editor, the table follows after this pause.
TYPING_REFRESH_MS = 800


def _menu(window: WindowHost, prefix: str, title: str) -> QMenu:
    """The window's menu whose title starts with ``prefix``; made (before 帮助) when absent."""
    bar = window.menuBar()
    for action in bar.actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text().startswith(prefix):
            return menu
    menu = QMenu(title, window)
    help_action = next((a for a in bar.actions() if a.text().startswith("帮助")), None)
    if help_action is not None:
        bar.insertMenu(help_action, menu)
    else:
        bar.addMenu(menu)
    return menu


class ReviewDock(QObject):
    """The dock, its panel, the 提交前检查 action and the connections to one window."""

    def __init__(self, window: WindowHost) -> None:
        super().__init__(window)
        self.window = window
        self.panel = ReviewPanel()
        self.review: BidReview | None = None
        #: Checked model answers, by (item id, point label): kept while their quote is still in the text.
        self.model_answers: dict[tuple[str, str], Verdict] = {}
        self.dock = QDockWidget("评审模拟", window)
        self.dock.setObjectName("reviewDock")
        self.dock.setWidget(self.panel)
        register_panel(window, self.dock, "review", area=Qt.DockWidgetArea.RightDockWidgetArea, share=0.40, front=True)
        self.dock.toggleViewAction().setText("评审模拟")
        self.dock.toggleViewAction().triggered.connect(lambda checked: self.dock.raise_() if checked else None)
        _menu(window, "视图", "视图(&V)").addAction(self.dock.toggleViewAction())
        self.act_checks = QAction("提交前检查…", window)
        self.act_checks.setObjectName("submissionChecksAction")
        self.act_checks.setStatusTip("导出前检查可能导致废标的问题：★条款、页数、章节顺序、暗标、空章节、占位文字")
        self.act_checks.triggered.connect(lambda _checked=False: self.show_checks())
        _menu(window, "工具", "工具(&T)").addAction(self.act_checks)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.refresh)
        c = window.controller
        self._unsubscribe = c.outline.subscribe(self._on_tree_event)
        window.destroyed.connect(lambda *_a: self._unsubscribe())
        for signal in (c.undo_stack.indexChanged, c.analysis_changed, window.analysis_view.analysis_edited):
            signal.connect(self.schedule)
        c.running_changed.connect(lambda running: None if running else self.schedule())
        editor = getattr(window, "section_editor", None)
        if editor is not None:  # typing counts before it is committed (on leaving the editor)
            editor.text.textChanged.connect(self._on_typing)
        self.panel.section_requested.connect(self.show_section)
        self.panel.fill_requested.connect(self._on_fill_requested)
        self.panel.check_requested.connect(self._on_check_requested)
        self.panel.export_requested.connect(self._on_export_requested)
        self.panel.cancel_requested.connect(self.cancel)
        # shown (its stage, its tab): the table catches up as soon as the layout has settled
        self.dock.visibilityChanged.connect(lambda shown: self._timer.start(0) if shown else None)
        self.refresh()

    @property
    def hidden(self) -> bool:
        """Whether the dock cannot be seen (closed, or a tab behind another dock)."""
        return not self.dock.isVisible() or self.dock.visibleRegion().isEmpty()

    def show(self) -> None:
        """Bring the dock to the front."""
        self.dock.show()
        self.dock.raise_()

    def schedule(self, *_args: object) -> None:
        """Refresh soon (bursts of edits are coalesced)."""
        if not self._timer.isActive():
            busy = self.window.controller.busy_generating
            self._timer.start(BUSY_REFRESH_MS if busy else REFRESH_MS)

    def refresh(self) -> None:
        """Review the controller's outline against its analysis and show the 自评表.

        A dock that cannot be seen (another stage on show, closed, a tab behind another) does no
        work: it catches up when it shows (ARCHITECTURE rule 17), and the review code is loaded then.
        """
        self._timer.stop()
        c = self.window.controller
        if self.hidden:
            return
        from app.pipeline.evaluation.review import review_bid

        try:
            review = review_bid(c.analysis, c.outline.chapters, self._typing())
            if self.model_answers:
                self._reapply(review)
        except Exception:  # a bug here must not take the window down: say so, keep the last table
            log.exception("review failed")
            self.panel.summary.setText("评审模拟出错，表格未更新（详情见日志）。")
            return
        self.review = review
        self.panel.set_review(review)

    def keep_model_answers(self, review: BidReview) -> None:
        """Remember the model's kept answers of ``review`` so a refresh does not drop them."""
        from app.pipeline.evaluation.questions import Verdict

        for item in review.items:
            for point in item.points:
                if point.decided_by == "model" and point.evidence:
                    answer = "是" if point.status == "answered" else "部分"
                    self.model_answers[(item.group.id, point.label)] = Verdict(answer, point.evidence[0].quote, True)

    def _reapply(self, review: BidReview) -> None:
        from app.pipeline.evaluation.matching import BidText
        from app.pipeline.evaluation.questions import apply_verdict, quote_in_passage

        text = BidText(self.window.controller.outline.chapters)
        for item in review.items:
            for point in item.points:
                verdict = self.model_answers.get((item.group.id, point.label))
                if verdict is None or point.status == "answered":
                    continue
                scope = [p for p in text.under(item.sections) if p.sentences] or text.passages
                if any(quote_in_passage(verdict.quote, "".join(p.sentences)) for p in scope):
                    apply_verdict(item, point, verdict, scope)
                else:
                    del self.model_answers[(item.group.id, point.label)]  # the quoted text is gone

    def cancel(self) -> None:
        """Stop a running 补写 or model check (what was written stays, step by step)."""
        for name in ("review-fill", "review-check"):
            task = self.window.controller.tasks.get(name)
            if task is not None and not task.done():
                task.cancel()

    def _on_typing(self) -> None:
        if not self.hidden:
            self._timer.start(TYPING_REFRESH_MS)

    def _typing(self) -> dict[Path, str]:
        """The section being typed in the editor, with its text not yet committed to the outline."""
        from app.pipeline.drafting.context import path_for_key

        editor = getattr(self.window, "section_editor", None)
        if editor is None or not editor.key or not editor.showing_source:
            return {}
        path = path_for_key(self.window.controller.outline, editor.key)
        return {path: editor.text.toPlainText()} if path is not None else {}

    def _on_tree_event(self, phase: Phase, _event: TreeEvent) -> None:
        if phase == "after":
            self.schedule()

    def show_section(self, path: Path) -> None:
        """Select the section at ``path`` in the outline (the section editor follows)."""
        c = self.window.controller
        if not c.outline.exists(tuple(path)):
            self.window.statusBar().showMessage("该章节已不在目录中，请刷新评审结果", 5000)
            return
        self.window.outline_view.select_path(tuple(path))
        self.window.outline_view.setFocus()

    # ------------------------------------------------------------------ actions
    def show_checks(self) -> None:
        """Open the 提交前检查 list (non-modal)."""
        from app.ui.evaluation.checks_dialog import open_checks

        open_checks(self.window, self)

    def _on_fill_requested(self, gaps: Any) -> None:
        from app.ui.evaluation.fill_gaps import fill_gaps

        self.window.controller.spawn("review-fill", fill_gaps(self.window, self, list(gaps)))

    def _on_check_requested(self) -> None:
        from app.ui.evaluation.fill_gaps import check_with_model

        self.window.controller.spawn("review-check", check_with_model(self.window, self))

    def _on_export_requested(self) -> None:
        from app.ui.evaluation.review_export import choose_and_export

        self.window.controller.spawn("dialog", choose_and_export(self.window, self))


def attach_review(window: WindowHost) -> ReviewDock:
    """Add the 评审模拟 dock and 工具 → 提交前检查 to ``window``."""
    return ReviewDock(window)

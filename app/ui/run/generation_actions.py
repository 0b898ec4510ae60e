"""Generate, regenerate and draft from the main window, never overwriting the user's work silently.

A mixin of :class:`~app.ui.shell.main_window.MainWindow`. Before a run would replace what the
user made it asks (``app.ui.project.overwrite_questions``): a new outline over an edited or
drafted one (offering to keep drafted text whose heading survives), one chapter or section
regenerated with optional guidance, a section drafted again. Every run is then one undo step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QMainWindow, QMessageBox

from app.core.kept_texts import drafted_texts, section_figures
from app.ui.outline.commands import OutlineCommand, RecordedRunCommand
from app.ui.project.overwrite_questions import (
    ask_confirm_scoring,
    ask_redraft,
    ask_regenerate_outline,
    ask_regenerate_subtree,
)
from app.ui.run.controller import DRAFTING, GENERATION
from app.ui.run.no_text_dialog import ask_without_text

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox, QDockWidget, QLineEdit

    from app.core.outline import Outline
    from app.core.outline import Path as OutlinePath
    from app.ui.outline.view import OutlineView
    from app.ui.run.controller import AppController
    from app.ui.tender.analysis_view import AnalysisView

    _Base = QMainWindow
else:
    _Base = object


class GenerationActionsMixin(_Base):
    """Generation and drafting entry points (the window provides the attributes declared below)."""

    if TYPE_CHECKING:
        controller: AppController
        mode_box: QComboBox
        guidance: QLineEdit
        outline_view: OutlineView
        section_dock: QDockWidget
        analysis_dock: QDockWidget
        analysis_view: AnalysisView

        def _spawn_ui(self, name: str, coro: Any) -> None: ...
        def _current_leaf(self) -> tuple[str, Any] | None: ...
        def _on_current_node_changed(self, *_args: object) -> None: ...
        def open_settings(self) -> None: ...

    # ------------------------------------------------------------------ whole outline
    def start_generation(self, mode: str | None = None) -> None:
        """Start generating in ``mode`` (the combo box's when None) with the guidance text."""
        if mode is not None:
            self.mode_box.setCurrentIndex(max(0, self.mode_box.findData(mode)))
        chosen = str(self.mode_box.currentData())
        self._spawn_ui("generate-request", self.generate(chosen, self.guidance.text().strip()))

    def _outline_has_user_work(self) -> bool:
        """The outline holds something the user made: text, or anything but an untouched AI run's result
        (hand edits, drafted text, an outline opened from a file)."""
        c = self.controller
        if not len(c.outline):
            return False
        stack = c.undo_stack
        last = stack.command(stack.index() - 1) if stack.index() > 0 else None
        return not isinstance(last, RecordedRunCommand) or bool(drafted_texts(c.outline) or section_figures(c.outline))

    def _outline_edited_by_hand(self) -> bool:
        """Whether the undo history holds a hand edit of the outline (not an AI run, not an analysis edit)."""
        stack = self.controller.undo_stack
        return any(isinstance(stack.command(k), OutlineCommand) for k in range(stack.index()))

    def _nothing_to_read(self, guidance: str) -> str | None:
        """Why the model would generate from nothing (no usable tender text, no description), or None."""
        c = self.controller
        analysis = c.analysis
        if analysis.has_technical_scoring or analysis.technical_requirements.strip():
            return None
        doc = c.document
        if doc is not None and not doc.has_readable_text:
            from app.documents.model import DiagnosticCode

            reason = next((d.message_zh for d in doc.diagnostics if d.code == DiagnosticCode.NO_READABLE_TEXT),
                          "招标文件没有可用的文字")
            name = c.tender_path.name if c.tender_path is not None else "招标文件"
            return (f"“{name}”{reason}。需要先做文字识别（OCR）：等本机识别完成（招标文件窗格上方显示进度），"
                    "或在招标文件窗格的提示中点击“对这些页做文字识别”，识别后即可据此生成目录。")
        if doc is None and not guidance:
            return "还没有打开招标文件。请先打开招标文件（Ctrl+O），目录将按其中的评分项和技术要求生成。"
        return None

    async def generate(self, mode: str, guidance: str) -> None:
        """Generate the outline; over the user's work, ask first (keep drafted text, replace, cancel).

        With nothing to read (an unreadable tender, or none and no guidance) generation is
        blocked with the reason unless the user writes by hand or describes the project.
        """
        c = self.controller
        reason = self._nothing_to_read(guidance)
        if reason is not None:
            answer = await ask_without_text(self, reason, guidance)
            if answer is None:
                return
            if answer[0] == "hand":
                self.outline_view.setFocus()
                self.outline_view.add_sibling()  # a first heading, open for typing
                return
            c.set_analysis(c.analysis.model_copy(update={"technical_requirements": answer[1]}))
            c.session.mark_changed()  # the description is part of the project now
            mode = "free"
            self.mode_box.setCurrentIndex(self.mode_box.findData("free"))
        if mode == "aligned" and c.analysis.needs_scoring_confirmation and not c.can_resume(mode):  # type: ignore[arg-type]
            if not await self._confirm_scoring():
                return
        keep = False
        if not c.can_resume(mode) and self._outline_has_user_work():  # type: ignore[arg-type]
            locked = sum(1 for _, n in c.outline.walk() if n.locked)
            choice = await ask_regenerate_outline(self, len(c.outline), _kept_count(c.outline), locked,
                                                  edited=self._outline_edited_by_hand())
            if choice == "cancel":
                return
            keep = choice == "keep"
        c.last_outcome = None
        await c.run_task(GENERATION, c.generate_outline(mode, guidance, keep_texts=keep))  # type: ignore[arg-type]
        outcome = c.last_outcome  # None when cancelled or raised (the error dialog has that)
        if outcome is not None and not outcome.ok:
            self.show_run_failure(outcome.message, not_openai=outcome.code_only)

    def show_run_failure(self, message: str, *, not_openai: bool = False) -> None:
        """A run that ended without a result says so in a dialog (not only the status bar).

        ``not_openai``: the address never answered as an OpenAI endpoint (a web page, broken
        events); the dialog says so and offers the model settings at once.
        """
        if not_openai:
            box = QMessageBox(QMessageBox.Icon.Warning, "模型服务地址不是 OpenAI 接口",
                              f"模型没有参与生成目录。\n\n{message}", QMessageBox.StandardButton.Ok, self)
            box.setInformativeText("该地址应答的是网页或其他内容，不是 OpenAI 接口的流式应答。请在“设置 → 模型设置”中"
                                   "检查接口地址（通常以 /v1 结尾）和网络代理，改正后再点“生成目录”。")
            settings = box.addButton("打开模型设置…", QMessageBox.ButtonRole.ActionRole)
            settings.setObjectName("openModelSettingsButton")
            settings.clicked.connect(self.open_settings)
        else:
            box = QMessageBox(QMessageBox.Icon.Warning, "目录生成未完成", f"目录生成没有完成。\n\n{message}",
                              QMessageBox.StandardButton.Ok, self)
            box.setInformativeText("可以检查“设置 → 模型设置”中的地址和密钥后再点“生成目录”。")
        box.setObjectName("runFailedBox")
        self.run_failure_box = box
        box.open()

    async def _confirm_scoring(self) -> bool:
        """Ask the user to confirm unconfirmed scoring items (one click) or to review them first."""
        analysis = self.controller.analysis
        choice = await ask_confirm_scoring(self, analysis.scoring_doubt, len(analysis.technical_groups))
        if choice == "review":
            self.analysis_dock.show()
            self.analysis_dock.raise_()
            return False
        self.analysis_view.confirm_scoring()
        return True

    # ------------------------------------------------------------------ one chapter or section
    def _on_regenerate_requested(self, path: object) -> None:
        if isinstance(path, tuple):
            self._spawn_ui("generate-request", self.regenerate_section(path))

    async def regenerate_section(self, path: OutlinePath) -> None:
        """Right-click → 重新生成本章（可附要求）: guidance asked, then one undo step."""
        c = self.controller
        if not c.outline.exists(path):
            return
        node = c.outline.node(path)
        answer = await ask_regenerate_subtree(self, node.title, _kept_count(c.outline, path))
        if answer is None:
            return
        guidance, keep = answer
        c.last_outcome = None
        await c.run_task(GENERATION, c.regenerate_subtree(path, guidance, keep_texts=keep))
        outcome = c.last_outcome
        if outcome is not None and outcome.code_only:  # the address is wrong: say so, not only in the status bar
            self.show_run_failure(outcome.message, not_openai=True)

    # ------------------------------------------------------------------ drafting
    def draft_current(self) -> None:
        """Draft the current leaf section (opens the text dock)."""
        leaf = self._current_leaf()
        if leaf is None:
            self.statusBar().showMessage("请先在目录中选择一个末级标题", 5000)
            return
        self.section_dock.show()
        self.section_dock.raise_()
        self._on_current_node_changed()
        self.draft_keys([leaf[0]])

    def draft_keys(self, keys: list[str]) -> None:
        """Draft these sections; any that already has text is drafted again only if the user agrees."""
        self._spawn_ui("draft-request", self._draft_checked(keys))

    async def _draft_checked(self, keys: list[str]) -> None:
        from app.pipeline.drafting.context import path_for_key

        c = self.controller
        written = [(k, c.outline.node(p)) for k in keys if (p := path_for_key(c.outline, k)) is not None
                   and c.outline.node(p).content.strip()]
        if written:
            key, node = written[0]
            label = f"{key} {node.title}" if len(written) == 1 else f"{key} {node.title} 等 {len(written)} 节"
            if not await ask_redraft(self, label, sum(len(n.content) for _, n in written)):
                return
        await c.run_task(DRAFTING, c.drafting.draft(keys))

    def draft_all(self) -> None:
        """Draft every leaf section that has no text yet (text already there is never replaced here)."""
        c = self.controller
        if not len(c.outline):
            self.statusBar().showMessage("目录是空的", 5000)
            return
        keys = [node.id or ".".join(str(i + 1) for i in path) for path, node in c.outline.walk()
                if not node.children and not node.content.strip()]
        if not keys:
            self.statusBar().showMessage("所有小节都已有正文；要重写某一节，请选中它后点“撰写本节”", 8000)
            return
        self.section_dock.show()
        self._spawn_ui(DRAFTING, c.drafting.draft(keys))

    def resume_drafts(self) -> None:
        """Continue the sections whose drafting did not finish (after reopening a project too)."""
        resumable, failed = self.controller.drafting.unfinished()
        if not resumable and not failed:
            self.statusBar().showMessage("没有未完成的正文", 5000)
            return
        self.section_dock.show()
        self._spawn_ui(DRAFTING, self.controller.drafting.resume())


def _kept_count(outline: Outline, under: tuple[int, ...] = ()) -> int:
    """Sections whose text or figures a regeneration can keep (what the question offers to keep)."""
    return len(drafted_texts(outline, under=under)) + len(section_figures(outline, under=under))

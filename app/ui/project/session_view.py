"""The window's view of the project session: title, unsaved mark, mode and what a reset re-reads.

A mixin of :class:`~app.ui.shell.main_window.MainWindow`. The session (``app.core.session``) owns
the bid; these handlers only show it: the title bar and its unsaved mark, the mode box and
guidance kept in step with the session, the score summary above the outline, and every view
re-read when another project is shown (new, opened, recovered).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QMainWindow

from app.core.analysis import Analysis

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit

    from app.ui.outline.section_editor import SectionEditor
    from app.ui.run.controller import AppController

    _Base = QMainWindow
else:
    _Base = object

APP_NAME = "标书工坊"
EMPTY_HINT = "打开招标文件（Ctrl+O 或把文件拖到窗口中），分析后点“生成目录”；也可以直接在下方右键添加章节，手工编写目录。"


class SessionViewMixin(_Base):
    """Shows the session in the window (the window provides the attributes declared below)."""

    if TYPE_CHECKING:
        controller: AppController
        mode_box: QComboBox
        guidance: QLineEdit
        score_label: QLabel
        sample_note: QLabel
        empty_hint: QLabel
        section_editor: SectionEditor
        document_pane: Any
        _had_scoring: bool

    @property
    def is_modified(self) -> bool:
        """Unsaved changes, as the session says (undo history not at the saved state, or other changes)."""
        return self.controller.session.is_dirty

    @property
    def project_path(self) -> Path | None:
        """The session's project file (None until saved)."""
        return self.controller.session.path

    def display_name(self) -> str:
        """The project's name for the title bar and questions."""
        return self.controller.session.display_name()

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.display_name()}[*] — {APP_NAME}")
        self.setWindowModified(self.is_modified)

    def _on_dirty_changed(self, *_args: object) -> None:
        self._update_title()

    def _on_session_reset(self) -> None:
        """Another project: every view re-reads the session (nothing of the old one stays on show)."""
        c = self.controller
        session = c.session
        self._had_scoring = session.analysis.has_technical_scoring
        c.set_analysis(session.analysis)
        c.set_breakdown(session.breakdown)
        self.guidance.blockSignals(True)
        self.guidance.setText(session.guidance)
        self.guidance.blockSignals(False)
        self._sync_mode_from_session()
        self.section_editor.clear()
        self.show_sample_note(False)
        status = getattr(self, "status", None)
        if status is not None and not c.busy:
            status.reset()
        if session.tender_path is None:
            clear = getattr(self.document_pane, "clear", None)
            if callable(clear):
                clear()
        self._on_outline_edited()

    def show_sample_note(self, shown: bool) -> None:
        """The banner saying the outline on show was built by code for the sample (until another project)."""
        self.sample_note.setVisible(shown)

    def _sync_mode_from_session(self) -> None:
        """Show the session's generation mode (one-to-one when unset and scoring items exist)."""
        c = self.controller
        mode = c.session.generation_mode
        aligned = mode == "one_to_one" or (mode is None and c.analysis.has_technical_scoring)
        self.mode_box.blockSignals(True)
        self.mode_box.setCurrentIndex(self.mode_box.findData("aligned" if aligned else "free"))
        self.mode_box.blockSignals(False)
        c.model.set_locked_top_level(aligned and c.analysis.has_technical_scoring and len(c.outline) > 0)

    def _on_mode_chosen(self, _index: int) -> None:
        self.controller.session.generation_mode = "one_to_one" if self.mode_box.currentData() == "aligned" else "free"

    def _on_guidance_edited(self, text: str) -> None:
        self.controller.session.guidance = text.strip()

    def _on_rows_changed(self, parent: QModelIndex, *_args: object) -> None:
        if not parent.isValid():
            self._update_empty_hint()

    def _on_outline_edited(self, *_args: object) -> None:
        self._update_empty_hint()
        self._update_title()

    def _update_empty_hint(self) -> None:
        """The hint above an empty outline says the next step: open a tender, or (once open) generate."""
        c = self.controller
        if c.document is not None or c.tender_path is not None:
            self.empty_hint.setText("下一步：核对“招标分析”，再点“生成目录”；也可右键手工添加章节")
        else:
            self.empty_hint.setText(EMPTY_HINT)
        self.empty_hint.setVisible(len(c.outline) == 0)

    def _on_analysis_changed(self, analysis: Analysis) -> None:
        """Scoring items just found: one-to-one becomes the mode (the user can still pick free)."""
        self.score_label.setText(score_summary(analysis))
        self.score_label.setVisible(bool(self.score_label.text()))
        had = self._had_scoring
        self._had_scoring = analysis.has_technical_scoring
        if self._had_scoring and not had:
            self.mode_box.setCurrentIndex(self.mode_box.findData("aligned"))

    def _on_analysis_edited(self, analysis: Analysis) -> None:
        """An edit in the analysis view becomes one undoable command (typing merges)."""
        from app.ui.tender.analysis_commands import EditAnalysisCommand

        c = self.controller
        if analysis == c.analysis:
            return
        c.undo_stack.push(EditAnalysisCommand(self._store_analysis, c.analysis, analysis))
        self._update_title()

    def _store_analysis(self, analysis: Analysis, refresh: bool) -> None:
        """Keep ``analysis`` as the controller's; ``refresh`` shows it in the view (undo/redo)."""
        if refresh:
            self.controller.set_analysis(analysis)
        else:
            self.controller.analysis = analysis  # the view already shows it: no round trip
            self.score_label.setText(score_summary(analysis))  # but the line above the outline follows
            self.score_label.setVisible(bool(self.score_label.text()))


def _points(value: float) -> str:
    return f"{value:g}"


def score_summary(analysis: Analysis) -> str:
    """“技术评分 8 项，小计 50 分 / 总分 100 分” for the line above the outline ("" without scoring items)."""
    groups = analysis.technical_groups
    if not groups:
        return ""
    text = f"技术评分 {len(groups)} 项"
    technical = [g.points for g in groups if g.points is not None]
    if technical:
        text += f"，小计 {_points(sum(technical))} 分"
    everything = [g.points for g in analysis.groups if g.points is not None]
    if len(everything) > len(technical):
        text += f" / 总分 {_points(sum(everything))} 分"
    return text

"""Files for the main window: open tender/project, save, save as, export Word, recent files.

A mixin of :class:`~app.ui.main_window.MainWindow`, kept apart so the window module stays
about wiring. File dialogs are awaited through ``finished`` (``app.ui.async_dialog``);
errors with a Chinese ``message_zh`` go to the one error dialog.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QComboBox, QDialog, QFileDialog, QLineEdit, QMainWindow, QMenu, QMessageBox

from app.core.analysis import Analysis
from app.ui.async_dialog import ask_save_changes, run_dialog

if TYPE_CHECKING:
    from app.core.project import Project
    from app.core.settings_model import AppSettings
    from app.ui.controller import AppController
    from app.ui.errors import ErrorReporter
    from app.ui.export_dialog import ExportChoices

    _Base = QMainWindow
else:
    _Base = object

log = logging.getLogger("bidstudio.ui")

TENDER_FILTER = "招标文件 (*.pdf *.docx *.doc *.txt);;所有文件 (*)"
PROJECT_FILTER = "标书工坊项目 (*.bidproj)"


class ProjectFilesMixin(_Base):
    """Open, save and export for the main window (which provides the attributes declared below)."""

    if TYPE_CHECKING:
        controller: AppController
        settings: AppSettings
        settings_path: Path | None
        project_path: Path | None
        base_project: Project | None
        analysis_dirty: bool
        _model_configured: bool
        reporter: ErrorReporter | None
        guidance: QLineEdit
        mode_box: QComboBox
        recent_menu: QMenu
        qsettings: QSettings

        def display_name(self) -> str: ...
        def _update_title(self) -> None: ...
        def _spawn_ui(self, name: str, coro: Any) -> None: ...
        def resume_drafts(self) -> None: ...
        def show_breakdown(self) -> None: ...
        def show_error(self, title: str, message: str, details: str) -> None: ...
        @property
        def is_modified(self) -> bool: ...

    async def _choose_file(self, title: str, filters: str, save: bool = False, suggested: str = "") -> Path | None:
        dialog = QFileDialog(self, title, suggested or self.settings.last_dir, filters)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave if save else QFileDialog.AcceptMode.AcceptOpen)
        if not save:
            dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        accepted = await run_dialog(dialog) == QFileDialog.DialogCode.Accepted.value
        files = dialog.selectedFiles()
        dialog.deleteLater()
        if not accepted or not files:
            return None
        path = Path(files[0])
        self.settings.last_dir = str(path.parent)
        return path

    async def choose_and_open(self) -> None:
        """File → open tender (dialog)."""
        path = await self._choose_file("打开招标文件", TENDER_FILTER)
        if path is not None:
            await self.open_path(path)

    async def choose_and_open_project(self) -> None:
        """File → open project (dialog)."""
        path = await self._choose_file("打开项目", PROJECT_FILTER)
        if path is not None:
            await self.open_path(path)

    async def open_path(self, path: Path) -> None:
        """Open a tender or a project file (from a dialog, recent files, the command line or a drop)."""
        if path.suffix.lower() == ".bidproj":
            await self.open_project(path)
            return
        await self.controller.run_task("open", self.controller.open_tender(path))

    async def open_project(self, path: Path) -> bool:
        """Load a project: outline, analysis, and its tender when the file is still there."""
        from app.core.project import load_project

        if self.is_modified and not await self._settle_unsaved():
            return False
        try:
            project = load_project(path)
        except Exception as exc:
            if self.reporter is not None:
                self.reporter.report(exc, "无法打开项目")
                return False
            raise
        await self.apply_project(project, path)
        self.settings.add_recent(path)
        self._save_settings()
        self._rebuild_recent()
        return True

    async def apply_project(self, project: Any, path: Path | None, restored: bool = False) -> None:
        """Show a loaded (or recovered) project; a recovered one counts as unsaved."""
        from app.core.project import locate_tender, outline_chapters

        c = self.controller
        c.drafting.forget()
        c.outline.replace(outline_chapters(project))
        c.outline.renumber()
        c.undo_stack.clear()
        c.undo_stack.setClean()
        self.project_path = path
        self.base_project = project.model_copy(deep=True)
        c.runs = list(self.base_project.runs)
        self.analysis_dirty = restored
        c.set_analysis(project.analysis or Analysis())
        c.set_breakdown(getattr(project, "breakdown", None))
        self.guidance.setText(project.guidance or "")
        aligned = project.generation_mode == "one_to_one"
        self.mode_box.setCurrentIndex(self.mode_box.findData("aligned" if aligned else "free"))
        c.model.set_locked_top_level(aligned and c.analysis.has_technical_scoring)
        self._update_title()
        tender = locate_tender(project, path)
        if tender is not None:
            await c.run_task("open", c.open_tender(tender))
            c.set_analysis(project.analysis or Analysis())
            c.set_breakdown(getattr(project, "breakdown", None))
        elif project.tender is not None:
            self.statusBar().showMessage(f"找不到项目引用的招标文件：{project.tender.path}", 10000)
        c.drafting.restore(project)  # after opening the tender, which forgets drafting state
        self._update_title()
        self.offer_resume_drafts()

    def snapshot_project(self) -> Any:
        """The current work as a ``Project`` (also what autosave writes).

        Built on the project that was opened, so what this window does not edit —
        ``created_at``, the run history, drafting state of sections not drafted in this
        session — is carried over instead of being reset on every save.
        """
        from app.core.project import Project, TenderRef

        c = self.controller
        base: Project = self.base_project if self.base_project is not None else Project()
        tender = None
        if c.tender_path is not None and c.tender_path.exists():
            tender = TenderRef.from_file(c.tender_path)
        elif base.tender is not None and c.tender_path is None:
            tender = base.tender.model_copy()  # the tender is missing now: keep the reference
        aligned = self.mode_box.currentData() == "aligned"
        return base.model_copy(deep=True, update={
            "title": self.display_name(), "tender": tender, "analysis": c.analysis, "breakdown": c.breakdown,
            "generation_mode": "one_to_one" if aligned else "free", "guidance": self.guidance.text().strip(),
            "outline": c.outline.to_document(), "sections": c.drafting.section_states(base.sections),
            "runs": list(c.runs), "migrated_from": None,
        })

    def offer_resume_drafts(self) -> None:
        """After opening a project with unfinished sections, offer to continue drafting them."""
        resumable, failed = self.controller.drafting.unfinished()
        count = len(resumable) + len(failed)
        if not count:
            return
        if not self._model_configured:
            self.statusBar().showMessage(f"项目中有 {count} 节正文尚未完成；配置模型后可用“生成 → 继续未完成的正文”继续撰写。",
                                         15000)
            return
        self._spawn_ui("resume-offer", self._ask_resume_drafts(len(resumable), len(failed)))

    async def _ask_resume_drafts(self, resumable: int, failed: int) -> None:
        box = QMessageBox(self)
        box.setObjectName("resumeDraftsBox")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("继续撰写正文")
        parts = [f"{resumable} 节尚未写完（排队中或被中断）"] if resumable else []
        if failed:
            parts.append(f"{failed} 节撰写失败")
        box.setText(f"项目“{self.display_name()}”中有{'，'.join(parts)}。是否现在继续撰写？")
        box.setInformativeText("未写完的小节从已写出的部分接着写，失败的小节重新撰写；已完成的正文不会改动。"
                               "也可以稍后通过“生成 → 继续未完成的正文”继续。")
        go = box.addButton("继续撰写", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("稍后", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(go)
        await run_dialog(box)
        clicked = box.clickedButton()
        box.deleteLater()
        if clicked is go:
            self.resume_drafts()

    def save_to(self, path: Path) -> bool:
        """Write the project atomically to ``path``; errors go to the error dialog."""
        from app.core.project import save_project, with_project_suffix

        path = with_project_suffix(path)
        project = self.snapshot_project()
        try:
            save_project(project, path)
        except Exception as exc:
            if self.reporter is not None:
                self.reporter.report(exc, "保存失败")
                return False
            raise
        self.base_project = project
        self.project_path = path
        self.controller.undo_stack.setClean()
        self.analysis_dirty = False
        self.settings.add_recent(path)
        self._save_settings()
        self._rebuild_recent()
        self._update_title()
        self.statusBar().showMessage(f"已保存到 {path}", 5000)
        return True

    async def save(self) -> bool:
        """File → save (asks for a name the first time)."""
        if self.project_path is None:
            return await self.save_as()
        return self.save_to(self.project_path)

    async def save_as(self) -> bool:
        """File → save as."""
        path = await self._choose_file("另存为项目", PROJECT_FILTER, save=True, suggested=self.display_name() + ".bidproj")
        return self.save_to(path) if path is not None else False

    def export_word_to(self, path: Path, choices: ExportChoices | None = None) -> Path | None:
        """Export the outline to a Word file (without any model), with the dialog's choices.

        An ``ExportError`` (bad selection, 暗标 naming the bidder, file open in Word ...) is
        shown with its Chinese message; other failures go to the error reporter.
        """
        from app.export import ExportError, ExportMeta, export_docx

        if choices is None:
            name = self.controller.analysis.overview.project_name or self.display_name()
            meta, options = ExportMeta(project_name=name), None
        else:
            meta, options = choices.meta, choices.options
        try:
            written = export_docx(self.controller.outline, path, meta, options)
        except ExportError as exc:
            log.warning("export refused: %s", exc.message_zh, extra={"stage": "export"})
            self.show_error("无法导出 Word", exc.message_zh, "")
            return None
        except Exception as exc:
            if self.reporter is not None:
                self.reporter.report(exc, "导出失败")
                return None
            raise
        self.statusBar().showMessage(f"已导出 Word：{written}", 8000)
        log.info("exported %s", written, extra={"stage": "export"})
        return written

    async def ask_export_choices(self) -> ExportChoices | None:
        """The export dialog (awaited, never ``exec()``), then a warning about unanswered
        ★/▲ clauses; None when the user cancels either."""
        from app.ui.export_dialog import ExportDialog, unanswered_text

        c = self.controller
        unanswered = c.breakdown.unanswered_marked() if c.breakdown is not None else []
        name = c.analysis.overview.project_name or self.display_name()
        dialog = ExportDialog(c.outline.chapters, name, self.qsettings, unanswered=unanswered, parent=self)
        accepted = await run_dialog(dialog) == QDialog.DialogCode.Accepted.value
        choices = dialog.choices() if accepted else None
        dialog.deleteLater()
        if choices is None or not unanswered:
            return choices
        box = QMessageBox(self)
        box.setObjectName("unansweredClausesBox")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("有未响应的实质性条款")
        box.setText(unanswered_text(unanswered))
        box.setInformativeText("★/▲ 条款未逐条响应可能导致扣分或投标无效。仍要导出吗？")
        go = box.addButton("仍然导出", QMessageBox.ButtonRole.AcceptRole)
        back = box.addButton("返回检查", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(back)
        await run_dialog(box)
        clicked = box.clickedButton()
        box.deleteLater()
        if clicked is go:
            return choices
        self.show_breakdown()
        return None

    async def choose_and_export(self) -> None:
        """File → export Word: choices dialog, unanswered-clause warning, then the file name."""
        if not len(self.controller.outline):
            self.statusBar().showMessage("目录是空的，没有可导出的内容", 5000)
            return
        choices = await self.ask_export_choices()
        if choices is None:
            return
        suffix = "-技术标（暗标）.docx" if choices.options.preset == "暗标" else "-技术标.docx"
        path = await self._choose_file("导出 Word", "Word 文档 (*.docx)", save=True,
                                       suggested=self.display_name() + suffix)
        if path is not None:
            self.export_word_to(path, choices)

    def _rebuild_recent(self) -> None:
        self.recent_menu.clear()
        for entry in self.settings.recent_files:
            p = Path(entry)
            action = self.recent_menu.addAction(p.name)
            action.setToolTip(str(p))
            action.triggered.connect(lambda _c=False, p=p: self._spawn_ui("dialog", self.open_path(p)))
        self.recent_menu.setEnabled(bool(self.settings.recent_files))

    def _save_settings(self) -> None:
        from app.core.settings_model import save_settings

        if self.settings_path is not None:
            try:
                save_settings(self.settings, self.settings_path)
            except OSError as exc:
                log.warning("cannot save settings: %s", exc)

    async def _settle_unsaved(self) -> bool:
        """Ask about unsaved changes; False when the user cancels."""
        choice = await ask_save_changes(self, self.display_name())
        if choice == "cancel":
            return False
        if choice == "save":
            return await self.save()
        return True

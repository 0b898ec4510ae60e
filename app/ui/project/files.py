"""Files for the main window: open tender/project, save, save as, export Word, recent files.

A mixin of :class:`~app.ui.shell.main_window.MainWindow`, kept apart so the window module stays
about wiring. File dialogs are awaited through ``finished`` (``app.ui.widgets.async_dialog``);
errors with a Chinese ``message_zh`` go to the one error dialog.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QComboBox, QFileDialog, QLineEdit, QMainWindow, QMenu, QMessageBox

from app.core.analysis import Analysis
from app.ui.widgets.async_dialog import CANCEL, Role, ask_choice, ask_save_changes, run_dialog
from app.ui.widgets.file_dialogs import start_folder

if TYPE_CHECKING:
    from app.core.settings_model import AppSettings
    from app.ui.export.dialog import ExportChoices
    from app.ui.run.controller import AppController
    from app.ui.shell.errors import ErrorReporter

    _Base = QMainWindow
else:
    _Base = object

log = logging.getLogger("bidstudio.ui")

TENDER_FILTER = "招标文件 (*.pdf *.docx *.doc *.wps *.txt);;所有文件 (*)"
PROJECT_FILTER = "标书工坊项目 (*.bidproj)"


class ProjectFilesMixin(_Base):
    """Open, save and export for the main window (which provides the attributes declared below)."""

    if TYPE_CHECKING:
        controller: AppController
        settings: AppSettings
        settings_path: Path | None
        _model_configured: bool
        reporter: ErrorReporter | None
        guidance: QLineEdit
        mode_box: QComboBox
        recent_menu: QMenu
        qsettings: QSettings

        def display_name(self) -> str: ...
        def _update_title(self) -> None: ...
        def _sync_mode_from_session(self) -> None: ...
        def show_sample_note(self, shown: bool) -> None: ...
        def _spawn_ui(self, name: str, coro: Any) -> None: ...
        def resume_drafts(self) -> None: ...
        def show_breakdown(self) -> None: ...
        def show_error(self, title: str, message: str, details: str) -> None: ...
        @property
        def is_modified(self) -> bool: ...

    async def _choose_file(self, title: str, filters: str, save: bool = False, suggested: str = "") -> Path | None:
        dialog = QFileDialog(self, title, suggested or str(self.start_folder()), filters)
        dialog.resize(min(860, max(600, self.width() - 120)), min(560, max(400, self.height() - 120)))
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
        """Open a tender or a project file (from a dialog, recent files, the command line or a drop).

        A tender opened into a project that already has work asks first: start a new
        project for it, or replace the project's tender and keep the outline.
        """
        if path.suffix.lower() == ".bidproj":
            await self.open_project(path)
            return
        c = self.controller
        if c.session.has_work and path != c.tender_path:
            choice = await self._ask_new_or_replace(path)
            if choice == "cancel":
                return
            if choice == "new" and not await self.new_project():
                return
        from app.ui.project.password_prompt import open_tender_asking_password

        await c.run_task("open", open_tender_asking_password(c, self, path))

    async def _ask_new_or_replace(self, path: Path) -> str:
        """Opening a tender into a project with work: "new", "replace" or "cancel"."""
        return await ask_choice(
            self, "newOrReplaceBox", QMessageBox.Icon.Question, "打开招标文件",
            f"当前项目“{self.display_name()}”已有目录。要为“{path.name}”新建一个项目，还是用它替换当前项目的招标文件并保留目录？",
            [("new", "新建项目", Role.AcceptRole), ("replace", "替换招标文件，保留目录", Role.DestructiveRole), CANCEL],
            informative="新建项目会先询问是否保存当前项目；替换招标文件时目录和正文保持不变，招标分析按新文件重新读取。",
            default="new")

    async def new_project(self) -> bool:
        """File → 新建项目: settle unsaved changes, then an empty untitled project."""
        c = self.controller
        if c.busy:
            await c.cancel()
        if c.session.is_dirty and not await self._settle_unsaved():
            return False
        c.drafting.forget()
        c.session.new()
        self.statusBar().showMessage("已新建项目", 5000)
        return True

    async def open_sample(self) -> bool:
        """``bidstudio --sample``: the bundled tender with its scoring items read and a one-to-one
        outline built by code from them — the whole workflow, export included, without a model."""
        from app.core.resources import resource_path
        from app.pipeline.headings.code_outline import code_outline

        c = self.controller
        if c.session.has_work and not await self.new_project():
            return False
        await c.run_task("open", c.open_tender(resource_path("samples", "sample_tender.pdf")))
        chapters = code_outline(c.analysis)
        if c.document is None or not chapters:
            return False
        c.outline.replace(chapters)
        c.outline.renumber()
        c.session.generation_mode = "one_to_one"
        self._sync_mode_from_session()
        self.show_sample_note(True)
        self.statusBar().showMessage(f"示例项目：读到 {len(chapters)} 个技术评分项，目录由程序按评分项建立（未使用模型）",
                                     15000)
        return True

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
        from app.core.project_lock import live_holder

        holder = live_holder(path, self.controller.session.session_id)
        read_only = False
        if holder is not None:  # another window edits it: read-only or a copy, never two writers
            from app.ui.project.overwrite_questions import ask_locked_project

            choice = await ask_locked_project(self, path, holder.description_zh)
            if choice == "cancel":
                return False
            if choice == "copy":
                await self.apply_project(project, None, restored=True)
                self.statusBar().showMessage(f"已打开“{path.name}”的副本（未命名），保存时请选择新文件名", 15000)
                return True
            read_only = True
        await self.apply_project(project, path, read_only=read_only)
        if read_only:
            self.statusBar().showMessage(f"“{path.name}”以只读方式打开：另一个窗口正在编辑它；保存请用“另存为”", 15000)
        self.settings.add_recent(path)
        self._save_settings()
        self._rebuild_recent()
        return True

    async def apply_project(self, project: Any, path: Path | None, restored: bool = False,
                            read_only: bool = False) -> None:
        """Show a loaded (or recovered) project; a recovered one counts as unsaved."""
        from app.core.project import locate_tender

        c = self.controller
        c.drafting.forget()
        c.session.apply(project, path, restored=restored, read_only=read_only)  # the window re-reads everything
        tender = locate_tender(project, path)
        if tender is not None:
            from app.ui.project.password_prompt import open_tender_asking_password

            await c.run_task("open", open_tender_asking_password(c, self, tender))
            c.set_analysis(project.analysis or Analysis())  # the project's analysis, edits included
            c.set_breakdown(getattr(project, "breakdown", None))
            c.session.generation_mode = project.generation_mode  # not the mode the fresh table read proposed
            self._sync_mode_from_session()
        elif project.tender is not None:
            self.statusBar().showMessage(f"找不到项目引用的招标文件：{project.tender.path}", 10000)
        c.drafting.restore(project)  # after opening the tender, which forgets drafting state
        self._update_title()
        self.offer_resume_drafts()

    def snapshot_project(self) -> Any:
        """The current work as a ``Project`` (what save and autosave write)."""
        return self.controller.session.snapshot()

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

    def save_to(self, path: Path, overwrite_external: bool = False) -> bool:
        """Write the project atomically to ``path``; errors go to the error dialog."""
        try:
            written = self.controller.session.save(path, overwrite_external=overwrite_external)
        except Exception as exc:
            if self.reporter is not None:
                self.reporter.report(exc, "保存失败")
                return False
            raise
        self.settings.add_recent(written)
        self._save_settings()
        self._rebuild_recent()
        self._update_title()
        self.statusBar().showMessage(f"已保存到 {written}", 5000)
        return True

    async def save(self) -> bool:
        """File → save: in place when the project has a file, else asks for a name."""
        session = self.controller.session
        path = session.path
        if path is None or session.read_only:  # a read-only project is saved under another name
            return await self.save_as()
        if session.changed_on_disk():  # another program wrote the file: never overwrite it without asking
            from app.ui.project.overwrite_questions import ask_overwrite_external

            choice = await ask_overwrite_external(self, path)
            if choice == "save_as":
                return await self.save_as()
            if choice != "overwrite":
                return False
            return self.save_to(path, overwrite_external=True)
        return self.save_to(path)

    async def save_as(self) -> bool:
        """File → save as (the dialog starts beside the project or the tender)."""
        path = await self._choose_file("另存为项目", PROJECT_FILTER, save=True,
                                       suggested=str(self.start_folder() / (self.display_name() + ".bidproj")))
        return self.save_to(path) if path is not None else False

    def start_folder(self) -> Path:
        """Where file dialogs start: beside the project, else beside the tender, else the last folder used
        (else the user's documents — never the folder the program runs in)."""
        session = self.controller.session
        for anchor in (session.path, session.tender_path):
            if anchor is not None and anchor.parent.is_dir():
                return anchor.parent
        return Path(start_folder(self))  # the last folder used, else the user's documents

    def export_word_to(self, path: Path, choices: ExportChoices | None = None) -> Path | None:
        """Export the outline to a Word file on this thread (scripts, tests): see ``export_flow``."""
        from app.ui.export.flow import export_word_now

        return export_word_now(self, path, choices)  # type: ignore[arg-type]

    async def ask_export_choices(self) -> ExportChoices | None:
        """The export dialog and the unanswered-clause/item warning: see ``export_flow``."""
        from app.ui.export.flow import ask_export_choices

        return await ask_export_choices(self)  # type: ignore[arg-type]

    async def choose_and_export(self) -> Path | None:
        """File → export Word: choices dialog, warnings, the file name, then the export off the GUI thread."""
        from app.ui.export.flow import export_word

        if not len(self.controller.outline):
            self.statusBar().showMessage("目录是空的，没有可导出的内容", 5000)
            return None
        choices = await self.ask_export_choices()
        if choices is None:
            return None
        suffix = "-技术标（暗标）.docx" if choices.options.preset == "暗标" else "-技术标.docx"
        path = await self._choose_file("导出 Word", "Word 文档 (*.docx)", save=True,
                                       suggested=str(self.start_folder() / (self.display_name() + suffix)))
        if path is None:
            return None
        return await export_word(self, path, choices)  # type: ignore[arg-type]

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

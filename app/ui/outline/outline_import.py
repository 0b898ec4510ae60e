"""文件 → 导入目录…: the user's own outline (pasted, from a file, or the tender's prescribed order).

The dialog shows what was recognised (headings, levels, matched scoring items) before
anything changes; importing replaces the outline as one undo step, after asking when the
outline already has headings. Parsing is Qt-free (:mod:`app.documents.outlines.importer`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.analysis import ScoringGroup
from app.documents.errors import DocumentError
from app.documents.outlines.importer import (
    ImportedOutline,
    build_import,
    import_outline_file,
    import_outline_text,
    prescribed_outline,
)
from app.ui.outline.commands import ReplaceOutlineCommand
from app.ui.widgets.async_dialog import run_dialog

if TYPE_CHECKING:
    from app.ui.shell.window_host import WindowHost


class OutlineImportDialog(QDialog):
    """Paste an outline, choose a file, or take the tender's prescribed order; preview, then import."""

    def __init__(self, groups: list[ScoringGroup], tender_text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outlineImportDialog")
        self.setWindowTitle("导入目录")
        self.groups = groups
        self.tender_text = tender_text
        self.result_outline: ImportedOutline | None = None
        self._file_result: ImportedOutline | None = None
        intro = QLabel("粘贴您自己的目录（每行一个标题，可带 第一章 / 一、 / 1.1 / （一） / 1、 / (1) 等编号），"
                       "或选择 Word / PDF 文件。标题原样保留，层级按您的编号；编号由程序重新生成。")
        intro.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setObjectName("outlineImportText")
        self.text.setPlaceholderText("第一章 项目理解\n一、项目背景\n二、需求分析\n第二章 总体服务方案")
        self.text.textChanged.connect(self._on_text_changed)
        self.file_button = QPushButton("选择文件…")
        self.file_button.setObjectName("outlineImportFile")
        self.file_button.clicked.connect(self._on_choose_file)
        self.tender_button = QPushButton("使用招标文件规定的目录")
        self.tender_button.setObjectName("outlineImportTender")
        self._prescribed = prescribed_outline(tender_text) if tender_text else []
        self.tender_button.setEnabled(bool(self._prescribed))
        self.tender_button.setToolTip("招标文件中“技术部分须按以下顺序……”列出的目录" if self._prescribed
                                      else "未在招标文件中找到规定的技术部分目录")
        self.tender_button.clicked.connect(self._on_use_tender)
        row = QHBoxLayout()
        row.addWidget(self.file_button)
        row.addWidget(self.tender_button)
        row.addStretch(1)
        self.lock = QCheckBox("锁定导入的标题（生成目录时原样保留，AI 只补全没有下级的部分）")
        self.lock.setObjectName("outlineImportLock")
        self.lock.setChecked(True)
        self.preview = QLabel("尚未识别到标题")
        self.preview.setObjectName("outlineImportPreview")
        self.preview.setWordWrap(True)
        buttons = QDialogButtonBox()
        self.ok_button = buttons.addButton("导入", QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok_button.setEnabled(False)
        buttons.addButton("取消", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self._on_accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.text, 1)
        layout.addLayout(row)
        layout.addWidget(self.lock)
        layout.addWidget(self.preview)
        layout.addWidget(buttons)
        self.resize(560, 480)

    def load_file(self, path: Path) -> None:
        """Read ``path`` (docx, pdf, txt) into the preview; a Chinese message when it cannot."""
        try:
            self._file_result = import_outline_file(path, self.groups, lock=True)
        except DocumentError as exc:
            self._file_result = None
            self._show_error(exc.message_zh)
            return
        self.text.blockSignals(True)
        self.text.setPlainText("")
        self.text.blockSignals(False)
        self._show(self._file_result, f"来自文件“{path.name}”：")

    def _on_choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "选择目录文件", "", "目录文件 (*.docx *.pdf *.txt *.md)")
        if path:
            self.load_file(Path(path))

    def _on_use_tender(self) -> None:
        self._file_result = build_import(self._prescribed, self.groups, lock=True)
        self._show(self._file_result, "招标文件规定的目录：")

    def _on_text_changed(self) -> None:
        self._file_result = None
        text = self.text.toPlainText()
        if not text.strip():
            self.preview.setText("尚未识别到标题")
            self.ok_button.setEnabled(False)
            return
        try:
            self._show(import_outline_text(text, self.groups, lock=True), "")
        except DocumentError as exc:
            self._show_error(exc.message_zh)

    def _show(self, res: ImportedOutline, prefix: str) -> None:
        depth = max((len(p) for ch in res.chapters for p, _ in ch.walk()), default=0) + 1
        msg = f"{prefix}识别到 {len(res.chapters)} 章、共 {res.heading_count} 个标题，最深 {depth} 级"
        if self.groups:
            msg += f"；{res.mapped} 章对应到评分项"
        if res.notes:
            msg += "。注意：" + "；".join(res.notes[:3])
        self.preview.setText(msg)
        self.ok_button.setEnabled(True)

    def _show_error(self, message: str) -> None:
        self.preview.setText(message)
        self.ok_button.setEnabled(False)

    def _on_accept(self) -> None:
        res = self._file_result
        if res is None:
            try:
                res = import_outline_text(self.text.toPlainText(), self.groups, lock=True)
            except DocumentError as exc:
                self._show_error(exc.message_zh)
                return
        if not self.lock.isChecked():
            for ch in res.chapters:
                ch.locked = False
                for _, node in ch.walk():
                    node.locked = False
        self.result_outline = res
        self.accept()


async def ask_replace_outline(parent: QWidget, headings: int) -> bool:
    """Before an imported outline replaces a non-empty one: replace or cancel."""
    box = QMessageBox(parent)
    box.setObjectName("replaceOutlineBox")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("导入目录")
    box.setText(f"当前目录有 {headings} 个标题，导入会替换整个目录。")
    box.setInformativeText("替换后可用“编辑 → 撤销”（Ctrl+Z）一步找回原目录。")
    replace = box.addButton("替换", QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton("取消", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(cancel)
    await run_dialog(box)
    clicked = box.clickedButton()
    box.deleteLater()
    return clicked is replace


async def import_outline(window: WindowHost) -> bool:
    """The whole 导入目录 flow: dialog, question, one undo step; True when the outline was replaced."""
    c = window.controller
    doc = c.document
    tender_text = doc.text() if doc is not None else ""
    dialog = OutlineImportDialog(list(c.analysis.technical_groups), tender_text, window)
    try:
        if await run_dialog(dialog) != QDialog.DialogCode.Accepted or dialog.result_outline is None:
            return False
        res = dialog.result_outline
    finally:
        dialog.deleteLater()
    if len(c.outline) and not await ask_replace_outline(window, len(c.outline)):
        return False
    c.model.set_locked_top_level(False)  # the user's chapters are theirs to edit, whatever mode ran before
    c.undo_stack.push(ReplaceOutlineCommand(c.outline, res.chapters, "导入目录"))
    note = f"已导入目录：{len(res.chapters)} 章，共 {res.heading_count} 个标题"
    if res.mapped:
        note += f"，{res.mapped} 章对应到评分项"
    window.statusBar().showMessage(note, 8000)
    return True


def attach_outline_import(window: WindowHost) -> QAction:
    """Add 文件 → 导入目录… to the window's menu (after 打开项目…)."""
    action = QAction("导入目录…", window)
    action.setObjectName("importOutlineAction")
    action.setStatusTip("导入您自己的目录（粘贴文字或选择 Word/PDF），标题原样保留")
    action.triggered.connect(lambda _checked=False: window.controller.spawn("dialog", import_outline(window)))
    file_menu = window.menuBar().actions()[0].menu()
    if isinstance(file_menu, QMenu):
        file_menu.insertAction(window.act_save, action)
        file_menu.insertSeparator(window.act_save)
    return action

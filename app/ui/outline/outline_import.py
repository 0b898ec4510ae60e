"""文件 → 导入目录…: the user's own outline (pasted, from a file, or the tender's prescribed order).

The dialog shows what was recognised before anything changes: every heading, in a tree, and
for each chapter the scoring item code proposes (a combo to change it; no proposal when code
is unsure). 使用招标文件规定的目录 is offered only when the tender prescribes the technical
part's structure. Importing replaces the outline as one undo step (the chapter lock of a
one-to-one outline included), after asking when the outline already has headings — and
saying when drafted text goes with them. Parsing is Qt-free (:mod:`app.documents.outlines`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.analysis import ScoringGroup, points_label
from app.core.outline import Outline, OutlineNode
from app.documents.errors import DocumentError
from app.documents.outlines.importer import (
    ImportedOutline,
    build_import,
    import_outline_file,
    import_outline_text,
)
from app.documents.outlines.prescribed import find_prescribed
from app.ui.outline.commands import ReplaceOutlineCommand
from app.ui.widgets.async_dialog import run_dialog
from app.ui.widgets.file_dialogs import open_file_dialog

if TYPE_CHECKING:
    from app.ui.outline.model import OutlineItemModel
    from app.ui.shell.window_host import WindowHost


_NO_ITEM = "（不对应评分项）"


class OutlineImportDialog(QDialog):
    """Paste an outline, choose a file, or take the tender's prescribed order; see the headings and
    the proposed scoring item of each chapter (a combo to change it), then import."""

    def __init__(self, groups: list[ScoringGroup], tender_text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("outlineImportDialog")
        self.setWindowTitle("导入目录")
        self.groups = groups
        self.tender_text = tender_text
        self.result_outline: ImportedOutline | None = None
        self._file_result: ImportedOutline | None = None
        self._shown: ImportedOutline | None = None
        self._prefix = ""
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
        self._prescribed = find_prescribed(tender_text) if tender_text else None
        self.tender_button.setEnabled(self._prescribed is not None)
        self.tender_button.setToolTip(
            f"招标文件在“{self._prescribed.anchor}”下规定了技术部分的结构" if self._prescribed is not None
            else "招标文件没有规定技术部分的目录结构（未找到“技术部分/技术文件/技术标”下按序编号的内容）")
        self.tender_button.clicked.connect(self._on_use_tender)
        row = QHBoxLayout()
        row.addWidget(self.file_button)
        row.addWidget(self.tender_button)
        row.addStretch(1)
        self.lock = QCheckBox("锁定导入的标题（生成目录时原样保留，AI 只补全没有下级的部分）")
        self.lock.setObjectName("outlineImportLock")
        self.lock.setChecked(True)
        self.tree = QTreeWidget()
        self.tree.setObjectName("outlineImportTree")
        self.tree.setHeaderLabels(["将导入的标题", "对应评分项"])
        self.tree.setColumnCount(2)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setStretchLastSection(False)
        self.tree.setColumnWidth(1, 250)
        self.tree.setColumnHidden(1, not groups)
        self.combos: list[QComboBox] = []
        self.preview = QLabel("尚未识别到标题")
        self.preview.setObjectName("outlineImportPreview")
        self.preview.setWordWrap(True)
        self.mapping_hint = QLabel("右列是程序按章节标题建议的评分项，没有把握的不对应；可逐章修改（每个评分项只对应一章）。")
        self.mapping_hint.setObjectName("outlineImportMappingHint")
        self.mapping_hint.setWordWrap(True)
        self.mapping_hint.setVisible(False)
        buttons = QDialogButtonBox()
        self.ok_button = buttons.addButton("导入", QDialogButtonBox.ButtonRole.AcceptRole)
        self.ok_button.setEnabled(False)
        buttons.addButton("取消", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self._on_accept)
        buttons.rejected.connect(self.reject)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.text)
        splitter.addWidget(self.tree)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(row)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.mapping_hint)
        layout.addWidget(self.preview)
        layout.addWidget(self.lock)
        layout.addWidget(buttons)
        self.resize(780, 600)

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
        open_file_dialog(self, "选择目录文件", "目录文件 (*.docx *.pdf *.txt *.md)",
                         lambda files: self.load_file(Path(files[0])))

    def _on_use_tender(self) -> None:
        if self._prescribed is None:
            return
        self._file_result = build_import(self._prescribed.sections, self.groups, lock=True)
        self._show(self._file_result, f"招标文件规定的目录（“{self._prescribed.anchor}”）：")

    def _on_text_changed(self) -> None:
        self._file_result = None
        text = self.text.toPlainText()
        if not text.strip():
            self._show_error("尚未识别到标题")
            return
        try:
            self._show(import_outline_text(text, self.groups, lock=True), "")
        except DocumentError as exc:
            self._show_error(exc.message_zh)

    def _show(self, res: ImportedOutline, prefix: str) -> None:
        self._shown, self._prefix = res, prefix
        self._fill_tree(res)
        self._summarize()

    def _summarize(self) -> None:
        res = self._shown
        if res is None:
            return
        depth = max((len(p) for ch in res.chapters for p, _ in ch.walk()), default=0) + 1
        msg = f"{self._prefix}识别到 {len(res.chapters)} 章、共 {res.heading_count} 个标题，最深 {depth} 级"
        if self.groups:
            mapped = sum(ch.source_requirement_id is not None for ch in res.chapters)
            msg += f"；{mapped} 章对应到评分项"
        if res.notes:
            msg += "。注意：" + "；".join(res.notes[:3])
        conflicts = self._conflicts()
        if conflicts:
            msg += "。\n请修改：" + "；".join(conflicts) + "，每个评分项只能对应一章"
        self.preview.setText(msg)
        self.ok_button.setEnabled(not conflicts)

    def _fill_tree(self, res: ImportedOutline) -> None:
        self.tree.clear()
        self.combos = []
        for i, chapter in enumerate(res.chapters):
            item = QTreeWidgetItem([chapter.title])
            item.setToolTip(0, chapter.description or chapter.title)
            self.tree.addTopLevelItem(item)
            self._add_children(item, chapter)
            if self.groups:
                combo = self._combo(i, chapter)
                self.tree.setItemWidget(item, 1, combo)
                self.combos.append(combo)
        self.tree.expandAll()
        self.mapping_hint.setVisible(bool(self.groups) and bool(res.chapters))

    def _add_children(self, item: QTreeWidgetItem, node: OutlineNode) -> None:
        for child in node.children:
            kid = QTreeWidgetItem([child.title])
            kid.setToolTip(0, child.description or child.title)
            item.addChild(kid)
            self._add_children(kid, child)

    def _combo(self, index: int, chapter: OutlineNode) -> QComboBox:
        combo = QComboBox()
        combo.setObjectName(f"outlineImportMap{index}")
        combo.addItem(_NO_ITEM, None)
        for g in self.groups:
            pts = points_label(g)
            combo.addItem(f"{g.title}（{pts}分）" if pts and not g.weighted else g.title, g.id)
            combo.setItemData(combo.count() - 1, g.title, Qt.ItemDataRole.ToolTipRole)
        at = combo.findData(chapter.source_requirement_id) if chapter.source_requirement_id else 0
        combo.setCurrentIndex(max(0, at))
        combo.currentIndexChanged.connect(lambda _i, k=index: self._on_mapping_chosen(k))
        return combo

    def _on_mapping_chosen(self, index: int) -> None:
        """The user picked an item (or none) for chapter ``index``."""
        res = self._shown
        if res is None:
            return
        gid = self.combos[index].currentData()
        group = next((g for g in self.groups if g.id == gid), None)
        chapter = res.chapters[index]
        chapter.source_requirement_id = group.id if group is not None else None
        chapter.source_requirement_title = group.title[:200] if group is not None else None
        self._summarize()

    def _conflicts(self) -> list[str]:
        """Items chosen for more than one chapter (each item answers in one chapter)."""
        res = self._shown
        if res is None:
            return []
        out = []
        for g in self.groups:
            chosen = [ch.title for ch in res.chapters if ch.source_requirement_id == g.id]
            if len(chosen) > 1:
                out.append(f"“{'”“'.join(chosen)}”都对应到“{g.title}”")
        return out

    def _show_error(self, message: str) -> None:
        self._shown = None
        self.tree.clear()
        self.combos = []
        self.mapping_hint.setVisible(False)
        self.preview.setText(message)
        self.ok_button.setEnabled(False)

    def _on_accept(self) -> None:
        res = self._shown
        if res is None or self._conflicts():
            return
        if not self.lock.isChecked():
            for ch in res.chapters:
                ch.locked = False
                for _, node in ch.walk():
                    node.locked = False
        self.result_outline = res
        self.accept()


def _drafted(chapters: list[OutlineNode]) -> int:
    """How many headings of the outline have text (or figures) that an import would take away."""
    return sum(1 for ch in chapters for node in (ch, *(n for _, n in ch.walk()))
               if node.content.strip() or node.figures)


async def ask_replace_outline(parent: QWidget, headings: int, drafted: int = 0) -> bool:
    """Before an imported outline replaces a non-empty one: replace or cancel (drafted text goes too)."""
    box = QMessageBox(parent)
    box.setObjectName("replaceOutlineBox")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("导入目录")
    if drafted:
        box.setText(f"当前目录有 {headings} 个标题，其中 {drafted} 节已写有正文（或插图）。"
                    "导入会替换整个目录，这些正文也会一并移除。")
        box.setInformativeText("替换后可用“编辑 → 撤销”（Ctrl+Z）一步找回原目录和其中的正文。")
    else:
        box.setText(f"当前目录有 {headings} 个标题，导入会替换整个目录。")
        box.setInformativeText("替换后可用“编辑 → 撤销”（Ctrl+Z）一步找回原目录。")
    replace = box.addButton("替换", QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton("取消", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(cancel)
    await run_dialog(box)
    clicked = box.clickedButton()
    box.deleteLater()
    return clicked is replace


class ImportOutlineCommand(ReplaceOutlineCommand):
    """The import as one undo step, the outline's chapter lock (one-to-one mode) included: an undo
    brings the old outline back with its locked chapters, a redo takes the lock off again."""

    def __init__(self, outline: Outline, chapters: list[OutlineNode], model: OutlineItemModel) -> None:
        super().__init__(outline, chapters, "导入目录")
        self.model = model
        self.was_locked = model.locked_top_level

    def redo(self) -> None:
        """Qt override: replace the outline; the user's chapters are theirs to edit."""
        super().redo()
        self.model.set_locked_top_level(False)

    def undo(self) -> None:
        """Qt override: the old outline, locked as it was."""
        super().undo()
        self.model.set_locked_top_level(self.was_locked)


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
    headings = sum(1 for _ in c.outline.walk())
    if headings and not await ask_replace_outline(window, headings, _drafted(list(c.outline.chapters))):
        return False
    c.undo_stack.push(ImportOutlineCommand(c.outline, res.chapters, c.model))
    note = f"已导入目录：{len(res.chapters)} 章，共 {res.heading_count} 个标题"
    mapped = sum(ch.source_requirement_id is not None for ch in res.chapters)
    if mapped:
        note += f"，{mapped} 章对应到评分项"
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

"""The section editor beside the outline tree: live drafted text, state, stop and rewrite.

Self-contained widget; the controller owns the drafting engine and the undo stack. The
editor shows one section at a time (``show_section``), appends streamed pieces while it
is written (``append_stream``), follows state changes (``apply_state``) and asks for work
through signals. Section text is Markdown (what the Word export reads): it is shown
rendered — headings, lists, tables — and its Markdown source only on demand (编辑 /
double-click), where a hand edit is reported once the user leaves the editor (or calls
:meth:`commit_edit`) as ``text_edited(key, old, new)`` so the controller can push one
undoable command; rewrites come back the same way through ``set_text``.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtGui import QColor, QFocusEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from typing_extensions import override

from app.core.drafting_state import DRAFT_STATUS_LABELS, SectionDraft
from app.core.word_count import text_chars
from app.pipeline.drafting.context import REWRITE_LABELS


class _TextEdit(QPlainTextEdit):
    """A plain text edit that reports losing focus.

    Signals:
        focus_left(): the widget lost keyboard focus.
    """

    focus_left = Signal()

    @override
    def focusOutEvent(self, e: QFocusEvent) -> None:
        super().focusOutEvent(e)
        self.focus_left.emit()


class SectionEditor(QWidget):
    """Title, state line, the text, 撰写/停止 and the four rewrite buttons with a guidance field.

    Signals:
        draft_requested(str): draft the shown section (key).
        cancel_requested(str): stop drafting the shown section (key).
        rewrite_requested(str, str, str): key, mode (expand/condense/specific/scoring), guidance.
        text_edited(str, str, str): key, previous text, new text after a hand edit.
    """

    draft_requested = Signal(str)
    cancel_requested = Signal(str)
    rewrite_requested = Signal(str, str, str)
    text_edited = Signal(str, str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._key = ""
        self._status = "done"
        self._committed = ""
        self.title_label = QLabel("未选择章节（在目录中点选一个末级标题）")
        self.title_label.setWordWrap(True)
        self.title_label.setStyleSheet("font-weight:bold;")
        self.state_label = QLabel("")
        self.state_label.setWordWrap(True)
        self.count_label = QLabel("")
        self.count_label.setObjectName("sectionWordCount")
        self.count_label.setStyleSheet("color:#555;")
        self.rendered = QTextBrowser()
        self.rendered.setObjectName("sectionRendered")
        self.rendered.setOpenLinks(False)
        self.rendered.setPlaceholderText("在目录中点选末级标题，在此编写正文")
        self.rendered.viewport().installEventFilter(self)
        self.text = _TextEdit()
        self.text.setPlaceholderText("正文使用 Markdown：空行分段，“- ”开头为列表，“| 列 | 列 |”为表格。")
        self.pages = QStackedWidget()
        self.pages.addWidget(self.rendered)
        self.pages.addWidget(self.text)
        self.source_button = QPushButton("编辑")
        self.source_button.setObjectName("editSourceButton")
        self.source_button.setCheckable(True)
        self.source_button.setToolTip("显示并编辑 Markdown 源文本；再点一次回到排版后的正文")
        self.table_button = QPushButton("表格…")
        self.table_button.setObjectName("tableButton")
        self.table_button.setToolTip("在表格或插入点编辑表格（不用手写 Markdown 的“| --- |”）")
        self.table_button.setVisible(False)  # with the source only
        self.draft_button = QPushButton("撰写本节")
        self.stop_button = QPushButton("停止")
        self.guidance = QLineEdit()
        self.guidance.setPlaceholderText("改写补充要求（可选）")
        self.rewrite_buttons: dict[str, QToolButton] = {}
        for mode, label in REWRITE_LABELS.items():
            button = QToolButton()
            button.setText(label)
            self.rewrite_buttons[mode] = button
        top = QHBoxLayout()
        top.addWidget(self.source_button)
        top.addWidget(self.table_button)
        top.addWidget(self.count_label)
        top.addStretch(1)
        top.addWidget(self.draft_button)
        top.addWidget(self.stop_button)
        rewrite = QHBoxLayout()
        rewrite.addWidget(QLabel("改写："))
        for button in self.rewrite_buttons.values():
            rewrite.addWidget(button)
        rewrite.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title_label)
        layout.addLayout(top)
        layout.addWidget(self.state_label)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.guidance)
        layout.addLayout(rewrite)
        self.draft_button.clicked.connect(self._on_draft_clicked)
        self.stop_button.clicked.connect(self._on_stop_clicked)
        self.source_button.toggled.connect(self._on_source_toggled)
        self.table_button.clicked.connect(self.edit_table)
        for mode, button in self.rewrite_buttons.items():
            button.clicked.connect(lambda _=False, m=mode: self._on_rewrite_clicked(m))
        self.text.focus_left.connect(self.commit_edit)
        self.text.textChanged.connect(self._show_count)
        self._update_enabled()

    def _show_count(self) -> None:
        """“本节 N 字”, following every keystroke."""
        n = text_chars(self.text.toPlainText())
        self.count_label.setText(f"本节 {n} 字" if self._key else "")

    @property
    def showing_source(self) -> bool:
        """Whether the Markdown source (not the rendered text) is on show."""
        return self.pages.currentWidget() is self.text

    @override
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Qt override: a double-click on the rendered text opens its source for editing."""
        if event.type() == QEvent.Type.MouseButtonDblClick and self._key and not self.text.isReadOnly():
            self.source_button.setChecked(True)
            return True
        return super().eventFilter(watched, event)

    def _on_source_toggled(self, source: bool) -> None:
        if not source:
            self.commit_edit()
        self._show_page()
        if source:
            self.text.setFocus()

    def edit_table(self) -> QWidget:
        """编辑表格 for the table under the cursor (or a new one); OK is one committed edit."""
        from app.ui.outline.table_dialog import edit_table_at_cursor

        dialog = edit_table_at_cursor(self.text, self)
        dialog.accepted.connect(self.commit_edit)  # after the dialog wrote the table back
        return dialog

    def _show_page(self) -> None:
        """The source while it is being written or edited, the rendered text otherwise."""
        source = self.source_button.isChecked() or self._status == "writing"
        self.table_button.setVisible(self.source_button.isChecked() and not self.text.isReadOnly())
        if not source:
            self.rendered.setMarkdown(self.text.toPlainText())
        self.pages.setCurrentWidget(self.text if source else self.rendered)

    @property
    def key(self) -> str:
        """Key (outline id) of the section shown, "" when none."""
        return self._key

    def show_section(self, key: str, title: str, text: str, draft: SectionDraft | None = None) -> None:
        """Show one section (a pending hand edit of the previous one is committed first)."""
        self.commit_edit()
        self._key = key
        self.title_label.setText(f"{key} {title}".strip())
        self._status = draft.status if draft is not None else "done"
        self._set_plain(draft.text if draft is not None and draft.status == "writing" else text)
        self._show_state(draft)
        self._update_enabled()

    def highlight(self, needle: str) -> bool:
        """Mark every place ``needle`` stands in the shown text (rendered and source), select and scroll
        to the first; False when the text does not hold it (a name in a title only, say)."""
        needle = needle.strip()
        found = False
        mark = QTextCharFormat()
        mark.setBackground(QColor("#ffe066"))
        for view in (self.rendered, self.text):
            doc = view.document()
            marks: list[QTextEdit.ExtraSelection] = []
            cursor = doc.find(needle) if needle else QTextCursor()
            first = QTextCursor(cursor) if not cursor.isNull() else None
            while not cursor.isNull():
                sel = QTextEdit.ExtraSelection()
                sel.cursor, sel.format = cursor, mark
                marks.append(sel)
                cursor = doc.find(needle, cursor)
            view.setExtraSelections(marks)
            if first is not None:
                found = True
                view.setTextCursor(first)
                view.ensureCursorVisible()
        return found

    def set_title(self, key: str, title: str) -> None:
        """Follow a rename of the shown section's heading."""
        if key == self._key:
            self.title_label.setText(f"{key} {title}".strip())

    def clear(self, why: str = "") -> None:
        """Show no section: another project (nothing is reported as an edit), or a heading with
        sections below (``why`` says so; a pending hand edit of the section left is committed)."""
        if why:
            self.commit_edit()
        self._key = ""
        self._status = "done"
        self.title_label.setText(why or "未选择章节（在目录中点选一个末级标题）")
        self._set_plain("")
        self._show_state(None)
        self._update_enabled()

    def append_stream(self, key: str, piece: str) -> None:
        """Append a streamed piece when it belongs to the shown section."""
        if key != self._key or not piece:
            return
        cursor = self.text.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        cursor.insertText(piece)
        self._committed = self.text.toPlainText()

    def apply_state(self, draft: SectionDraft) -> None:
        """Follow a state change of the shown section (on done/failed the final text is shown)."""
        if draft.key != self._key:
            return
        self._status = draft.status
        if draft.status in ("done", "failed") or (draft.status == "writing" and not self.text.toPlainText()):
            self._set_plain(draft.text)
        self._show_state(draft)
        self._update_enabled()
        self._show_page()

    def set_text(self, key: str, text: str) -> None:
        """Replace the shown text (after undo/redo or an applied rewrite) without emitting an edit."""
        if key == self._key:
            self._set_plain(text)

    def commit_edit(self) -> None:
        """Report a pending hand edit as ``text_edited`` (called on focus-out and section switch)."""
        current = self.text.toPlainText()
        if self._key and self._status != "writing" and current != self._committed:
            previous, self._committed = self._committed, current
            self.text_edited.emit(self._key, previous, current)

    def _set_plain(self, text: str) -> None:
        self._committed = text
        self.text.setExtraSelections([])
        self.rendered.setExtraSelections([])
        self.text.setPlainText(text)
        self._show_page()

    def _show_state(self, draft: SectionDraft | None) -> None:
        if draft is None:
            self.state_label.setText("")
            return
        parts = [DRAFT_STATUS_LABELS.get(draft.status, draft.status)]
        if draft.status == "done":
            parts.append(f"{text_chars(draft.text)} 字，用时 {draft.elapsed_s:.1f} 秒")
        if draft.continuations:
            parts.append(f"续写 {draft.continuations} 次")
        if draft.error:
            parts.append(draft.error)
        rejected = draft.status == "failed" and bool(draft.rejected_text)
        if rejected:
            parts.append("本次输出已拒绝，原有正文未改动（悬停查看被拒绝的输出）")
        self.state_label.setText("；".join(parts))
        self.state_label.setToolTip("被拒绝的输出：\n" + draft.rejected_text[:1500] if rejected else "")

    def _update_enabled(self) -> None:
        has = bool(self._key)
        busy = self._status in ("writing", "waiting")
        self.text.setReadOnly(not has or busy)
        self.draft_button.setEnabled(has and not busy)
        self.source_button.setEnabled(has and not busy)
        self.stop_button.setEnabled(has and busy)
        self.guidance.setEnabled(has and not busy)
        for button in self.rewrite_buttons.values():
            button.setEnabled(has and not busy)

    def _on_draft_clicked(self) -> None:
        self.commit_edit()
        self.draft_requested.emit(self._key)

    def _on_stop_clicked(self) -> None:
        self.cancel_requested.emit(self._key)

    def _on_rewrite_clicked(self, mode: str) -> None:
        self.commit_edit()
        self.rewrite_requested.emit(self._key, mode, self.guidance.text().strip())

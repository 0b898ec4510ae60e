"""The questions asked before work the user made would be replaced (nothing is overwritten silently).

Each is awaited through the dialog's ``finished`` signal (``run_dialog``), never ``exec()``:
regenerating an outline that has the user's edits or drafted text, regenerating one chapter
or section (with optional guidance), drafting a section that already has text, saving over a project file another
program changed, and opening a project another window edits.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.ui.widgets.async_dialog import CANCEL, Role, ask_choice, run_dialog

RegenerateChoice = Literal["keep", "replace", "cancel"]


async def ask_regenerate_outline(parent: QWidget, headings: int, drafted: int, locked: int = 0,
                                 edited: bool = True) -> RegenerateChoice:
    """Before a new outline replaces one the user worked on: keep drafted text, replace, or cancel.

    ``locked``: headings the user locked (their imported outline); those stay whatever happens.
    ``edited``: the user changed headings by hand (only then does the question say so).
    """
    box = QMessageBox(parent)
    box.setObjectName("regenerateOutlineBox")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("重新生成目录")
    text = f"当前目录有 {headings} 个标题"
    text += f"，其中 {drafted} 节已有正文。" if drafted else "，包含您的修改。" if edited else "。"
    if locked:
        box.setText(text + f"其中 {locked} 个标题已锁定（您的目录），生成时原样保留，只补全其余部分。")
    else:
        box.setText(text + "重新生成会替换整个目录。")
    box.setInformativeText("可以保留标题不变的小节的正文；其余内容可用“编辑 → 撤销”（Ctrl+Z）一步找回。")
    keep = box.addButton("重新生成，保留已写正文", QMessageBox.ButtonRole.AcceptRole) if drafted else None
    replace = box.addButton("重新生成", QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton("取消", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(keep or cancel)
    await run_dialog(box)
    clicked = box.clickedButton()
    box.deleteLater()
    if keep is not None and clicked is keep:
        return "keep"
    if clicked is replace:
        return "replace"
    return "cancel"


ConfirmChoice = Literal["confirm", "review"]


async def ask_confirm_scoring(parent: QWidget, doubt: str, technical: int) -> ConfirmChoice:
    """Before one-to-one generation from scoring items code could not confirm: confirm them, or review first."""
    box = QMessageBox(parent)
    box.setObjectName("confirmScoringBox")
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("确认评分项")
    box.setText(f"一一对应模式将按 {technical} 个技术评分项各建一个一级章节，但评分表未能自动确认。")
    box.setInformativeText((doubt or "请核对评分项、分值和类别") + "\n\n评分项看起来正确就直接确认；否则先在分析页修改。")
    confirm = box.addButton("评分项无误，生成", QMessageBox.ButtonRole.AcceptRole)
    review = box.addButton("先核对评分项", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(confirm)
    await run_dialog(box)
    clicked = box.clickedButton()
    box.deleteLater()
    return "confirm" if clicked is confirm and review is not None else "review"


class RegenerateDialog(QDialog):
    """Guidance for regenerating one chapter or section, and whether drafted text is kept."""

    def __init__(self, title: str, drafted: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("regenerateDialog")
        self.setWindowTitle("重新生成本章")
        label = QLabel(f"重新生成“{title}”下的各级标题，其他章节不变。可以写下要求（可选）：")
        label.setWordWrap(True)
        self.guidance = QPlainTextEdit()
        self.guidance.setPlaceholderText("例如：增加与本地化服务团队相关的小节；不要写培训内容")
        self.guidance.setMaximumHeight(90)
        self.keep = QCheckBox(f"保留标题不变的小节的正文（本章有 {drafted} 节已写正文）")
        self.keep.setChecked(True)
        self.keep.setVisible(drafted > 0)
        buttons = QDialogButtonBox()
        self.ok_button = buttons.addButton("重新生成", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton("取消", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.guidance)
        layout.addWidget(self.keep)
        layout.addWidget(buttons)
        self.resize(480, self.sizeHint().height())


async def ask_regenerate_subtree(parent: QWidget, title: str, drafted: int) -> tuple[str, bool] | None:
    """(guidance, keep drafted text) for regenerating ``title``'s subtree, or None when cancelled."""
    dialog = RegenerateDialog(title, drafted, parent)
    accepted = await run_dialog(dialog) == QDialog.DialogCode.Accepted.value
    answer = (dialog.guidance.toPlainText().strip(), dialog.keep.isChecked()) if accepted else None
    dialog.deleteLater()
    return answer


async def ask_redraft(parent: QWidget, label: str, chars: int) -> bool:
    """Drafting a section that has text replaces it: ask (the old text stays one undo away)."""
    answer = await ask_choice(parent, "redraftBox", QMessageBox.Icon.Question, "重新撰写正文",
                              f"“{label}”已有正文（{chars} 字）。重新撰写会替换现有正文。",
                              [("redraft", "重新撰写", Role.AcceptRole), CANCEL],
                              informative="替换后仍可用“编辑 → 撤销”（Ctrl+Z）恢复原来的正文。", default="cancel")
    return answer == "redraft"


async def ask_overwrite_external(parent: QWidget, path: object) -> Literal["overwrite", "save_as", "cancel"]:
    """The project file changed on disk since it was opened: overwrite it, save as another file, or cancel."""
    from pathlib import Path

    answer = await ask_choice(parent, "externalChangeBox", QMessageBox.Icon.Warning, "项目文件已被修改",
                              f"项目文件“{Path(str(path)).name}”在打开之后被其他程序修改过。直接保存会覆盖那些修改。",
                              [("save_as", "另存为…", Role.AcceptRole), ("overwrite", "覆盖", Role.DestructiveRole), CANCEL],
                              informative="可以另存为新文件，保留两份；或确认覆盖。", default="save_as")
    return "overwrite" if answer == "overwrite" else "save_as" if answer == "save_as" else "cancel"


async def ask_locked_project(parent: QWidget, path: object, holder: str) -> Literal["read_only", "copy", "cancel"]:
    """The project is open in another window: open it read-only, open a copy, or cancel."""
    from pathlib import Path

    answer = await ask_choice(parent, "projectLockedBox", QMessageBox.Icon.Warning, "项目正在被使用",
                              f"项目“{Path(str(path)).name}”正被 {holder} 编辑。两处同时保存会互相覆盖。",
                              [("read_only", "只读打开", Role.AcceptRole), ("copy", "打开副本", Role.ActionRole), CANCEL],
                              informative="可以只读打开（保存时另存为新文件），或打开一份未命名的副本。", default="read_only")
    return "read_only" if answer == "read_only" else "copy" if answer == "copy" else "cancel"

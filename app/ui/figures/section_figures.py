"""The outline's 图 actions: insert, edit, delete and move a section's figures as undoable commands.

Every change replaces the node's ``figures`` list through :class:`EditFieldCommand`, so
Ctrl+Z takes it back like any other edit, the project's dirty state follows the undo stack
and the figures are saved with the node. Dialogs open non-modally (``open``) and report
through ``finished``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog, QMenu, QWidget

from app.core.figures import KIND_ZH
from app.ui.figures.editor import FigureEditorDialog
from app.ui.outline.commands import EditFieldCommand

if TYPE_CHECKING:
    from PySide6.QtGui import QUndoStack

    from app.core.figures import Figure
    from app.core.outline import Outline, OutlineNode, Path
    from app.pipeline.drafting.figure_proposal import FigureProposal


def set_figures(outline: Outline, stack: QUndoStack, path: Path, figures: list[Figure], text: str) -> None:
    """Replace the figures of the node at ``path`` as one undo step."""
    stack.push(EditFieldCommand(outline, path, "figures", list(figures), text))


#: Asks the model for a figure of a kind for a section (the window provides it; None: no model).
SectionProposer = Callable[[str, "OutlineNode"], Awaitable["FigureProposal"]]


def open_editor(outline: Outline, stack: QUndoStack, path: Path, parent: QWidget | None,
                figure_id: str | None = None, kind: str = "org",
                proposer: SectionProposer | None = None) -> FigureEditorDialog:
    """Open the editor for a new figure of ``kind`` or the existing ``figure_id``; 确定 pushes the change."""
    node = outline.node(path)
    figures = list(node.figures)
    index = next((i for i, f in enumerate(figures) if f.id == figure_id), None)
    ask = (lambda k: proposer(k, node)) if proposer is not None else None
    dialog = FigureEditorDialog(figures[index] if index is not None else None, kind, parent, proposer=ask)

    def done(result: int) -> None:
        figure = dialog.figure()
        if result != QDialog.DialogCode.Accepted or figure is None or not outline.exists(path):
            return
        current = list(outline.node(path).figures)
        at = next((i for i, f in enumerate(current) if f.id == figure.id), None)
        if at is None:
            current.append(figure)
            set_figures(outline, stack, path, current, f"插入{KIND_ZH[figure.kind]}")
        else:
            current[at] = figure
            set_figures(outline, stack, path, current, f"编辑图“{figure.title}”")

    dialog.finished.connect(done)
    dialog.open()
    return dialog


def figure_menu(outline: Outline, stack: QUndoStack, path: Path, parent: QWidget, enabled: bool = True,
                proposer: SectionProposer | None = None) -> QMenu:
    """The 图 submenu for the node at ``path``: insert each kind, edit/delete/move its figures."""
    menu = QMenu("图", parent)
    menu.setEnabled(enabled)
    for kind in ("org", "flow", "gantt"):
        menu.addAction(f"插入{KIND_ZH[kind]}…",
                       partial(open_editor, outline, stack, path, parent, kind=kind, proposer=proposer))
    figures = outline.node(path).figures
    if figures:
        menu.addSeparator()
    for i, figure in enumerate(figures):
        sub = menu.addMenu(f"{KIND_ZH[figure.kind]}：{figure.title}")
        sub.addAction("编辑…", partial(open_editor, outline, stack, path, parent, figure_id=figure.id,
                                       proposer=proposer))
        sub.addAction("删除", partial(_remove, outline, stack, path, i))
        if i > 0:
            sub.addAction("上移", partial(_swap, outline, stack, path, i - 1))
    return menu


def _remove(outline: Outline, stack: QUndoStack, path: Path, index: int) -> None:
    figures = list(outline.node(path).figures)
    removed = figures.pop(index)
    set_figures(outline, stack, path, figures, f"删除图“{removed.title}”")


def _swap(outline: Outline, stack: QUndoStack, path: Path, index: int) -> None:
    figures = list(outline.node(path).figures)
    figures[index], figures[index + 1] = figures[index + 1], figures[index]
    set_figures(outline, stack, path, figures, "调整图的顺序")

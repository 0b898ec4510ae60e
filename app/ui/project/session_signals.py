"""The thin Qt adapter of :class:`~app.core.session.ProjectSession`: its changes as signals.

It also ties the session to the outline's undo stack, in both directions: the stack's
clean state is the session's "edits saved" state (rule 4); a save marks the stack clean;
another project (new, open, recover) starts a fresh undo history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from PySide6.QtGui import QUndoStack

    from app.core.session import ProjectSession, SessionChange


class SessionSignals(QObject):
    """Re-emits the session's changes on the GUI thread's terms.

    Signals:
        reset(): another project is shown (new, opened, recovered, closed): re-read everything.
        dirty_changed(int): the unsaved state flipped (1 = unsaved).
        saved(str): the project was written to this path.
        tender_changed(): a tender was opened or replaced.
        changed(): something that autosave should pick up was recorded.
    """

    reset = Signal()
    dirty_changed = Signal(int)
    saved = Signal(str)
    tender_changed = Signal()
    changed = Signal()

    def __init__(self, session: ProjectSession, undo_stack: QUndoStack, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.undo_stack = undo_stack
        self._unsubscribe = session.subscribe(self._on_change)
        undo_stack.cleanChanged.connect(self._on_clean_changed)
        session.set_edits_clean(undo_stack.isClean())

    def detach(self) -> None:
        """Stop listening (the window is closing)."""
        self._unsubscribe()
        try:
            self.undo_stack.cleanChanged.disconnect(self._on_clean_changed)
        except (RuntimeError, TypeError):  # already gone
            pass

    def _on_clean_changed(self, clean: bool) -> None:
        self.session.set_edits_clean(bool(clean))

    def _on_change(self, change: SessionChange) -> None:
        if change == "reset":
            self.undo_stack.clear()  # the old project's steps must not apply to the new one
            self.undo_stack.setClean()
            self.reset.emit()
        elif change == "saved":
            self.undo_stack.setClean()
            self.saved.emit(str(self.session.path or ""))
        elif change == "dirty":
            self.dirty_changed.emit(int(self.session.is_dirty))
        elif change == "tender":
            self.tender_changed.emit()
        elif change == "changed":
            self.changed.emit()

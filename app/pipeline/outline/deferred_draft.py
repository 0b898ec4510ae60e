"""A new outline that takes the place of the user's only once it has content.

Regenerating over an existing outline used to clear it at once: a run that then failed (a dead
endpoint retried for a minute) left six bare chapters where a hundred headings had been.
:class:`DeferredDraft` gives the run a scratch tree to write into and leaves the visible tree
alone until the model has answered and the scratch holds a heading below a chapter. Then the
visible tree takes the scratch's content (old chapters out, new ones in: row edits, no model
reset) and follows every later change edit by edit, so the user still watches the new outline
being written, and an undo recorder on the visible tree records the run as one step. A run that
fails before that point changes nothing.
Plain Python, no Qt.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from app.core.outline import Changed, Inserted, Moved, Outline, Phase, Removed, Reset, TreeEvent
from app.core.pipeline_events import PipelineEvent


class DeferredDraft:
    """The scratch tree a run writes into, and when the visible tree starts to show it.

    ``scratch`` is the tree to hand to the pipeline; :attr:`switched` says whether the visible
    tree shows it yet. Call :meth:`finish` when the run ends (it stops listening).
    """

    def __init__(self, visible: Outline) -> None:
        self.visible = visible
        self.scratch = Outline()
        self.switched = False
        self.model_answered = False
        self._unsubscribe: Callable[[], None] | None = self.scratch.subscribe(self._on_event)

    def has_content(self) -> bool:
        """Whether the new outline is worth showing: the model has answered and a chapter has headings.

        Headings code fills in while the model fails (heading library, templates) do not count
        on their own: a run whose model is unreachable would otherwise replace a full outline
        with a few generic headings before it fails. A successful run is shown by :meth:`finish`.
        """
        return self.model_answered and any(chapter.children for chapter in self.scratch.chapters)

    def progress(self, event: PipelineEvent) -> None:
        """Pass every progress event of the run here: the first one with the model's output counts."""
        if event.completion_tokens > 0:
            self.model_output()

    def model_output(self) -> None:
        """The model is writing (a streaming call reported its first tokens)."""
        if not self.model_answered:
            self.model_answered = True
            if self._unsubscribe is not None and self.has_content():
                self.switch()

    def switch(self) -> None:
        """Show the new outline in the visible tree now , and follow it from here on."""
        if not self.switched:
            self.switched = True
            self._take_all()

    def finish(self, ok: bool) -> bool:
        """The run ended: stop following; a successful run is shown even if it never had sub-headings.

        Returns whether the visible tree shows the new outline.
        """
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if ok and not self.switched and self.scratch.chapters:
            self.switch()
        return self.switched

    def _on_event(self, phase: Phase, event: TreeEvent) -> None:
        if phase != "after":
            return
        if not self.switched:
            if self.has_content():
                self.switch()
            return
        self._mirror(event)

    def _mirror(self, event: TreeEvent) -> None:
        """Replay one change of the scratch tree on the visible tree (both have the same shape)."""
        v, s = self.visible, self.scratch
        if isinstance(event, Inserted):
            nodes = s.node(event.parent).children[event.index: event.index + event.count]
            v.insert_many(event.parent, event.index, [n.model_copy(deep=True) for n in nodes])
        elif isinstance(event, Removed):
            v.remove_range(event.parent, event.index, event.count)
        elif isinstance(event, Changed):
            node = s.node(event.path)
            v.update(event.path, checked=True, **{f: copy.deepcopy(getattr(node, f)) for f in event.fields})
        elif isinstance(event, Moved):
            v.move((*event.src_parent, event.src_index), event.dst_parent, event.dst_index)
        elif isinstance(event, Reset):
            self._take_all()

    def _take_all(self) -> None:
        """Make the visible tree a copy of the scratch: two row edits (out, in), not a model reset."""
        v = self.visible
        if v.chapters:
            v.remove_range((), 0, len(v.chapters))
        if self.scratch.chapters:
            v.insert_many((), 0, [c.model_copy(deep=True) for c in self.scratch.chapters])

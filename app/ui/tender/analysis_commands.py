"""Undo commands for edits in the analysis view (overview fields, technical scoring groups)
and in the requirement breakdown (已响应章节).

The analysis is one immutable pydantic value: a command holds the value before and after
an edit and hands one of them to ``store(analysis, refresh)``. The first ``redo`` (on
push) only stores the value — the view already shows it — while undo/redo also refresh
the view. Consecutive edits of the same overview field merge into one step, so typing a
paragraph into 项目概况 is undone at once (rule 4: every edit is a command).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand
from typing_extensions import override

from app.core.analysis import Analysis
from app.core.breakdown import Breakdown

#: Overview fields the view edits, with their Chinese names for the undo text.
OVERVIEW_LABELS: dict[str, str] = {
    "project_name": "项目名称",
    "buyer": "采购人",
    "budget": "预算金额",
    "service_period": "服务期/工期",
    "summary": "项目概况",
    "scope": "项目概况",
}
GROUPS = "groups"
LOT = "lot"
#: ``QUndoCommand.id`` shared by analysis edits (merging is decided in ``mergeWith``).
MERGE_ID = 0x414E

Store = Callable[[Analysis, bool], None]


def changed_fields(old: Analysis, new: Analysis) -> frozenset[str]:
    """Which overview fields (by name), and whether the groups (``"groups"``) and the chosen lot (``"lot"``) differ."""
    out = {name for name in OVERVIEW_LABELS if getattr(old.overview, name) != getattr(new.overview, name)}
    if old.groups != new.groups:
        out.add(GROUPS)
    if old.scoring_lot != new.scoring_lot:
        out.add(LOT)
    return frozenset(out)


def edit_label(fields: frozenset[str]) -> str:
    """The undo text, e.g. "编辑项目名称", "编辑评分项" or "改选包（标段）"."""
    if LOT in fields:
        return "改选包（标段）"
    if fields == {GROUPS}:
        return "编辑评分项"
    names = sorted({OVERVIEW_LABELS[f] for f in fields if f in OVERVIEW_LABELS})
    if len(names) == 1 and GROUPS not in fields:
        return f"编辑{names[0]}"
    return "编辑招标分析"


class EditAnalysisCommand(QUndoCommand):
    """Replace the analysis with an edited one; undo puts the previous value back."""

    def __init__(self, store: Store, old: Analysis, new: Analysis, *, applied: bool = True) -> None:
        self.fields = changed_fields(old, new)
        super().__init__(edit_label(self.fields))
        self._store = store
        self.old = old
        self.new = new
        self._first = applied  # the view already shows ``new``: do not reset it on push

    @override
    def id(self) -> int:
        """Qt override: analysis edits share one id; ``mergeWith`` decides."""
        return MERGE_ID

    @override
    def mergeWith(self, other: QUndoCommand) -> bool:
        """Qt override: merge consecutive edits of the same single overview field."""
        if not isinstance(other, EditAnalysisCommand) or self.fields & {GROUPS, LOT} or other.fields != self.fields:
            return False
        if len({OVERVIEW_LABELS[f] for f in self.fields}) != 1:
            return False
        self.new = other.new
        if self.new == self.old:
            self.setObsolete(True)  # typed and deleted again: nothing to undo
        return True

    @override
    def redo(self) -> None:
        """Qt override: store the edited analysis (and show it, except on the first push)."""
        refresh, self._first = not self._first, False
        self._store(self.new, refresh)

    @override
    def undo(self) -> None:
        """Qt override: store and show the previous analysis."""
        self._store(self.old, True)


class EditBreakdownCommand(QUndoCommand):
    """Replace the requirement breakdown with an edited one (e.g. a clause marked answered)."""

    def __init__(self, store: Callable[[Breakdown | None, bool], None], old: Breakdown | None, new: Breakdown,
                 text: str = "标注已响应章节", *, applied: bool = True) -> None:
        super().__init__(text)
        self._store = store
        self.old = old
        self.new = new
        self._first = applied

    @override
    def redo(self) -> None:
        """Qt override: store the edited breakdown (and show it, except on the first push)."""
        refresh, self._first = not self._first, False
        self._store(self.new, refresh)

    @override
    def undo(self) -> None:
        """Qt override: store and show the previous breakdown."""
        self._store(self.old, True)

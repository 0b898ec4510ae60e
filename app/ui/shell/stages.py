"""The stages of the work and the one registry that says which panels each stage shows.

A bid is worked in stages — 招标分析, 目录, 正文, 审查, 资料 — and the window shows, around the
outline tree (always in view), only the panels of the stage on show (ARCHITECTURE rule 17).
A panel says where it belongs with :func:`register_panel`; :class:`~app.ui.shell.workspace.StageWorkspace`
does the rest (the stage bar, Ctrl+1…Ctrl+5, each stage's layout remembered and reset).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget, QMainWindow

Area = Qt.DockWidgetArea


@dataclass(frozen=True)
class Stage:
    """One stage: its key (used by code and in window.ini), its name on the stage bar and a tip."""

    key: str
    title: str
    tip: str


#: The stages in the order a bid writer goes through them (Ctrl+1 … Ctrl+5).
STAGES: tuple[Stage, ...] = (
    Stage("analysis", "招标分析", "阅读招标文件，核对评分项和需求拆解"),
    Stage("outline", "目录", "生成、导入和编辑技术标目录"),
    Stage("text", "正文", "撰写各小节正文，参考历史标书"),
    Stage("review", "审查", "评审模拟、评分索引与偏离表、查重、提交前检查"),
    Stage("material", "资料", "历史标书和企业资料"),
)
STAGE_KEYS = tuple(s.key for s in STAGES)


def stage_named(key: str) -> Stage:
    """The stage whose key is ``key`` (ValueError for an unknown key: a typo in a registration)."""
    for stage in STAGES:
        if stage.key == key:
            return stage
    raise ValueError(f"unknown stage {key!r}; stages: {', '.join(STAGE_KEYS)}")


@dataclass
class Placement:
    """Where a panel sits in one stage's first-start layout.

    ``tab_with``/``below``: the object name of a panel of the same stage to share tabs with or
    to sit under (placed alone in ``area`` when that panel is not in the stage). ``share``: the
    fraction of the window's width (left/right area) or height (bottom area) the column the panel
    heads takes, or, for a panel ``below`` another, its fraction of their height (0: Qt decides). ``front``: the tab on top of its group. ``shown``: whether the
    stage shows the panel at first (a callable is asked each time the layout is built).
    """

    dock: QDockWidget
    stage: str
    area: Area = Area.RightDockWidgetArea
    tab_with: str = ""
    below: str = ""
    share: float = 0.0
    front: bool = False
    shown: bool | Callable[[], bool] = True

    def shown_now(self) -> bool:
        """Whether the first-start layout shows the panel."""
        return bool(self.shown()) if callable(self.shown) else self.shown


class PanelRegistry:
    """Every panel's placements, by stage, in the order they were registered."""

    def __init__(self) -> None:
        self._placements: list[Placement] = []

    def add(self, placement: Placement) -> None:
        """Record ``placement`` (a panel registered twice for one stage keeps the later one)."""
        stage_named(placement.stage)
        self._placements = [p for p in self._placements
                            if not (p.dock is placement.dock and p.stage == placement.stage)]
        self._placements.append(placement)

    def in_stage(self, stage: str) -> list[Placement]:
        """The placements of ``stage``, in registration order."""
        return [p for p in self._placements if p.stage == stage]

    def stages_of(self, dock: QDockWidget) -> list[str]:
        """The stages showing ``dock``, its home stage (the first registered) first."""
        return [p.stage for p in self._placements if p.dock is dock]

    def docks(self) -> list[QDockWidget]:
        """Every registered panel, once each."""
        seen: list[QDockWidget] = []
        for p in self._placements:
            if not any(p.dock is d for d in seen):
                seen.append(p.dock)
        return seen


def register_panel(window: QMainWindow, dock: QDockWidget, stage: str, *,
                   area: Area = Area.RightDockWidgetArea, tab_with: str = "", below: str = "",
                   share: float = 0.0, front: bool = False, shown: bool | Callable[[], bool] = True) -> None:
    """Show ``dock`` in ``stage`` (one of :data:`STAGE_KEYS`); call once per stage it belongs to.

    The first stage registered is the panel's home: showing the panel from a menu or from code
    (``dock.show()``) while another stage is on show switches to it. ``dock`` needs a unique
    object name (the layouts are saved by name). Works before and after the window is shown.
    """
    if not dock.objectName():
        raise ValueError("a registered panel needs an objectName (layouts are saved by name)")
    placement = Placement(dock, stage, area, tab_with, below, share, front, shown)
    stage_named(stage)
    workspace = getattr(window, "workspace", None)
    if workspace is None:  # a plain QMainWindow (a tool, a test host): a dock like any other
        window.addDockWidget(area, dock)
        return
    workspace.register(placement)

"""A panel's frame in its dock: the panel scrolls rather than grow the window.

Each panel asks for a minimum size that depends on the fonts of the machine (a larger system font,
another CJK face) and on what it shows. Summed across a stage's columns, those minimums decided the
window's minimum size, and a few pixels more made the window taller than a laptop's screen (issue 37
§1). Framed by :class:`PanelFrame`, a panel gets its full size whenever the dock has room and scrolls
when a stage gives it less; the window's minimum size is then the stage's shape, not its fonts.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QDockWidget, QFrame, QScrollArea, QVBoxLayout, QWidget

#: The most a framed panel asks of the layout as its minimum: room for a few rows and a button.
MINIMUM = QSize(220, 140)


class _WidthFreeLayout(QVBoxLayout):
    """A layout that does not report height-for-width: a scroll area sizes a panel whose labels wrap
    by its preferred height for the width (and scrolls the rest) where a dock gives it its minimum."""

    def hasHeightForWidth(self) -> bool:
        """Qt override: no (the panel inside still lays its wrapped labels out by width)."""
        return False


class PanelFrame(QScrollArea):
    """Holds one panel; its size hint is the panel's, its minimum at most :data:`MINIMUM`."""

    def __init__(self, panel: QWidget) -> None:
        super().__init__()
        self.setObjectName(f"{panel.objectName() or 'panel'}Frame")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no extra Tab stop: focus goes to the panel's own widgets
        holder = QWidget()
        holder.setObjectName(f"{self.objectName()}Holder")
        box = _WidthFreeLayout(holder)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(panel)
        self.setWidget(holder)

    @property
    def panel(self) -> QWidget | None:
        """The framed panel."""
        holder = self.widget()
        layout = holder.layout() if holder is not None else None
        item = layout.itemAt(0) if layout is not None else None
        return item.widget() if item is not None else None

    def sizeHint(self) -> QSize:
        """Qt override: the panel's own size hint (QScrollArea would bound it by the font's size)."""
        panel = self.widget()
        return panel.sizeHint() if panel is not None else super().sizeHint()

    def minimumSizeHint(self) -> QSize:
        """Qt override: the panel's minimum, but never more than :data:`MINIMUM` (the rest scrolls)."""
        panel = self.widget()
        if panel is None:
            return super().minimumSizeHint()
        return panel.minimumSizeHint().boundedTo(MINIMUM).expandedTo(QSize(0, 0))


def natural_minimum(dock: QDockWidget) -> QSize:
    """The minimum ``dock`` would ask for unframed: its panel's own minimum plus the dock's title and
    margins (a first-start layout gives a panel at least this much where the window has room)."""
    panel = dock.widget()
    inner = panel.panel if isinstance(panel, PanelFrame) else panel
    if panel is None or inner is None:
        return dock.minimumSizeHint()
    extra = dock.minimumSizeHint() - panel.minimumSizeHint()
    return inner.minimumSizeHint() + QSize(max(extra.width(), 0), max(extra.height(), 0))


def frame_panel(dock: QDockWidget) -> None:
    """Put ``dock``'s panel in a :class:`PanelFrame` (once; a dock without a panel is left alone)."""
    panel = dock.widget()
    if panel is None or isinstance(panel, PanelFrame):
        return
    dock.setWidget(PanelFrame(panel))

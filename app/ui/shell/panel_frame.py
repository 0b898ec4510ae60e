"""A panel's frame in its dock: the panel scrolls rather than grow the window.

Each panel asks for a minimum size that depends on the fonts of the machine (a larger system font,
another CJK face) and on what it shows. Summed across a stage's columns, those minimums decided the
window's minimum size, and a few pixels more made the window taller than a laptop's screen (issue 37
§1). Framed by :class:`PanelFrame`, a panel gets its full size whenever the dock has room and scrolls
when a stage gives it less; the window's minimum size is then the stage's shape, not its fonts.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QDockWidget, QFrame, QScrollArea, QWidget

#: The most a framed panel asks of the layout as its minimum: room for a few rows and a button.
MINIMUM = QSize(220, 140)


class PanelFrame(QScrollArea):
    """Holds one panel; its size hint is the panel's, its minimum at most :data:`MINIMUM`."""

    def __init__(self, panel: QWidget) -> None:
        super().__init__()
        self.setObjectName(f"{panel.objectName() or 'panel'}Frame")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no extra Tab stop: focus goes to the panel's own widgets
        self.setWidget(panel)

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


def frame_panel(dock: QDockWidget) -> None:
    """Put ``dock``'s panel in a :class:`PanelFrame` (once; a dock without a panel is left alone)."""
    panel = dock.widget()
    if panel is None or isinstance(panel, PanelFrame):
        return
    dock.setWidget(PanelFrame(panel))

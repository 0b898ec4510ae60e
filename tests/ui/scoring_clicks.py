"""Clicks on the analysis page's scoring widgets, as a user makes them (candidate ticks, “只用此表”, rows)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QStyle

from app.ui.tender.candidate_list import COL_ONLY, COL_TABLE, CandidateList


def candidate_texts(tree: CandidateList) -> list[str]:
    """The candidates' lines, in order."""
    return [item.text(COL_TABLE) for item in tree.candidate_items()]


def click_candidate_check(qtbot: Any, tree: CandidateList, row: int) -> None:
    """Click the check box of candidate ``row``."""
    item = tree.candidate_items()[row]
    rect = tree.visualRect(tree.indexFromItem(item, COL_TABLE))
    style = tree.style() or QApplication.style()
    margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, tree) + 1
    width = style.pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth, None, tree)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(rect.x() + margin + width // 2, rect.center().y()))


def click_use_only(qtbot: Any, tree: CandidateList, row: int) -> None:
    """Click “只用此表” on candidate ``row``."""
    item = tree.candidate_items()[row]
    rect = tree.visualRect(tree.indexFromItem(item, COL_ONLY))
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())

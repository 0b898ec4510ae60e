"""What the 补写, check and export steps need of the 评审模拟 dock (typed without importing it).

``review_dock`` imports those steps; typing them against this protocol keeps the import
one-way (no circles, not even under TYPE_CHECKING).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from app.core.outline import Path
    from app.pipeline.evaluation.review import BidReview
    from app.ui.evaluation.review_panel import ReviewPanel


class ReviewHost(Protocol):
    """The dock as its actions see it: its panel, its last review, refresh and jump."""

    panel: ReviewPanel
    review: BidReview | None

    def refresh(self) -> None:
        """Review the outline now and show it."""

    def schedule(self, *_args: object) -> None:
        """Refresh soon."""

    def show_section(self, path: Path) -> None:
        """Select the section at ``path`` in the outline."""

    def keep_model_answers(self, review: BidReview) -> None:
        """Remember the checked model answers of ``review`` across refreshes."""

"""What an export needs besides the outline: document metadata, user options, the error type.

Kept apart from the writer so the UI and the CLI can build and validate these values
without touching python-docx.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from app.core.length_budget import LengthBudget

#: Heading number schemes: 第一章/1.1/1.1.1, 一、/（一）/1., or no numbers at all.
NumberingScheme = Literal["chapter", "chinese", "none"]

#: What the cover shows when the user has not typed a bidder name yet.
BIDDER_PLACEHOLDER = "【投标人名称】"


class ExportError(Exception):
    """An export that cannot be done; ``message_zh`` is the sentence to show the user."""

    def __init__(self, message_zh: str) -> None:
        super().__init__(message_zh)
        self.message_zh = message_zh


@dataclass(frozen=True)
class ExportMeta:
    """Who and what the document is for: shown on the cover, header and document properties.

    ``date`` may be a :class:`datetime.date`, free text (``"2026年12月"``) or None for today.
    ``bidder_aliases`` are other names of the bidder (简称) a 暗标 export must not contain.
    """

    project_name: str
    bidder_name: str = BIDDER_PLACEHOLDER
    date: _dt.date | str | None = None
    document_title: str = "技术投标文件"
    bidder_aliases: tuple[str, ...] = ()

    def date_text(self) -> str:
        """The cover date in Chinese form, e.g. ``2026年11月29日``."""
        value = self.date if self.date is not None else _dt.date.today()
        if isinstance(value, _dt.date):
            return f"{value.year}年{value.month}月{value.day}日"
        return value.strip()

    def has_real_bidder(self) -> bool:
        """Whether a real bidder name was given (not empty, not the placeholder)."""
        name = self.bidder_name.strip()
        return bool(name) and name != BIDDER_PLACEHOLDER


@dataclass(frozen=True)
class ExportOptions:
    """User choices for one export.

    ``chapters`` holds 0-based indexes of the top-level chapters to export (None: all).
    Exported chapters are numbered in export order unless ``keep_original_numbers``.
    ``index_table`` / ``deviation_table`` add the 评分索引表 / 技术偏离表 after the TOC (they
    need the analysis / breakdown). ``layout_pass`` lays the file out with LibreOffice, when
    installed, to write real page numbers into the TOC, the tables and the footer total.
    ``template`` exports into the office's own Word template (:mod:`app.export.template`).
    """

    preset: str = "标准投标版"
    numbering: NumberingScheme = "chapter"
    include_descriptions: bool = False
    chapters: tuple[int, ...] | None = None
    page_break_before_chapters: bool = True
    include_cover: bool = True
    include_toc: bool = True
    keep_original_numbers: bool = False
    index_table: bool = False
    deviation_table: bool = False
    layout_pass: bool = False
    #: The office's Word template (.docx/.dotx) to export into; None: the preset's own document.
    template: str | None = None
    #: Template style names for heading levels 1…4 when its names are not the usual ones.
    template_headings: tuple[str, ...] | None = None
    #: The project's length budget: after the layout pass, pages per chapter are compared with it.
    length_budget: LengthBudget | None = None
    #: The 评审模拟 自评表 as a table after the body (rows given to the writer by the caller).
    review_table: bool = False

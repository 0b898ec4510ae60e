"""Find the parts of a tender the model needs, and size them to a context budget.

Three sections are located by headings and keyword density, each with a page range:
the project overview (项目名称/预算/服务期…), the requirements (采购需求/用户需求书/
技术要求…) and the scoring rules (评标办法/评分标准…, anchored on parsed scoring tables
when there are any). ``budget_text`` returns the text of a page range that fits a
character budget, leaving out unreadable pages, so the model gets a few thousand
relevant characters instead of the whole tender.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from app.documents.model import Heading, TenderDocument
from app.documents.scoring.model import ScoringResult
from app.documents.text_patterns import format_page_ranges

SectionKind = Literal["overview", "requirements", "scoring"]

_OVERVIEW_WORDS = re.compile(
    r"项目名称|项目编号|采购项目编号|预算金额|采购预算|最高限价|控制价|项目概况|项目基本情况|服务期|服务期限|"
    r"交货期|合同履行期限|采购内容|采购需求|招标内容|建设地点|交货地点"
)
_REQUIREMENT_HEADING = re.compile(
    r"采购需求|用户需求|需求书|技术要求|服务要求|技术规格|招标项目要求|供货要求|项目要求|采购内容|技术参数|服务内容"
)
_SCORING_HEADING = re.compile(r"评标办法|评分标准|评审办法|评分办法|综合评分|评审标准|详细评审|评分细则|评审细则|评审因素")
_SCORING_WORDS = re.compile(r"评分因素|评审因素|评分标准|评分项|分值|评审细则|得\d+(?:\.\d+)?分|综合评分")
MAX_REQUIREMENT_PAGES = 40
MAX_SCORING_PAGES = 8
MAX_OVERVIEW_PAGES = 3


class Section(BaseModel):
    """A located part of the tender: pages ``first_page..last_page`` (inclusive)."""

    kind: SectionKind
    first_page: int
    last_page: int
    title: str = ""
    reason: str = ""

    @property
    def pages_zh(self) -> str:
        """"第9–36页" style page range."""
        if self.first_page == self.last_page:
            return f"第{self.first_page}页"
        return f"第{self.first_page}–{self.last_page}页"


class LocatedSections(BaseModel):
    """The sections found (None when a section could not be located)."""

    overview: Section | None = None
    requirements: Section | None = None
    scoring: Section | None = None

    def all(self) -> list[Section]:
        """The located sections in a fixed order."""
        return [s for s in (self.overview, self.requirements, self.scoring) if s is not None]


def _page_hits(doc: TenderDocument, pattern: re.Pattern[str], number: int) -> int:
    """Keyword hits on one readable page."""
    page = doc.page(number)
    return len(pattern.findall(page.text)) if page.readable else 0


def _next_heading_page(doc: TenderDocument, start: Heading, cap: int) -> int:
    """Last page before the next heading of the same or a higher level (capped)."""
    after = False
    for h in doc.headings:
        if h is start:
            after = True
            continue
        if after and h.level <= start.level and h.page > start.page:
            return min(h.page - 1 if h.page > start.page else start.page, start.page + cap - 1)
    return min(doc.page_count, start.page + cap - 1)


def _best_heading(doc: TenderDocument, pattern: re.Pattern[str], density: re.Pattern[str]) -> Heading | None:
    """The matching heading (level 1–2) followed by the most keyword hits."""
    best: tuple[int, Heading] | None = None
    for h in doc.headings:
        if h.level > 2 or not pattern.search(h.text):
            continue
        span = range(h.page, min(doc.page_count, h.page + 2) + 1)
        hits = sum(_page_hits(doc, density, n) for n in span) + (3 if h.level == 1 else 0)
        if best is None or hits > best[0]:
            best = (hits, h)
    return best[1] if best else None


def locate_scoring(doc: TenderDocument, scoring: ScoringResult | None = None) -> Section | None:
    """Pages of the scoring rules: the scoring tables' pages, or the best scoring heading."""
    if scoring is not None and scoring.found:
        pages = sorted({p for t in scoring.tables for p in t.pages})
        first, last = pages[0], pages[-1]
        for head in doc.headings:  # extend back to the section title when it is just before
            if _SCORING_HEADING.search(head.text) and first - 3 <= head.page <= first:
                first = min(first, head.page)
                break
        return Section(kind="scoring", first_page=first, last_page=last, title="评分表", reason="scoring_table")
    h = _best_heading(doc, _SCORING_HEADING, _SCORING_WORDS)
    if h is not None:
        last = _next_heading_page(doc, h, MAX_SCORING_PAGES)
        return Section(kind="scoring", first_page=h.page, last_page=max(h.page, last), title=h.text, reason="heading")
    dense = [p.number for p in doc.pages if p.readable and _page_hits(doc, _SCORING_WORDS, p.number) >= 3]
    if dense:
        return Section(
            kind="scoring", first_page=dense[0], last_page=min(dense[-1], dense[0] + MAX_SCORING_PAGES - 1),
            title="", reason="keywords",
        )
    return None


def locate_overview(doc: TenderDocument) -> Section | None:
    """Pages of the project overview: the first page dense in 项目名称/预算/服务期 words."""
    for p in doc.pages:
        if p.readable and _page_hits(doc, _OVERVIEW_WORDS, p.number) >= 2:
            last = min(doc.page_count, p.number + MAX_OVERVIEW_PAGES - 1)
            return Section(kind="overview", first_page=p.number, last_page=last, title="项目概况", reason="keywords")
    readable = doc.readable_pages
    if readable:
        return Section(kind="overview", first_page=readable[0], last_page=readable[0], reason="first_page")
    return None


def locate_requirements(doc: TenderDocument) -> Section | None:
    """Pages of the requirements (采购需求/用户需求书/技术要求…), from the best heading."""
    h = _best_heading(doc, _REQUIREMENT_HEADING, _REQUIREMENT_HEADING)
    if h is None:
        return None
    last = _next_heading_page(doc, h, MAX_REQUIREMENT_PAGES)
    return Section(kind="requirements", first_page=h.page, last_page=max(h.page, last), title=h.text, reason="heading")


def locate_sections(doc: TenderDocument, scoring: ScoringResult | None = None) -> LocatedSections:
    """Locate overview, requirements and scoring sections of a tender."""
    return LocatedSections(
        overview=locate_overview(doc), requirements=locate_requirements(doc), scoring=locate_scoring(doc, scoring)
    )


def chars_for_context(context_tokens: int, reserve_tokens: int = 2048, chars_per_token: float = 1.2) -> int:
    """Characters of Chinese tender text that fit a context window after the reserve."""
    return max(500, int((context_tokens - reserve_tokens) * chars_per_token))


def budget_text(doc: TenderDocument, first_page: int, last_page: int, max_chars: int, *, marks: bool = True) -> str:
    """Text of readable pages ``first..last`` cut to ``max_chars`` at a line end.

    With ``marks`` each page starts with "【第N页】" so the model can cite pages.
    Unreadable pages (scans, garbled) are skipped and said so in one line.
    """
    parts: list[str] = []
    skipped: list[int] = []
    for n in range(max(1, first_page), min(doc.page_count, last_page) + 1):
        page = doc.page(n)
        if not page.readable:
            skipped.append(n)
            continue
        text = page.text.strip()
        if text:
            parts.append(f"【第{n}页】\n{text}" if marks else text)
    out = "\n".join(parts)
    if skipped:
        note = f"（{format_page_ranges(skipped)}无法读取文字，已略去）"
        out = note + "\n" + out if out else note
    if len(out) <= max_chars:
        return out
    cut = out[: max(0, max_chars - 8)]
    nl = cut.rfind("\n")
    if nl > max_chars // 2:
        cut = cut[:nl]
    return cut + "\n……（后略）"


def section_text(doc: TenderDocument, section: Section | None, max_chars: int) -> str:
    """``budget_text`` of a located section ("" when the section was not found)."""
    if section is None:
        return ""
    return budget_text(doc, section.first_page, section.last_page, max_chars)

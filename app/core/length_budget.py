"""A length budget for the technical bid: a target spread over chapters by the points they carry.

Offices and tenders set lengths (技术标不超过 200 页; "about 80 pages"). The user sets a total
in pages or characters; :func:`chapter_budgets` spreads it over the chapters in proportion
to their scoring points (a chapter without points gets the average share; a chapter the
user fixed keeps its number and the rest is spread over the others); :func:`section_targets`
gives every leaf section its share in characters, which drafting puts into the prompt;
:func:`page_report` compares the laid-out pages per chapter with the budget after export
and flags the tender's page limit. :func:`find_page_limit` reads a stated limit from text.
Pure functions over plain values and core models.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.analysis import Analysis
from app.core.outline import OutlineNode, Path

#: Characters of body text on one A4 page in the presets' layout (小四, 1.5 lines, with
#: headings, tables and figures taking their share) — a planning figure, not a measurement.
CHARS_PER_PAGE: Final = 700
#: The smallest share a drafted section is asked for.
MIN_SECTION_CHARS: Final = 200


class LengthBudget(BaseModel):
    """What the user set: a total, its unit, fixed chapters and the tender's page limit."""

    model_config = ConfigDict(extra="ignore")

    unit: Literal["pages", "chars"] = "pages"
    total: int = Field(ge=1, le=1_000_000, description="全书目标篇幅（页数或字数）")
    page_limit: int | None = Field(default=None, ge=1, le=10_000, description="招标文件规定的页数上限")
    fixed: dict[str, int] = Field(default_factory=dict, description="用户指定篇幅的章（章标题 -> 数量）")
    chars_per_page: int = Field(default=CHARS_PER_PAGE, ge=100, le=3000)

    def pages(self, amount: int) -> float:
        """An amount in this budget's unit, as pages."""
        return float(amount) if self.unit == "pages" else amount / self.chars_per_page

    def chars(self, amount: int) -> int:
        """An amount in this budget's unit, as characters."""
        return amount * self.chars_per_page if self.unit == "pages" else amount


@dataclass(frozen=True)
class ChapterBudget:
    """One chapter's share: its title, its points (None: not known) and its amount."""

    title: str
    points: float | None
    amount: int
    fixed: bool = False


def chapter_points(chapters: Sequence[OutlineNode], analysis: Analysis | None) -> list[float | None]:
    """The points each chapter answers: its scoring item, else the items its sections point at."""
    groups = {g.id: g.points for g in (analysis.groups if analysis else [])}
    out: list[float | None] = []
    for chapter in chapters:
        ids: list[str] = []
        if chapter.source_requirement_id:
            ids.append(chapter.source_requirement_id)
        else:
            ids += chapter.scoring_refs
            for _, node in chapter.walk():
                ids += [r for r in (node.source_requirement_id, *node.scoring_refs) if r]
        values = [groups[i] for i in dict.fromkeys(ids) if groups.get(i) is not None]
        out.append(sum(v for v in values if v is not None) if values else None)
    return out


def split(total: int, weights: Sequence[float]) -> list[int]:
    """``total`` in whole units, proportional to ``weights`` (largest remainders), summing to ``total``."""
    if not weights:
        return []
    weight_sum = sum(weights)
    if weight_sum <= 0:
        weights, weight_sum = [1.0] * len(weights), float(len(weights))
    exact = [total * w / weight_sum for w in weights]
    out = [int(x) for x in exact]
    order = sorted(range(len(exact)), key=lambda i: exact[i] - out[i], reverse=True)
    for i in order[: total - sum(out)]:
        out[i] += 1
    return out


def chapter_budgets(budget: LengthBudget, chapters: Sequence[OutlineNode],
                    points: Sequence[float | None]) -> list[ChapterBudget]:
    """The total spread over ``chapters``: fixed ones first, the rest by points."""
    known = [p for p in points if p is not None and p > 0]
    average = sum(known) / len(known) if known else 1.0
    free = [i for i, c in enumerate(chapters) if c.title not in budget.fixed]
    fixed_sum = sum(budget.fixed[c.title] for c in chapters if c.title in budget.fixed)
    rest = max(0, budget.total - fixed_sum)
    shares = split(rest, [float(points[i] or average) for i in free])
    amounts = dict(zip(free, shares, strict=True))
    return [ChapterBudget(c.title, points[i], budget.fixed.get(c.title, amounts.get(i, 0)), c.title in budget.fixed)
            for i, c in enumerate(chapters)]


def outline_targets(budget: LengthBudget, chapters: Sequence[OutlineNode],
                    analysis: Analysis | None) -> dict[Path, int]:
    """:func:`section_targets` with the chapters' points read from ``analysis``."""
    return section_targets(budget, chapters, chapter_points(chapters, analysis))


def section_targets(budget: LengthBudget, chapters: Sequence[OutlineNode],
                    points: Sequence[float | None]) -> dict[Path, int]:
    """Characters for every leaf section (path from the outline root), its chapter's share split evenly."""
    out: dict[Path, int] = {}
    for index, (chapter, share) in enumerate(zip(chapters, chapter_budgets(budget, chapters, points), strict=True)):
        leaves = [(index, *p) for p, n in chapter.walk() if not n.children] or [(index,)]
        chars = budget.chars(share.amount)
        for path, amount in zip(leaves, split(chars, [1.0] * len(leaves)), strict=True):
            out[path] = max(MIN_SECTION_CHARS, amount)
    return out


def budget_summary(budget: LengthBudget, shares: Sequence[ChapterBudget]) -> str:
    """One line for the UI: the total and whether fixed chapters leave room for the rest."""
    unit = "页" if budget.unit == "pages" else "字"
    used = sum(s.amount for s in shares)
    text = f"目标共 {budget.total} {unit}，已分配 {used} {unit}"
    if used > budget.total:
        text += f"（指定篇幅的章合计超出目标 {used - budget.total} {unit}）"
    if budget.page_limit and budget.pages(budget.total) > budget.page_limit:
        text += f"；目标超过招标文件规定的 {budget.page_limit} 页上限"
    return text


@dataclass(frozen=True)
class PageLine:
    """One chapter after layout: its pages against its budgeted pages."""

    title: str
    pages: int
    budget_pages: float | None


def chapter_page_counts(starts: Sequence[int], body_pages: int) -> list[int]:
    """Pages per chapter from the page each chapter starts on (the last runs to the end)."""
    out = []
    for i, start in enumerate(starts):
        end = starts[i + 1] - 1 if i + 1 < len(starts) else body_pages
        out.append(max(1, end - start + 1))
    return out


def page_report(lines: Sequence[PageLine], body_pages: int, page_limit: int | None) -> list[str]:
    """Chinese notes: chapters more than 20 % (and a page) off budget, and an exceeded page limit."""
    notes: list[str] = []
    for line in lines:
        if line.budget_pages is None:
            continue
        diff = line.pages - line.budget_pages
        if abs(diff) >= 1 and abs(diff) > 0.2 * line.budget_pages:
            word = "超出" if diff > 0 else "少于"
            notes.append(f"“{line.title}”{line.pages} 页，{word}预算 {line.budget_pages:.0f} 页")
    if page_limit is not None and body_pages > page_limit:
        notes.insert(0, f"正文共 {body_pages} 页，超过招标文件规定的 {page_limit} 页上限（超出 {body_pages - page_limit} 页）")
    return notes


_LIMIT_PATTERNS: Final = (
    re.compile(r"(?:技术(?:标|部分|文件|方案|响应文件)|投标文件)[^。；;\n]{0,24}?(?:不得|不应|不宜|不能|不)?(?:超过|多于|大于)\s*(\d{1,4})\s*页"),
    re.compile(r"(?:页数|篇幅)[^。；;\n]{0,12}?(?:不得|不应|不宜|不)?(?:超过|多于)\s*(\d{1,4})\s*页"),
    re.compile(r"(?:控制在|限(?:定)?在|限于)\s*(\d{1,4})\s*页(?:以内|之内|内)"),
)


def find_page_limit(text: str) -> int | None:
    """A page limit the tender states for the technical bid ("技术标不超过 200 页"), or None."""
    found = [int(m.group(1)) for pattern in _LIMIT_PATTERNS for m in pattern.finditer(text)]
    found = [n for n in found if 5 <= n <= 5000]
    return min(found) if found else None

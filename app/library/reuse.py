"""Reusing a past section in this bid: its text with the old project's names replaced, and its structure.

:func:`adapt_text` replaces the past bid's project name, client and place with this
tender's, and its dates with a placeholder to fill, and lists every replacement so the user
can review them (a stale name left in a bid is a classic reason for 废标). Names this tender
does not know become a marked placeholder rather than staying silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.limits import STORED
from app.core.markdown_table import write_table
from app.core.outline import OutlineNode
from app.library.store import StoredSection

DATE_PLACEHOLDER = "〔日期〕"
_DATE = re.compile(r"\d{4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*日)?|\d{4}-\d{1,2}-\d{1,2}")
_LABELS = {"project": "项目名称", "client": "招标人/采购人", "place": "项目地点", "date": "日期"}


@dataclass(frozen=True)
class Replacement:
    """One replacement made in a reused text: what it was, what it became, how many times."""

    kind: str
    old: str
    new: str
    count: int

    def describe(self) -> str:
        """A line for the review list (Chinese)."""
        return f"{_LABELS.get(self.kind, self.kind)}：“{self.old}” → “{self.new}”（{self.count} 处）"


def adapt_text(text: str, old: dict[str, str], new: dict[str, str]) -> tuple[str, list[Replacement]]:
    """``text`` with ``old`` project/client/place replaced by ``new`` ones and dates by a placeholder."""
    done: list[Replacement] = []
    for kind in ("project", "client", "place"):
        before = old.get(kind, "").strip()
        if len(before) < 2 or before not in text:
            continue
        after = new.get(kind, "").strip() or f"〔{_LABELS[kind]}〕"
        if after == before:
            continue
        count = text.count(before)
        text = text.replace(before, after)
        done.append(Replacement(kind, before, after, count))
    dates = _DATE.findall(text)
    for d in dict.fromkeys(dates):
        after = new.get("date", "").strip() or DATE_PLACEHOLDER
        count = text.count(d)
        text = text.replace(d, after)
        done.append(Replacement("date", d, after, count))
    return text, done


def section_text(section: StoredSection) -> str:
    """A past section's body with its tables as tables (Markdown pipe tables, as section text holds them).

    The section editor shows them as tables and the Word export writes them as Word tables; the
    first row is the header. A cell's line breaks become spaces and a bar ``|`` a full-width one.
    """
    parts = [section.body.strip()] if section.body.strip() else []
    for table in section.tables:
        lines = write_table([list(row) for row in table if any(cell.strip() for cell in row)])
        if lines:
            parts.append("\n".join(lines))
    return "\n\n".join(parts)


def structure_nodes(subtree: list[StoredSection]) -> list[OutlineNode]:
    """The headings below a past section (``subtree[0]``) as outline nodes, titles verbatim.

    Each node keeps its source (bid › section) in ``origin_source`` (rule 16); ``origin`` is
    ``history``: the user's own past bid (历史标书). A level that holds more than a stored node
    can is cut.
    """
    if not subtree:
        return []
    head = subtree[0]
    roots: list[OutlineNode] = []
    stack: list[tuple[int, OutlineNode]] = []
    for s in subtree[1:]:
        node = OutlineNode(title=s.title[: STORED.max_title_len] or "（无标题）", origin="history",
                           origin_source=f"历史标书“{s.bid_name}” › {head.title}"[: STORED.max_description_len])
        while stack and stack[-1][0] >= s.level:
            stack.pop()
        siblings = stack[-1][1].children if stack else roots
        if len(siblings) < STORED.max_children:
            siblings.append(node)
        stack.append((s.level, node))
    return roots

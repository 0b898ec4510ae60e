"""Summary tables reconciled with the detail tables they sum up: the chapter read as one reading.

Many 评标办法 print a summary first ("评分因素及分值分配表": 投标报价 40 / 商务部分 18 / 技术部分 42 /
合计 100) and then the detail tables that score each part item by item. The summary adds up to
100 on its own and looks like a perfect scheme, but it is the detail's table of contents: read
as the scheme it turns the whole technical part into one chapter. A summary is recognised by
what it holds (every row a part of the bid, one per part) and by what it agrees with: the
neighbouring detail tables whose parts carry exactly its points. Then the summary is set aside
("汇总表") and its agreement becomes a check of the detail's reading, never a second count.
"""

from __future__ import annotations

import re

from app.documents.scoring.category import assign_categories
from app.documents.scoring.cells import explicit_category, fmt_points
from app.documents.scoring.model import ScoreCategory, ScoringTable
from app.documents.text_patterns import compact

_PART_NAME = re.compile(r"(?:部分|标|分|得分|评分|报价|价格|因素)$")
MAX_PART_NAME = 10
MAX_WINDOW = 6
MAX_PAGE_GAP = 4


def summary_parts(table: ScoringTable) -> dict[ScoreCategory, float] | None:
    """The parts a summary table states (每行一个部分：投标报价 40、商务部分 18 …), or None when it is not one."""
    if len(table.rows) < 2 or table.kind != "table":
        return None
    out: dict[ScoreCategory, float] = {}
    for row in table.rows:
        name = re.sub(r"[（(][^（()）]*[)）]", "", compact(row.factor))
        cat = explicit_category(name)
        if row.points is None or len(row.scored_items) > 1 or cat is None or cat in out:
            return None
        if len(name) > MAX_PART_NAME or not _PART_NAME.search(name):
            return None
        out[cat] = row.points
    return out


def _parts(window: list[ScoringTable]) -> dict[ScoreCategory, float]:
    copies = [t.model_copy(deep=True) for t in window]  # categories are settled later, on the chosen scheme
    assign_categories(copies)
    out: dict[ScoreCategory, float] = {}
    for t in copies:
        for r in t.rows:
            out[r.category] = round(out.get(r.category, 0.0) + (r.points or 0.0), 4)
    return out


def _agrees(stated: dict[ScoreCategory, float], window: list[ScoringTable]) -> bool:
    parts = _parts(window)
    if set(parts) - set(stated):
        return False
    missing = [c for c in stated if c not in parts]
    if missing and missing != [ScoreCategory.PRICE]:  # the price alone may be scored by a formula in the text
        return False
    return all(abs(parts[c] - v) < 0.01 for c, v in stated.items() if c in parts)


def _windows(usable: list[ScoringTable], i: int) -> list[list[ScoringTable]]:
    """Runs of neighbouring candidates right after, then right before, candidate ``i``."""
    out: list[list[ScoringTable]] = []
    for step in (1, -1):
        run: list[ScoringTable] = []
        k = i + step
        while 0 <= k < len(usable) and len(run) < MAX_WINDOW:
            near = run[-1] if run else usable[i]
            if abs(usable[k].pages[0] - near.pages[-1]) > MAX_PAGE_GAP and abs(near.pages[0] - usable[k].pages[-1]) > MAX_PAGE_GAP:
                break
            run = [*run, usable[k]] if step == 1 else [usable[k], *run]
            out.append(run)
            k += step
    return out


def _describe(parts: dict[ScoreCategory, float]) -> str:
    return "、".join(f"{c.value} {fmt_points(v)}" for c, v in parts.items())


def _price_part(summary: ScoringTable) -> ScoringTable:
    """The summary's price row as a part of its own, when no detail scores the price: the summary is
    then the only place that says what the price is worth."""
    row = next(r.model_copy(deep=True) for r in summary.rows if explicit_category(r.factor) == ScoreCategory.PRICE)
    return ScoringTable(table_ids=summary.table_ids, pages=row.pages or summary.pages, caption=summary.caption,
                        label=summary.label, rows=[row], stated_total=row.points, section=summary.section,
                        score=summary.score, reconciled=["价格分只在汇总表中列出（细则表中没有价格行）"])


def reconcile_summaries(candidates: list[ScoringTable]) -> list[ScoringTable]:
    """Set aside summary tables whose parts the neighbouring detail tables carry exactly, and record
    the agreement on those details (``ScoringTable.reconciled``); the candidates, with the summary's
    price row as a part of its own where no detail scores the price."""
    usable = [t for t in candidates if not t.rejected and t.pages]
    out = list(candidates)
    for i, table in enumerate(usable):
        parts = summary_parts(table)
        if parts is None:
            continue
        for window in _windows(usable, i):
            if any(summary_parts(t) is not None for t in window) or not _agrees(parts, window):
                continue
            where = f"第{table.pages[0]}页"
            table.rejected = f"汇总表（{_describe(parts)}），各部分在评分细则中逐项列出，已核对一致"
            for t in window:
                t.reconciled.append(f"{where}的汇总表（{_describe(parts)}）与评分细则各部分一致")
            if ScoreCategory.PRICE in parts and ScoreCategory.PRICE not in _parts(window):
                out.insert(out.index(table) + 1, _price_part(table))
            break
    return out

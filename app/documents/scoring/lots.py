"""Lots (包/标段) scored by schemes of their own: one reading per lot.

A tender split into lots often prints one scoring table per lot ("A包：", "1.第1-11 包评审标准",
"2.第12 包（…）评审标准"), each adding up to its own 100 points, with the same layout but other
points or even other items. They are not rivals to choose between, and not parts to add up:
each is the whole scheme of its lot. A lot's scheme is the run of neighbouring candidates that
starts at a table named for the lot (in its caption, label or the lines right above it) and
adds up to 100 (or to its stated totals). The reading shows the first lot; the others stay one
click away (``ScoringResult.lots``).
"""

from __future__ import annotations

import re

from app.documents.model import TenderDocument
from app.documents.scoring.context import SCORING_TITLE, _position
from app.documents.scoring.model import ScoringTable
from app.documents.text_patterns import compact

_ID = r"[0-9A-Za-z一二三四五六七八九十]{1,4}"
_LOT = re.compile(
    rf"(?:第)?({_ID}(?:[-－—~～至、,，]{_ID})*)(?:包|标段|标包|分包|子包|合同包)(?![装括含])"
    rf"|(?:采购包|标段|标包|分包|包)({_ID})(?![\d年月日])"
)
_MAX_LINE = 40  # characters: a lot title is a short line, not a sentence mentioning 包
_LOOK_BACK = 6  # text blocks above a table searched for its lot title
MAX_LOTS = 30


def lot_name(text: str) -> str:
    """The lot a short title names ("A包：" -> "A包", "1.第1-11 包评审标准" -> "第1-11包"), or ""."""
    t = compact(text)
    if not t or len(t) > _MAX_LINE:
        return ""
    m = _LOT.search(t)
    return m.group(0) if m else ""


def table_lot(doc: TenderDocument | None, table: ScoringTable) -> str:
    """The lot a candidate table is titled for: its label, its caption's last line, or a title line
    among the few text blocks right above it on its page."""
    lines = [x for x in re.split(r"[。；;]|\s{2,}", table.caption.strip()) if x.strip()]
    tail = compact(lines[-1])[-_MAX_LINE:] if lines else ""  # the title line closest to the table
    for text in (table.label, *reversed(lines[-2:]), tail):  # the line closest to the table first
        if name := lot_name(text):
            return name
    if doc is None or not table.table_ids:
        return ""
    try:
        first = doc.table(table.table_ids[0])
        if first.bbox is not None:  # a PDF page: the text blocks above the table's top edge
            top = first.bbox[1]
            blocks = sorted((b for b in doc.page(first.page).blocks if b.bbox is not None and b.bbox[3] <= top + 1),
                            key=lambda b: b.bbox[3] if b.bbox else 0.0)
        else:
            page, index = _position(doc, table.table_ids[0])
            blocks = doc.page(page).blocks[:index]
    except (KeyError, IndexError):
        return ""
    for block in reversed([b for b in blocks if b.kind != "table"][-_LOOK_BACK:]):
        if name := lot_name(block.text.split("\n")[-1]):
            return name
    return ""


def _adds_up(window: list[ScoringTable]) -> bool:
    total = sum(t.points_sum for t in window)
    stated = [t.stated_total for t in window]
    return abs(total - 100) < 0.01 or (all(s is not None for s in stated) and abs(total - sum(s or 0 for s in stated)) < 0.01)


def find_lots(doc: TenderDocument | None, usable: list[ScoringTable], chosen: list[ScoringTable],
              max_window: int = 6) -> list[tuple[str, list[ScoringTable]]]:
    """(lot name, scheme) per lot, in document order, when two or more lots each have a scheme that
    adds up and the chosen scheme is one of them; [] otherwise."""
    names = [table_lot(doc, t) for t in usable]
    lots: list[tuple[str, list[ScoringTable]]] = []
    for i, name in enumerate(names):
        if not name or any(name == n for n, _ in lots):
            continue
        for j in range(i, min(len(usable), i + max_window)):
            if j > i and names[j]:
                break
            window = usable[i : j + 1]
            if _adds_up(window):
                lots.append((name, window))
                break
        if len(lots) >= MAX_LOTS:
            break
    chosen_ids = {id(t) for t in chosen}
    if len(lots) < 2 or not any(chosen_ids & {id(t) for t in w} for _, w in lots):
        return []
    _share_title(lots)
    return lots


def _share_title(lots: list[tuple[str, list[ScoringTable]]]) -> None:
    """Later lots' tables titled only "B包：" sit under the same scoring title as the first lot's."""
    head = lots[0][1][0]
    title = next((x for x in (head.section, head.caption) if SCORING_TITLE.search(compact(x))), "")
    for _, window in lots[1:]:
        for t in window:
            if title and not SCORING_TITLE.search(compact(f"{t.caption} {t.label} {t.section}")):
                t.section = title

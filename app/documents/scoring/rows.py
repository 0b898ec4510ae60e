"""What one folded row says: its name, its sub-items and its points.

Shared by ``fold`` (grid rows into factors): a name cell that describes its item, the end of a
name carried onto the next page, a total stated in a label row, sub-items named by the text they
open with, and a row's points as the sum of its items.
"""

from __future__ import annotations

import re

from app.documents.scoring.cells import (
    TOTAL_ROW,
    is_empty,
    is_score_type,
    lead_name,
    name_points,
    stated_points,
    strip_points,
)
from app.documents.scoring.model import ScoringRow
from app.documents.text_patterns import clean_cell_text, compact

NAME_TAIL = 4  # characters of a name a page break may carry over to the next page
DESCRIBED = 20  # characters: a name cell longer than this is a name and a description
_TAG = re.compile(r"^(?:[【\[]([^】\]]{1,6})[】\]])+")
_CLAUSE = re.compile(r"[，,。；;：:（(]")
_SCORE_CLAUSE = re.compile(r"(?:的)?得\s*\d")
MAX_ITEM_NAME = 30


def lend_group_points(subtotals: dict[str, float], rows: list[ScoringRow]) -> None:
    """A group stating its points ("一、价格分（10 分）") over one factor without points of its own
    ("投标报价" with its formula): the factor is worth the group's points."""
    for label, pts in subtotals.items():
        mine = [r for r in rows if r.group == label]
        if len(mine) == 1 and mine[0].points is None and len(mine[0].items) == 1:
            mine[0].points = mine[0].items[0].points = pts


def name_tail(factor: str | None, points: float | None, sub: str, fresh_number: bool, last: ScoringRow,
              criteria: str = "") -> bool:
    """The first row of a table's next page holding only the end of the previous name cell: a few
    characters ("机"), the end of a sentence ("况进行综合打分。"), or anything after a name cell that
    was a description already; without points, number or sub-item; its criteria continue too. When
    the previous row's criteria stop mid-sentence and this row's go on, the whole name cell is the end
    of the previous one, stated points and all ("针对本项" + "目的服务方案（30分）")."""
    if factor is None or is_empty(factor) or points is not None or fresh_number:
        return False
    if cut_mid_sentence(last, criteria) or (bracket_balance(last.factor_raw) > 0 > bracket_balance(factor)):
        return True  # cut mid-sentence (a sub-item's name too), or the name's open bracket closes on the next page
    if sub:
        return False
    if name_points(factor) is not None:
        return _completes_points(last, factor)
    text = compact(factor)
    return len(text) <= NAME_TAIL or text[-1] in "。；;，," or len(compact(last.factor_raw)) > DESCRIBED


def bracket_balance(text: str) -> int:
    """Opening minus closing brackets, counting a closing one before any opening as -1 at once: > 0 when
    a bracket stays open ("服务方案（根据投标人提供的详细"), < 0 when text closes one it never opened
    ("进行评价）")."""
    depth = 0
    for ch in text:
        if ch in "（(【[":
            depth += 1
        elif ch in "）)】]":
            if depth <= 0:
                return -1
            depth -= 1
    return depth


def _completes_points(last: ScoringRow, factor: str) -> bool:
    """The end of a name cell that states the points the previous row scores but its own start did not
    ("针对本项目服" | 10 分, then "务人员的培训方案（10 分）" without points of its own)."""
    if last.stated_points is not None or name_points(last.factor_raw) is not None:
        return False
    scored = [i.points for i in last.items if i.points is not None]
    joined = name_points(compact(last.factor_raw) + compact(factor))
    return bool(scored) and joined is not None and abs(joined - sum(scored)) < 0.01


_SENTENCE_END = "。；;！!？?：:）)分"
_ITEM_START = re.compile(r"^(?:\d{1,2}[.、．)）]|[（(]\d{1,2}[)）]|[①-⑳]|[一二三四五六七八九十]、)")


def cut_mid_sentence(last: ScoringRow, criteria: str) -> bool:
    """The previous row's criteria stop mid-sentence at a page break and this row's criteria go on:
    neither ends or starts an item ("…难点分析" + "晰且完整、针对性强，得15 分"), or a number and its
    unit are parted ("…得10" + "分；2、…")."""
    before = compact(last.items[-1].criteria if last.items and last.items[-1].criteria else last.factor_raw)
    after = compact(criteria)
    if not before or not after or before[-1] in _SENTENCE_END:
        return False
    if before[-1].isdigit():  # "…得10" + "分；2、…": the points' unit on the next page
        return after[0] == "分"
    return not _ITEM_START.match(after) and after[0] not in "（(【[•·-—"


def split_name(row: ScoringRow) -> None:
    """A name cell that describes its item ("人员配备：根据项目团队服务人员是否配备齐全…"): the name is
    the words before the colon, the description leads the criteria. A scoring-type tag before the
    name ("【客观分】") is no part of it."""
    raw = untagged(row.factor_raw)
    if raw != clean_cell_text(row.factor_raw, keep_breaks=False):
        row.factor = strip_points(raw)
    if len(compact(strip_points(raw))) <= DESCRIBED or not (lead := lead_name(raw)):
        return
    rest = re.split(r"[：:]", raw, maxsplit=1)[-1].strip()
    row.factor = lead
    if rest and row.items:
        first = row.items[0]
        first.criteria = f"{rest}\n{first.criteria}".strip() if first.criteria else rest


def total_value(label: str) -> float | None:
    """The total a label row states: "合计 100 分", "总分100分", or a bare "总分 100"."""
    value = stated_points(label)
    if value is None and (m := re.match(rf"{TOTAL_ROW.pattern}[:：为]?(\d+(?:\.\d+)?)$", compact(label))):
        value = float(m.group(2))
    return value


def continue_criteria(row: ScoringRow, text: str, page: int) -> None:
    """``text`` goes on where the row's last item stopped (a cell cut by a page or table break). A
    sub-item that held nothing but its scoring-type tag ("【主观分】" | 3 分) takes its name from it."""
    if not text:
        return
    if page not in row.pages:
        row.pages.append(page)
    item = row.items[-1]
    if not item.name and not untagged(item.criteria):
        item.name = item_name(text)
    item.criteria = (item.criteria + "\n" + text).strip() if item.criteria else text


_ITEM_LEAD = re.compile(
    r"^\s*(?:\d{1,2}[.、．]|[（(]\d{1,2}[)）]|[①-⑳])?\s*([^：:，,。；;（(\n]{2,20}?)\s*[（(]\s*(\d+(?:\.\d+)?)\s*分\s*[)）]"
)


def _name_items(row: ScoringRow) -> None:
    """Nameless sub-items whose criteria open with their own name and points ("风险管理（8分）…") get that name."""
    if len(row.items) < 2:
        return
    for item in row.items:
        if item.name or item.points is None:
            continue
        m = _ITEM_LEAD.match(item.criteria)
        if m and abs(float(m.group(2)) - item.points) < 0.01:
            item.name = m.group(1).strip()


def settle_points(row: ScoringRow) -> None:
    """Row points = the sum of its items' points, else the points stated in its name; criteria joined."""
    _name_items(row)
    item_points = [i.points for i in row.items if i.points is not None]
    row.points = round(sum(item_points), 4) if item_points else row.stated_points
    if len(row.items) == 1:
        row.criteria = row.items[0].criteria
    else:
        parts = []
        for i in row.items:
            head = (f"{i.name}：" if i.name else "") + (f"（{_fmt(i.points)}分）" if i.points is not None else "")
            if i.criteria or head:
                parts.append(head + i.criteria)
        row.criteria = "\n".join(parts)


def _fmt(x: float | None) -> str:
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def untagged(text: str) -> str:
    """A cell's text without leading scoring-type tags ("【主观分】售后服务方案…" -> "售后服务方案…")."""
    t = clean_cell_text(text, keep_breaks=False)
    m = _TAG.match(t)
    if m and all(is_score_type(x) for x in re.findall(r"[【\[]([^】\]]{1,6})[】\]]", m.group(0))):
        t = t[m.end() :].strip()
    return t


def item_name(text: str) -> str:
    """A sub-item's name from the text it opens with: its lead ("售后服务方案：…"), else its first clause."""
    t = untagged(text)
    lead = lead_name(t)
    if lead:
        return lead
    first = _CLAUSE.split(t, maxsplit=1)[0].strip()
    first = _SCORE_CLAUSE.split(first, maxsplit=1)[0].strip() or first  # "…证书得3 分" -> "…证书"
    return first[:MAX_ITEM_NAME]


def open_parent(row: ScoringRow) -> bool:
    """A numbered row without points whose name ends with a colon ("2、售后服务响应情况：", "3 样品评分："):
    the heading of the point-bearing rows under it."""
    return bool(row.number) and row.points is None and all(i.points is None for i in row.items) \
        and compact(row.factor_raw).endswith(("：", ":")) and not any(i.criteria for i in row.items)

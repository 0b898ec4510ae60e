"""The tender's 资格性审查表 and 符合性审查表: one review item per row, what the evaluators check.

A table is such a table when the line above it (its caption) or its own first rows name it
(资格性审查, 资格审查, 符合性审查, 符合性检查, 资格条件及实质性要求 …). Each row after the header
is one item: its name (the 审查要求 / 审查因素 / 项目内容 column) and what is asked (the 要求说明 /
评审标准 column), as the tender words them; serial numbers, 类型 and 包号 columns are left out. A
format chapter's response table of the same name (投标人填 是/否) is read the same way: its rows
are the same items.
"""

from __future__ import annotations

import re

from app.core.bid_forms import ReviewItem
from app.documents.model import Table, TenderDocument

_QUALIFICATION = re.compile(r"资格性审查|资格审查|资格条件|资格要求|资格性检查")
_CONFORMITY = re.compile(r"符合性审查|符合性检查|符合性要求|实质性要求|符合性评审")
_NAME_HEADER = re.compile(r"审查要求|审查内容|审查因素|评审因素|审查项|项目内容|审查项目|评审项目|条款|内容|要求$")
_DETAIL_HEADER = re.compile(r"要求说明|条件说明|评审标准|审查标准|标准|说明|具体要求|合格条件")
_SKIP_HEADER = re.compile(r"^(?:序号|编号|序|类型|项目级/包级|包号|是否|响应|页码|备注|投标人|供应商|自查)")
_SPACES = re.compile(r"\s+")
MAX_ITEMS = 60


def _clean(text: str | None) -> str:
    return _SPACES.sub("", text or "")


_SCORING = re.compile(r"分值|评分|得分|权重|分数")


def _kind(table: Table) -> str | None:
    first = " ".join(_clean(c) for row in table.rows[:2] for c in row if c)
    if _SCORING.search(first):
        return None  # a scoring table that mentions the review in its caption
    head = table.caption + " " + first
    if _CONFORMITY.search(head):
        return "符合性"
    if _QUALIFICATION.search(head):
        return "资格"
    return None


def _columns(header: list[str]) -> tuple[int | None, int | None]:
    name = next((c for c, h in enumerate(header) if h and _NAME_HEADER.search(h) and not _SKIP_HEADER.match(h)), None)
    detail = next((c for c, h in enumerate(header) if h and c != name and _DETAIL_HEADER.search(h)
                   and not _SKIP_HEADER.match(h)), None)
    return name, detail


def items_of(table: Table, kind: str) -> list[ReviewItem]:
    """The review items of one table (header row found among its first two rows)."""
    rows = [[_clean(c) for c in row] for row in table.rows]
    if len(rows) < 2:
        return []
    h = next((k for k in range(min(2, len(rows))) if _columns(rows[k])[0] is not None), None)
    name_col, detail_col = _columns(rows[h]) if h is not None else (None, None)
    out: list[ReviewItem] = []
    for row in rows[(h + 1) if h is not None else 0:]:
        cells = [c for c in row if c]
        if not cells:
            continue
        if name_col is not None and name_col < len(row) and row[name_col]:
            text = row[name_col]
            if detail_col is not None and detail_col < len(row) and row[detail_col]:
                text += "：" + row[detail_col]
        else:
            text = max(cells, key=len)
        if len(text) < 2 or re.fullmatch(r"[\d.、]+", text):
            continue
        out.append(ReviewItem(kind=kind, text=text[:200], page=table.page))  # type: ignore[arg-type]
    return out


def review_items(doc: TenderDocument) -> list[ReviewItem]:
    """Every 资格 and 符合性 item of the tender's review tables, in order, duplicates once."""
    out: list[ReviewItem] = []
    seen: set[str] = set()
    last_kind: str | None = None
    for table in doc.tables:
        kind = _kind(table)
        if kind is None and last_kind is not None and table.caption == "" and out and table.page - out[-1].page <= 1:
            kind = last_kind  # the same table going on after a page break
        last_kind = kind
        if kind is None:
            continue
        for item in items_of(table, kind):
            key = item.text[:40]
            if key not in seen:
                seen.add(key)
                out.append(item)
        if len(out) >= MAX_ITEMS:
            break
    return out[:MAX_ITEMS]

"""Fill the forms' blanks from what is known, each value marked by its source: ``fill_forms``.

Sources, strongest first: a value the user typed for this one blank; a value the user typed
for the field (the price, typed once in the 报价一览表 and copied to every price blank; the bid
date); the tender's own facts (project name and number, buyer, agency — with their ✓/待确认
state); the company's facts (企业资料); and code, which only writes an amount in capitals from
the user's figure. A price is never invented; a signature place is left for the pen; a blank
nobody can fill stays empty and is listed in :attr:`FormsFill.unfilled`.

List tables (业绩表, 人员表, 证书一览表 — a header row over empty rows) are filled row by row
from the matching kind of company facts, column by column through the fact's column names.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal

from app.core.amount_words import AmountError, amount_in_words, format_amount, parse_amount
from app.core.bid_forms import (
    FIELD_LABELS,
    USER_ONLY_FIELDS,
    BidFormsState,
    FilledBlank,
    FormBlank,
    FormParagraph,
    FormsReading,
    FormTable,
    TenderForm,
    blank_key,
)

TENDER_FIELDS = frozenset({"project_name", "project_number", "buyer", "agency", "lot"})
#: Fields the user gives once for the whole bid (typed in the 报价 panel); ``price_words`` follows ``price``.
BID_FIELDS = ("price", "date", "period", "validity", "lot")
_SPACES = re.compile(r"[\s\u3000]+")


@dataclass
class ListRows:
    """Rows of one kind of company facts for list tables: the kind, its label, its columns' names, the rows."""

    kind: str
    label: str
    columns: dict[str, tuple[str, ...]]
    rows: list[dict[str, str]]
    key: str  # the field a table must have a column for (姓名, 项目名称, 证书名称 …)


@dataclass
class FillInput:
    """Everything the fill reads: the tender's facts, the company's, its list rows, the user's state."""

    tender: dict[str, FilledBlank] = field(default_factory=dict)
    company: dict[str, FilledBlank] = field(default_factory=dict)
    lists: list[ListRows] = field(default_factory=list)
    state: BidFormsState = field(default_factory=BidFormsState)


@dataclass
class FormsFill:
    """The value of every blank by :func:`~app.core.bid_forms.blank_key`, and what stays empty."""

    values: dict[str, FilledBlank] = field(default_factory=dict)
    unfilled: list[tuple[str, str, str]] = field(default_factory=list)  # (form key, blank key, what it asks)
    signatures: int = 0
    extra_rows: dict[str, int] = field(default_factory=dict)  # form key → list-fact rows the table had no room for
    in_lists: set[str] = field(default_factory=set)  # blank keys of list-table cells a fact row answers
    list_cells: set[str] = field(default_factory=set)  # blank keys of every row-to-fill cell of a list table

    def value(self, form: TenderForm, blank: FormBlank) -> FilledBlank:
        """The value of one blank (an empty one when nothing fills it)."""
        return self.values.get(blank_key(form, blank), FilledBlank())

    def counts(self) -> dict[str, int]:
        """How many blanks each source filled (and ``none`` for the empty ones, signatures left out)."""
        out: dict[str, int] = {}
        for v in self.values.values():
            key = v.source if v.value else "none"
            out[key] = out.get(key, 0) + 1
        return out


def bid_date(state: BidFormsState) -> dt.date | None:
    """The bid's date the user set (``values["date"]`` as 2026-06-30 or 2026年6月30日), or None."""
    m = re.search(r"(\d{4})\D+(\d{1,2})\D+(\d{1,2})", state.values.get("date", ""))
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def price_value(state: BidFormsState) -> Decimal | None:
    """The total price the user typed in the 报价一览表, or None."""
    return parse_amount(state.values.get("price", ""))


#: Forms whose price blanks take the bid price the user typed (elsewhere 金额 is another amount).
PRICE_FORMS = frozenset({"bid_letter", "price_summary"})
_UNITS = ("万元", "元", "人", "%", "％", "天", "年", "个月", "月")


def _names_the_bid_price(blank: FormBlank) -> bool:
    """A blank whose own words say it is the bid's price (投标报价, 投标总价, 报价), not any 金额."""
    return bool(re.search(r"投标报价|投标总价|总报价|响应报价|磋商报价|报价总", blank.label))


def _fit_unit(value: str, after: str) -> str:
    """A value without the unit the form prints right after the blank (4860万元 before 万元 → 4860)."""
    v = value.strip()
    for unit in _UNITS:
        if after.startswith(unit) and v.endswith(unit) and len(v) > len(unit):
            return v[: -len(unit)].strip()
    return v


def _after(item: FormParagraph, blank: FormBlank) -> str:
    return _SPACES.sub("", item.text[blank.end:blank.end + 6])


def _price_text(price: Decimal, after: str) -> str:
    """The figure as the form's unit wants it (万元 after the blank: in 万)."""
    if after.startswith("万"):
        return f"{(price / 10000).normalize():f}"
    return format_amount(price)


def _words_text(price: Decimal, after: str) -> str:
    words = amount_in_words(price)
    if after.startswith(("元", "圆")) and words.endswith("元整"):
        return words[:-2]  # the form prints 元 after the blank itself
    return words


def _paragraph_value(form: TenderForm, blank: FormBlank, inp: FillInput) -> FilledBlank:
    """The value of a paragraph blank or of a cell outside a list table."""
    state = inp.state
    fld = blank.field
    if fld == "signature":
        return FilledBlank(source="none", note="签字盖章处")
    item = form.items[blank.item] if 0 <= blank.item < len(form.items) else None
    after = _after(item, blank) if isinstance(item, FormParagraph) else ""
    if fld in ("price", "price_words") and form.kind not in PRICE_FORMS and not _names_the_bid_price(blank):
        return FilledBlank(note="金额由用户填写（报价只填入投标函和报价表）")
    if fld in ("price", "price_words"):
        price = price_value(state)
        if price is None:
            return FilledBlank(note="报价请在“报价一览表”中填写")
        try:
            if fld == "price":
                return FilledBlank(value=_price_text(price, after), source="user", source_label="报价一览表（用户填写）")
            return FilledBlank(value=_words_text(price, after), source="code", source_label="按报价换算的大写")
        except AmountError as exc:
            return FilledBlank(note=str(exc))
    if fld == "date" or blank.kind == "date":
        day = bid_date(state)
        if day is None:
            return FilledBlank(note="投标日期请在“报价与日期”中填写")
        return FilledBlank(value=f"{day.year}年{day.month}月{day.day}日", source="user", source_label="投标日期（用户填写）")
    typed = state.values.get(fld, "").strip() if fld else ""
    if typed:
        return FilledBlank(value=typed, source="user", source_label=f"{FIELD_LABELS.get(fld, fld)}（用户填写）")
    if fld == "authorized_rep_name_title" and "authorized_rep" in inp.company:
        name = inp.company["authorized_rep"]
        title = inp.company.get("authorized_rep_title")
        return name.model_copy(update={"value": f"{name.value}，{title.value}" if title else name.value})
    if fld in TENDER_FIELDS and fld in inp.tender:
        return inp.tender[fld].model_copy()
    if fld in inp.company:
        known = inp.company[fld]
        return known.model_copy(update={"value": _fit_unit(known.value, after)})
    if fld in USER_ONLY_FIELDS:
        return FilledBlank(note="需要用户填写")
    return FilledBlank(note="企业资料和招标文件中都没有" if fld else "看不出要填什么")


def _norm(text: str) -> str:
    return _SPACES.sub("", text or "")


_SERIAL_CELL = re.compile(r"^(?:\d{1,3}|[…．.·]+|-+|/)$")


def _data_like(row: list[str | None]) -> bool:
    """A row to fill: at most one cell with words in it (a serial number or …… does not count)."""
    return sum(1 for c in row if c and c.strip() and not _SERIAL_CELL.match(_norm(c))) <= 1


def _list_columns(rows: list[list[str | None]], lists: list[ListRows]) -> tuple[int, ListRows, dict[int, str]] | None:
    """A list table's last header row, the kind of facts it lists and each column's field; None for other tables.

    Header rows are those above the first row to fill; a column's name is its lowest header cell
    (a two-row header: 用户情况 over 单位名称 | 经办人 | 联系方式).
    """
    first = next((r for r in range(1, len(rows)) if _data_like(rows[r])), None)
    if first is None or first > 4:
        return None
    width = max(len(r) for r in rows)
    header = []
    for c in range(width):
        text = ""
        for r in range(first - 1, -1, -1):
            cell = rows[r][c] if c < len(rows[r]) else None
            if cell is not None and cell.strip():
                text = _norm(cell)
                break
        header.append(text)
    best: tuple[int, ListRows, dict[int, str]] | None = None
    for source in lists:
        cols: dict[int, str] = {}
        for c, text in enumerate(header):
            if not text or _SERIAL_HEADER.match(text):
                continue
            for fld, aliases in source.columns.items():
                if fld not in cols.values() and any(a == text or (len(a) >= 2 and a in text) for a in aliases):
                    cols[c] = fld
                    break
        if source.key in cols.values() and len(cols) >= 2 and (best is None or len(cols) > len(best[2])):
            best = (first - 1, source, cols)
    return best


_SERIAL_HEADER = re.compile(r"^(?:序号|编号|序|No\.?)$", re.IGNORECASE)


def _fill_list_table(form: TenderForm, k: int, table: FormTable, inp: FillInput, out: FormsFill) -> set[int]:
    """Fill a list table's empty rows from facts; the ids of the blanks it filled."""
    found = _list_columns(table.rows, inp.lists)
    if found is None:
        return set()
    h, source, cols = found
    data_rows = [r for r in range(h + 1, len(table.rows)) if _data_like(table.rows[r])
                 and any(table.rows[r][c] is not None and not (table.rows[r][c] or "").strip()
                         for c in cols if c < len(table.rows[r]))]
    done: set[int] = set()
    cells = {(b.row, b.col): b for b in form.blanks if b.item == k and b.kind == "cell"}
    for n, r in enumerate(data_rows):
        fact = source.rows[n] if n < len(source.rows) else None
        for (row, c), b in cells.items():
            if row != r:
                continue
            key = blank_key(form, b)
            fld = cols.get(c)
            value = fact.get(fld, "") if fact is not None and fld else ""
            typed = inp.state.blank_values.get(key, "")
            if typed:
                out.values[key] = FilledBlank(value=typed, source="user", source_label="用户填写")
            elif value:
                out.values[key] = FilledBlank(value=value, source="company", source_label=f"企业资料 › {source.label}")
            elif fact is None:
                out.values[key] = FilledBlank(note=f"企业资料 › {source.label} 没有更多条目")
            elif fld is None:
                out.values[key] = FilledBlank(note="这一列由用户填写")
            else:
                out.values[key] = FilledBlank(note=f"企业资料 › {source.label} 中这一项为空")
            done.add(id(b))
            out.list_cells.add(key)
            if fld is not None and fact is not None:
                out.in_lists.add(key)
    if len(source.rows) > len(data_rows):
        out.extra_rows[form.key] = out.extra_rows.get(form.key, 0) + len(source.rows) - len(data_rows)
    return done


def fill_forms(reading: FormsReading, inp: FillInput) -> FormsFill:
    """The value of every blank of every form, with its source; the empty ones listed."""
    out = FormsFill()
    for form in reading.forms:
        listed: set[int] = set()
        for k, item in enumerate(form.items):
            if isinstance(item, FormTable):
                listed |= _fill_list_table(form, k, item, inp, out)
        for b in form.blanks:
            if id(b) in listed:
                continue
            key = blank_key(form, b)
            typed = inp.state.blank_values.get(key, "")
            value = (FilledBlank(value=typed, source="user", source_label="用户填写") if typed
                     else _paragraph_value(form, b, inp))
            out.values[key] = value
            if b.field == "signature":
                out.signatures += 1
        for b in form.blanks:
            v = out.values.get(blank_key(form, b))
            if v is not None and not v.value and b.field != "signature":
                out.unfilled.append((form.key, blank_key(form, b), b.label or FIELD_LABELS.get(b.field, "待填写")))
    return out

"""The company's facts (企业资料) as the response forms read them.

:func:`company_values` turns the stored 企业基本信息 row (and the latest 财务 year, for 营业收入 and
资产总额 when the company row lacks them) into values by form field, each marked
``企业资料 › 企业基本信息``; :func:`list_rows` gives staff, references, certificates and
equipment as rows for the forms' list tables. Both go through ``load_facts``, the library's
public interface, so they work the same on either engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.bid_forms import FilledBlank
from app.documents.forms.fill import ListRows
from app.library.facts import COLUMNS, KIND_LABELS, Fact, load_facts, parse_date
from app.library.store import LibraryStore

#: Which column a list table must have for each kind of fact.
LIST_KEYS = {"staff": "name", "reference": "project", "certificate": "name", "equipment": "name"}


def _latest_year(finance: Sequence[Fact]) -> Fact | None:
    def year(f: Fact) -> int:
        digits = "".join(c for c in f.data.get("year", "") if c.isdigit())[:4]
        return int(digits) if digits else 0
    return max(finance, key=year) if finance else None


def company_values_from(facts: Sequence[Fact]) -> dict[str, FilledBlank]:
    """Form fields from facts already loaded (the first company row; finance for what it lacks)."""
    out: dict[str, FilledBlank] = {}
    company = next((f for f in facts if f.kind == "company"), None)
    if company is not None:
        label = f"企业资料 › {KIND_LABELS['company']}"
        for fld, value in company.data.items():
            if value.strip():
                out[fld if fld != "name" else "bidder_name"] = FilledBlank(value=value.strip(), source="company",
                                                                        source_label=label)
    latest = _latest_year([f for f in facts if f.kind == "finance"])
    if latest is not None:
        label = f"企业资料 › {KIND_LABELS['finance']}（{latest.data.get('year', '')}）"
        for fld in ("revenue", "total_assets"):
            value = latest.data.get(fld, "").strip()
            if value and fld not in out:
                out[fld] = FilledBlank(value=value, source="company", source_label=label)
    return out


def company_values(store: LibraryStore) -> dict[str, FilledBlank]:
    """The company's facts by form field (bidder_name, address, legal_rep, bank, account …)."""
    return company_values_from(load_facts(store, "company") + load_facts(store, "finance"))


def list_rows_from(facts: Sequence[Fact]) -> list[ListRows]:
    """List-table rows per kind from facts already loaded (expired certificates left out)."""
    out = []
    for kind, key in LIST_KEYS.items():
        rows = [f for f in facts if f.kind == kind and not f.expired()]
        if kind == "certificate":
            rows.sort(key=lambda f: parse_date(f.data.get("valid_until", "")) is None)
        if rows:
            out.append(ListRows(kind, KIND_LABELS[kind], COLUMNS[kind], [dict(f.data) for f in rows], key))
    return out


def list_rows(store: LibraryStore) -> list[ListRows]:
    """Staff, references, certificates and equipment as rows for the forms' list tables."""
    return list_rows_from([f for kind in LIST_KEYS for f in load_facts(store, kind)])

"""The tender's own facts a form asks for: project name, project number, buyer, agency.

The name and buyer come from the analysis the user sees (``Analysis.overview`` with its ✓/待确认
checks), else from code's reading (:func:`app.documents.project_facts.read_project_facts`). The
project number and the agency are read here the same way: labelled lines (项目编号：…,
采购代理机构：…) in the first pages, a value confirmed when two pages agree and nothing else was
read. Each value is a :class:`~app.core.bid_forms.FilledBlank` whose ``source_label`` says where
it was read and whose ``confirmed`` is False when the user should check it.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from app.core.bid_forms import FilledBlank

if TYPE_CHECKING:
    from app.core.analysis import Analysis
    from app.documents.model import TenderDocument

PAGES_READ = 12
_NUMBER_LINE = re.compile(r"(?:项目编号|招标编号|采购编号|采购项目编号|招标项目编号|项目代码|采购计划编号|磋商编号|谈判编号|询价编号)"
                          r"\s*[：:]\s*(?P<value>[A-Za-z0-9][A-Za-z0-9\-－_/.（）()〔〕\[\]【】号]{3,60})")
_AGENCY_LINE = re.compile(r"(?:采购代理机构名称|采购代理机构|招标代理机构名称|招标代理机构|代理机构名称|代理机构)\s*[：:]\s*"
                          r"(?P<value>[^\s：:，。；;|]{4,60}?)(?=\s|$|地址|联系|电话|[，。；;|])")
_SPACES = re.compile(r"[\s\u3000]+")
_NOT_A_VALUE = re.compile(r"^(?:是指|系指|指|见|详见|按|以|为|由|_)")


def _clean_number(value: str) -> str:
    return value.strip().rstrip(".。）)】]").replace("－", "-")


def _read(doc: TenderDocument, pattern: re.Pattern[str], clean: object = None) -> tuple[str, list[int], bool]:
    """(value, pages read on, confirmed) for one labelled fact in the first pages."""
    seen: dict[str, list[int]] = {}
    for page in doc.pages[:PAGES_READ]:
        if not page.readable:
            continue
        for m in pattern.finditer(_SPACES.sub(" ", page.text)):
            value = m.group("value")
            value = _clean_number(value) if clean is None else value.strip()
            if value and not _NOT_A_VALUE.match(value):
                seen.setdefault(value, []).append(page.number)
    if not seen:
        return "", [], False
    counts = Counter({v: len(set(p)) for v, p in seen.items()})
    best, n = counts.most_common(1)[0]
    others = [v for v in seen if v != best and v not in best and best not in v]
    return best, sorted(set(seen[best])), n >= 2 and not others


def _where(pages: list[int]) -> str:
    return "、".join(f"第{p}页" for p in pages[:3])


def tender_values(doc: TenderDocument | None, analysis: Analysis | None = None) -> dict[str, FilledBlank]:
    """What the tender says about itself, by field (project_name, project_number, buyer, agency)."""
    out: dict[str, FilledBlank] = {}
    overview = analysis.overview if analysis is not None else None
    checks = analysis.overview_checks if analysis is not None else {}
    for field in ("project_name", "buyer"):
        value = getattr(overview, field, "") if overview is not None else ""
        if value:
            check = checks.get(field, "")
            out[field] = FilledBlank(value=value, source="tender", source_label="招标分析",
                                     confirmed=check.startswith("✓"), note="" if check.startswith("✓") else check)
    if doc is None:
        return out
    if "project_name" not in out or "buyer" not in out:
        from app.documents.project_facts import read_project_facts

        facts = read_project_facts(doc)
        for field, fact in (("project_name", facts.project_name), ("buyer", facts.buyer)):
            if field not in out and fact.value:
                out[field] = FilledBlank(value=fact.value, source="tender", source_label=f"招标文件{fact.where()}",
                                         confirmed=fact.confirmed,
                                         note="" if fact.confirmed else f"只在{fact.where()}读到，请核对")
    for field, pattern, kind in (("project_number", _NUMBER_LINE, None), ("agency", _AGENCY_LINE, "name")):
        value, pages, confirmed = _read(doc, pattern, kind)
        if value:
            out[field] = FilledBlank(value=value, source="tender", source_label=f"招标文件{_where(pages)}",
                                     confirmed=confirmed, note="" if confirmed else f"只在{_where(pages)}读到，请核对")
    return out

"""The overview's name, buyer and budget: what code read from the tender, checked, before any model.

:func:`~app.documents.project_facts.read_project_facts` reads the three values from the cover and
the announcement. Here they become the overview's values — a value code read wins over the
model's, which may shorten a long name or miss a wrapped line — and a check line for each: "✓"
when two pages agree, otherwise what to check and on which page. A value only the model gave is
kept and marked as such. Plain Python, no Qt.
"""

from __future__ import annotations

from app.core.analysis import ProjectOverview
from app.documents.project_facts import Fact, ProjectFacts, normalize

FIELD_ZH = {"project_name": "项目名称", "buyer": "采购人", "budget": "预算金额"}


def _check(fact: Fact) -> str:
    if fact.confirmed:
        return f"✓ {fact.where()}一致"
    if fact.others:
        return f"待确认：{fact.where()}写作“{fact.value}”，别处写作“{fact.others[0]}”"
    return f"待确认：只在{fact.where()}读到"


def apply_facts(overview: ProjectOverview, facts: ProjectFacts, *,
                from_model: bool = False) -> tuple[ProjectOverview, dict[str, str]]:
    """``overview`` with the values code read, and the check line of each of the three fields.

    ``checks["<field>:value"]`` keeps the value a check is about, so the UI can tell a value the
    user typed (checked by them) from the one that was read.
    """
    update: dict[str, str] = {}
    checks: dict[str, str] = {}
    for name, fact in facts.items():
        current = str(getattr(overview, name) or "")
        if fact.value:
            update[name] = fact.value
            check = _check(fact)
            if from_model and current and normalize(current) != normalize(fact.value):
                check += f"（模型读作“{current}”）"
            checks[name] = check
        elif current:
            checks[name] = "待确认：由模型读取，程序未在封面和公告中找到" if from_model else "待确认"
    result = overview.model_copy(update=update)
    for name in list(checks):  # the value each check is about: a different value later is the user's own
        checks[f"{name}:value"] = str(getattr(result, name) or "")
    return result, checks

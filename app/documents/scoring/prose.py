"""What the 评标办法 prose says the scoring table must add up to.

Tenders state their points breakdown in sentences as well as in the table:
"评标采用百分制，其中商务部分（投标报价）为70分、技术部分为30分", "价格分 30 分",
"技术部分（70分）", "技术分权重 50%". Read here into :class:`PartStatement` values so that
the chosen table can be checked against them (``calibrate``) and a price factor stated only
in prose can be added to the scheme.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.documents.model import TenderDocument
from app.documents.scoring.cells import explicit_category
from app.documents.scoring.model import ScoreCategory
from app.documents.text_patterns import compact

_NUM = r"\d+(?:\.\d+)?"
_SENTENCE = re.compile(r"[。；;\n]")
# "商务部分（投标报价）为70分", "技术部分为30分", "价格分 30 分", "技术部分（70分）", "报价得分：20分"
_PART = re.compile(
    rf"((?:技术|商务|资信|价格|报价|投标报价)[^\d，,、。；;：:]{{0,10}}?)\s*(?:[（(]\s*({_NUM})\s*分\s*[)）]"
    rf"|(?:为|占|得分为|满分为?|共|计)?\s*[：:]?\s*({_NUM})\s*分(?![值数]))"
)
_WEIGHT = re.compile(rf"((?:技术|商务|资信|价格|报价)[^\d，,、。；;：:]{{0,8}}?)(?:权重|权值)(?:为|占)?\s*({_NUM})\s*[%％]")
_LEAD_NUMBER = re.compile(r"^(?:[一二三四五六七八九十]+[、.．]|[（(][一二三四五六七八九十\d]{1,3}[)）]|\d{1,2}[、.．)）])")
_BREAKDOWN = re.compile(r"百分制|满分|总分|其中|构成|组成|分值分配|各部分")
MAX_SENTENCE = 160


@dataclass(frozen=True)
class PartStatement:
    """One stated part total: its category, points (or weight %), the words used and the page."""

    category: ScoreCategory
    points: float
    label: str
    page: int
    weight: bool = False  # a 权重 percentage rather than points
    lead: bool = False  # the statement opens its sentence alone ("一、价格分（25分）"): a heading of its part


def _category(label: str) -> ScoreCategory | None:
    inner = re.findall(r"[（(]([^（()）]{1,8})[)）]", label)
    for text in inner:  # "商务部分（投标报价）": the words in brackets say what the part holds
        cat = explicit_category(text)
        if cat == ScoreCategory.PRICE:
            return cat
    return explicit_category(label)


def part_statements(doc: TenderDocument) -> list[PartStatement]:
    """Stated part totals: sentences naming two or more parts with points, or a breakdown sentence."""
    out: list[PartStatement] = []
    for page in doc.pages:
        if not page.readable:
            continue
        for block in page.blocks:
            if block.kind == "table":
                continue
            for sentence in _SENTENCE.split(compact(block.text)):
                if not sentence or len(sentence) > MAX_SENTENCE:
                    continue
                found = []
                for m in _PART.finditer(sentence):
                    cat = _category(m.group(1))
                    value = m.group(2) or m.group(3)
                    if cat is not None and value is not None:
                        found.append(PartStatement(cat, float(value), m.group(1), page.number))
                for m in _WEIGHT.finditer(sentence):
                    cat = _category(m.group(1))
                    if cat is not None:
                        found.append(PartStatement(cat, float(m.group(2)), m.group(1), page.number, weight=True))
                if len({s.category for s in found}) >= 2 or (found and _BREAKDOWN.search(sentence)):
                    out.extend(found)
                elif (lead := _lead_statement(sentence, page.number)) is not None:
                    out.append(lead)
    return out


def _lead_statement(sentence: str, page: int) -> PartStatement | None:
    """A part stated alone at the start of its sentence ("一、价格分（25分）…")."""
    m = _PART.match(_LEAD_NUMBER.sub("", sentence, count=1))
    if m is None or not (m.group(2) or m.group(3)):
        return None
    cat = _category(m.group(1))
    return None if cat is None else PartStatement(cat, float(m.group(2) or m.group(3)), m.group(1), page, lead=True)


def stated_parts(statements: list[PartStatement]) -> dict[ScoreCategory, float]:
    """Points per part from the statements of one page that add up to 100 together (weights excluded), else {}."""
    best: dict[ScoreCategory, float] = {}
    statements = [s for s in statements if not s.weight and not s.lead]
    by_page: dict[int, dict[ScoreCategory, float]] = {}
    for s in statements:
        by_page.setdefault(s.page, {}).setdefault(s.category, s.points)
    for parts in by_page.values():
        if abs(sum(parts.values()) - 100) < 0.01 and len(parts) > len(best):
            best = parts
    return best


def price_label(statement: PartStatement) -> str:
    """The words the prose uses for the price part ("投标报价", "价格分"), for a row stated only there."""
    inner: list[str] = re.findall(r"[（(]([^（()）]{1,8})[)）]", statement.label)
    for text in inner:
        if re.search(r"报价|价格", text):
            return text
    label = re.sub(r"(?:为|占|共|计|满分为?)$", "", statement.label).strip()
    return label if 2 <= len(label) <= 8 else "价格"

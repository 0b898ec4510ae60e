"""How a scoring item's criteria turn answered points into points: tiers, per item, deductions.

Criteria grade in a few recurring ways, read here by code from the criteria text:

- **tiers** — 优 8–10 分 / 良 5–7 分 …, or graded sentences (方案完整……的得 10 分，
  略有不足的得 7 分，无相关内容的不得分); the tier is chosen from the share of points
  answered (a thin point counts half);
- **per item** — 每有一项得 2 分（最高 6 分）: points for each point present;
- **deduction** — 缺一项扣 2 分: the maximum less the missing points;
- **sub-points** — numbered sub-criteria with their own points (1、…，0-5 分): each point's
  points scaled by its status;
- otherwise **proportional** — the maximum times the share answered (said as an estimate).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

RuleKind = Literal["tiers", "per_item", "deduction", "sub_points", "point_tiers", "range", "proportional"]
RULE_ZH: dict[str, str] = {"tiers": "分档", "per_item": "每项得分", "deduction": "缺项扣分", "sub_points": "分项得分",
                           "point_tiers": "每小项分档", "range": "区间打分", "proportional": "按覆盖比例估算"}
_NUM = r"(\d+(?:\.\d+)?)"
_SCORE = re.compile(rf"(?:得|为|计|给|记)?\s*{_NUM}\s*(?:分\s*)?(?:[-~～—–至到]\s*{_NUM}\s*)?分")
_ZERO = re.compile(r"不得分|不给分|得\s*0\s*分|计\s*0\s*分|0\s*分")
_PER_ITEM = re.compile(
    rf"每(?:有|提供|具有|具备|满足|包含|增加|列出|写明)?(?:一|1)\s*(?:项|个|条|份|类|点)[^，。；;,]{{0,14}}?(?:得|加|计)\s*{_NUM}\s*分")
_DEDUCT = re.compile(
    rf"(?:每)?(?:缺|缺少|漏|遗漏|少|未提供|未响应|不满足|未体现|缺失)\s*(?:一|1)\s*(?:项|个|条|处|点)[^，。；;,]{{0,10}}?扣\s*{_NUM}\s*分")
_EACH_POINT = re.compile(rf"每(?:一)?(?:小项|项|个要点|条)满分\s*{_NUM}\s*分")
_CAP = re.compile(rf"(?:最高|最多|满分|上限|封顶|总分)(?:得|为|可得|不超过)?\s*{_NUM}\s*分")
_PIECE = re.compile(r"[，,；;。\n]")
_LEVEL_LABEL = re.compile(r"^(?:[（(]?\d{1,2}[)）、.．]|[①-⑳])?\s*(优秀|优|良好|良|中等|中|一般|较差|差|合格|不合格)")


@dataclass(frozen=True)
class Tier:
    """One grade: its label (the text that describes it) and its points (``low``–``high``)."""

    label: str
    low: float
    high: float


@dataclass
class ScoringRule:
    """How an item is graded, as read from its criteria."""

    kind: RuleKind
    tiers: list[Tier] = field(default_factory=list)
    per_item: float | None = None
    cap: float | None = None


@dataclass(frozen=True)
class Estimate:
    """The points the text supports for one item, and why."""

    expected: float
    maximum: float | None
    tier: str
    explanation: str


def _tier_label(text: str) -> str:
    text = text.strip(" ，,；;：:。、（(）)")
    m = _LEVEL_LABEL.match(text)
    if m and len(text) - m.end() <= 2:
        return m.group(1)
    text = re.sub(r"^(?:[（(]?\d{1,2}[)）、.．]|[①-⑳])\s*", "", text)
    text = re.sub(r"[的者]?(?:得|为|计)?$", "", text)
    return text[-30:] if len(text) > 30 else text


def parse_tiers(criteria: str) -> list[Tier]:
    """The graded tiers of a criteria text, best first (a 不得分 tier is kept, at 0)."""
    tiers: list[Tier] = []
    label = ""
    for piece in _PIECE.split(re.sub(r"[ \t\u3000]+", "", criteria or "")):
        if not piece:
            continue
        zero = _ZERO.search(piece)
        m = _SCORE.search(piece)
        if zero and (m is None or zero.start() <= m.start()):
            tiers.append(Tier(_tier_label(label + piece[: zero.start()]) or "无相关内容", 0.0, 0.0))
            label = ""
            continue
        if m is None or _PER_ITEM.search(piece) or _DEDUCT.search(piece) or _CAP.search(piece):
            label += piece + "，"
            continue
        low = float(m.group(1))
        high = float(m.group(2)) if m.group(2) else low
        own = piece[: m.start()]
        named = _LEVEL_LABEL.match(own.strip(" ，,；;：:。、（("))
        text = own if named and len(own.strip(" ，,；;：:。、（(")) - named.end() <= 2 else label + own
        tiers.append(Tier(_tier_label(text), min(low, high), max(low, high)))
        label = ""
    tiers.sort(key=lambda t: (t.high, t.low), reverse=True)
    return tiers


def parse_rule(criteria: str, sub_points: Sequence[float | None] = ()) -> ScoringRule:
    """The rule of a criteria text; ``sub_points`` are the points the item's points carry, if any."""
    text = re.sub(r"[ \t\u3000]+", "", criteria or "")
    cap = _CAP.search(text)
    cap_value = float(cap.group(1)) if cap else None
    per = _PER_ITEM.search(text)
    if per:
        return ScoringRule("per_item", per_item=float(per.group(1)), cap=cap_value)
    deduct = _DEDUCT.search(text)
    if deduct:
        return ScoringRule("deduction", per_item=float(deduct.group(1)), cap=cap_value)
    if len(sub_points) >= 2 and all(p is not None for p in sub_points):
        return ScoringRule("sub_points")
    tiers = parse_tiers(text)
    each = _EACH_POINT.search(text)
    if each:
        return ScoringRule("point_tiers", tiers=tiers, per_item=float(each.group(1)))
    graded = [t for t in tiers if t.high > 0]
    if len(graded) >= 2:
        return ScoringRule("tiers", tiers=tiers)
    if len(graded) == 1 and graded[0].high > graded[0].low:
        return ScoringRule("range", tiers=graded)
    return ScoringRule("proportional")


_WEIGHT = {"answered": 1.0, "thin": 0.5, "missing": 0.0}


def _half(x: float) -> float:
    return math.floor(x * 2 + 1e-9) / 2


def estimate(rule: ScoringRule, statuses: Sequence[str], maximum: float | None,
             sub_points: Sequence[float | None] = ()) -> Estimate:
    """The expected points of an item whose points have ``statuses`` under ``rule``."""
    n = len(statuses)
    share = sum(_WEIGHT.get(s, 0.0) for s in statuses) / n if n else 0.0
    present = sum(1 for s in statuses if s != "missing")
    missing = n - present
    top = maximum if maximum is not None else (rule.cap if rule.cap is not None else
                                               max((t.high for t in rule.tiers), default=None))
    if n and not present:  # nothing answers the item: no rule gives points for nothing (the lowest tier, a deduction)
        return Estimate(0.0, top, "未响应", "没有响应任何要点")
    if rule.kind == "per_item" and rule.per_item is not None:
        got = rule.per_item * present
        limit = rule.cap if rule.cap is not None else top
        got = min(got, limit) if limit is not None else got
        return Estimate(got, limit, f"{present} 项", f"每项 {rule.per_item:g} 分 × {present} 项")
    if rule.kind == "deduction" and rule.per_item is not None and top is not None:
        got = max(0.0, top - rule.per_item * missing)
        return Estimate(got, top, f"缺 {missing} 项", f"满分 {top:g} 分，缺一项扣 {rule.per_item:g} 分")
    if rule.kind == "sub_points" and sub_points:
        total = sum(p or 0.0 for p in sub_points)
        got = sum((p or 0.0) * _WEIGHT.get(s, 0.0) for p, s in zip(sub_points, statuses, strict=False))
        note = "各分项按响应情况计分（单薄按一半）"
        if top is not None and total > 0 and abs(total - top) > 0.01:  # a sub-criterion was not read as a point
            got = got * top / total
            note += f"；读到的分项合计 {total:g} 分，按满分 {top:g} 分折算"
        return Estimate(_half(got), top if top is not None else total, f"{present}/{n} 项", note)
    if rule.kind == "point_tiers" and rule.per_item is not None:
        return _point_tier_estimate(rule, statuses, top)
    if rule.kind == "tiers":
        return _tier_estimate(rule.tiers, share, statuses, top)
    if rule.kind == "range" and rule.tiers:
        t = rule.tiers[0]
        got = t.low + (t.high - t.low) * share
        return Estimate(_half(got), top if top is not None else t.high, f"{t.low:g}–{t.high:g} 分区间",
                        f"区间内按响应比例 {share:.0%} 估算")
    if top is None:
        return Estimate(0.0, None, "", "评分标准未标明分值")
    return Estimate(_half(top * share), top, f"响应 {share:.0%}", "评分标准未分档，按响应比例估算")


def _tier_estimate(tiers: Sequence[Tier], share: float, statuses: Sequence[str], top: float | None) -> Estimate:
    graded = [t for t in tiers if t.high > 0]
    zero = next((t for t in tiers if t.high == 0), None)
    if share == 0 and zero is not None:
        return Estimate(0.0, top if top is not None else graded[0].high, zero.label, "没有响应任何要点")
    k = len(graded)
    index = min(k - 1, int((1.0 - share) * k + 0.5))
    t = graded[index]
    full = all(s == "answered" for s in statuses)
    got = t.high if full else t.low
    return Estimate(got, top if top is not None else graded[0].high, t.label,
                    f"响应 {share:.0%}，对应第 {index + 1} 档（{t.low:g}–{t.high:g} 分）" if t.low != t.high
                    else f"响应 {share:.0%}，对应第 {index + 1} 档（{t.high:g} 分）")


def _point_tier_estimate(rule: ScoringRule, statuses: Sequence[str], top: float | None) -> Estimate:
    """每小项满分 X 分: an answered point gets the top grade, a thin one the next, a missing one nothing."""
    assert rule.per_item is not None
    grades = sorted({t.high for t in rule.tiers if 0 < t.high <= rule.per_item} | {rule.per_item}, reverse=True)
    thin = grades[1] if len(grades) > 1 else rule.per_item / 2
    got = sum(rule.per_item if s == "answered" else thin if s == "thin" else 0.0 for s in statuses)
    got = min(got, top) if top is not None else got
    answered = sum(1 for s in statuses if s == "answered")
    return Estimate(got, top if top is not None else rule.per_item * len(statuses), f"{answered}/{len(statuses)} 项完整",
                    f"每小项满分 {rule.per_item:g} 分，欠缺的小项 {thin:g} 分，缺失的 0 分")

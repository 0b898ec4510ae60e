"""Rank candidate scoring tables by structure and choose the scheme a tender uses.

A candidate ranks high when its points add up (to a stated subtotal, to 100), every row
carries points, its names are short and its criteria long; header words and a place
under 评标办法 add confidence. Look-alikes are set aside with the reason why (考核细则,
自评表, 响应索引表, 符合性审查 …): they stay visible as candidates but are never chosen
on their own. The scheme is the run of neighbouring candidates (商务 + 技术 + 价格 tables)
that ranks best, with a strong bonus when it adds up to the document's total.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from app.documents.model import TenderDocument
from app.documents.scoring.cells import fmt_points
from app.documents.scoring.context import context_score
from app.documents.scoring.model import ScoringTable
from app.documents.text_patterns import compact

_DECOYS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"考核|考评|履约评价|服务质量评价|满意度(?:调查|测评|评价)|甲方对乙方|采购人对(?:供应商|中标人|成交供应商)"),
     "履约考核/考评表，不是评标评分表"),
    (re.compile(r"自评"), "投标人自评表"),
    (re.compile(r"索引|页码|页次|对应.{0,4}位置"), "响应索引表（只列评分项及其页码）"),
    (re.compile(r"符合性|资格性|资格审查|形式审查|响应性审查|是否合格|合格性|否决|初步评审|通过/不通过"),
     "符合性/资格审查表（通过或不通过，没有分值）"),
    (re.compile(r"偏离"), "偏离表"),
    (re.compile(r"加分项|加分因素|附加分|加分表|另行加分|额外加分|加分标准"), "加分表（在总分之外另计，不是评分表）"),
    (re.compile(r"价格扣除|扣除比例|价格折扣"), "价格扣除表（政策优惠，不是评分表）"),
]
_CAPTION_SCORING = re.compile(r"评分|评审|评标|打分|细则")
_POINTS_HEADER = re.compile(r"分值|分数|满分|得分|权重|权值|^分$|标准分|最高分")
CLAIM_THRESHOLD = 3.0
MAX_WINDOW = 6
MAX_PAGE_GAP = 6
SURE_MARGIN = 1.5


def decoy_reason(table: ScoringTable) -> str:
    """Why a candidate is a look-alike, from its title, header and labels; "" when it is not."""
    tail = re.split(r"[。；;]", table.caption)[-1] if table.caption else ""
    text = compact(" ".join([tail, *table.header, table.label]))
    for pattern, reason in _DECOYS:
        if pattern.search(text):
            return reason
    return ""


def _close(a: float, b: float) -> bool:
    return abs(a - b) < 0.01


def rank(table: ScoringTable, doc: TenderDocument | None) -> None:
    """Set ``score``, ``evidence`` and ``rejected`` of one candidate."""
    ev: list[str] = []
    rows = table.rows
    with_points = [r for r in rows if r.points is not None]
    score = 2.0 * len(with_points) / max(1, len(rows))
    total = table.points_sum
    if table.stated_total is not None and _close(total, table.stated_total):
        score += 3
        ev.append(f"各项合计 {fmt_points(total)} 分，与标明的总分一致")
    elif table.stated_total is not None:
        score -= 1
        ev.append(f"各项合计 {fmt_points(total)} 分，标明 {fmt_points(table.stated_total)} 分")
    if _close(total, 100):
        score += 2
        if not ev:
            ev.append("各项合计 100 分")
    for label, pts in table.subtotals.items():
        got = sum(r.points or 0 for r in rows if r.group == label or r.category_label == label)
        if got and _close(got, pts):
            score += 0.5
    names = [len(r.factor) for r in rows]
    criteria = [len(r.criteria) for r in rows]
    if names and statistics.median(names) <= 20:
        score += 1
    if criteria and statistics.median(criteria) >= 12:
        score += 1
        ev.append("评分项名称短、评分标准长")
    if len(rows) == 1 and table.stated_total is None:
        score -= 1 if table.header else 3  # one numbered row in a form, without a header, is rarely a table
    if table.header:
        score += 0.5
    if _CAPTION_SCORING.search(compact(table.caption[-40:] + table.label)):
        score += 1
    bonus = 0.0
    if doc is not None and table.table_ids and table.kind == "table":
        bonus, why = context_score(doc, table.table_ids[0], table.caption)
        score += bonus
        if why:
            ev.append(why)
    signal = (table.stated_total is not None or _close(total, 100) or bonus > 0
              or any(_POINTS_HEADER.search(compact(h)) or _CAPTION_SCORING.search(compact(h)) for h in table.header)
              or any(_CAPTION_SCORING.search(compact(label)) for label in table.subtotals)
              or _CAPTION_SCORING.search(compact(table.caption[-40:] + table.label)))
    if not signal:  # numbers in a table (人数, 数量) without a points header, a total or a scoring title
        score -= 3
        ev.append("没有分值表头、标明的总分或评分标题")
    table.score = round(score, 2)
    table.evidence = ev
    table.rejected = decoy_reason(table)


@dataclass
class Choice:
    """The chosen scheme, the best disjoint alternatives, and how sure code is of the choice."""

    tables: list[ScoringTable]
    score: float
    alternatives: list[tuple[float, list[ScoringTable]]]

    @property
    def sure(self) -> bool:
        """No other scheme ranks within the margin."""
        return not self.alternatives or self.score - self.alternatives[0][0] >= SURE_MARGIN


def _windows(usable: list[ScoringTable]) -> list[tuple[float, list[ScoringTable]]]:
    out: list[tuple[float, list[ScoringTable]]] = []
    for i in range(len(usable)):
        for j in range(i, min(len(usable), i + MAX_WINDOW)):
            window = usable[i : j + 1]
            if j > i and window[-1].pages[0] - window[-2].pages[-1] > MAX_PAGE_GAP:
                break
            total = round(sum(t.points_sum for t in window), 4)
            score = sum(t.score for t in window) / len(window)
            if _close(total, 100):
                score += 4
            elif total > 100.01:
                score -= 3
            out.append((round(score, 2), window))
    return out


def choose(candidates: list[ScoringTable], alternatives: int = 2,
           fit: Callable[[list[ScoringTable]], float] | None = None) -> Choice | None:
    """The best run of neighbouring usable candidates, or None when nothing ranks high enough.

    ``fit`` (``explain.scheme_fit``) adds what the prose's stated numbers say of a scheme: among schemes
    that may be claimed by structure, the one that explains them ranks first. It never lets a scheme
    be claimed that structure alone would not claim.
    """
    usable = [t for t in candidates if not t.rejected]
    claimable = [(score, w) for score, w in _windows(usable) if score >= CLAIM_THRESHOLD]
    if not claimable:
        return None
    if fit is not None:
        claimable = [(round(score + fit(w), 2), w) for score, w in claimable]
    windows = sorted(claimable, key=lambda w: -w[0])
    best_score, best = windows[0]
    taken = {id(t) for t in best}
    rivals: list[tuple[float, list[ScoringTable]]] = []
    for score, window in windows[1:]:
        if len(rivals) >= alternatives:
            break
        ids = {id(t) for t in window}
        if not ids & taken:
            rivals.append((score, window))
            taken |= ids
    return Choice(tables=best, score=best_score, alternatives=rivals)


def sums_hold(tables: list[ScoringTable]) -> bool:
    """The self-check a model's pick must pass: every stated total met, and 100 overall or as stated."""
    if not tables:
        return False
    if any(t.stated_total is not None and not _close(t.points_sum, t.stated_total) for t in tables):
        return False
    total = sum(t.points_sum for t in tables)
    stated = [t.stated_total for t in tables]
    return _close(total, 100) or (all(s is not None for s in stated) and _close(total, sum(s or 0 for s in stated)))

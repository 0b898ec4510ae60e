"""The 自评表 as rows of text, for the spreadsheet and the Word table.

One row per criteria point (item columns filled on its first row) and one total row:
评分项, 分值, 要点, 状态, 所在章节, 引文/说明, 预计得分, 得分依据.
"""

from __future__ import annotations

from app.pipeline.evaluation.matching import STATUS_ZH
from app.pipeline.evaluation.review import BidReview

HEADER = ("评分项", "分值", "评分要点", "状态", "所在章节", "引文或说明", "预计得分", "得分依据")


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def review_rows(review: BidReview) -> list[list[str]]:
    """The table's body rows (without the header), the total last."""
    rows: list[list[str]] = []
    for item in review.items:
        est = item.estimate
        basis = "；".join(x for x in (item.rule, est.tier, est.explanation) if x)
        for k, point in enumerate(item.points or [None]):
            first = k == 0
            status = "" if point is None else STATUS_ZH[point.status] + ("（模型）" if point.decided_by == "model" else "")
            where = "" if point is None else "；".join(e.heading for e in point.evidence)
            quote = "" if point is None else (point.evidence[0].quote if point.evidence else point.note)
            if point is not None and point.evidence and point.note:
                quote = f"{quote}（{point.note}）"
            rows.append([f"{item.group.id} {item.group.title}" if first else "", _num(item.group.points) if first else "",
                         "" if point is None else point.label, status, where, quote,
                         _num(est.expected) if first else "", basis if first else ""])
    counts = review.counts()
    rows.append(["合计", _num(review.maximum), f"已响应 {counts['answered']}，单薄 {counts['thin']}，缺失 {counts['missing']}",
                 "", "", "", _num(review.expected), "程序比对估算，仅供参考"])
    return rows

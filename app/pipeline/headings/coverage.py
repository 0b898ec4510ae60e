"""Coverage of scoring detail points by outline nodes, computed by code.

In one-to-one mode every detail point of a scoring group (评分细则要点) should be answered
by some heading of its chapter. A point counts as covered when a node's title (with its
description) shares enough character bigrams with it; scoring boilerplate ("得 5 分",
"优/良/中/差") is ignored. Uncovered points go to the reviewer and to the report.
"""

from __future__ import annotations

import re

from app.core.outline import OutlineNode

_BOILERPLATE = re.compile(
    r"(得\s*[\d.]+\s*[-~～至]?\s*[\d.]*\s*分|[\d.]+\s*分|不得分|优秀?|良好?|一般|较差|差|中等?|评审|评委|投标人|供应商|"
    r"提供|根据|进行|综合|情况|方面|合理|完善|可行|详细|全面|得分|的|和|及|与|或|等|对|有)"
)
_NON_WORD = re.compile(r"[^\w]|[\d_]")


def _bigrams(text: str) -> set[str]:
    t = _NON_WORD.sub("", _BOILERPLATE.sub(" ", text))
    t = t.replace(" ", "")
    return {t[i:i + 2] for i in range(len(t) - 1)}


def point_label(point: str, max_len: int = 24) -> str:
    """A short label for a detail point, usable as a heading seed or in a message."""
    t = re.sub(r"^\s*(?:[①-⑳]|\(?\d+[).、]|[一二三四五六七八九十]+、)\s*", "", point).strip()
    t = re.split(r"[，,。；;：:（(]", t, maxsplit=1)[0].strip()
    return t[:max_len] or point[:max_len]


def _covers(point_grams: set[str], node_grams: set[str]) -> bool:
    if not point_grams or not node_grams:
        return False
    common = len(point_grams & node_grams)
    # a two-character point (培训的 地点, 方式) has one bigram: the heading that names it (培训地点) covers it
    return common >= min(2, len(point_grams)) and common / min(len(point_grams), len(node_grams)) >= 0.5


def uncovered_points(chapter: OutlineNode, points: list[str]) -> list[str]:
    """The detail points of ``chapter``'s scoring group that no heading below it answers."""
    nodes = [n for _, n in chapter.walk()]
    grams = [_bigrams(n.title) | _bigrams(n.title + n.description) for n in nodes]
    title_grams = [_bigrams(n.title) for n in nodes]
    missing: list[str] = []
    for point in points:
        pg = _bigrams(point)
        if not pg:
            continue
        if not any(_covers(pg, tg) or _covers(pg, g) for tg, g in zip(title_grams, grams, strict=True)):
            missing.append(point)
    return missing

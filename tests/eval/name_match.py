"""How the benchmark tells a labelled name from a parsed one (``score_tables``).

Names are compared without embedded points, numbering, punctuation and whitespace: exactly, then
one inside the other, then, for a label's own paraphrase of a name the document never prints, by a
run of shared characters or by its characters standing in order in the parsed name (the caller
asks for the same points too).
"""

from __future__ import annotations

import re

_POINTS_IN_NAME = re.compile(r"[（(][^（()）]*?\d+(?:\.\d+)?\s*(?:分|%|％)[^（()）]*?[)）]|\d+(?:\.\d+)?\s*分$")
_PUNCT = re.compile(r"[\s（()）【】\[\]、，,。：:；;“”\"'·．.]")
_LEADING_NUMBER = re.compile(r"^(?:[一二三四五六七八九十]+[、．.]|\d+(?:\.\d+)*[、．.]?)")

def norm_name(name: str) -> str:
    """A name without embedded points, numbering, punctuation and whitespace, for matching."""
    text = re.sub(r"\s+", "", name or "")
    text = _POINTS_IN_NAME.sub("", text)
    text = _LEADING_NUMBER.sub("", text)
    return _PUNCT.sub("", text)


def _shared(a: str, b: str) -> int:
    """Length of the longest run of characters two names share."""
    best = 0
    for i in range(len(a)):
        for j in range(i + best + 1, len(a) + 1):
            if a[i:j] not in b:
                break
            best = j - i
    return best


def _in_order(key: str, other: str, gap: int = 1) -> bool:
    """Every character of ``key`` in ``other`` in order, at most ``gap`` characters between two
    ("类似业绩" in "与本项目类似的业绩")."""
    start = other.find(key[:1])
    while start >= 0:
        pos, ok = start, True
        for ch in key[1:]:
            nxt = other.find(ch, pos + 1, pos + 2 + gap)
            if nxt < 0:
                ok = False
                break
            pos = nxt
        if ok:
            return True
        start = other.find(key[:1], start + 1)
    return False


def same_name(key: str, other: str, how: str, points_agree: bool) -> bool:
    if how == "exact":
        return other == key
    if not (other and key):
        return False
    if how == "contains":
        return other in key or key in other
    # a label's paraphrase of a name the document never prints ("退换货承诺及不良后果处理措施" for
    # "出现产品质量问题退换货承诺、意外事件…"): a run of 4+ shared characters and the same points
    return points_agree and (_shared(key, other) >= max(4, 0.3 * min(len(key), len(other)))
                             or (len(key) >= 4 and _in_order(key, other)))

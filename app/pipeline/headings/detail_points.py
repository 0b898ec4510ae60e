"""Detail points read from a criteria cell by code (①②③ items, or an enumeration 甲、乙、丙).

Grading scales ("得 6 分") and document notes ("注：需提供……") are not points. Used for the
table-only analysis, so a scoring item has its points even without a model.
"""

from __future__ import annotations

import re

from app.pipeline.headings.criteria_clauses import share_each_head

_CIRCLED = re.compile(r"[①-⑳]\s*([^①-⑳；;。\n]{2,40})")
_ENUM = re.compile(r"[^，。；;：:（()）\n、]{2,30}(?:、[^，。；;：:（()）\n、]{2,30}){2,}")
_GRADING = re.compile(r"得\s*\d|扣\s*\d|不得分|扣完|最高得|^注|复印件|证明材料|加盖")
_LEAD = re.compile(r"^.*(?:包括但不限于|包含但不限于|包括|包含|不限于|针对本项目|根据|对于|对)")
#: A clause's own number and its verb in front of what it lists (3.有…的甲、乙 → …的甲): not part of the first point.
_NUMBERED = re.compile(r"^(?:\d+[、.．]|[（(]\d+[)）])\s*")
_HAS = re.compile(r"^有(?:建立)?(?![害限机效线色偿关氧毒])(?=[\u4e00-\u9fff]{4})")


def _tidy(item: str) -> str:
    item = re.sub(r"\s+", "", item).strip(" ，,。:：、")
    item = re.sub(r"等[^、]{0,12}$", "", item)
    return item[:40]


def split_points(criteria: str, limit: int = 8) -> list[str]:
    """Detail points read from a criteria cell by code: ①②③ items, or an enumeration (甲、乙、丙).

    Grading scales ("得 6 分") and document notes ("注：需提供……") are not points.
    """
    text = criteria or ""
    items = [_tidy(re.split(r"[，,]", m.group(1))[0]) for m in _CIRCLED.finditer(text)]
    if len(items) < 2:
        items = []
        for m in _ENUM.finditer(text):
            parts = m.group().split("、")
            parts[0] = _LEAD.sub("", parts[0]) or parts[0]
            parts[0] = _HAS.sub("", _NUMBERED.sub("", parts[0])) or parts[0]
            owner, of, own = parts[0].rpartition("的")  # 甲的各乙、各丙标准: 各乙 names whose, the next part what
            shared = share_each_head([own, *parts[1:]])
            parts = [owner + of + shared[0], *shared[1:]]
            if _GRADING.search(m.group()):
                continue
            items += [_tidy(x) for x in parts]
            break
    out: list[str] = []
    for item in items:
        if len(item) >= 2 and not _GRADING.search(item) and item not in out:
            out.append(item)
    return out[:limit]

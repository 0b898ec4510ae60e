"""Split a scoring item's criteria into the points it asks for, and give each a heading's form.

Criteria cells list what the bid must contain in a few recurring ways: circled numbers
(①项目人员配置方案；②实施进度计划), numbered sub-criteria ((1)结构设计合理性…，分值3～5分),
an enumeration after a lead word (包括/至少包括/包含但不限于 甲、乙、丙等) or before a
verb (甲、乙、丙等进行评审). Numbered *grade levels* (1、…科学合理，得10分；2、…较合理，得7分)
are not points and are skipped. :func:`point_heading` turns a point into a noun phrase
("投标单位为本项目配置的项目负责人的工作经验" → "项目负责人工作经验", "火灾" → "火灾应急处置"),
or gives up (None) when it cannot make a heading of it — a fragment is never returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.core.rules.heading_form import ends_with_heading_noun, evidence_problem, fragment_problem

_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
_NUMBERED_LINE = re.compile(r"(?:^|\n|[。；;])\s*(?:[（(]\s*(\d{1,2})\s*[)）]|(\d{1,2})\s*[、.．](?!\d))")
_SCORE = re.compile(r"\d+(?:\.\d+)?\s*(?:[-~～—至]\s*\d+(?:\.\d+)?\s*)?分")
_GRADE_WORDS = re.compile(r"较|一般|差|不足|欠缺|未提供|不提供|缺失|缺漏|不得分|无相关|扣|空洞|不够|基本")
_LEAD = re.compile(
    r"^.*?(?:包括但不限于|包含但不限于|但不限于|不限于|至少包括|至少包含|包括|包含|主要有|分别为|如下|针对本项目的?|针对|"
    r"对于|对|从)[:：]?"
)
_TAIL = re.compile(
    r"(?:等)?(?:各个|各)?(?:方面|环节|内容|事项|情况)?(?:的)?(?:进行|综合|作出|做出)?(?:评审|评分|打分|评价|阐述|说明|描述|论述)?$"
)
_OWNER = re.compile(
    r"^(?:根据|按照|依据|对|就)?(?:本次|本)?(?:投标人|投标单位|供应商|响应人|磋商供应商|我方|我公司)?(?:为|对|针对)?(?:本次|本)?(?:项目|采购项目)?"
    r"(?:所)?(?:提供|制定|制订|编制|拟派|配置|投入|配备|拟投入|设置)?的"
)
_OWNER_WORDS = re.compile(r"投标人|投标单位|供应商|响应人|我方|我公司|提供|制定|制订|编制|拟派|配置|投入|配备|设置|根据")


def _strip_owner(text: str) -> str:
    """Drop "投标单位为本项目配置的" style leads (not a plain "项目的")."""
    m = _OWNER.match(text)
    if m and _OWNER_WORDS.search(m.group()) and len(text) - m.end() >= 2:
        return text[m.end():]
    return text


_QUALITY_TAIL = re.compile(r"的?(?:合理性|完整性|可行性|科学性|针对性|充分性|完善性|全面性|有效性)(?:[及和与、](?:合理性|完整性|可行性|科学性|针对性|充分性|完善性|全面性|有效性))*$")
_PAREN = re.compile(r"[（(][^（）()]*[)）]")
_COLON = re.compile(r"[:：]")
_PREDICATE_FIX = (
    (re.compile(r"(?:率|费用|成本|次数|损耗|故障|能耗|流失|差错)(?:低|少)$"), lambda t: t[:-1] + "控制"),
    (re.compile(r"及时(?:到位)?$"), lambda t: re.sub(r"及时(?:到位)?$", "及时性保障", t)),
    (re.compile(r"(?:完善|健全)$"), lambda t: t[:-2] + "建设"),
    (re.compile(r"齐全$"), lambda t: t[:-2] + "配备"),
)
MAX_HEADING = 20


@dataclass
class CriteriaPoint:
    """One thing the criteria ask for: its text as written, and sub-items listed inside it."""

    text: str
    kind: str  # "circled" | "numbered" | "enumeration" | "object"
    items: list[str] = field(default_factory=list)
    points: float | None = None  # the sub-criterion's own points ("分值3～5分"), when stated


def _squash(text: str) -> str:
    return re.sub(r"[ \t\u3000]+", "", text or "")


def _cut_etc(text: str) -> str:
    """Drop what follows a closing 等 ("售后服务方案等，方案内容…" → "售后服务方案")."""
    m = re.search(r"(?<=..)等(?!级|同|候|待)", text)
    return text[: m.start()] if m else text


def _circled_points(text: str) -> list[CriteriaPoint]:
    parts = re.split(f"([{_CIRCLED}])", text)
    out: list[CriteriaPoint] = []
    for i in range(1, len(parts) - 1, 2):
        body = re.split(r"[；;。\n]", parts[i + 1], maxsplit=1)[0]
        out.append(_point_with_items(body, "circled"))
    return out


def _point_with_items(body: str, kind: str) -> CriteriaPoint:
    """A point and, when it says 包括 甲、乙、丙 (or 甲：乙、丙), those sub-items."""
    items: list[str] = []
    pts = _SCORE.search(body)
    points = None
    if pts:
        nums = re.findall(r"\d+(?:\.\d+)?", pts.group())
        points = float(nums[-1]) if nums else None
    body = re.sub(r"[，,]?(?:分值|满分|得)?\s*" + _SCORE.pattern + ".*$", "", body)
    head = body
    m = _COLON.search(body)
    if m and m.start() >= 2:
        head, rest = body[: m.start()], body[m.end():]
        items = _enumeration(rest)
    else:
        m2 = re.search(r"(?:包括|包含|如|从)", body)
        if m2 and m2.start() >= 3:
            items = _enumeration(body[m2.start():])
            head = body[: m2.start()]
    head = _cut_etc(re.split(r"[，,]", head, maxsplit=1)[0])
    return CriteriaPoint(text=head.strip(" ，,。；;：:、"), kind=kind, items=items, points=points)


_PREDICATE_START = re.compile(r"(?:齐全|完善|及时|并能|满足|符合|达到|优于|合理|到位|科学)")


def _enumeration(text: str) -> list[str]:
    """Items of the best 甲、乙、丙 run in ``text`` (lead words and trailing 等 removed).

    A run inside parentheses wins (that is where tenders put 包括…); a shared tail on the
    last item ("甲、乙、丙的应急预案") is given to every item that lacks it.
    """
    inner = [m.group(1) for m in re.finditer(r"[（(]([^（）()]*、[^（）()]*)[)）]", text)]
    outer = _PAREN.sub("，", text)
    for source in (*inner, outer):
        for clause in re.split(r"[，,。；;\n：:]", source):
            if "、" not in clause:
                continue
            parts = clause.split("、")
            parts[0] = _LEAD.sub("", parts[0]) or parts[0]
            parts[0] = _strip_owner(parts[0])
            parts[-1] = re.sub(r"[及和与]其他.*$", "", _cut_etc(parts[-1]))
            p = _PREDICATE_START.search(parts[-1])
            if p and p.start() >= 2:
                parts[-1] = parts[-1][: p.start()]
            items = [x.strip(" （）()：:") for x in parts]
            items = [x for x in items if len(x) >= 2 and not _SCORE.search(x)]
            if len(items) >= 2:
                return _share_tail(items)
    return []


def _share_tail(items: list[str]) -> list[str]:
    last = items[-1]
    if "的" not in last:
        return items
    head, _, tail = last.rpartition("的")
    if len(tail) < 4 or not ends_with_heading_noun(tail) or len(head) < 2:
        return items
    out = [x if x.endswith(tail[-2:]) else x + tail for x in items[:-1]]
    return [*out, head + tail]


def _is_grade(line: str) -> bool:
    return bool(_SCORE.search(line)) and bool(_GRADE_WORDS.search(line) or re.search(r"得\s*\d", line))


def _numbered_points(text: str) -> list[CriteriaPoint]:
    marks = list(_NUMBERED_LINE.finditer(text))
    if len(marks) < 2:
        return []
    bodies = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        bodies.append(text[m.end():end].split("\n")[0])
    grades = sum(1 for b in bodies if _is_grade(b))
    if grades * 2 >= len(bodies):
        return []
    return [_point_with_items(b, "numbered") for b in bodies if not _is_grade(b)]


_OBJECT = re.compile(
    r"(?:根据|对|就)(?:投标人|投标单位|供应商|响应人)?(?:为本次?项目|针对本项目|对本项目)?(?:所)?(?:制订|制定|提供|编制)?的?"
    r"([^，,。；;（()）:：]{3,24}?)(?:进行|作)(?:综合)?(?:评审|评分|打分|评价)"
)


def _before_colon(block: str) -> str:
    """The part of a block before its first colon outside parentheses (the grading follows it)."""
    depth = 0
    for i, ch in enumerate(block):
        if ch in "（(":
            depth += 1
        elif ch in "）)":
            depth = max(0, depth - 1)
        elif ch in ":：" and depth == 0:
            return block[:i]
    return block


def split_criteria(criteria: str) -> list[CriteriaPoint]:
    """The points a criteria text asks for, in order, without grade levels or notes.

    Tried in order: circled numbers, numbered sub-criteria (not grade levels), then for each
    block (line or "（N分）" paragraph) the part before its grading: an enumeration, the single
    thing it evaluates ("根据…的应急服务方案进行评审"), or its first clause.
    """
    text = _squash(criteria)
    text = re.split(r"\n注[:：]|\n备注[:：]|注[:：]\s*1", text)[0]
    if sum(text.count(c) for c in _CIRCLED) >= 2:
        points = _circled_points(text)
        if len(points) >= 2:
            return _dedupe(points)
    numbered = _numbered_points(text)
    if len(numbered) >= 2:
        return _dedupe(numbered)
    out: list[CriteriaPoint] = []
    blocks = [b for b in re.split(r"\n|(?=[（(]\d+(?:\.\d+)?分[)）])", text) if b.strip()]
    for block in blocks:
        block = re.sub(r"^[（(]\d+(?:\.\d+)?分[)）]", "", block)
        head = _before_colon(block)
        if _is_grade(head):
            continue
        items = _enumeration(head)
        if items:
            out += [CriteriaPoint(text=x, kind="enumeration") for x in items]
            continue
        m = _OBJECT.search(head)
        if m:
            out.append(CriteriaPoint(text=m.group(1), kind="object"))
        elif head is not block:
            first = re.split(r"[，,。；;]", head, maxsplit=1)[0]
            out.append(CriteriaPoint(text=first, kind="clause"))
    return _dedupe(out)


def _dedupe(points: list[CriteriaPoint]) -> list[CriteriaPoint]:
    seen: set[str] = set()
    out = []
    for p in points:
        if p.text and p.text not in seen:
            seen.add(p.text)
            out.append(p)
    return out


def _merge_suffix(text: str, suffix: str) -> str:
    """``text`` + ``suffix`` without repeating an overlap ("配送" + "配送管理" → "配送管理")."""
    for k in range(min(len(text), len(suffix)), 0, -1):
        if text.endswith(suffix[:k]):
            return text + suffix[k:]
    return text + suffix


_EVALUATIVE_TAIL = re.compile(r"(?:稳定可靠|合理|先进|可靠|稳定|科学|完整|全面|清晰|可行|到位|高效|便利|领先|优良)$")
_VERB_CUT = re.compile(r"(?:满足|优于|符合|达到|不低于|高于)")


def point_heading(point: str, suffix: str = "", criteria: str = "") -> str | None:
    """``point`` as a heading (noun phrase, ≤ 20 characters), or None when it cannot be one.

    ``suffix`` (the library entry's ``point_suffix``) completes a bare noun ("火灾" →
    "火灾应急处置"); ``criteria`` lets the check refuse a clause copied whole.
    """
    t = _squash(point).strip(" ，,。；;：:、")
    t = _PAREN.sub("", t)
    m = _COLON.search(t)
    if m:
        t = t[: m.start()] if m.start() >= 3 else t[m.end():]
    t = re.sub(rf"^[{_CIRCLED}]|^\d+[、.．]|^[（(]\d+[)）]", "", t)
    t = _LEAD.sub("", t) if re.search(r"包括|包含|不限于|针对|对于", t) else t
    for _ in range(2):
        t = _strip_owner(t)
    t = re.sub(r"^根据", "", t)
    t = re.sub(r"^对(?:所有)?(?=项目|本|所有|投标|服务|人员|各)", "", t)
    t = re.sub(r"^(?:本次|本)(?=项目)", "", t)
    t = re.sub(r"^投标(?=产品|设备|货物|方案)", "", t)
    t = re.sub(r"^(?:具有|具备|达到|实现)", "", t)
    t = re.sub(r"[及和与]其他.*$", "", t)
    t = re.sub(r"各(?:个)?(?:环节|方面|项)", "", t)
    v = _VERB_CUT.search(t)
    if v and v.start() >= 4:
        t = t[: v.start()]
    t = _SCORE.sub("", t)
    t = _TAIL.sub("", t) or t
    t = _QUALITY_TAIL.sub("", t) or t
    t = re.sub(r"等(?!级|同|候|待)(?=[\u4e00-\u9fff]{2})", "", t)
    t = t.strip(" ，,。；;：:、的")
    if "、" in t:
        parts = [p for p in t.split("、") if p]
        t = "".join(parts) if all(len(p) <= 3 for p in parts) else "与".join(parts) if len(parts) == 2 else t
        if "、" in t:
            return None
    if "的" in t:
        head, _, tail = t.rpartition("的")
        if len(t) > 12:
            t = head + tail if len(head + tail) <= MAX_HEADING else tail
        elif len(head) <= 5 and len(tail) >= 2:
            t = head + tail
    for pattern, fix in _PREDICATE_FIX:
        if pattern.search(t):
            t = fix(t)
            break
    else:
        e = _EVALUATIVE_TAIL.search(t)
        if e and e.start() >= 4:
            t = t[: e.start()]
    if suffix and (len(t) < 4 or not ends_with_heading_noun(t)) and not _needs_no_suffix(t):
        t = _merge_suffix(t, suffix)
    if not 3 <= len(t) <= MAX_HEADING or fragment_problem(t, criteria) is not None or evidence_problem(t):
        return None
    return t


def _needs_no_suffix(text: str) -> bool:
    """Predicates and verbs are not completed by a suffix: they are refused instead."""
    return fragment_problem(text + "管理") is not None


def point_headings(criteria: str, suffix: str = "", limit: int = 10) -> list[tuple[str, list[str]]]:
    """Headings for the points of ``criteria``: ``(heading, sub-headings)`` pairs, in order, unique."""
    out: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    for p in split_criteria(criteria):
        h = point_heading(p.text, suffix, criteria)
        if h is None or h in seen:
            continue
        seen.add(h)
        subs = [s for s in dict.fromkeys(point_heading(x, "", criteria) for x in p.items) if s and s != h]
        out.append((h, [s for s in subs if s is not None]))
        if len(out) >= limit:
            break
    return out

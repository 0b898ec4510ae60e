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

from app.core.rules.heading_form import JUDGING_WORDS, ends_with_heading_noun, form_problem, is_predicate
from app.pipeline.headings.criteria_clauses import (
    graded_block_points,
    judged_items,
    qualities,
    share_each_head,
    share_tail_phrase,
)

_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
_NUMBERED_LINE = re.compile(r"(?:^|\n|[。；;])\s*(?:[（(]\s*(\d{1,2})\s*[)）]|(\d{1,2})\s*[、.．](?!\d))")
_SCORE = re.compile(r"\d+(?:\.\d+)?\s*(?:[-~～—至]\s*\d+(?:\.\d+)?\s*)?分")
_GRADE_WORDS = re.compile(r"较|一般|差|不足|欠缺|未提供|不提供|缺失|缺漏|不得分|无相关|扣|空洞|不够|基本")
_LEAD = re.compile(
    r"^.*?(?:包括但不限于|包含但不限于|但不限于|不限于|至少包括|至少包含|包括|包含|主要有|分别为|如下|针对本项目的?|针对|"
    r"对于|对|从)[:：]?"
)
_TAIL = re.compile(
    r"(?:等(?:各个|各)?(?:方面|环节|内容|事项|情况)?|(?:各个|各)?(?:方面|环节))?(?:的)?(?:进行|综合|作出|做出)?"
    r"(?:评审|评分|打分|评价|阐述|说明|描述|论述)?$"
)
_ROLES = r"投标人|投标单位|供应商|响应人|磋商供应商|应答人|比选申请人|报价人|参选人|我方|我公司"
_OWNER = re.compile(
    rf"^(?:根据|按照|依据|对|就)?(?:本次|本)?(?:{_ROLES})?(?:为|对|针对)?(?:本次|本)?(?:项目|采购项目)?"
    r"(?:所)?(?:提供|制定|制订|编制|拟派|配置|投入|配备|拟投入|设置)?的"
)
_OWNER_WORDS = re.compile(rf"{_ROLES}|提供|制定|制订|编制|拟派|配置|投入|配备|设置|根据")
#: The bidder and what it must do, in front of the thing asked for ("应答人提供技术方案" → 技术方案).
_ROLE_LEAD = re.compile(rf"^(?:{_ROLES})(?:须|需|应|应当|必须)?(?:提供|提交|编制|制定|制订|出具|具有|具备)?")


def _strip_owner(text: str) -> str:
    """Drop "投标单位为本项目配置的" and "应答人提供" style leads (not a plain "项目的")."""
    m = _OWNER.match(text)
    if m and _OWNER_WORDS.search(m.group()) and len(text) - m.end() >= 2:
        return text[m.end():]
    r = _ROLE_LEAD.match(text)
    if r and r.end() > 0 and len(text) - r.end() >= 2:
        return text[r.end():]
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
        if (_is_grade(body) and _GRADE_WORDS.search(body)) or _TIER_ONLY.match(body):
            continue  # ①方案详实…得3分 ②方案合理…得2分: grade levels, not points
        out.append(_point_with_items(body, "circled"))
    return out


#: A tier of the grading: judgements only, then the points ("方案详实、内容完整、操作性强的得2.1-3分").
_TIER_ONLY = re.compile(rf"^(?:[^，,。；;]*?(?:{JUDGING_WORDS}|粗糙|缺漏|较差|一般|操作性|常规)[、，,]?)+的?得")


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
    obj = _OBJECT.search(head)
    if obj:  # "根据投标人服务方案中对X的内容进行评审": X
        head = _object_of(obj.group(1))
    return CriteriaPoint(text=head.strip(" ，,。；;：:、"), kind=kind, items=items, points=points)


_PREDICATE_START = re.compile(r"(?:齐全|完善|及时|并能|满足|符合|达到|优于|合理|到位|科学)")


def _enumeration(text: str) -> list[str]:
    """Items of the best 甲、乙、丙 run in ``text`` (lead words and trailing 等 removed).

    A run inside parentheses wins (that is where tenders put 包括…) unless it only gives examples (如…等) and the
    sentence has a run of its own; a shared tail on the
    last item ("甲、乙、丙的应急预案") is given to every item that lacks it.
    """
    found = list(re.finditer(r"[（(]([^（）()]*、[^（）()]*)[)）]", text))
    inner = [m.group(1) for m in found]
    # a note on a noun inside the sentence (硬件（如专业图形显卡、高性能CPU等）的供应渠道…, 适配性（适配…、…等）等):
    # examples, not the parts asked for — the sentence's own run comes first
    examples = [m.group(1) for m in found if re.match(r"(?:如|例如|比如|诸如)", m.group(1))
                or (not re.match(r"(?:包括|包含|含|主要|具体|其中)", m.group(1))
                    and re.match(r"的|等", text[m.end():]) and "、" in _PAREN.sub("", text))]
    outer = _PAREN.sub("，", text)
    for source in (*(x for x in inner if x not in examples), outer, *examples):
        for clause in re.split(r"[，,。；;\n：:]", source):
            if "、" not in clause:
                continue
            parts = clause.split("、")
            parts[0] = _LEAD.sub("", parts[0]) or parts[0]
            parts[0] = _strip_owner(re.sub(r"^(?:如|例如|比如|诸如)(?=[\u4e00-\u9fff]{2})", "", parts[0]))
            parts[-1] = re.sub(r"[及和与]其他.*$", "", _cut_etc(parts[-1]))
            p = _PREDICATE_START.search(parts[-1])
            if p and p.start() >= 2:
                parts[-1] = parts[-1][: p.start()]
            items = [x.strip(" （）()：:") for x in parts]
            items = [x for x in items if len(x) >= 2 and not _SCORE.search(x)]
            if qualities(items):  # qualities of one thing: the thing is the point
                return judged_items(items)
            items = judged_items(items)
            if len(items) >= 2:
                return _share_tail(items)
    return []


def _share_tail(items: list[str]) -> list[str]:
    last = items[-1]
    if "的" not in last:
        return share_tail_phrase(items)  # "机具、工具、材料、及各类生产生活用品管理制度": each names a 管理制度
    head, _, tail = last.rpartition("的")
    if len(tail) < 4 or not ends_with_heading_noun(tail) or len(head) < 2:
        return items
    if any(len(x) > 6 or re.search(r"(?:预案|方案|措施|计划|制度|机制|体系)$", x) for x in items[:-1]):
        return items  # whole parts of their own ("服务保障应急预案、…、故障处理的组织和联系机制")
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
    firsts = [re.split(r"[。；;]", b, maxsplit=1)[0] for b in bodies]
    if all(_is_grade(b) and not _is_grade(f) and f != b for b, f in zip(bodies, firsts, strict=True)):
        # "1.有项目部组织框架图和管理分工体系。体系健全…得1分": the first sentence asks, the rest grades
        return [p for p in (_asked(f) for f in firsts) if p is not None]
    grades = sum(1 for b in bodies if _is_grade(b))
    if grades * 2 >= len(bodies):
        return []
    return [_point_with_items(b, "numbered") for b in bodies if not _is_grade(b)]


_ASK_LEAD = re.compile(r"^(?:有|需|须|应|应当|要求|针对|具有|具备|建立|制定|提供)+")


def _asked(sentence: str) -> CriteriaPoint | None:
    """The point a numbered requirement asks for ("有建立集动车列车保洁的各岗位生产责任制" → 各岗位生产责任制)."""
    first = re.split(r"[，,]", sentence, maxsplit=1)[0]
    obj = _OBJECT.search(first)
    text = _object_of(obj.group(1)) if obj else re.sub(r"^对", "", _ASK_LEAD.sub("", first))
    if "、" in text:  # "集动车列车保洁的各工种、各区域作业标准、指导书": the things listed
        listed = share_each_head(share_tail_phrase(judged_items(text.rpartition("的")[2].split("、")) or [text]))
        return CriteriaPoint(text=text, kind="numbered", items=listed)
    parts = judged_items([text])
    return CriteriaPoint(text=parts[0], kind="numbered") if parts and len(parts[0]) >= 2 else None


def _object_of(text: str) -> str:
    """The object of "…服务方案中对X" (what follows the last 中对 / 对)."""
    return re.split(r"中对|方案中", text)[-1] or text


_OBJECT = re.compile(
    r"(?:中对|方案中|根据|对|就)(?:投标人|投标单位|供应商|响应人)?(?:为本次?项目|针对本项目|对本项目)?(?:所)?(?:制订|制定|提供|编制)?的?"
    r"([^，,。；;（()）:：]{3,40}?)(?:的(?:内容|情况))?(?:进行|作)(?:综合)?(?:评审|评分|打分|评价)"
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


_LIST_LEAD_END = re.compile(r"(?:包括但不限于|包含但不限于|至少包括|至少包含|包括|包含|主要有|如下)$")
#: An object with a note of its contents ("项目开发计划（含里程碑、人员安排）"): the object is the point.
_CONTENTS_NOTE = re.compile(r"[\u4e00-\u9fff]{2}[（(]含[^）)]*、")


def split_criteria(criteria: str) -> list[CriteriaPoint]:
    """The points a criteria text asks for, in order, without grade levels or notes.

    Tried in order: circled numbers, numbered sub-criteria (not grade levels), then for each
    block (line or "（N分）" paragraph) the part before its grading: an enumeration, the single
    thing it evaluates ("根据…的应急服务方案进行评审"), or its first clause. A block whose grading
    sits inside its sentence, or whose list follows a colon, is read clause by clause
    (:mod:`.criteria_clauses`): the object, the list of its parts (如…等, 包括…, （含…）), the parts
    its top grade judges.
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
    def make(text: str, kind: str, items: list[str]) -> CriteriaPoint:
        return CriteriaPoint(text=text, kind=kind, items=items)

    for block in blocks:
        block = re.sub(r"^[（(]\d+(?:\.\d+)?分[)）]", "", block)
        head = _before_colon(block)
        if _is_grade(head) or _LIST_LEAD_END.search(head) or _CONTENTS_NOTE.search(head):  # read clause by clause
            out += [p for p in graded_block_points(block, make) if isinstance(p, CriteriaPoint)]
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
        else:  # a plain sentence: what it asks for, read clause by clause (a function a product must have)
            out += [p for p in graded_block_points(block, make) if isinstance(p, CriteriaPoint)]
    if any(p.kind != "judged" for p in out):  # what a grade judges counts only when the criteria name nothing else
        out = [p for p in out if p.kind != "judged"]
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


#: Words that name an aspect of the item (its time, place, aim, way, people, count, strengths), not an instance of it.
_ASPECT_END = re.compile(r"(?:时间|时限|地点|目标|方式|对象|次数|人数|频次|期限|范围|优势|特点|条件|经验|能力|数量|日志|质保期)$")
_EVALUATIVE_TAIL = re.compile(r"(?:稳定可靠|合理|先进|可靠|稳定|科学|完整|全面|清晰|可行|到位|高效|便利|领先|优良)$")
_VERB_CUT = re.compile(r"(?:满足|优于|符合|达到|不低于|高于)")


def point_heading(point: str, suffix: str = "", criteria: str = "") -> str | None:
    """``point`` as a heading (noun phrase, ≤ 20 characters), or None when it cannot be one.

    ``suffix`` (the library entry's ``point_suffix``) completes a bare noun ("火灾" →
    "火灾应急处置"); ``criteria`` lets the check refuse a clause copied whole.
    """
    t = _squash(point).strip(" ，,。；;：:、")
    t = _PAREN.sub("", t)
    t = re.sub(r"[（(][^）)]*$", "", t)  # a note cut off inside its bracket: the phrase before it stays
    t = re.sub(r"^[^（(]*[）)]", "", t) if re.match(r"^[^（(]*[）)]", t) else t  # and one whose bracket opened earlier
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
    # the criteria's verb or preposition in front of what is asked (对产品运输…, 有违约处罚承诺, 做好…, 尤其是…)
    t = re.sub(r"^(?:对(?![外内接口标比策象话])|有(?![害限机效线色偿关氧毒])|做好|重点考察|尤其是)(?=[\u4e00-\u9fff]{4})", "", t)
    t = re.sub(r"[及和与]其他.*$", "", t)
    t = re.sub(r"各(?:个)?(?:环节|方面|项)", "", t)
    v = _VERB_CUT.search(t)
    if v and v.start() >= 4:
        t = t[: v.start()]
    t = _SCORE.sub("", t)
    # the subject of a judgement cut before its qualities ("运维方案和实施安排应科学、合理" → 运维方案和实施安排):
    # the modal verb left at the end is no part of it (响应, 供应, 适应… are words of their own)
    t = re.sub(r"(?<=[\u4e00-\u9fff]{3})(?<![响供适对反相呼效感顺])(?:应当|应|必须|须)$", "", t)
    t = _TAIL.sub("", t) or t
    t = re.sub(r"(?<=[\u4e00-\u9fff]{4})(?:情况|内容|事项)$", "", t)  # "备品备件供应情况" → 备品备件供应; 培训内容 stays
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
        if re.fullmatch(f"(?:{JUDGING_WORDS}|、|和|及|且)+", head) or is_predicate(head):
            head = ""  # "科学合理的技术措施": the judgement goes, the part stays
        if len(t) > 12:
            t = head + tail if len(head + tail) <= MAX_HEADING else tail
        elif len(head) <= 5 and len(tail) >= 2:
            t = head + tail
    lead = re.match(r"^(?:详细|具体|完整|完善|切实可行|科学)的?(?=[\u4e00-\u9fff]{4})", t)
    if lead and ends_with_heading_noun(t):
        t = t[lead.end():]  # "详细项目开发计划": what is asked for is the plan; how good it is, the evaluator says
    for pattern, fix in _PREDICATE_FIX:
        if pattern.search(t):
            t = fix(t)
            break
    else:
        e = _EVALUATIVE_TAIL.search(t)
        if e and e.start() >= 4:
            t = t[: e.start()]
    if suffix and (len(t) < 4 or not ends_with_heading_noun(t)) and not _needs_no_suffix(t):
        if not _ASPECT_END.search(t):
            t = _merge_suffix(t, suffix)  # an instance of what the item is about: 火灾 → 火灾应急处置
        elif len(t) <= 2 and len(suffix) <= 2:
            t = suffix + t  # an aspect of it: 培训的地点 is 培训地点, never 地点培训
        # an aspect already named (响应时间, 服务优势, 质保期) stays as it is: 响应时间售后保障 reads as no heading
    if not 3 <= len(t) <= MAX_HEADING or form_problem(t, criteria) is not None:
        return None
    return t


def _needs_no_suffix(text: str) -> bool:
    """Predicates, verbs, judging words and cut words are not completed by a suffix ("可执行性强" never becomes
    可执行性强售后保障): they are refused instead."""
    return is_predicate(text) or form_problem(text + "管理") is not None


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

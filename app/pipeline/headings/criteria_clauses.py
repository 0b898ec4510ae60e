"""Points read from a criteria sentence that carries its own grading, clause by clause.

Many criteria cells are one sentence: what is asked, a list of its parts, and the grade, joined by
commas — "投标人提供的系统可用性保障方案，如冗余设计、故障切换等，方案完善得10分". Read as a
whole such a sentence is a grade level and yields nothing; read by its structure it names a point
and its parts. :func:`graded_block_points` splits a block into sentences and clauses (outside
brackets) and reads each clause for what it is:

- a note about documents ("以上资料均要求提供扫描件加盖公章", "注明…位置") — skipped;
- a grading clause — only the top tier is read, and only the parts it judges: "技术措施科学合理、
  可执行性强" judges 技术措施 (可执行性 is a quality, not a part);
- an object with a note of its contents ("提供详细项目开发计划（含里程碑、人员安排）") — the point,
  its contents its items;
- a list led by 如 / 包括 / 含 / 主要有 ("如冗余设计、故障切换等") — the parts of the point before it,
  or points of their own;
- an object ("投标人提供的X", "根据…的X进行评审") — a point.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from app.core.rules.heading_form import JUDGING_WORDS, document_problem

#: A sentence that only tells the bidder what to hand in, or only grades.
_NOTE = re.compile(r"^(?:注|备注|说明)[:：]|^以上|^上述|^未提供|^不提供|^缺项|^没有")
_SCORED = re.compile(r"\d+(?:\.\d+)?\s*(?:[-~～—至]\s*\d+(?:\.\d+)?\s*)?分|不得分|加分|扣分|满分")
_TIER = re.compile(r"(?<!比)较|一般|基本|欠缺|不足|不够|差|缺漏|存在缺陷|简单|粗糙|未提供|仅提供|不提供")
_LIST_LEAD = re.compile(r"^(?:如|例如|比如|包括但不限于|包含但不限于|至少包括|至少包含|包括|包含|含|主要有|主要包括|具体包括)[:：]?")
_CONNECTIVE = re.compile(r"^(?:在此基础上|此外|另外|同时|并且|而且|其中)[，,]?")
_WITH_NOTE = re.compile(r"^(.{2,24}?)[（(](?:含|包含|包括|如)([^（）()]+)[）)]")
_PROVIDED = re.compile(
    r"^(?:投标人|投标单位|供应商|响应人|应答人|磋商供应商|我方)?(?:须|需|应)?(?:提供|编制|制定|制订|提交)(?:的)?(.{2,24})$"
    r"|^(?:投标人|投标单位|供应商|响应人|应答人|磋商供应商)(?:所)?(?:提供|编制|制定|制订|提交)的(.{2,24})$")
#: What a grade asks the bidder to have ("有道班房的…得5分", "具有自有仓库的").
_HAS = re.compile(r"(?:具有|拥有|(?<![自具拥没])有)(?![或和及与一二三四五六七八九十]|\d)(?:自有|固定|独立)?的?"
                  r"([\u4e00-\u9fff]{2,8}?)(?:的|并|且|，|,|得)")
#: A product's function a criterion checks ("所投设备支持对镜头前盖玻璃加热").
_FEATURE = re.compile(r"(?:设备|产品|系统|软件|平台|终端|主机)(?:应|须|需)?(?:支持|具备|具有|实现)(?:对)?([\u4e00-\u9fffA-Za-z0-9]{4,18})$")
#: What a grading clause says of a part: "理解透彻", "科学合理", "可执行性强", "到位".
_JUDGED_TAIL = re.compile(
    rf"(?:(?:{JUDGING_WORDS}|透彻|到位|得当|恰当|及时|周全|合规|领先|优|强|好|高|佳|清楚|严谨|严格|完备|丰富)+"
    r"|(?:满足|符合|优于)(?:采购|招标|磋商)?(?:文件|项目|需求)?(?:的)?要求)"
    r"(?:的)?(?:[，,].*)?(?:得\s*\d.*)?$")
_QUALITY = re.compile(r"(?:性|度)$")
#: Nouns a grading clause names that say nothing of which part it judges ("方案完善", "措施可行").
_GENERIC = frozenset({"方案", "措施", "计划", "内容", "服务", "方案内容", "整体方案", "总体方案", "管理"})

PointMaker = Callable[[str, str, list[str]], object]


def _clauses(sentence: str) -> list[str]:
    """The clauses of a sentence, split at commas and colons outside brackets."""
    out: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(sentence):
        if ch in "（(":
            depth += 1
        elif ch in "）)":
            depth = max(0, depth - 1)
        elif ch in "，,:：" and depth == 0:
            out.append(sentence[start:i])
            start = i + 1
    out.append(sentence[start:])
    return [c.strip() for c in out if c.strip()]


_VERB_LEAD = re.compile(r"^(?:投标人|投标单位|供应商|响应人|应答人)?(?:须|需|应)?(?:提供|编制|制定|制订|提交|具有|具备)")
_QUALITY_HEAD = re.compile(r"^(.{1,6}性)(.{2,12})$")


_TAIL_PHRASE = re.compile(r"(?:管理)?(?:制度|方案|措施|计划|规范|标准|流程|台账)$")
_HEADING_END = re.compile(r"(?:方案|措施|计划|制度|机制|体系|流程|管理|服务|标准|规范|台账|预案)$")


def share_tail_phrase(items: list[str]) -> list[str]:
    """Short nouns sharing the last item's heading noun ("机具、工具、材料、及各类生产生活用品管理制度" →
    机具管理制度, 工具管理制度, 材料管理制度, 各类生产生活用品管理制度)."""
    last = items[-1]
    phrase = _TAIL_PHRASE.search(last)
    if "的" in last or not phrase or len(last) <= len(phrase.group()) + 1 or not re.match(r"^(?:及|以及|和|与|各类)", last):
        return items  # only a list closed by 及/各类 shares its noun ("服务特点、难点分析、员工激励措施" does not)
    if not all(len(x) <= 4 and not _HEADING_END.search(x) for x in items[:-1]):
        return items
    return [re.sub(r"^各类", "", x) + phrase.group() for x in items[:-1]] + [re.sub(r"^[及和与]", "", last)]


_BARE_EACH = re.compile(r"^各[\u4e00-\u9fff]{2}$")


def share_each_head(items: list[str]) -> list[str]:
    """A bare 各X before a 各Y that names its thing shares that thing ("各工种、各区域作业标准" → 各工种作业标准,
    各区域作业标准): 各工种 alone names whose, not what."""
    out = list(items)
    for i in range(len(out) - 1):
        x, nxt = out[i], out[i + 1]
        tail = nxt[3:]
        if _BARE_EACH.match(x) and nxt.startswith("各") and len(tail) >= 2 and _HEADING_END.search(tail):
            out[i] = x + tail
    return out


def _shared_quality_tail(items: list[str]) -> list[str]:
    """A list of qualities sharing the last item's noun ("提供安全性、稳定性管理措施" → 安全性管理措施,
    稳定性管理措施); the verb in front of the first item goes."""
    items = [_VERB_LEAD.sub("", items[0]) or items[0], *items[1:]]
    last = _QUALITY_HEAD.match(items[-1])
    if last and all(x.endswith("性") and len(x) <= 6 for x in items[:-1]):
        return [x + last.group(2) for x in items[:-1]] + [items[-1]]
    return share_tail_phrase(items)


#: The judgement that ends an item of a list of what the evaluator looks at ("服务方案科学合理性", "培训方案详实程度",
#: "定期巡检是否符合实际", "售后服务机构设置情况", "措施完善方面").
_ITEM_JUDGEMENT = re.compile(
    rf"(?:是否.*|的?(?:{JUDGING_WORDS}|内容)*程度|的?(?:{JUDGING_WORDS})*(?:合理|科学|可行|完整|先进|针对|有效|全面)性"
    rf"|(?:情况)?(?:综合)?评分|方面|(?:描述|表述)?(?:{JUDGING_WORDS}|到位|透彻|齐全|清楚|切合实际|且|强)+"
    r"|(?:符合|满足|优于)(?:招标|采购|磋商|项目)?(?:文件)?(?:的)?(?:要求|特点|需求)|针对性(?:强|一般|不足))$")
_QUALITY_ITEM = re.compile(r"^(?:.{0,12}的)?[\u4e00-\u9fff]{1,4}性$")


_OWNER_LEAD = re.compile(r"^(?:根据|按照|依据|对|就)?(?:本次|本)?(?:投标人|投标单位|供应商|响应人|应答人)?(?:为本项目|针对本项目)?"
                         r"(?:所)?(?:提供|制定|制订|编制)?的?(?=[\u4e00-\u9fff]{2})")


def qualities(items: list[str]) -> bool:
    """Whether a list names qualities of one thing ("技术设计方案的成熟性、安全性、扩展性"), not its parts."""
    return len(items) >= 2 and sum(1 for x in items if _QUALITY_ITEM.match(x)) * 2 > len(items)


def judged_items(items: list[str]) -> list[str]:
    """A list of what the evaluator looks at, as parts of the bid: each item without its judgement
    ("服务方案科学合理性" → 服务方案, "定期巡检是否符合实际" → 定期巡检); a list of qualities of one thing
    ("技术设计方案的成熟性、安全性、扩展性") is that thing; generic words alone (计划, 措施) are no part."""
    if qualities(items):
        head = _OWNER_LEAD.sub("", items[0].rpartition("的")[0])
        return [head] if len(head) >= 2 else []
    out: list[str] = []
    for item in items:
        if len(re.findall(r"[\u4e00-\u9fff]", item)) < 2:
            continue  # "192*144": a value, not a part
        feature = _FEATURE.search(item)
        part = feature.group(1) if feature else item
        for _ in range(3):  # "内容切合实际情况评分": 情况评分, then 切合实际
            cut = _ITEM_JUDGEMENT.sub("", part).rstrip("的")
            if cut == part:
                break
            part = cut
        if part != item and (len(part) < 2 or part in _GENERIC or _QUALITY.search(part)):
            continue
        if part not in out:
            out.append(part)
    return out


def graded(clause: str) -> bool:
    """Whether a clause grades (it states points, or it is a lower tier)."""
    return bool(_SCORED.search(clause))


def judged_parts(clause: str) -> list[str]:
    """The parts a grading clause judges ("技术措施科学合理、可执行性强的得10分" → 技术措施), without qualities."""
    body = _SCORED.split(clause, maxsplit=1)[0]
    body = re.sub(r"(?:的)?得$|(?:的)?(?:可|计|加)?$", "", body)
    out: list[str] = []
    for part in re.split(r"[、]|且|并且|并", body):
        part = re.sub(r"^(?:[①-⑳]|\d+[、.．])?(?:对|就|在)?", "", part.strip())
        m = _JUDGED_TAIL.search(part)
        if not m or m.start() < 2:
            continue
        noun = part[: m.start()]
        if (len(noun) >= 3 and not _QUALITY.search(noun) and not re.fullmatch(f"(?:{JUDGING_WORDS})+", noun)
                and noun not in _GENERIC):
            out.append(noun)
    return out


def graded_block_points(block: str, make: PointMaker) -> list[object]:
    """Points of a block whose grading sits inside its sentences (see the module docstring).

    ``make(text, kind, items)`` builds a point (the caller's :class:`CriteriaPoint`).
    """
    points: list[object] = []
    judged_read = False
    for sentence in re.split(r"[。；;]", block):
        sentence = _CONNECTIVE.sub("", re.sub(r"^\s*(?:\d{1,2}[、.．]|[（(]\d{1,2}[)）]|[①-⑳])", "", sentence.strip()))
        if not sentence or _NOTE.search(sentence):
            continue
        scored = graded(sentence)
        if scored and _TIER.search(sentence):
            continue  # a lower grade: "服务方案较符合招标要求…得12分" names nothing new
        last: list[str] | None = None  # the items list of the point just read (a list after it is its parts)
        previous = ""  # the clause before, when it named nothing itself ("常规供应交货期满足要求的，得1分")
        for clause in _clauses(sentence):
            clause = _CONNECTIVE.sub("", clause)
            if not clause or document_problem(clause):
                continue
            note = _WITH_NOTE.match(clause)
            if note:  # "提供详细项目开发计划（含里程碑、人员安排）的加2分": the object and its contents
                items = [x for x in re.split(r"[、]", re.sub(r"等$", "", note.group(2))) if len(x) >= 2]
                obj = _PROVIDED.match(note.group(1))
                points.append(make((obj.group(1) or obj.group(2)) if obj else note.group(1), "object", items))
                last = items
                continue
            if graded(clause):
                if not judged_read and not _TIER.search(previous + clause):
                    nouns = judged_parts(clause) or (judged_parts(previous + "，" + clause) if previous else [])
                    owned = _HAS.search(previous + clause)
                    if not nouns and owned:  # "在…范围内有道班房的…得5分": what the bidder must have
                        nouns = [owned.group(1)]
                    for noun in nouns:
                        points.append(make(noun, "judged", []))
                    judged_read = True
                continue
            lead = _LIST_LEAD.match(clause)
            items = [x for x in re.split(r"[、]", re.sub(r"等.*$", "", clause[lead.end():] if lead else clause))
                     if len(x) >= 2]
            if lead and last is not None and len(items) >= 1:
                last.extend(items)
                continue
            if len(items) >= 2:
                items = [_OWNER_LEAD.sub("", items[0]), *items[1:]]
                if scored and not qualities(items) and judged_items(items) != items:
                    continue  # the grade's own judgements ("符合招标要求、表述清晰且完整"), not a list of parts
                parts = judged_items(items) if qualities(items) else judged_items(_shared_quality_tail(items))
                points.extend(make(x, "enumeration", []) for x in parts)
                last = None
                continue
            obj = _PROVIDED.match(clause)
            if obj:
                kids: list[str] = []
                points.append(make(obj.group(1) or obj.group(2), "object", kids))
                last = kids
                continue
            feature = _FEATURE.search(clause)
            if feature:  # "投标设备支持对镜头前盖玻璃加热": the function the evaluator checks
                points.append(make(feature.group(1), "feature", []))
                continue
            previous = clause
    return points

"""提交前检查: the rules that decide 废标 (or an obviously unfinished bid), run before export.

Each rule reads the outline, the analysis and the breakdown (and what the caller knows:
which ★/▲ clauses the text addresses, the tender's page limit, the page count) and
returns :class:`Finding` rows; ``blocking`` ones are what a bid office would refuse to
hand in. The rules:

- every ★ clause answered — the deviation table row must not be the default 待确认 on a
  clause the text does not address (▲: a warning; a clause the user marked as answered
  by a section whose text does not show it: a warning to check);
- the page limit (技术标不超过 N 页), against the laid-out or estimated page count;
- the order the tender prescribes — the technical scoring items' chapters, in order, and the
  parts a tender prescribes for the technical part ("须按以下顺序编写…"), each present and in order;
- 暗标: the bidder's name (and its short forms), company names, phone numbers, e-mail
  addresses and people's names after a role word (项目经理：张某某) anywhere in the text;
- empty sections and placeholder text (【…】, XXX, ×××, a bare 某某 — not a quoted or 张某某 name);
- the 商务 part (the tender's own forms): 资格与符合性自查 — each 资格要求 and 审查表 row with its
  evidence, 缺 or 过期 blocking (:func:`review_findings`) — and one story through the whole bid:
  the same company name, project number, price (小写 and 大写), date and signatory everywhere
  (:func:`consistency_findings`). 暗标 rules read the technical part only: the 商务 part names the
  bidder by design.

:func:`grouped` gathers the findings of a rule that comes many times (95 空章节) into one row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from app.core.amount_words import AmountError, amount_in_words, parse_amount
from app.core.analysis import Analysis
from app.core.bid_forms import ItemCheck
from app.core.breakdown import Breakdown
from app.core.outline import OutlineNode, Path
from app.core.response_map import find_section, unanswered_groups
from app.export.anonymity import name_forms
from app.export.bidder_names import find_form

#: Characters of body text per printed page (A4, 小四 body, headings and spacing included).
CHARS_PER_PAGE = 650
_PLACEHOLDER = re.compile(r"【[^】]{0,30}】|[Xx×＊*]{3,}|＿{3,}|_{4,}|(?:待补充|待填写|此处填写|TODO)")
#: 某某 is a placeholder unless it stands for a name on purpose: quoted (“某某物业”, 《某某办法》) or a
#: person's name with a surname (张某某, as a 暗标 writes).
_SOMEONE = re.compile(r"某某")
_PHONE = re.compile(r"(?<!\d)(?:1[3-9]\d{9}|0\d{2,3}-?\d{7,8}|400-?\d{3}-?\d{4})(?!\d)")
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
_COMPANY = re.compile(r"[\u4e00-\u9fff]{2,14}(?:有限责任公司|股份有限公司|有限公司|集团公司|集团)")
_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
             "姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤")
_PERSON = re.compile(
    r"(?:项目经理|项目负责人|技术负责人|负责人|联系人|经理|主管|总监|工程师|组长|队长|法定代表人|授权代表)"
    rf"(?:为|是|由|[：:（(]\s*)?([{_SURNAMES}][\u4e00-\u9fff]{{1,2}})(?=[，,。；;）)、\s]|先生|女士|同志|担任|负责|$)")
_NOT_NAMES = re.compile(r"^.(?:某|XX|xx|务|责|理|工|人|员|级|师|体|要|导)")
_PAGE_LIMIT = re.compile(
    r"技术(?:标|部分|文件|方案|响应文件)[^。；\n]{0,12}?(?:不得|不应|不宜|不能|严禁)?(?:超过|多于|超出|大于|控制在|限)\s*(\d{1,4})\s*页")


@dataclass(frozen=True)
class Finding:
    """One row of the 提交前检查 list: which rule, what is wrong, where, and whether it blocks."""

    rule: str
    message: str
    blocking: bool
    path: Path | None = None


def page_limit_in(text: str) -> int | None:
    """The page limit the tender states for the technical part (技术标不超过 N 页), or None."""
    m = _PAGE_LIMIT.search(re.sub(r"[ \t\u3000]+", "", text or ""))
    return int(m.group(1)) if m else None


def estimated_pages(chapters: Sequence[OutlineNode]) -> int:
    """A page count from the text's length (used before the layout pass gives the real one)."""
    chars = sum(len(n.title) + 40 + len(n.content) for _, n in _walk(chapters))
    return max(1, -(-chars // CHARS_PER_PAGE))


def _walk(chapters: Sequence[OutlineNode]) -> Iterable[tuple[Path, OutlineNode]]:
    for i, chapter in enumerate(chapters):
        yield (i,), chapter
        yield from chapter.walk((i,))


def _number(path: Path) -> str:
    return ".".join(str(i + 1) for i in path)


def clause_findings(breakdown: Breakdown | None, chapters: Sequence[OutlineNode],
                    addressed: dict[int, str] | None) -> list[Finding]:
    """★ clauses left at the default 待确认 although no text answers them (blocking); ▲ ones warn."""
    if breakdown is None:
        return []
    out = []
    for index, risk in breakdown.marked():
        where = (addressed or {}).get(index, "")
        filled = bool(risk.response.strip()) or risk.deviation != "待确认"  # the writer chose a deviation
        pointed = find_section(chapters, risk.answered_in) if risk.answered_in else None
        short = risk.text[:40] + ("…" if len(risk.text) > 40 else "")
        if where or filled:
            if risk.mark == "★" and pointed is None and not filled:
                out.append(Finding("★条款", f"“{short}”在“{where}”有回应，但偏离表未指明响应章节", False))
            continue
        if pointed is not None:  # the user says this section answers it: code only asks to check
            out.append(Finding(f"{risk.mark}条款", f"“{short}”标注由 {risk.answered_in} 响应，但该节正文未见条款要点，请核对",
                               False, pointed))
            continue
        blocking = risk.mark == "★"
        out.append(Finding(f"{risk.mark}条款", f"“{short}”正文没有回应，偏离表仍是默认“待确认”", blocking, pointed))
    return out


def page_findings(limit: int | None, pages: int | None, estimated: bool) -> list[Finding]:
    """The page limit, when the tender states one."""
    if limit is None or pages is None or pages <= limit:
        return []
    how = "估算" if estimated else "排版后"
    return [Finding("页数限制", f"招标文件要求技术标不超过 {limit} 页，{how}正文约 {pages} 页", not estimated)]


def order_findings(analysis: Analysis, chapters: Sequence[OutlineNode]) -> list[Finding]:
    """Technical scoring items no section answers, and chapters out of the scoring table's order.

    Both lose points rather than void the bid: warnings.
    """
    wanted = [g.id for g in analysis.technical_groups]
    if not wanted:
        return []
    seen = [(i, c.source_requirement_id) for i, c in enumerate(chapters) if c.source_requirement_id in wanted]
    if not seen:  # a free-mode outline: the index table answers the order
        return []
    out = []
    have = {rid for _, rid in seen}
    unanswered = {g.id for g in unanswered_groups(analysis, chapters)}
    for g in analysis.technical_groups:
        if g.id not in have and g.id in unanswered:
            out.append(Finding("章节顺序", f"评分项“{g.title}”没有对应的章节", False))
    order = [rid for _, rid in seen]
    expected = [rid for rid in wanted if rid in have]
    if order != expected:
        first = next(k for k, (a, b) in enumerate(zip(order, expected, strict=False)) if a != b)
        i = seen[first][0]
        out.append(Finding("章节顺序", f"第 {i + 1} 章“{chapters[i].title}”不在评分表规定的顺序上", False, (i,)))
    return out


def _same_heading(wanted: str, have: str) -> bool:
    """A chapter title answers a prescribed one: equal, one inside the other, or mostly the same words."""
    from app.core.similarity import normalize_text, similarity

    a, b = normalize_text(wanted), normalize_text(have)
    if not a or not b:
        return False
    return a == b or (len(a) >= 2 and a in b) or (len(b) >= 4 and b in a) or similarity(a, b, n=2) >= 0.5


def prescribed_findings(prescribed: Sequence[str], chapters: Sequence[OutlineNode]) -> list[Finding]:
    """The technical part's structure the tender prescribes ("须按以下顺序编写"): each part present, in order.

    A prescribed part no chapter answers is blocking (a bid that leaves out a required part may be
    rejected); parts out of order warn.
    """
    if not prescribed or not chapters:
        return []
    out: list[Finding] = []
    found: list[tuple[int, int]] = []  # (prescribed index, chapter index)
    for k, title in enumerate(prescribed):
        hit = next((i for i, c in enumerate(chapters) if _same_heading(title, c.title)), None)
        if hit is None:
            out.append(Finding("规定结构", f"招标文件规定的技术部分“{title}”没有对应的章节", True))
        else:
            found.append((k, hit))
    positions = [i for _k, i in found]
    if positions != sorted(positions):
        first = next(n for n in range(1, len(positions)) if positions[n] < positions[n - 1])
        k, i = found[first]
        out.append(Finding("规定结构", f"第 {i + 1} 章“{chapters[i].title}”不在招标文件规定的顺序上"
                                       f"（规定的第 {k + 1} 部分）", False, (i,)))
    return out


def anonymity_findings(chapters: Sequence[OutlineNode], bidder: str = "", aliases: Sequence[str] = ()) -> list[Finding]:
    """暗标: the bidder's name, company names, phone numbers, e-mails and people's names in titles and text."""
    forms = name_forms(bidder, aliases) if bidder.strip() else None
    out: list[Finding] = []
    for path, node in _walk(chapters):
        where = f"{_number(path)} {node.title}"
        for text in (node.title, node.content):
            if not text:
                continue
            found = find_form(text, forms) if forms else None
            hit = found[0] if found and found[1] else None
            if hit:
                out.append(Finding("暗标", f"“{where}”出现投标人名称（{hit}）", True, path))
            elif found:
                out.append(Finding("暗标", f"“{where}”出现“{found[0]}”（可能是投标人简称），请确认", False, path))
            for m in _COMPANY.finditer(text):
                if not hit:
                    out.append(Finding("暗标", f"“{where}”出现公司名称“{m.group()}”，请确认不是本单位", False, path))
                    break
            for pattern, what in ((_PHONE, "电话号码"), (_EMAIL, "电子邮箱")):
                m2 = pattern.search(text)
                if m2:
                    out.append(Finding("暗标", f"“{where}”出现{what}“{m2.group()}”", True, path))
            for m3 in _PERSON.finditer(text):
                if not _NOT_NAMES.match(m3.group(1)):
                    out.append(Finding("暗标", f"“{where}”出现人名“{m3.group(1)}”", True, path))
                    break
    return out


def _quoted(text: str, at: int) -> bool:
    """Whether position ``at`` lies inside quotation marks or 书名号 of its own paragraph."""
    start = text.rfind("\n", 0, at) + 1
    before = text[start:at]
    opened = sum(before.count(q) for q in "“《「『") - sum(before.count(q) for q in "”》」』")
    return opened > 0 or before.count('"') % 2 == 1


def placeholder_in(text: str) -> str | None:
    """The first placeholder left in ``text`` (【…】, XXX, 待补充, a bare 某某), or None."""
    m = _PLACEHOLDER.search(text or "")
    found = [(m.start(), m.group())] if m else []
    for s in _SOMEONE.finditer(text or ""):
        named = s.start() > 0 and text[s.start() - 1] in _SURNAMES
        if not named and not _quoted(text, s.start()):
            found.append((s.start(), s.group()))
            break
    return min(found)[1] if found else None


def text_findings(chapters: Sequence[OutlineNode]) -> list[Finding]:
    """Empty sections (a leaf without text) and placeholder text left in titles or text."""
    out: list[Finding] = []
    for path, node in _walk(chapters):
        where = f"{_number(path)} {node.title}"
        if not node.children and not node.content.strip():
            out.append(Finding("空章节", f"“{where}”没有正文", True, path))
        for text in (node.title, node.content):
            hit = placeholder_in(text)
            if hit:
                out.append(Finding("占位文字", f"“{where}”含占位文字“{hit}”", True, path))
                break
    return out


#: A rule with this many findings is listed as one row the user opens (95 空章节 are one line, not 95).
GROUP_FROM = 4
_GROUP_SAYS = {"空章节": "{n} 节没有正文", "占位文字": "{n} 节含占位文字", "暗标": "{n} 处可能暴露投标人身份"}


@dataclass(frozen=True)
class FindingGroup:
    """Findings of one rule shown as one row: the rule, whether they block, a summary, the findings."""

    rule: str
    blocking: bool
    message: str
    findings: tuple[Finding, ...]


def grouped(findings: Sequence[Finding], at_least: int = GROUP_FROM) -> list[Finding | FindingGroup]:
    """The findings in their order, those of one rule (and blocking-ness) that come ``at_least`` times
    or more gathered into one :class:`FindingGroup` where the first of them stood."""
    count: dict[tuple[str, bool], int] = {}
    for f in findings:
        count[(f.rule, f.blocking)] = count.get((f.rule, f.blocking), 0) + 1
    out: list[Finding | FindingGroup] = []
    done: set[tuple[str, bool]] = set()
    for f in findings:
        key = (f.rule, f.blocking)
        if count[key] < at_least:
            out.append(f)
        elif key not in done:
            done.add(key)
            members = tuple(g for g in findings if (g.rule, g.blocking) == key)
            says = _GROUP_SAYS.get(f.rule, "{n} 处").format(n=len(members))
            out.append(FindingGroup(f.rule, f.blocking, says, members))
    return out


# ---------------------------------------------------------------------------- the 商务 part (issue 39)

_SAME_FIELDS = {"bidder_name": "投标人名称", "project_name": "项目名称", "project_number": "项目编号",
                "price": "投标报价（小写）", "date": "日期", "authorized_rep": "授权代表", "legal_rep": "法定代表人"}
_NUMBER_IN_TEXT = re.compile(r"(?:项目编号|招标编号|采购编号)\s*[:：]\s*([A-Za-z0-9][A-Za-z0-9\-_/.（）()]{3,40})")


def review_findings(checks: Sequence[ItemCheck]) -> list[Finding]:
    """资格与符合性自查: a 缺 or 过期 item blocks with its reason; 待确认 asks the user to look."""
    out = []
    for c in checks:
        short = c.item.text[:36] + ("…" if len(c.item.text) > 36 else "")
        what = f"{c.item.kind}审查“{short}”"
        if c.status in ("缺", "过期"):
            out.append(Finding("资格与符合性", f"{what}：{c.status}——{c.reason or c.evidence}", True))
        elif c.status == "待确认":
            out.append(Finding("资格与符合性", f"{what}：待确认——{c.reason}" + (f"（{c.evidence}）" if c.evidence else ""),
                               False))
    return out


def _norm(value: str) -> str:
    return re.sub(r"[\s\u3000]+", "", value).replace("(", "（").replace(")", "）")


def consistency_findings(values: Mapping[str, Sequence[tuple[str, str]]], *, tender_number: str = "",
                         technical_text: str = "") -> list[Finding]:
    """The whole bid says one thing: the same company name, project number, price (小写 and 大写), date
    and signatory in every form, the tender's project number, and no other number in the technical part.

    ``values`` maps a field to ``(form title, value)`` for every filled blank of the 商务 part.
    """
    out: list[Finding] = []
    for fld, label in _SAME_FIELDS.items():
        seen: dict[str, list[str]] = {}
        for title, value in values.get(fld, ()):
            if value.strip():
                seen.setdefault(_norm(value), []).append(title)
        if len(seen) > 1:
            listed = "；".join(f"“{v}”（{'、'.join(dict.fromkeys(t))[:40]}）" for v, t in seen.items())
            out.append(Finding("前后一致", f"{label}在各表中不一致：{listed}", True))
    numbers = {_norm(v) for _t, v in values.get("project_number", ()) if v.strip()}
    if tender_number and numbers and _norm(tender_number) not in numbers:
        out.append(Finding("前后一致", f"商务部分的项目编号与招标文件的“{tender_number}”不同", True))
    for figure_title, figure in values.get("price", ()):
        amount = parse_amount(figure)
        if amount is None:
            continue
        try:
            expected = amount_in_words(amount)
        except AmountError:
            continue
        for words_title, words in values.get("price_words", ()):
            w = _norm(words).removeprefix("人民币")
            if w and w not in (expected, expected.removesuffix("元整"), expected.removesuffix("整")):
                out.append(Finding("前后一致", f"“{words_title}”的大写“{words}”与“{figure_title}”的小写 {figure} 不符"
                                               f"（应为 {expected}）", True))
                break
        break
    if technical_text and tender_number:
        for m in _NUMBER_IN_TEXT.finditer(technical_text):
            if _norm(m.group(1)) != _norm(tender_number):
                out.append(Finding("前后一致", f"技术部分写的项目编号“{m.group(1)}”与招标文件的“{tender_number}”不同", True))
                break
    return out


def submission_checks(analysis: Analysis, chapters: Sequence[OutlineNode], breakdown: Breakdown | None, *,
                      addressed: dict[int, str] | None = None, anonymous: bool = False, bidder: str = "",
                      aliases: Sequence[str] = (), page_limit: int | None = None,
                      pages: int | None = None, prescribed: Sequence[str] = ()) -> list[Finding]:
    """The whole 提交前检查 list, blocking findings first.

    ``addressed`` maps a ★/▲ risk index to the heading whose text answers it; ``pages`` is
    the laid-out body page count (estimated from the text when None); ``prescribed`` the
    top-level parts the tender prescribes for the technical part, in its order.
    """
    estimated = pages is None
    count = estimated_pages(chapters) if pages is None else pages
    found = [*clause_findings(breakdown, chapters, addressed), *page_findings(page_limit, count, estimated),
             *order_findings(analysis, chapters), *prescribed_findings(prescribed, chapters),
             *text_findings(chapters)]
    if anonymous:
        found += anonymity_findings(chapters, bidder, aliases)
    return sorted(found, key=lambda f: not f.blocking)

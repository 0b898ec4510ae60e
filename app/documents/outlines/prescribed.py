"""The structure a tender prescribes for the technical part (技术标 / 技术响应文件 / 施工组织设计).

A tender prescribes one when it names the technical part — as a heading ("15.2.2 技术响应文件",
"三、技术文件", "Ⅱ技术部分") or in a sentence ("技术响应文件由以下部分组成：", "投标人须按以下
顺序编写技术部分：", "按以下要点编制施工组织设计") — and a numbered list follows whose numbers run
on one by one ((1) (2) (3) …, 3.1 3.2 …). Prose, forms and tables may stand between the items
(a format chapter puts a 说明 or a blank table under each); a sub-list under an item becomes its
children.

Nothing else counts, because a wrong structure is worse than none: a list under any other
heading (投标人须知 clauses, 评审程序, the bid's whole volume list), a heading that names the
commercial part first (商务技术文件, 商务与技术文件: the bid's paperwork volume), a list whose
items carry points (a scoring table) or read as sentences (contract clauses), and a list made
mostly of the bid's paperwork (投标函, 授权委托书, 营业执照, 报价 …).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.documents.outlines.numbering import Numbered, looks_like_body, parse_numbering
from app.documents.outlines.sections import Section

#: The technical part named as a thing (what is written, not what is scored or required).
_PART = (r"(?:技术(?:资信|及商务|和商务|与商务)?(?:响应|投标)?(?:部分|文件|标书|标(?![准题])|方案|建议书)"
         r"|施工组织设计)")
#: A heading that is the technical part: up to six characters before it (货物服务技术方案), a note after.
_HEADING = re.compile(rf"^(?P<pre>[\u4e00-\u9fff]{{0,6}}){_PART}(?:目录|的组成|组成)?"
                      r"(?:[（(][^）)]{0,24}[）)])?[：:]?$")
#: A sentence that introduces the technical part's list.
_SENTENCE = re.compile(rf"{_PART}[^。；\n]{{0,12}}(?:由|包括|包含|应包括|须包括|按|按照|依)(?:但不限于)?(?:以下|下列|如下)"
                       rf"|(?:按|依|按照)(?:以下|下列|如下)[^。；\n]{{0,8}}?(?:顺序|格式|目录|结构|章节|要点|内容)"
                       rf"[^。；\n]{{0,8}}?(?:编写|编制|编排|提交|组织)?{_PART}")
_ROMAN = re.compile(r"^[ⅠⅡⅢⅣⅤⅥⅦⅧⅨⅩⅪⅫ][、.．\s]*")
_POINTS = re.compile(r"[（(]?\s*\d+(?:\.\d+)?\s*分\s*[)）]?|[（(]\s*\d+(?:\.\d+)?\s*[%％]\s*[)）]")
#: Notes on how a part is handed in, not part of its name.
_FORMAT_NOTE = re.compile(r"[（(][^（()）]*(?:格式|自拟|附件|若有|如有|详细说明|后附|参考)[^（()）]*[)）]")
#: What a part should contain, said inside its name ("…方案（包括…）", "…方案，包括但不限于…"): its description.
_CONTENTS_PAREN = re.compile(r"[（(]\s*(?:包括|包含|含)(?:但不限于|不限于)?[:：]?(?P<what>[^（()）]*)[)）]")
_CONTENTS_TAIL = re.compile(r"[，,]\s*(?:包括|包含)(?:但不限于|不限于)?[:：]?(?P<what>.*)$")
#: "项目人员配置：拟投入本项目的总人数，…": the name, then what it should say.
_NAME_COLON = re.compile(r"^(?P<name>[^：:，,。]{2,20})[：:](?P<what>.+)$")
#: The bid's paperwork: a list made mostly of these is not the technical part's structure.
_PAPERWORK = re.compile(r"投标函|响应函|声明函|承诺函|声明书|授权委托|法定代表人|营业执照|资格|报价|开标一览|保证金"
                        r"|封面|身份证|社保|纳税|税收|信用|财务")
_SENTENCE_END = "。；;，,"
_TITLE_MAX = 40
_MAX_GAP = 40  # lines between two items of the list (a form or a table under each)
_MAX_LINES = 400
_FIRST_ITEM_WITHIN = 3  # non-empty lines between the anchor and the first item
_WRAPPED = 24  # a line this long may have been wrapped: a short unnumbered line after it continues it
_NOT_CONTINUED = ("说明", "注", "备注", "以上", "上述", "附", "投标人", "供应商")
#: A parenthesis this long inside a part's name says what the part holds: it goes to the description.
_LONG_NOTE = 12
_BRACKET_SPACE = re.compile(r"(?<=[（(])\s+|\s+(?=[)）])")


@dataclass(frozen=True)
class PrescribedOutline:
    """The prescribed structure, the line that names the technical part, and where it stands."""

    sections: list[Section]
    anchor: str
    line: int  # 0-based line of the anchor in the text


def _strip_number(line: str) -> tuple[Numbered | None, str]:
    numbered = parse_numbering(line)
    if numbered is not None:
        return numbered, numbered.title
    return None, _ROMAN.sub("", line.strip())


def _anchor(line: str) -> bool:
    """Whether ``line`` names the technical part as a heading or introduces its list in a sentence."""
    if "|" in line or len(line) > 80 or _POINTS.search(line) or re.search(r"评分|评审|得分|评标", line):
        return False
    _, rest = _strip_number(line)
    rest = rest.strip()
    head = _HEADING.match(rest)
    if head is not None:
        return "商务" not in head.group("pre") and "评" not in head.group("pre")
    m = _SENTENCE.search(rest)
    return m is not None and "商务" not in rest[: m.end()]


def _item_title(text: str) -> tuple[str, str]:
    """A list item as (title, contents): format notes gone, what it should contain moved to the contents."""
    t = _FORMAT_NOTE.sub("", text).strip().rstrip(_SENTENCE_END + "：: ")
    what: list[str] = []
    m = _NAME_COLON.match(t)
    if m is not None:
        t, what = m.group("name"), [m.group("what")]
    m = _CONTENTS_TAIL.search(t)
    if m is not None and m.start() > 1:
        what.insert(0, m.group("what"))
        t = t[: m.start()]
    m = _CONTENTS_PAREN.search(t)
    if m is not None and m.start() > 1:
        what.insert(0, m.group("what"))
        t = t[: m.start()] + t[m.end():]
    for long in [n for n in re.findall(r"[（(][^（()）]*[)）]", t) if len(n) > _LONG_NOTE + 2]:
        what.insert(0, long[1:-1])
        t = t.replace(long, "", 1)
    t = t.strip().rstrip(_SENTENCE_END + "：: ").strip()
    return t, "；".join(w.strip(" ：:；;。，,") for w in what if w.strip(" ：:；;。，,"))


def _sentence(title: str) -> bool:
    """Whether an item reads as a clause (a sentence) rather than the name of a part of the bid."""
    return len(title) > _TITLE_MAX or looks_like_body(title) or "。" in title or ("，" in title and len(title) > 20)


def _next_number(number: str) -> str | None:
    """The number after ``number`` in its own style: (3) → (4), 3.9 → 3.10, 十五 → 十六, or None."""
    digits = re.search(r"(\d+)(?!.*\d)", number)
    if digits is not None:
        return number[: digits.start()] + str(int(digits.group(1)) + 1) + number[digits.end():]
    cn = "一二三四五六七八九十"
    core = number.strip("（()）")
    if len(core) == 1 and core in cn[:-1]:
        return number.replace(core, cn[cn.index(core) + 1])
    if core == "十":
        return number.replace(core, "十一")
    if len(core) == 2 and core[0] == "十" and core[1] in cn[:-2]:
        return number.replace(core, "十" + cn[cn.index(core[1]) + 1])
    return None


def _closes(numbered: Numbered, style: str | None, number: str | None) -> bool:
    """Whether a decimal clause number ends a list numbered ``style``/``number``: it is the same
    clause's next sibling or an ancestor's (14.2 or 15 after 14.1.2), not a list of its own (1, 2 …)."""
    if style is None or number is None or not (numbered.style.startswith("dec") and style.startswith("dec")):
        return False
    if int(numbered.style[3:]) >= int(style[3:]):
        return False
    head = re.split(r"[.．]", number)[0]
    first = re.split(r"[.．]", numbered.number)[0]
    return first.isdigit() and head.isdigit() and int(first) in (int(head), int(head) + 1)


def _parse(line: str) -> Numbered | None:
    """:func:`parse_numbering`, and a bracketed number before a year ("（1）2024 年…方案") too."""
    numbered = parse_numbering(line)
    if numbered is None:
        m = re.match(r"^([（(]\d{1,3}[)）])\s*(\S.*)$", line)
        if m is not None:
            return Numbered("num_paren", m.group(1), m.group(2))
    return numbered


def _collect(lines: list[str], start: int, anchor: Numbered | None) -> list[Section]:
    """The numbered list after the anchor at ``start``, items in sequence, sub-items as children."""
    anchor_style = anchor.style if anchor is not None else None
    anchor_number = anchor.number if anchor is not None else None
    items: list[Section] = []
    style: str | None = None
    expect: str | None = None
    sub_style: str | None = None
    sub_expect: str | None = None
    gap = 0
    seen = 0
    last_len = 0  # length of the last item's line when the line after it may continue it, else 0
    for raw in lines[start + 1:start + 1 + _MAX_LINES]:
        line = _BRACKET_SPACE.sub("", raw.strip())
        if not line:
            continue
        numbered = _parse(line)
        if numbered is not None and numbered.style == "chapter":
            break  # the tender's next chapter
        if style is None:
            seen += 1
            if numbered is None or numbered.style == anchor_style or _closes(numbered, anchor_style, anchor_number):
                if seen >= _FIRST_ITEM_WITHIN or numbered is not None:
                    break
                continue
            style, expect = numbered.style, _next_number(numbered.number)
            items.append(_section(numbered.title, numbered.number))
            last_len, gap = len(line), 0
            continue
        if numbered is not None and numbered.style == style:
            if numbered.number != expect:
                break  # another list begins (or the numbering jumps): ours has ended
            items.append(_section(numbered.title, numbered.number))
            expect, sub_style, sub_expect = _next_number(numbered.number), None, None
            last_len, gap = len(line), 0
            continue
        if numbered is not None and (numbered.style == anchor_style or _closes(numbered, style, items[0].number)
                                     or _closes(numbered, anchor_style, anchor_number)):
            break  # the heading's next sibling, or a shallower clause: the list is over
        if numbered is not None and gap <= 2 and (
                (sub_style is None and _first(numbered.number)) or (numbered.style == sub_style and numbered.number == sub_expect)):
            sub_style, sub_expect = numbered.style, _next_number(numbered.number)
            items[-1].children.append(_section(numbered.title, numbered.number, level=2))
            last_len, gap = len(line), 0
            continue
        if last_len >= _WRAPPED and numbered is None and not _ends_sentence(_last(items).title) \
                and not line.startswith(_NOT_CONTINUED):
            _continue(_last(items), line)  # the item's line was wrapped: this is the rest of it
            last_len = len(line)
            continue
        last_len = 0
        gap += 1
        if gap > _MAX_GAP:
            break
    return items


def _first(number: str) -> bool:
    """Whether ``number`` starts a list (1, (1), 一, （一）, ①)."""
    core = number.strip("（()）、.．")
    return core in ("1", "一", "①") or core.endswith(".1")


def _last(items: list[Section]) -> Section:
    return items[-1].children[-1] if items[-1].children else items[-1]


def _ends_sentence(text: str) -> bool:
    return text.rstrip().endswith(tuple(_SENTENCE_END + "："))


def _continue(section: Section, line: str) -> None:
    if section.paragraphs:
        section.paragraphs[-1] += line
    else:
        section.title += line


def _section(text: str, number: str, level: int = 1) -> Section:
    return Section(title=text, number=number, level=level)


def _clean(items: list[Section]) -> tuple[list[Section], int] | None:
    """Titles cleaned, and how many read as sentences; None for a scoring list (items with points)."""
    out: list[Section] = []
    sentences = 0
    for s in items:
        if _POINTS.search(s.title):
            return None
        title, what = _item_title(s.title)
        if not title:
            return None
        sentences += _sentence(title)
        kids = _clean(s.children) if s.children else None
        out.append(Section(title=title, number=s.number, level=s.level, paragraphs=[what] if what else [],
                           children=kids[0] if kids is not None else []))
    return out, sentences


def _finish(items: list[Section]) -> list[Section] | None:
    """The list cleaned; None when it is no technical structure (see the module docstring)."""
    cleaned = _clean(items)
    if cleaned is None:
        return None  # a scoring list
    out, sentences = cleaned
    if len(out) < 2 or 2 * sentences > len(out):
        return None  # clauses (sentences), not the parts of a bid
    if 3 * sum(bool(_PAPERWORK.search(s.title)) for s in out) >= len(out):
        return None  # the bid's paperwork volume
    return out


def find_prescribed(text: str) -> PrescribedOutline | None:
    """The first structure the tender prescribes for its technical part, or None (see the module docstring)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line or not _anchor(line):
            continue
        numbered, _ = _strip_number(line)
        items = _collect(lines, i, numbered)
        found = _finish(items) if len(items) >= 2 else None
        if found:
            return PrescribedOutline(found, line, i)
    return None


def prescribed_outline(text: str) -> list[Section]:
    """The sections of :func:`find_prescribed`, or [] when the tender prescribes no technical structure."""
    found = find_prescribed(text)
    return found.sections if found is not None else []

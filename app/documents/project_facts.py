"""The project's name, buyer and budget read by code from the cover and the announcement.

A tender states these on labelled lines (项目名称：…, 采购人：…, 预算金额：…), in the table cells
of an announcement (``项目名称 | …``), and — for the name — in the announcement's sentence
(``就……项目进行公开招标``). A long name is often spread over two lines of the cover. Each place
where a value is read is a piece of evidence; a value is *confirmed* only when two places on
different pages (or two different kinds of place) agree, otherwise the UI asks the user to
check it and says on which page it was read (architecture rule 15: confidence is earned).

Plain Python over a :class:`~app.documents.model.TenderDocument`; no Qt, no model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from app.documents.model import TenderDocument

#: Pages read: the cover, the announcement and the first part of the instructions.
PAGES_READ = 12

_SEP = r"\s*(?:[:：]\s*(?:\|\s*)?|\|\s*(?:[:：]\s*)?|\s{2,}|\t)"
_SPACES = re.compile(r"[ \t\u3000]+")
_LABELS: dict[str, tuple[str, ...]] = {
    "project_name": ("项目名称", "采购项目名称", "招标项目名称", "工程名称", "项目全称"),
    "buyer": ("采购人名称", "采购人", "招标人名称", "招标人", "采购单位", "建设单位", "委托单位"),
    "budget": ("预算金额", "项目预算金额", "采购预算金额", "采购预算", "项目预算", "预算价", "最高限价",
               "招标控制价", "采购最高限价", "最高投标限价", "控制价"),
}
#: A label at the start of a line, then a separator (colon, a table cell's bar, wide spaces).
def _spaced(label: str) -> str:
    """A label whose characters a cover may spread out (招 标 人)."""
    return r"[ \t\u3000]*".join(label)


_LABEL_LINE = {key: re.compile(r"^\s*[（(]?\d{0,2}[)）.、]?\s*(?:"
                               + "|".join(_spaced(w) for w in sorted(labels, key=len, reverse=True))
                               + r")" + _SEP + r"(?P<value>.*)$")
               for key, labels in _LABELS.items()}
#: Another label inside a value ("…有限公司 地址：…"): the value ends there.
_NEXT_LABEL = re.compile(r"\s*(?:\||\s[\u4e00-\u9fff]{2,6}\s*[:：]|(?:地址|联系人|联系电话|电话|邮编|邮政编码|联系方式|传真|"
                         r"网址|电子邮箱|邮箱|开户银行|账号)\s*[:：])")
#: The labels of a tender's other numbered fields: a project name never holds one, so it ends before
#: it ("…设备购置项目项目编号：…", "…设备购置（项目编号：…）", a wrapped line "项目编号").
_CODE_LABEL = re.compile(r"[（(]?\s*(?:采购项目编号|招标项目编号|项目编号|招标编号|采购编号|项目代码|采购计划编号|磋商编号|"
                         r"谈判编号|询价编号|标段编号|包号)")
#: Any "label：value" line: not a continuation of a name.
_ANY_LABEL = re.compile(r"^\s*[\u4e00-\u9fffA-Za-z（）()\s]{2,12}[:：|]")
#: How a project name usually ends; a value ending otherwise may continue on the next line.
_NAME_END = re.compile(r"(项目|采购|服务|工程|招标|标段|[一二三四五六七八九十\d]+包|[)）])$")
#: The announcement's sentence naming the project.
_INVITATION = re.compile(r"就\s*(?P<value>[^，。；\n]{6,90}?)\s*(?:[（(][A-Za-z0-9\-－_/]{4,}[)）])?\s*"
                         r"(?:进行|组织|实行)?(?:公开|邀请|竞争性)?(?:招标|采购|磋商|谈判|比选)")
_AMOUNT = re.compile(r"(?:人民币|￥|¥)?\s*(?P<num>\d[\d,，]*(?:\.\d+)?)\s*(?P<unit>万元|元|万)"
                     r"|(?P<upper>[零壹贰叁肆伍陆柒捌玖拾佰仟万亿圆元整角分]{3,}(?:元|圆)整?)")
#: A line naming the document's kind (招标文件, 竞争性磋商文件, 采购文件): not part of the name.
_DOC_KIND = re.compile(r"(招标|采购|磋商|谈判|询价|比选|投标|响应)(文件|公告|邀请)|^(招标|采购)?文件$|目\s*录")
_NUMBERED = re.compile(r"^\s*(?:\d{1,2}|[一二三四五六七八九十]+)\s*[.、．]")
_CJK_GAP = re.compile(r"(?<=[\u4e00-\u9fff])[ \t\u3000]+|[ \t\u3000]+(?=[\u4e00-\u9fff])")
_LEADING_JUNK = re.compile(r"^[\s|:：]+")
_TRAILING_JUNK = re.compile(r"[\s|:：;；。,，]+$")
_NOT_A_VALUE = re.compile(r"^(?:见|详见|按|以|是指|系指|指|项目编号|招标编号|采购编号|编号|包号|序号|数量|单位|名称)|^[_＿\-—\s]*$|^（?\s*[盖签]|_{3,}|＿{3,}")
#: What a project name read from a sentence must look like: ends like a name, no quoted titles or lists.
_SENTENCE_NAME = re.compile(r"^(?!下列|上述|本|该|以下)[^《》“”]{6,90}(?:项目|工程|服务|[一二三四五六七八九十\d]+包)$")


@dataclass
class Evidence:
    """One place a value was read: its page and how (``label`` line/cell, ``sentence``)."""

    page: int
    kind: str


@dataclass
class Fact:
    """A value read by code, where it was read, and whether independent places agree."""

    value: str = ""
    evidence: list[Evidence] = field(default_factory=list)
    others: list[str] = field(default_factory=list)  # different values read elsewhere

    @property
    def confirmed(self) -> bool:
        """Two pages agree (the cover and the announcement, say) and no other value was read."""
        return bool(self.value) and len(self.pages) >= 2 and not self.others

    @property
    def pages(self) -> list[int]:
        """The pages it was read on, in order."""
        return sorted({e.page for e in self.evidence})

    def where(self) -> str:
        """“第1页、第3页” for the UI."""
        return "、".join(f"第{p}页" for p in self.pages)


@dataclass
class ProjectFacts:
    """The project name, buyer and budget as code read them."""

    project_name: Fact = field(default_factory=Fact)
    buyer: Fact = field(default_factory=Fact)
    budget: Fact = field(default_factory=Fact)

    def items(self) -> list[tuple[str, Fact]]:
        """(field, fact) pairs in display order."""
        return [("project_name", self.project_name), ("buyer", self.buyer), ("budget", self.budget)]


def normalize(value: str) -> str:
    """A value without spaces and with full-width brackets, for comparing two readings."""
    return _SPACES.sub("", value).replace("(", "（").replace(")", "）")


def _clean(value: str) -> str:
    return _TRAILING_JUNK.sub("", _LEADING_JUNK.sub("", value)).strip()


def _cut_at_next_label(value: str) -> str:
    m = _NEXT_LABEL.search(value)
    value = value[: m.start()] if m and m.start() > 0 else value
    code = _CODE_LABEL.search(value)
    return value[: code.start()] if code and code.start() > 0 else value


def _name_value(first: str, following: list[str]) -> str:
    """A name from its labelled line, joined with the lines it was wrapped onto."""
    value = _tidy(_clean(_cut_at_next_label(_clean(first))))
    for line in following[:2]:
        nxt = line.strip()
        if (not value or _NAME_END.search(value) or not nxt or _ANY_LABEL.match(nxt) or len(nxt) > 40
                or len(value) + len(nxt) > 90 or re.search(r"[。；;，,]", nxt) or _CODE_LABEL.match(nxt)):
            break
        value += _tidy(_clean(_cut_at_next_label(nxt)))
    return value


def _buyer_value(first: str, label_words: Iterable[str]) -> str:
    value = _clean(first)
    for word in label_words:  # "招标人 | 招标人：某医院 地址：…" repeats its label inside the cell
        if value.startswith(word):
            value = _clean(_LEADING_JUNK.sub("", value[len(word):]))
    return _tidy(_clean(_cut_at_next_label(value)))


def _budget_value(first: str) -> str:
    m = _AMOUNT.search(first)
    if not m:
        return ""
    if m.group("upper"):
        return m.group("upper")
    return f"{m.group('num').replace('，', ',')}{m.group('unit')}"


def _plausible(key: str, value: str) -> bool:
    if not value or _NOT_A_VALUE.search(value):
        return False
    if key == "budget":
        return True
    return 4 <= len(value) <= 120


def _add(fact_values: dict[str, list[Evidence]], value: str, page: int, kind: str) -> None:
    fact_values.setdefault(normalize(value), []).append(Evidence(page, kind))


def _pick(found: dict[str, list[Evidence]], shown: dict[str, str]) -> Fact:
    """The value read most often (earliest on ties); the others are kept as disagreement."""
    if not found:
        return Fact()
    ranked = sorted(found.items(), key=lambda kv: (-len({(e.page, e.kind) for e in kv[1]}),
                                                   min(e.page for e in kv[1])))
    best, evidence = ranked[0]
    others = [shown[k] for k, _ in ranked[1:] if not (k in best or best in k)]
    for k, more in ranked[1:]:
        if k != best and (k in best or best in k):  # a shorter or longer reading of the same name
            evidence = [*evidence, *more]
    return Fact(value=shown[best], evidence=evidence, others=others)


def cover_title(text: str) -> str:
    """The project name a cover prints as a title without a label, possibly over several lines.

    The first run of short unlabelled lines whose joined text ends like a project name; lines
    that name the document's kind (…招标文件, 磋商文件) or hold one character each (a title set
    vertically) end a run.
    """
    run: list[str] = []
    after_label = False  # a run right below a 项目名称 line continues that line's value
    for line in [*text.split("\n"), ""]:
        s = line.strip()
        labelled = bool(_ANY_LABEL.match(s))
        usable = (2 <= len(s) <= 40 and not labelled and not _DOC_KIND.search(s) and not _NUMBERED.match(s)
                  and not re.fullmatch(r"[\d\s\-－—.．/]+", s) and not re.search(r"[。；;，,]", s))
        if usable:
            if not run:
                run_after_label = after_label
            run.append(s)
            after_label = False
            continue
        joined = _tidy("".join(run))
        if run and not run_after_label and 6 <= len(joined) <= 90 and _SENTENCE_NAME.match(joined):
            return joined
        run = []
        after_label = bool(_LABEL_LINE["project_name"].match(s))
    return ""


def _tidy(value: str) -> str:
    """No spaces around Chinese characters (“2024 年…物业 管理服务” as the text layer spaced it)."""
    return _CJK_GAP.sub("", value)


def read_project_facts(doc: TenderDocument, pages: int = PAGES_READ) -> ProjectFacts:
    """Read the project name, buyer and budget from the first ``pages`` readable pages."""
    found: dict[str, dict[str, list[Evidence]]] = {key: {} for key in _LABELS}
    shown: dict[str, dict[str, str]] = {key: {} for key in _LABELS}
    readable = [p for p in doc.pages[:pages] if p.readable]
    for page in readable:
        lines = page.text.split("\n")
        for i, line in enumerate(lines):
            for key, pattern in _LABEL_LINE.items():
                m = pattern.match(line)
                if not m:
                    continue
                raw = m.group("value")
                if key == "project_name":
                    value = _name_value(raw, lines[i + 1:])
                elif key == "buyer":
                    value = _buyer_value(raw, _LABELS["buyer"])
                    if value.count("（") + value.count("(") > value.count("）") + value.count(")") and i + 1 < len(lines):
                        value += _buyer_value(lines[i + 1], ())  # a bracket left open: the name wraps
                else:
                    value = _budget_value(raw)
                if _plausible(key, value):
                    _add(found[key], value, page.number, "label")
                    shown[key].setdefault(normalize(value), value)
                break
        for m in _INVITATION.finditer(page.text):
            value = _tidy(_clean(_cut_at_next_label(m.group("value"))))
            if _plausible("project_name", value) and _SENTENCE_NAME.match(value) and not _ANY_LABEL.match(value):
                _add(found["project_name"], value, page.number, "sentence")
                shown["project_name"].setdefault(normalize(value), value)
    name = _pick(found["project_name"], shown["project_name"])
    title = cover_title(readable[0].text) if readable else ""
    if title:  # the cover's title supports a reading of the same name, or stands alone when nothing else was read
        if not name.value:
            name = Fact(value=title, evidence=[Evidence(readable[0].number, "cover")])
        elif normalize(title) in normalize(name.value) or normalize(name.value) in normalize(title):
            name.evidence.append(Evidence(readable[0].number, "cover"))
    return ProjectFacts(project_name=name,
                        buyer=_pick(found["buyer"], shown["buyer"]),
                        budget=_pick(found["budget"], shown["budget"]))

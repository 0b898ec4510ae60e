"""Which title lines open forms and which are parts of the form above them.

A format chapter numbers its forms in one style (``格式6.``, ``附件3``, ``1-2``, ``三、``); lines
numbered in another style inside a form that already has text are its own parts (``9.2 分项报价表``
under ``格式9.开标一览表``, ``5.投标人开户账号资料`` in a 基本情况表), unless the form above has no
text of its own — then it was a heading over them (``附件13 投标人的资格证明文件`` over ``表1…``).
An unnumbered line counts inside such a chapter only when it stands as a heading (a style,
centred, bold, Word's own numbering) or alone between longer lines; a run of short lines is a
table read as text (a PDF's contents list or 自查表), never a list of forms.
"""

from __future__ import annotations

import re
from collections import Counter

from app.documents.forms.chapter import is_toc_line
from app.documents.forms.flow import FlowItem, FlowParagraph, FlowTable
from app.documents.forms.titles import Title, compact, parse_title, same_name

_STYLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("格式N", re.compile(r"^格式\s*\d")), ("附件N", re.compile(r"^附件\s*[\d一二三四五六七八九十]")),
    ("附表N", re.compile(r"^附表\s*\d")), ("表N", re.compile(r"^表(?:格)?\s*\d")), ("附件：", re.compile(r"^附件[:：]")),
    ("第N", re.compile(r"^第")), ("（中）", re.compile(r"^[（(][一二三四五六七八九十]")),
    ("（N）", re.compile(r"^[（(]\d")), ("中、", re.compile(r"^[一二三四五六七八九十]")),
    ("N-N", re.compile(r"^\d+\s*[-－]\s*\d")), ("N.N", re.compile(r"^\d+\s*[.．]\s*\d")), ("N", re.compile(r"^\d")),
    ("A", re.compile(r"^[A-Za-z]")),
)


#: Styles that number items inside a form rather than forms (（1）, 1., 1.1).
ENUMERATIONS = frozenset({"（N）", "（中）", "N", "N.N"})


_CN = {c: i for i, c in enumerate("零一二三四五六七八九", 0)}


def ordinal(number: str) -> int | None:
    """The value of a title's number (``三、`` 3, ``十二、`` 12, ``（4）`` 4, ``附件13`` 13), None when unreadable."""
    n = compact(number)
    m = re.search(r"\d+", n)
    if m:
        return int(m.group())
    m2 = re.search(r"[一二三四五六七八九十]+", n)
    if not m2:
        return None
    w = m2.group()
    if w == "十":
        return 10
    if "十" in w:
        tens, _, ones = w.partition("十")
        return (_CN.get(tens, 1) if tens else 1) * 10 + (_CN.get(ones, 0) if ones else 0)
    return _CN.get(w[-1])


def number_style(number: str) -> str:
    """The numbering style of a title's number (``格式N``, ``中、``, ``N-N`` …), ``""`` when unnumbered."""
    n = compact(number)
    if not n:
        return ""
    return next((name for name, rx in _STYLES if rx.match(n)), "?")


def _style_of(flow: list[FlowItem], i: int, t: Title) -> str:
    """A title's numbering style; a line Word numbers itself is ``auto``."""
    style = number_style(t.number)
    it = flow[i]
    if not style and isinstance(it, FlowParagraph) and it.auto_numbered:
        return "auto"
    return style


def _short(it: FlowItem | None) -> bool:
    return isinstance(it, FlowParagraph) and len(compact(it.text)) <= 20 and not re.search(r"[，。；：:]", it.text)


def _has_text(flow: list[FlowItem], a: int, b: int, listed: set[int] | frozenset[int] = frozenset()) -> bool:
    return any(k not in listed and (isinstance(flow[k], FlowTable) or compact(flow[k].text))  # type: ignore[union-attr]
               for k in range(a + 1, b))


_LIST_END = re.compile(r"[；;。.，,\s\t\d…·.]+$")


def contents_lines(flow: list[FlowItem], lo: int, hi: int) -> set[int]:
    """Lines of a list of contents inside a chapter: three or more titles in a row (``目录`` above them)
    most of which are printed again as titles further on. They are neither forms nor a form's text."""
    entries: dict[int, Title] = {}
    titled: dict[int, Title] = {}
    for i in range(lo + 1, hi):
        it = flow[i]
        if isinstance(it, FlowParagraph):
            text = it.text.strip()
            stripped = _LIST_END.sub("", text) if len(text) <= 60 else ""
            t = parse_title(stripped) if stripped else None
            if t is not None and not t.group:
                titled[i] = t
                if not (it.page_top or it.heading_level or it.auto_numbered):
                    entries[i] = t
    out: set[int] = set()
    run: list[int] = []

    gaps: list[int] = []

    def flush() -> None:
        if len(run) >= 3:
            later = [t.name for j, t in titled.items() if j > run[-1]]
            again = sum(1 for k in run if any(same_name(entries[k].name, n) for n in later))
            if again * 2 >= len(run):
                out.update(run)
                out.update(g for g in gaps if run[0] < g < run[-1])
                head = run[0] - 1
                first = flow[head] if head > lo else None
                if isinstance(first, FlowParagraph) and compact(first.text) in ("目录", "目次"):
                    out.add(head)
        run.clear()
        gaps.clear()

    gap = 0
    for i in range(lo + 1, hi):
        it = flow[i]
        if i in entries and run and number_style(entries[i].number) != number_style(entries[run[0]].number):
            flush()  # a list numbers its entries one way: another style starts something else
            gap = 0
        if i in entries:
            run.append(i)
            gap = 0
        elif isinstance(it, FlowParagraph) and (is_toc_line(it.text) or (run and gap < 2 and len(compact(it.text)) <= 40)):
            gap += 1
            gaps.append(i)
        else:
            flush()
            gap = 0
    flush()
    return out


_COVER_LABEL = re.compile(r"(项目名称|项目编号|采购编号|招标编号|投标人|供应商|响应人|日期|包号|标段|正本|副本)")


def _cover_only(flow: list[FlowItem], a: int, b: int, listed: set[int]) -> bool:
    """Only a cover's lines (项目名称：…, 投标人名称：…, 日期) between two titles: the first heads a volume."""
    labels = 0
    for k in range(a + 1, b):
        it = flow[k]
        if k in listed:
            continue
        if isinstance(it, FlowTable):
            return False
        t = compact(it.text)
        if len(t) > 40 or re.search(r"[，。；]", t):
            return False
        labels += bool(_COVER_LABEL.search(t))
    return labels >= 2


def _stands_alone(flow: list[FlowItem], i: int, lo: int, hi: int) -> bool:
    """A line not sitting in a run of short lines (a table read as text)."""
    prev = flow[i - 1] if i - 1 > lo else None
    nxt = flow[i + 1] if i + 1 < hi else None
    return not (_short(prev) and _short(nxt))


def _heading_like(it: FlowItem) -> bool:
    return isinstance(it, FlowParagraph) and (bool(it.heading_level) or it.align == "center" or it.bold
                                              or it.auto_numbered or it.page_top)


def _numbered_inside(flow: list[FlowItem], a: int, b: int, style: str, n: int | None) -> bool:
    """Whether the text between two titles numbers its own items in ``style`` up to ``n - 1`` (一、… 二、…):
    a ``n`` right after them goes on that numbering, inside the form."""
    if n is None or n < 2:
        return False
    from app.documents.forms.titles import _NUMBER

    for k in range(a + 1, b):
        it = flow[k]
        if isinstance(it, FlowParagraph):
            m = _NUMBER.match(compact(it.text))
            if m and number_style(m.group("num")) == style and ordinal(m.group("num")) == n - 1:
                return True
    return False


def keep_forms(flow: list[FlowItem], titles: list[tuple[int, Title]], lo: int, hi: int,
               listed: set[int] | None = None) -> list[tuple[int, Title]]:
    """The titles that open forms (or groups, marked ``group``), dropping the parts of a form and table
    cells read as lines. ``listed``: lines of a list of contents (:func:`contents_lines`)."""
    listed = listed or set()
    styles = Counter(_style_of(flow, i, t) for i, t in titles if not t.group and not t.weak)
    styles.pop("第N", None)
    plain = styles.pop("", 0)
    top = styles.most_common(1)[0] if styles else ("", 0)
    dominant = top[0] if top[1] >= 3 and top[1] * 2 >= plain else ""
    out: list[tuple[int, Title]] = []
    current: int | None = None  # flow index of the open form
    current_style = ""
    last_group: dict[str, int | None] = {}
    for k, (i, t) in enumerate(titles):
        style = _style_of(flow, i, t)
        nxt = titles[k + 1][0] if k + 1 < len(titles) else hi
        last = k + 1 == len(titles)
        if style == "第N" or (t.group and ((not last and not _has_text(flow, i, nxt, listed))
                                          or _cover_only(flow, i, nxt, listed))):
            out.append((i, t if t.group else Title(t.text, t.number, t.name, t.condition, t.self_drafted, group=True)))
            current = None
            if style and style != "第N" and (not out[:-1] or last_group.get(style) is not None or
                                             all(x.group for _j, x in out[:-1])):
                last_group[style] = ordinal(t.number)
            continue
        if t.group:  # words of a group with text under them: a form
            t = Title(t.text, t.number, t.name, t.condition, t.self_drafted)
        inside = current is not None and _has_text(flow, current, i, listed)
        if style == "auto" or (dominant and style == dominant):
            out.append((i, t))
            current, current_style = i, dominant
            continue
        prev_group = last_group.get(style)
        if (style and style != dominant and prev_group is not None and ordinal(t.number) == prev_group + 1
                and not (current is not None and _numbered_inside(flow, current, i, style, ordinal(t.number)))):
            # the next heading after the groups (三、… after 一、商务… 二、技术…)
            last_group[style] = prev_group + 1
            out.append((i, t))
            current, current_style = i, style
            continue
        if style:
            page_top = isinstance(flow[i], FlowParagraph) and flow[i].page_top  # type: ignore[union-attr]
            if inside and style != current_style and style not in ENUMERATIONS and page_top and not t.weak:
                out.append((i, t))  # 附件1 on a page of its own after the numbered forms: a form too
                current, current_style = i, style
                continue
            if t.weak or (inside and style != current_style):
                continue  # a numbered part of the form above, or a numbered line naming no document
            if current is not None and not inside and style in ENUMERATIONS and style != current_style:
                continue  # （1）… right under a form's title: the form's first part
            out.append((i, t))
            current, current_style = i, style
            continue
        # unnumbered
        it = flow[i]
        strong = isinstance(it, FlowParagraph) and (it.page_top or bool(it.heading_level))
        first_under_group = bool(out) and out[-1][1].group and not _has_text(flow, out[-1][0], i, listed)
        if dominant and inside and current_style in (dominant, "auto") and not (
                strong and isinstance(it, FlowParagraph) and (it.align == "center" or it.bold)):
            continue
        if not (first_under_group or strong or (_heading_like(it) and _stands_alone(flow, i, lo, hi))):
            continue
        out.append((i, t))
    return out

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

from app.documents.forms.flow import FlowItem, FlowParagraph, FlowTable
from app.documents.forms.titles import Title, compact

_STYLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("格式N", re.compile(r"^格式\s*\d")), ("附件N", re.compile(r"^附件\s*[\d一二三四五六七八九十]")),
    ("附表N", re.compile(r"^附表\s*\d")), ("表N", re.compile(r"^表(?:格)?\s*\d")), ("附件：", re.compile(r"^附件[:：]")),
    ("第N", re.compile(r"^第")), ("（中）", re.compile(r"^[（(][一二三四五六七八九十]")),
    ("（N）", re.compile(r"^[（(]\d")), ("中、", re.compile(r"^[一二三四五六七八九十]")),
    ("N-N", re.compile(r"^\d+\s*[-－]\s*\d")), ("N.N", re.compile(r"^\d+\s*[.．]\s*\d")), ("N", re.compile(r"^\d")),
    ("A", re.compile(r"^[A-Za-z]")),
)


def number_style(number: str) -> str:
    """The numbering style of a title's number (``格式N``, ``中、``, ``N-N`` …), ``""`` when unnumbered."""
    n = compact(number)
    if not n:
        return ""
    return next((name for name, rx in _STYLES if rx.match(n)), "?")


def _short(it: FlowItem | None) -> bool:
    return isinstance(it, FlowParagraph) and len(compact(it.text)) <= 20 and not re.search(r"[，。；：:]", it.text)


def _has_text(flow: list[FlowItem], a: int, b: int) -> bool:
    return any(isinstance(flow[k], FlowTable) or compact(flow[k].text) for k in range(a + 1, b))  # type: ignore[union-attr]


def _stands_alone(flow: list[FlowItem], i: int, lo: int, hi: int) -> bool:
    """A line not sitting in a run of short lines (a table read as text)."""
    prev = flow[i - 1] if i - 1 > lo else None
    nxt = flow[i + 1] if i + 1 < hi else None
    return not (_short(prev) and _short(nxt))


def _heading_like(it: FlowItem) -> bool:
    return isinstance(it, FlowParagraph) and (bool(it.heading_level) or it.align == "center" or it.bold
                                              or it.auto_numbered or it.page_top)


def keep_forms(flow: list[FlowItem], titles: list[tuple[int, Title]], lo: int, hi: int) -> list[tuple[int, Title]]:
    """The titles that open forms (or groups), dropping the parts of a form and table cells read as lines."""
    styles = Counter(number_style(t.number) for _i, t in titles if t.number and not t.group and not t.weak)
    styles.pop("第N", None)
    dominant = styles.most_common(1)[0][0] if styles and styles.most_common(1)[0][1] >= 3 else ""
    out: list[tuple[int, Title]] = []
    current: int | None = None  # flow index of the open form
    current_style = ""
    for k, (i, t) in enumerate(titles):
        style = number_style(t.number)
        nxt = titles[k + 1][0] if k + 1 < len(titles) else hi
        if style == "第N" or (t.group and not _has_text(flow, i, nxt)):
            out.append((i, t))
            current = None
            continue
        if t.group:  # words of a group with text under them: a form
            t = Title(t.text, t.number, t.name, t.condition, t.self_drafted)
        inside = current is not None and _has_text(flow, current, i)
        if dominant and (style == dominant or (not style and flow[i].auto_numbered)):  # type: ignore[union-attr]
            out.append((i, t))
            current, current_style = i, dominant
            continue
        if style:
            if t.weak or (inside and (dominant or style != current_style)):
                continue  # a numbered part of the form above, or a numbered line naming no document
            out.append((i, t))
            current, current_style = i, style
            continue
        # unnumbered
        if dominant and inside:
            continue
        if not (_heading_like(flow[i]) and _stands_alone(flow, i, lo, hi)):
            continue
        out.append((i, t))
    return out

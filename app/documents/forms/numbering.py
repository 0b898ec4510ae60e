"""How a format chapter numbers its titles: the style of a number, its value, its depth and rank.

``number_style`` names the style (``格式N``, ``附件N``, ``中、``, ``（中）``, ``N-N``, ``N.N`` …);
``ordinal`` reads a number's value (``十二、`` 12); ``levels`` its parts (``2-1-1`` [2, 1, 1]);
``extends`` says whether one number is inside another (3 → 3.1), ``sibling`` whether it is the next
at the same depth (1-1 → 1-2), ``restarts`` whether it goes back (五、 then 一、), and ``style_rank``
how high a style usually stands (附件N over 一、 over （一） over 1-1).
"""

from __future__ import annotations

import re

from app.documents.forms.titles import Title, compact

_STYLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("格式N", re.compile(r"^格式\s*\d")), ("附件N", re.compile(r"^附件\s*[\d一二三四五六七八九十]")),
    ("附表N", re.compile(r"^附表\s*\d")), ("表N", re.compile(r"^表(?:格)?\s*\d")), ("附件：", re.compile(r"^附件[:：]")),
    ("第N", re.compile(r"^第")), ("（中）", re.compile(r"^[（(][一二三四五六七八九十]")),
    ("（N）", re.compile(r"^[（(]\d")), ("中、", re.compile(r"^[一二三四五六七八九十]")),
    ("N-N", re.compile(r"^\d+\s*[-－]\s*\d")), ("N.N", re.compile(r"^\d+\s*[.．]\s*\d")), ("N", re.compile(r"^\d")),
    ("A", re.compile(r"^[A-Za-z]")),
)


#: How high a numbering style usually stands (第一章 over 附件1 over 一、 over （一）/1. over 1-1/（1）/1.1).
_RANK = {"第N": 0, "附件N": 1, "格式N": 1, "附表N": 1, "附件：": 1, "表N": 2, "中、": 2, "（中）": 3, "N": 3,
         "N-N": 4, "（N）": 4, "N.N": 4, "A": 5}

def style_rank(number: str) -> int | None:
    """How high a title's numbering stands (0 for 第N章 … 5), None when unnumbered or unknown."""
    return _RANK.get(number_style(number)) if number else None


#: Styles that number items inside a form rather than forms (（1）, 1., 1.1).
ENUMERATIONS = frozenset({"（N）", "（中）", "N", "N.N"})


_CN = {c: i for i, c in enumerate("零一二三四五六七八九", 0)}


def stands_higher(style: str, than: str) -> bool:
    """Whether numbering ``style`` usually stands above ``than`` (一、 above （一）); unknown styles never do."""
    return style in _RANK and than in _RANK and _RANK[style] < _RANK[than]


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


def levels(number: str) -> list[int]:
    """The numbers of a title's number, outermost first (``3.1`` [3, 1], ``附件2-1-1`` [2, 1, 1], ``三、`` [3])."""
    n = compact(number)
    if re.search(r"\d", n):
        return [int(x) for x in re.findall(r"\d+", n)]
    value = ordinal(n)
    return [value] if value is not None else []


def extends(parent: str, child: str) -> bool:
    """Whether ``child`` numbers an item inside ``parent`` (``3`` → ``3.1``, ``2-1`` → ``2-1-1``)."""
    a, b = levels(parent), levels(child)
    return bool(a) and len(b) > len(a) and b[:len(a)] == a


def number_style(number: str) -> str:
    """The numbering style of a title's number (``格式N``, ``中、``, ``N-N`` …), ``""`` when unnumbered."""
    n = compact(number)
    if not n:
        return ""
    return next((name for name, rx in _STYLES if rx.match(n)), "?")


def sibling(a: str, b: str) -> bool:
    """Whether number ``b`` is the one after ``a`` at the same depth and in the same style (1-1 → 1-2, 3. → 4.)."""
    x, y = levels(a), levels(b)
    return (bool(x) and len(x) == len(y) and x[:-1] == y[:-1] and y[-1] == x[-1] + 1
            and number_style(a) == number_style(b))


def restarts(opened: Title, t: Title) -> bool:
    """Whether ``t`` numbers before the open form at the same depth (一、 after 五、): not the next form (an equal
    number may be printed twice: 二、法定代表人身份证明 and 二、授权委托书 are both the second form)."""
    a, b = levels(opened.number), levels(t.number)
    return bool(a) and len(a) == len(b) and b < a

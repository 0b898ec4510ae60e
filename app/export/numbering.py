"""Literal heading numbers (第一章 / 1.1 / 1.1.1 or 一、/（一）/ 1.).

Numbers are written into the heading text rather than produced by Word list numbering,
so they survive copy-paste, WPS, LibreOffice and appear unchanged in the TOC.
"""

from __future__ import annotations

from app.core.rules.outline import strip_numbering
from app.export.options import ExportError, NumberingScheme

_DIGITS = "零一二三四五六七八九"


def chinese_numeral(n: int) -> str:
    """Chinese numeral for 1–999 as used in headings: 1 -> 一, 10 -> 十, 12 -> 十二, 21 -> 二十一."""
    if not 1 <= n <= 999:
        raise ExportError(f"编号超出范围：{n}（仅支持 1–999）")
    hundreds, rest = divmod(n, 100)
    tens, ones = divmod(rest, 10)
    out = ""
    if hundreds:
        out += _DIGITS[hundreds] + "百"
        if rest and tens == 0:
            out += "零"
    if tens:
        out += ("" if tens == 1 and not hundreds else _DIGITS[tens]) + "十"
    if ones:
        out += _DIGITS[ones]
    return out


def heading_number(path: tuple[int, ...], scheme: NumberingScheme) -> str:
    """The number label of a heading at 0-based ``path`` (its length is the level).

    ``chapter``: 第一章, 1.1, 1.1.1, 1.1.1.1; ``chinese``: 一、, （一）, 1., （1）; ``none``: "".
    """
    if not path:
        raise ExportError("标题路径为空，无法编号")
    level = len(path)
    ordinal = path[-1] + 1
    if scheme == "none":
        return ""
    if scheme == "chapter":
        if level == 1:
            return f"第{chinese_numeral(ordinal)}章"
        return ".".join(str(i + 1) for i in path)
    if scheme == "chinese":
        if level == 1:
            return f"{chinese_numeral(ordinal)}、"
        if level == 2:
            return f"（{chinese_numeral(ordinal)}）"
        if level == 3:
            return f"{ordinal}."
        return f"（{ordinal}）"
    raise ExportError(f"未知的编号方式“{scheme}”，可选：chapter、chinese、none")


def numbered_title(path: tuple[int, ...], title: str, scheme: NumberingScheme) -> str:
    """Heading text with its number; numbering already typed into ``title`` is removed first."""
    clean = strip_numbering(title)
    label = heading_number(path, scheme)
    if not label:
        return clean
    if label.endswith(("、", "）")):
        return f"{label}{clean}"
    return f"{label} {clean}"

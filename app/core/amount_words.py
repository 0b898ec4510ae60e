"""Amounts in Chinese capital numerals (金额大写): 100000 → 壹拾万元整, 1005.07 → 壹仟零伍元零柒分.

The rules bid offices and banks follow: digits 零壹贰叁肆伍陆柒捌玖, units 拾佰仟 inside each group
of four digits and 万/亿 between groups; a run of zeros inside the number is written as one 零
(1005 → 壹仟零伍), zeros at the end of a group are not written (1500 → 壹仟伍佰), and a group
after 万/亿 that starts below a thousand takes a 零 (100050 → 壹拾万零伍拾); 壹拾 is written in
full. 元 ends the whole-yuan part; 角 and 分 follow, with 零 for a missing 角 before 分
(1.05 → 壹元零伍分); 整 ends an amount without 分. :func:`parse_amount` reads what a user types
(``123,456.78``, ``￥12.5万元``) into a :class:`~decimal.Decimal`.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

DIGITS = "零壹贰叁肆伍陆柒捌玖"
_UNITS = ("", "拾", "佰", "仟")
_GROUPS = ("", "万", "亿", "万亿")
#: The largest amount written (below one 万亿万, far beyond any tender).
MAX_AMOUNT = Decimal("9999999999999999.99")


class AmountError(ValueError):
    """An amount that cannot be written (negative, too large, not a number); ``str()`` is Chinese."""


def _group(n: int) -> str:
    """A number 0–9999 in capitals without its group unit (0 → "")."""
    out: list[str] = []
    zero = False
    for pos in range(3, -1, -1):
        d = n // 10**pos % 10
        if d == 0:
            zero = bool(out)
            continue
        if zero:
            out.append("零")
            zero = False
        out.append(DIGITS[d] + _UNITS[pos])
    return "".join(out)


def _integer(n: int) -> str:
    if n == 0:
        return ""
    groups: list[int] = []
    while n:
        groups.append(n % 10000)
        n //= 10000
    out: list[str] = []
    need_zero = False
    for k in range(len(groups) - 1, -1, -1):
        g = groups[k]
        if g == 0:
            need_zero = bool(out)
            continue
        if out and (need_zero or g < 1000):
            out.append("零")
        out.append(_group(g) + _GROUPS[k])
        need_zero = False
    return "".join(out)


def amount_in_words(amount: Decimal | int | str) -> str:
    """The amount in capitals, without a currency word: ``Decimal("100000")`` → ``壹拾万元整``.

    Rounded to the fen (half up). Raises :class:`AmountError` for a negative, too large or
    unreadable amount.
    """
    try:
        value = Decimal(str(amount)) if not isinstance(amount, Decimal) else amount
    except InvalidOperation as exc:
        raise AmountError(f"“{amount}”不是金额") from exc
    if not value.is_finite():
        raise AmountError(f"“{amount}”不是金额")
    value = value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if value < 0:
        raise AmountError("金额不能为负数")
    if value > MAX_AMOUNT:
        raise AmountError("金额过大，无法写成大写")
    yuan = int(value)
    fen_total = int((value - yuan) * 100)
    jiao, fen = divmod(fen_total, 10)
    if yuan == 0 and fen_total == 0:
        return "零元整"
    head = _integer(yuan) + "元" if yuan else ""
    if fen_total == 0:
        return head + "整"
    tail = ""
    if jiao:
        tail += DIGITS[jiao] + "角"
    elif yuan:
        tail += "零"
    if fen:
        tail += DIGITS[fen] + "分"
    else:
        tail += "整"
    return head + tail


_AMOUNT = re.compile(r"^(?:人民币|RMB|CNY)?\s*[￥¥]?\s*(?P<num>\d[\d,，]*(?:\.\d+)?|\.\d+)\s*(?P<unit>万元|万|元)?\s*(?:整)?$",
                     re.IGNORECASE)


def parse_amount(text: str) -> Decimal | None:
    """The amount a user typed (``123,456.78``, ``￥123456.78元``, ``12.5万元``), or None when it is not one."""
    t = re.sub(r"[\s\u3000]+", "", text or "")
    m = _AMOUNT.match(t)
    if not m:
        return None
    try:
        value = Decimal(m.group("num").replace(",", "").replace("，", ""))
    except InvalidOperation:
        return None
    if m.group("unit") in ("万元", "万"):
        value *= 10000
    return value


def format_amount(value: Decimal) -> str:
    """An amount as a bid writes it in figures: two decimals, thousands separated (1,234,567.80)."""
    return f"{value.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP):,.2f}"

"""Amounts in capitals (金额大写): the 零 rules, 角 and 分, 整, and what a user types."""

from __future__ import annotations

from decimal import Decimal

import pytest

from app.core.amount_words import AmountError, amount_in_words, format_amount, parse_amount


@pytest.mark.parametrize(("figure", "words"), [
    ("100000", "壹拾万元整"),
    ("10", "壹拾元整"),
    ("15", "壹拾伍元整"),
    ("1005", "壹仟零伍元整"),
    ("1500", "壹仟伍佰元整"),
    ("1050", "壹仟零伍拾元整"),
    ("100050", "壹拾万零伍拾元整"),
    ("100500", "壹拾万零伍佰元整"),
    ("101000", "壹拾万壹仟元整"),
    ("1000001", "壹佰万零壹元整"),
    ("10000000", "壹仟万元整"),
    ("100000001", "壹亿零壹元整"),
    ("120003400", "壹亿贰仟万叁仟肆佰元整"),
    ("923680", "玖拾贰万叁仟陆佰捌拾元整"),
    ("1234.56", "壹仟贰佰叁拾肆元伍角陆分"),
    ("1005.07", "壹仟零伍元零柒分"),
    ("1.05", "壹元零伍分"),
    ("12.50", "壹拾贰元伍角整"),
    ("0.5", "伍角整"),
    ("0.05", "伍分"),
    ("0.75", "柒角伍分"),
    ("0", "零元整"),
    ("20.004", "贰拾元整"),
    ("20.005", "贰拾元零壹分"),
])
def test_capitals(figure: str, words: str) -> None:
    assert amount_in_words(Decimal(figure)) == words


def test_int_and_str_are_read_too() -> None:
    assert amount_in_words(300) == "叁佰元整"
    assert amount_in_words("300.10") == "叁佰元壹角整"


@pytest.mark.parametrize("bad", ["-1", "1e20", "abc", "NaN"])
def test_refused_with_a_chinese_message(bad: str) -> None:
    with pytest.raises(AmountError) as info:
        amount_in_words(bad)
    assert any("\u4e00" <= c <= "\u9fff" for c in str(info.value))


@pytest.mark.parametrize(("typed", "value"), [
    ("123,456.78", "123456.78"), ("￥123456.78元", "123456.78"), ("12.5万元", "125000"), ("人民币 9,800 元整", "9800"),
    ("  1000  ", "1000"), ("1000万", "10000000"),
])
def test_parse_amount(typed: str, value: str) -> None:
    assert parse_amount(typed) == Decimal(value)


@pytest.mark.parametrize("typed", ["", "约十万", "1.2.3", "100美元", "-5"])
def test_parse_amount_refuses(typed: str) -> None:
    assert parse_amount(typed) is None


def test_format_amount() -> None:
    assert format_amount(Decimal("1234567.8")) == "1,234,567.80"

"""Every heading rule of the registry refuses its own refuse-examples and accepts its human examples."""

from __future__ import annotations

import pytest

from app.core.rules.registry import (
    HEADING_RULES,
    SHAPE_RULES,
    HeadingContext,
    HeadingRule,
    first_problem,
    problems,
    rule,
)

_CASES = [(r, e, True) for r in HEADING_RULES for e in r.refuse] + [(r, e, False) for r in HEADING_RULES for e in r.accept]


@pytest.mark.parametrize(("r", "example", "refused"), _CASES,
                         ids=[f"{r.code}-{'refuse' if x else 'accept'}-{e.title}" for r, e, x in _CASES])
def test_each_rule_refuses_and_accepts_its_examples(r: HeadingRule, example: object, refused: bool) -> None:
    ctx = example.as_context()  # type: ignore[attr-defined]
    assert r.applies(ctx)
    message = r.check(ctx)
    assert (message is not None) == refused, message
    if refused:
        assert message and any("\u4e00" <= ch <= "\u9fff" for ch in message)  # a Chinese message


def test_every_defect_rule_has_examples_and_codes_are_unique() -> None:
    codes = [r.code for r in HEADING_RULES] + [r.code for r in SHAPE_RULES]
    assert len(codes) == len(set(codes))
    for r in HEADING_RULES:
        assert r.accept or r.code in {"taken"}, r.code
        assert r.refuse or r.code in {"example_copy", "taken"}, r.code


def test_weak_model_guards_apply_only_to_what_a_model_wrote() -> None:
    guards = [r for r in HEADING_RULES if r.weak_model_guard]
    assert guards
    for writer in ("user", "tender", "library"):
        ctx = HeadingContext("宇宙飞船航行", level=3, writer=writer, parent="培训效果考核", section_words="考核",  # type: ignore[arg-type]
                             small_question=True)
        assert not any(r.applies(ctx) for r in guards)
    model = HeadingContext("宇宙飞船航行", level=3, parent="培训效果考核", section_words="考核", small_question=True)
    assert rule("unrelated").applies(model)
    assert not rule("unrelated").applies(HeadingContext("宇宙飞船航行", level=3))  # only in the one-section question


def test_warnings_never_refuse() -> None:
    ctx = HeadingContext("宇宙飞船航行", level=3, parent="培训效果考核", section_words="考核办法", small_question=True)
    assert first_problem(ctx) is None
    assert {code for code, _ in problems(ctx, "warning")} == {"ungrounded", "unrelated"}


def test_a_defect_is_refused_wherever_it_comes_from() -> None:
    for writer in ("model", "user", "tender", "library"):
        assert first_problem(HeadingContext("二级目录", writer=writer)) is not None  # type: ignore[arg-type]
        assert first_problem(HeadingContext("工程概况", parent="工程概况", writer=writer)) is not None  # type: ignore[arg-type]

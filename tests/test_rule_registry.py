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


def _n(title: str, *children: object) -> object:
    from app.core.outline import OutlineNode

    return OutlineNode(title=title, children=list(children))  # type: ignore[arg-type]


def test_every_shape_rule_fires_on_its_defect_and_only_there() -> None:
    from app.core.rules.outline import OutlineLimits, check_outline, outline_warnings, pattern_issues

    fired: dict[str, bool] = {}

    def codes(chapters: list[object], limits: OutlineLimits | None = None) -> set[str]:
        return {i.code for i in check_outline(chapters, limits)}  # type: ignore[arg-type]

    fired["too_few_chapters"] = "too_few_chapters" in codes([])
    fired["too_many_chapters"] = "too_many_chapters" in codes(
        [_n(f"第{chr(0x4e00 + 3 * i)}{chr(0x4e10 + i)}部分", _n(f"要点{chr(0x4e20 + i)}{chr(0x4e30 + i)}")) for i in range(21)])
    fired["too_many_children"] = "too_many_children" in codes(
        [_n("施工方案", *(_n(f"工序{chr(0x4e00 + 5 * i)}{chr(0x4e40 + i)}") for i in range(21))), _n("附件", _n("图纸"))])
    fired["too_deep"] = "too_deep" in codes([_n("一", _n("二", _n("三", _n("四", _n("五"))))), _n("附件", _n("图纸"))])
    fired["no_sections"] = "no_sections" in codes([_n("编制说明")])
    fired["duplicate_sibling"] = "duplicate_sibling" in codes([_n("施工方案", _n("测量放样"), _n("测量放样")),
                                                               _n("附件", _n("图纸"))])
    fired["same_as_parent_sibling"] = "same_as_parent_sibling" in codes(
        [_n("施工方案", _n("质量保证措施", _n("质量目标"))), _n("质量保证措施", _n("质量体系"))])
    same = [_n("甲节", _n("目标"), _n("措施")), _n("乙节", _n("目标"), _n("措施")), _n("丙节", _n("目标"), _n("措施"))]
    fired["repeated_children"] = "repeated_children" in codes([_n("施工方案", *same), _n("附件", _n("图纸"))])
    pattern = [_n(t, _n(t + "目标"), _n(t + "措施")) for t in ("进度", "质量", "安全")]
    fired["suffix_pattern"] = bool(pattern_issues(pattern))  # type: ignore[arg-type]
    warned = {i.code for i in outline_warnings([_n("编制说明"), _n("附件")])}
    warned |= {i.code for i in outline_warnings([_n("工程概况", _n("工程概况"), _n("工程参数"))])}
    for r in SHAPE_RULES:
        if r.severity == "warning":
            fired[r.code] = r.code in warned and not codes([_n("工程概况", _n("工程概况"), _n("工程参数"))])
    assert {r.code for r in SHAPE_RULES} == set(fired) and all(fired.values()), fired
    human = [_n("施工组织综合说明", _n("编制说明"), _n("工程概况", _n("地理位置"))), _n("附件")]
    assert codes(human) == set()


_COMMON = [line.strip() for line in (__import__("pathlib").Path(__file__).parent / "data" / "common_headings.txt")
           .read_text("utf-8").splitlines() if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("level", [2, 3])
def test_headings_a_skilled_writer_uses_pass_every_rule_a_persons_outline_meets(level: int) -> None:
    """Beyond ../shared/outlines: the ordinary headings of construction, supervision, property, IT
    operations, canteen and software bids (与发包人、监理及设计单位的配合, 服务内容, 问题管理, 其他) are no
    defect as a strong model's answer or in a person's outline."""
    refused = [(t, problems(HeadingContext(title=t, level=level, writer="model", parent="技术方案")))
               for t in _COMMON]
    refused = [(t, p) for t, p in refused if p]
    assert len(_COMMON) > 150 and refused == []

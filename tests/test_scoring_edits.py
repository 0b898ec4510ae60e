"""The user's row edits and reading choices as plain functions (app/core/scoring_rows, scoring_edit)."""

from __future__ import annotations

from app.core.analysis import (
    Analysis,
    ScoringGroup,
    ScoringSubItem,
    ScoringTableInfo,
    SecondReading,
    renumber_groups,
)
from app.core.scoring_edit import (
    confirm_scoring,
    explaining_rows,
    scoring_checks,
    take_reading,
    use_only_table,
    use_table,
)
from app.core.scoring_rows import insert_row, make_group, merge_rows, move_rows, remove_rows, split_row


def _g(title: str, points: float | None, category: str = "technical", **kw: object) -> ScoringGroup:
    return ScoringGroup(id="", title=title, points=points, category=category, **kw)  # type: ignore[arg-type]


def _titles(groups: list[ScoringGroup]) -> list[str]:
    return [g.title for g in groups]


def test_insert_remove_and_move_a_block() -> None:
    rows = [_g("A", 10), _g("B", 20, "business", table_key="t2"), _g("C", 30), _g("D", 40)]
    inserted = insert_row(rows, 2)
    assert _titles(inserted) == ["A", "B", "新评分项", "C", "D"]
    assert inserted[2].category == "business" and inserted[2].table_key == "t2" and inserted[2].decided_by == "user"
    assert [g.id for g in inserted] == ["R1", "R2", "R3", "R4", "R5"]
    assert _titles(remove_rows(rows, [0, 2])) == ["B", "D"]
    moved, at = move_rows(rows, [1, 2], 1)
    assert _titles(moved) == ["A", "D", "B", "C"] and at == [2, 3]
    moved, at = move_rows(rows, [1, 2], -1)
    assert _titles(moved) == ["B", "C", "A", "D"] and at == [0, 1]
    assert _titles(move_rows(rows, [0], -1)[0]) == _titles(rows)  # already at the top


def test_split_by_sub_items_or_by_name_and_merge_back() -> None:
    scored = _g("服务方案", 30, sub_items=[ScoringSubItem(name="人员配置", points=15),
                                          ScoringSubItem(criteria="应急预案完整得5分", points=5),
                                          ScoringSubItem(name="培训", points=10)])
    parts = split_row([scored], 0)
    assert [(g.title, g.points) for g in parts] == [("人员配置", 15), ("应急预案完整得5分", 5), ("培训", 10)]
    named = split_row([_g("人员配置及培训方案", 20)], 0)
    assert [(g.title, g.points) for g in named] == [("人员配置", 20), ("培训方案", None)]
    assert named[1].doubt  # waits for its points
    merged = merge_rows([_g("人员配置", 12, description="配置合理"), _g("培训方案", 8), _g("业绩", 5, "business")],
                        [0, 1])
    assert _titles(merged) == ["人员配置", "业绩"] and merged[0].points == 20
    assert [(s.name, s.points) for s in merged[0].sub_items] == [("人员配置", 12), ("培训方案", 8)]
    assert "配置合理" in merged[0].description


def test_a_category_row_becomes_the_group_of_the_rows_it_adds_up() -> None:
    rows = [_g("技术部分", 62, "business"), _g("技术方案", 30, "business"), _g("实施计划", 32, "business"),
            _g("商务部分", 38, "business"), _g("业绩", 38, "business")]
    grouped, count = make_group(rows, 0)
    assert count == 2 and _titles(grouped) == ["技术方案", "实施计划", "商务部分", "业绩"]
    assert [(g.category, g.group_label) for g in grouped[:2]] == [("technical", "技术部分（62分）")] * 2
    assert grouped[2].group_label == ""


def _analysis(groups: list[ScoringGroup], tables: list[ScoringTableInfo], **kw: object) -> Analysis:
    return Analysis(groups=renumber_groups(groups), scoring_tables=tables, **kw)  # type: ignore[arg-type]


def test_one_click_on_another_candidate_uses_it_alone() -> None:
    summary = ScoringTableInfo(key="t1", used=True, groups=[_g("技术部分", 100, table_key="t1")])
    detail = ScoringTableInfo(key="t2", used=False, groups=[_g("技术方案", 60, table_key="t2"),
                                                             _g("实施计划", 40, table_key="t2")])
    a = _analysis(list(summary.groups), [summary, detail], scoring_confirmed=True)
    only = use_only_table(a, "t2")
    assert [t.used for t in only.scoring_tables] == [False, True] and _titles(only.groups) == ["技术方案", "实施计划"]
    assert not only.scoring_confirmed and only.needs_scoring_confirmation
    both = use_table(a, "t2", True)
    assert [t.used for t in both.scoring_tables] == [True, True]


def test_confirming_clears_doubts_and_the_self_check_note() -> None:
    a = _analysis([_g("技术方案", 60, doubt="没有读到分值")], [], scoring_doubt="评分表未能确认：…",
                  notes=["评分表自检未完全通过，请在分析页核对评分项、分值和类别", "其他提示"])
    confirmed = confirm_scoring(a)
    assert confirmed.scoring_user_confirmed and not confirmed.needs_scoring_confirmation
    assert confirmed.notes == ["其他提示"] and not confirmed.groups[0].doubt


def test_taking_the_model_s_reading_makes_it_a_table_of_its_own() -> None:
    code = ScoringTableInfo(key="t1", used=True, groups=[_g("技术部分", 42, table_key="t1")])
    model_rows = [_g("总体方案", 22, decided_by="model", doubt="", source_page=3),
                  _g("人员配置", 20, decided_by="model", source_page=3)]
    reading = SecondReading(rows=model_rows, pages=[3], verified=True, model="m1", stated_by_category={"技术": 42})
    a = _analysis(list(code.groups), [code], second_reading=reading, scoring_doubt="不一致")
    taken = take_reading(a, "model")
    assert _titles(taken.groups) == ["总体方案", "人员配置"] and taken.scoring_user_confirmed
    assert [(t.key, t.used) for t in taken.scoring_tables] == [("t1", False), ("model", True)]
    assert taken.scoring_tables[1].stated_by_category == {"technical": 42}
    back = use_only_table(taken, "t1")
    assert _titles(back.groups) == ["技术部分"]
    kept = take_reading(a, "code")
    assert _titles(kept.groups) == ["技术部分"] and kept.scoring_user_confirmed


def test_the_rows_that_explain_a_part_s_wrong_sum_are_named() -> None:
    """Issue 37 major 5: a row of the 商务 table classed 技术 explains both sums; a guessed row that is right is not it."""
    business = ScoringTableInfo(key="t1", used=True, stated_by_category={"business": 30})
    technical = ScoringTableInfo(key="t2", used=True, stated_by_category={"technical": 60})
    groups = [_g("诚信评价", 10, "business", table_key="t1", doubt="类别“商务”是按名称推断的"),
              _g("企业业绩", 10, "business", table_key="t1"),
              _g("项目执行团队", 10, "technical", table_key="t1"),
              _g("技术方案", 30, table_key="t2"), _g("实施计划", 30, table_key="t2"), _g("报价", 10, "price")]
    a = _analysis(groups, [business, technical])
    assert [c.ok for c in scoring_checks(a)[1:3]] == [False, False]
    found = explaining_rows(a)
    assert found is not None and found.ids == ["R3"] and found.category == "business"
    assert found.why == "“项目执行团队”移到商务类后，商务、技术两项小计都与标明的一致"
    fixed = a.model_copy(update={"groups": [g.model_copy(update={"category": "business"}) if g.title == "项目执行团队"
                                            else g for g in a.groups]})
    assert explaining_rows(fixed) is None


def test_points_filed_under_parts_nothing_states_are_found_for_the_part_short_of_them() -> None:
    """The technical subtotal of 15 where the prose says 87: the rows under the buyer's groups make up 72."""
    groups = [_g("服务方案", 15), _g("履约能力", 38, "business", group_label="履约能力"),
              _g("服务能力", 34, "business", group_label="服务能力"), _g("价格部分", 13, "price")]
    a = _analysis(groups, [ScoringTableInfo(key="t1", used=True)], scoring_stated_parts={"技术": 87, "价格": 13})
    found = explaining_rows(a)
    assert found is not None and found.ids == ["R2", "R3"] and found.category == "technical"
    assert found.why.endswith("移到技术类后，技术小计即与标明的一致")

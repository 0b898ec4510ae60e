"""Batch tree edits and the diff-based sync that brings the live tree to a run's result without a reset."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.core.limits import STORED, OutlineLimits
from app.core.outline import Inserted, Outline, OutlineNode, Removed, Reset, TreeEvent
from app.core.outline_sync import sync_children, sync_outline


def N(title: str, *children: OutlineNode, description: str = "") -> OutlineNode:
    return OutlineNode(title=title, description=description, children=list(children))


def _record(outline: Outline) -> list[TreeEvent]:
    events: list[TreeEvent] = []
    outline.subscribe(lambda phase, ev: events.append(ev) if phase == "after" else None)
    return events


def test_batch_insert_remove_and_set_children_are_one_event_each_and_number_new_nodes() -> None:
    o = Outline([N("甲", N("一"), N("二"))])
    events = _record(o)
    o.insert_many((), 1, [N("乙", N("子")), N("丙")])
    assert events == [Inserted((), 1, 2)]
    assert [(n.id, n.title) for _, n in o.walk()] == [("", "甲"), ("", "一"), ("", "二"), ("2", "乙"), ("2.1", "子"),
                                                       ("3", "丙")]
    removed = o.remove_range((0,), 0, 2)
    assert [n.title for n in removed] == ["一", "二"] and events[-1] == Removed((0,), 0, 2)
    o.set_children((1,), [N("新一"), N("新二")])
    assert events[-2:] == [Removed((1,), 0, 1), Inserted((1,), 0, 2)]
    assert not any(isinstance(e, Reset) for e in events)


def test_sync_keeps_matching_nodes_and_edits_only_what_differs() -> None:
    o = Outline([N("甲", N("一", N("a"), N("b")), N("二")), N("乙", N("三"))])
    kept = o.node((0, 0))
    events = _record(o)
    wanted = [N("甲", N("一", N("a"), N("b")), N("二", description="补充")), N("乙", N("三"), N("四"))]
    edits = sync_outline(o, wanted)
    assert edits == 2 and o.node((0, 0)) is kept  # untouched subtree stays the same object
    assert [type(e).__name__ for e in events] == ["Changed", "Inserted"]
    assert [(n.title, n.description) for _, n in o.walk()] == [(n.title, n.description) for _, n in Outline(wanted).walk()]


def test_sync_removes_dropped_nodes_and_inserts_new_ones_in_place() -> None:
    o = Outline([N("甲"), N("重复"), N("乙"), N("丙")])
    events = _record(o)
    sync_children(o, (), [N("甲"), N("乙"), N("新"), N("丙")])
    assert [c.title for c in o.chapters] == ["甲", "乙", "新", "丙"]
    assert [type(e).__name__ for e in events] == ["Removed", "Inserted"]
    events.clear()
    sync_children(o, (), [N("改名"), N("乙")])  # retitle in place, drop the tail in one edit
    assert [c.title for c in o.chapters] == ["改名", "乙"]
    assert [type(e).__name__ for e in events] == ["Changed", "Removed"]


def test_stored_bounds_allow_more_chapters_than_the_rules_do() -> None:
    many = [N(f"评分项{i}") for i in range(STORED.max_chapters)]
    o = Outline(many)
    o.replace(many)
    assert len(o.chapters) == STORED.max_chapters > OutlineLimits().max_chapters


def test_limits_variants_are_replacements_of_one_object() -> None:
    lim = OutlineLimits(depth=4, max_title_len=50)
    assert lim.solo().min_chapters == 1 and lim.solo().max_title_len == 50
    assert lim.flat().depth == 1 and lim.below(2).depth == 3 and lim.below(2).min_chapters == 1
    assert OutlineLimits().wire_title_len < OutlineLimits().max_title_len < STORED.max_title_len


def test_nodes_built_from_checked_values_equal_validated_ones() -> None:
    data = {"title": "甲", "description": "说明", "scoring_refs": ["R1"], "children": [{"title": "乙"}]}
    fast, slow = OutlineNode.from_checked(data), OutlineNode.model_validate(data)
    assert fast == slow and fast.model_dump() == slow.model_dump()
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.scoring_refs is not data["scoring_refs"]
    one, two = OutlineNode.from_checked({"title": "丙"}), OutlineNode.from_checked({"title": "丁"})
    assert one.children is not two.children and one.scoring_refs is not two.scoring_refs


def test_an_unchecked_update_is_validated_before_anything_changes() -> None:
    o = Outline([N("甲")])
    events = _record(o)
    with pytest.raises(ValidationError):
        o.update((0,), description="新说明", title="")
    assert o.node((0,)).description == "" and events == []
    o.update((0,), title="乙", checked=True)
    assert o.node((0,)).title == "乙" and len(events) == 1

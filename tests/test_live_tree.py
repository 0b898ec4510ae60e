"""A streamed JSON answer becomes validated instructions on the live tree, heading by heading."""

from __future__ import annotations

import json

from app.core.limits import OutlineLimits
from app.core.outline import Outline, OutlineNode
from app.core.stream_events import Instruction
from app.llm.instructions.apply import InstructionApplier
from app.pipeline.outline.live_tree import JsonOutlineFeed, LiveSubtree


def _feed_in_pieces(feed: JsonOutlineFeed, text: str, size: int = 5) -> list[int]:
    """Feed ``text`` in pieces; the tree size after each piece."""
    sizes = []
    for i in range(0, len(text), size):
        feed.feed(text[i:i + size])
        sizes.append(len(feed.outline))
    return sizes


def test_each_title_appears_when_its_string_closes_with_numbering_and_description() -> None:
    outline = Outline()
    feed = JsonOutlineFeed(InstructionApplier(outline), (), "outline", 3, OutlineLimits())
    feed.begin(1)
    doc = {"outline": [{"title": "1. 总体方案", "description": "写思路", "children": [
        {"description": "先给描述", "title": "设计原则"}, {"title": "技术路线"}]}, {"title": "实施计划"}]}
    text = json.dumps(doc, ensure_ascii=False)
    partial = text[: text.index("技术路线") + len("技术路线")]
    feed.feed(partial)
    assert [n.title for _, n in outline.walk()] == ["总体方案", "设计原则"]  # numbering stripped; the open string waits
    feed.feed(text[len(partial):])
    assert [(n.id, n.title, n.description) for _, n in outline.walk()] == [
        ("1", "总体方案", "写思路"), ("1.1", "设计原则", "先给描述"), ("1.2", "技术路线", ""), ("2", "实施计划", "")]
    assert feed.applied == 5 and feed.rejected == 0


def test_children_written_before_their_parents_title_wait_for_it() -> None:
    outline = Outline()
    feed = JsonOutlineFeed(InstructionApplier(outline), (), "outline", 3, OutlineLimits())
    feed.begin(1)
    doc = {"outline": [{"children": [{"title": "人员配置", "children": [{"title": "项目经理"}]}], "title": "服务方案"}]}
    sizes = _feed_in_pieces(feed, json.dumps(doc, ensure_ascii=False))
    assert [n.title for _, n in outline.walk()] == ["服务方案", "人员配置", "项目经理"]
    assert max(sizes) == 3 and sizes[0] == 0


def test_unusable_titles_and_levels_below_the_limit_are_left_out_a_new_attempt_starts_clean() -> None:
    outline = Outline([OutlineNode(title="旧章")])
    feed = JsonOutlineFeed(InstructionApplier(outline), (), "chapters", 1, OutlineLimits())
    feed.begin(1)
    assert outline.chapters == []  # a new answer rewrites the list
    doc = {"chapters": [{"title": "  "}, {"title": "质量保障", "children": [{"title": "不该出现"}]}]}
    feed.feed(json.dumps(doc, ensure_ascii=False))
    assert [n.title for _, n in outline.walk()] == ["质量保障"]
    feed.begin(2)
    feed.feed('{"chapters": [{"title": "重写的章"}]}')
    assert [c.title for c in outline.chapters] == ["重写的章"]


def test_a_chapters_children_are_mirrored_live_and_its_title_stays_locked() -> None:
    draft = Outline([OutlineNode(title="第一章"), OutlineNode(title="第二章", children=[OutlineNode(title="旧节")])])
    with LiveSubtree("第二章", draft, (1,)) as live:
        assert draft.chapters[1].children == []
        feed = JsonOutlineFeed(live.applier, (0,), "children", 2, OutlineLimits())
        feed.begin(1)
        feed.feed('{"children": [{"title": "应急组织", "children": [{"title": "应急小组"}]}]}')
        assert [(n.id, n.title) for _, n in draft.walk()] == [("", "第一章"), ("", "第二章"), ("2.1", "应急组织"),
                                                              ("2.1.1", "应急小组")]
        rename = Instruction("set", "/outline/0/title", ("outline", "0", "title"), "改名", True)
        assert "锁定" in (live.applier.check(rename) or "")
    feed.feed("")  # after leaving, the scratch no longer reaches the draft
    live.scratch.append((0,), OutlineNode(title="离开后"))
    assert [c.title for c in draft.chapters[1].children] == ["应急组织"]


def test_a_description_without_a_word_is_left_empty_in_the_tree_and_the_schema() -> None:
    """Gemma's huangpu run left ``}, {`` as a tender heading's description: debris, not a note."""
    from app.core.rules.outline import clean_description
    from app.pipeline.outline.schemas import LeafItem

    outline = Outline()
    feed = JsonOutlineFeed(InstructionApplier(outline), (), "outline", 3, OutlineLimits())
    feed.begin(1)
    doc = {"outline": [{"title": "应急服务方案", "description": "}, {", "children": [
        {"description": "……", "title": "应急预案"}, {"title": "应急演练", "description": "每季度一次"}]}]}
    feed.feed(json.dumps(doc, ensure_ascii=False))
    assert [(n.title, n.description) for _, n in outline.walk()] == [
        ("应急服务方案", ""), ("应急预案", ""), ("应急演练", "每季度一次")]
    assert LeafItem.model_validate({"title": "应急预案", "description": '"}, {"'}).description == ""
    assert clean_description(" 写 7×24 小时值守 ", 100) == "写 7×24 小时值守"
    assert clean_description("24", 100) == "24"

"""Validator and applier: every schema rule, locks, code-owned ids, and tree events."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from app.core.limits import STORED
from app.core.outline import Changed, Inserted, Moved, Outline, OutlineNode, Removed, Reset
from app.core.stream_events import Instruction, InstructionApplied, InstructionRejected, MalformedInstruction
from app.llm.instructions.apply import InstructionApplier
from app.llm.instructions.stream import parse_text
from app.llm.json.schema_check import compile_model_schema


def make(line: str | dict[str, Any]) -> Instruction:
    text = line if isinstance(line, str) else json.dumps(line, ensure_ascii=False)
    (event,) = parse_text(text)
    assert isinstance(event, Instruction), event
    return event


def tree(*titles: str | tuple[str, list[str]]) -> Outline:
    chapters = []
    for t in titles:
        if isinstance(t, tuple):
            chapters.append(OutlineNode(title=t[0], children=[OutlineNode(title=c) for c in t[1]]))
        else:
            chapters.append(OutlineNode(title=t))
    return Outline(chapters)


class Recorder:
    def __init__(self, outline: Outline) -> None:
        self.events: list[tuple[str, object]] = []
        outline.subscribe(lambda phase, ev: self.events.append((phase, ev)))


def rejected(applier: InstructionApplier, obj: dict[str, Any]) -> str:
    """Apply and require a rejection that changed nothing; returns the issue."""
    outline = applier.outline
    before = outline.to_data()
    rec = Recorder(outline)
    result = applier.apply(make(obj))
    assert isinstance(result, InstructionRejected), result
    assert outline.to_data() == before
    assert rec.events == []
    assert result.instruction is not None and result.raw
    return result.issue


def applied(applier: InstructionApplier, obj: dict[str, Any]) -> InstructionApplied:
    result = applier.apply(make(obj))
    assert isinstance(result, InstructionApplied), result
    return result


# ---------------------------------------------------------------------- ops and paths
def test_unknown_op_and_bad_root() -> None:
    a = InstructionApplier(tree("甲"))
    assert "未知操作“rename”" in rejected(a, {"op": "rename", "path": "/outline/0/title", "value": "x"})
    assert "必须以 /outline 开头" in rejected(a, {"op": "set", "path": "/chapters/0/title", "value": "x"})


def test_path_must_exist_in_schema() -> None:
    a = InstructionApplier(tree("甲"))
    issue = rejected(a, {"op": "set", "path": "/outline/0/subtitle", "value": "x"})
    assert "没有字段“subtitle”" in issue and "title" in issue
    assert "不能再有" in rejected(a, {"op": "set", "path": "/outline/0/title/text", "value": "x"})
    assert "不是数组下标" in rejected(a, {"op": "set", "path": "/outline/first/title", "value": "x"})


def test_index_must_be_in_range_append_adds() -> None:
    a = InstructionApplier(tree("甲", "乙"))
    issue = rejected(a, {"op": "set", "path": "/outline/2/title", "value": "丙"})
    assert "下标 2 超出范围" in issue and "只有 2 项" in issue and "append" in issue
    assert "超出范围" in rejected(a, {"op": "set", "path": "/outline/0/children/0/title", "value": "x"})
    applied(a, {"op": "append", "path": "/outline", "value": {"title": "丙"}})
    assert [c.title for c in a.outline.chapters] == ["甲", "乙", "丙"]


def test_type_must_match_bool_is_not_int_or_string() -> None:
    a = InstructionApplier(tree("甲"))
    assert "应为字符串，实际是整数" in rejected(a, {"op": "set", "path": "/outline/0/title", "value": 5})
    assert "实际是布尔值" in rejected(a, {"op": "set", "path": "/outline/0/description", "value": True})
    assert "应为字符串或null" in rejected(a, {"op": "set", "path": "/outline/0/source_requirement_id", "value": 3})
    applied(a, {"op": "set", "path": "/outline/0/source_requirement_id", "value": None})
    applied(a, {"op": "set", "path": "/outline/0/source_requirement_id", "value": "R1"})
    assert a.outline.chapters[0].source_requirement_id == "R1"
    assert "应为对象" in rejected(a, {"op": "append", "path": "/outline", "value": "丙"})
    assert "应为数组" in rejected(a, {"op": "set", "path": "/outline/0/children", "value": {"title": "x"}})


def test_string_lengths() -> None:
    a = InstructionApplier(tree("甲"))
    assert "不能为空" in rejected(a, {"op": "set", "path": "/outline/0/title", "value": ""})
    assert "超过上限 60" in rejected(a, {"op": "set", "path": "/outline/0/title", "value": "长" * 61})
    assert "超过上限 400" in rejected(a, {"op": "set", "path": "/outline/0/description", "value": "字" * 401})
    applied(a, {"op": "set", "path": "/outline/0/title", "value": "长" * 60})


def test_array_bounds() -> None:
    a = InstructionApplier(tree(*[f"章{i}" for i in range(STORED.max_chapters)]))
    issue = rejected(a, {"op": "append", "path": "/outline", "value": {"title": "再一章"}})
    assert f"最多允许 {STORED.max_chapters} 项" in issue
    most = STORED.max_children
    b = InstructionApplier(tree(("甲", [f"节{i}" for i in range(most - 1)])))
    issue = rejected(b, {"op": "append", "path": "/outline/0/children", "value": [{"title": "x"}, {"title": "y"}]})
    assert f"最多允许 {most} 项" in issue
    kids = [{"title": f"节{i}"} for i in range(most + 1)]
    assert f"最多允许 {most} 项" in rejected(b, {"op": "set", "path": "/outline/0/children", "value": kids})


def test_required_fields_and_defaults_of_appended_objects() -> None:
    a = InstructionApplier(tree("甲"))
    assert "缺少必填字段“title”" in rejected(a, {"op": "append", "path": "/outline", "value": {"description": "只有描述"}})
    issue = rejected(a, {"op": "append", "path": "/outline", "value": {"title": "乙", "children": [{"description": "x"}]}})
    assert "/outline/1/children/0 缺少必填字段“title”" in issue
    applied(a, {"op": "append", "path": "/outline", "value": {"title": "乙"}})
    node = a.outline.chapters[1]
    assert (node.description, node.children, node.source_requirement_id, node.content) == ("", [], None, "")


def test_no_extra_properties_even_nested() -> None:
    a = InstructionApplier(tree("甲"))
    assert "不允许有字段“level”" in rejected(a, {"op": "append", "path": "/outline", "value": {"title": "乙", "level": 1}})
    issue = rejected(a, {"op": "append", "path": "/outline", "value": {"title": "乙", "children": [{"title": "x", "name": "y"}]}})
    assert "/outline/1/children/0 不允许有字段“name”" in issue


def test_missing_value_and_append_target_must_be_a_list() -> None:
    a = InstructionApplier(tree("甲"))
    assert "缺少 value" in rejected(a, {"op": "set", "path": "/outline/0/title"})
    assert "必须指向数组" in rejected(a, {"op": "append", "path": "/outline/0", "value": {"title": "x"}})
    assert "必须指向数组" in rejected(a, {"op": "append", "path": "/outline/0/title", "value": "x"})


# ---------------------------------------------------------------------- code-owned and locks
def test_id_is_code_owned() -> None:
    a = InstructionApplier(tree("甲"))
    assert "由程序自动生成" in rejected(a, {"op": "set", "path": "/outline/0/id", "value": "9"})
    result = applied(a, {"op": "append", "path": "/outline", "value": {"id": "7", "title": "乙", "children": [{"id": "7.1", "title": "丙"}]}})
    assert any("编号" in n for n in result.notes)
    assert a.outline.chapters[1].id == "2" and a.outline.chapters[1].children[0].id == "2.1"  # positional, not 7


def one_to_one() -> InstructionApplier:
    outline = tree(("技术方案", ["设计原则", "总体架构"]), ("实施计划", ["进度", "人员"]))
    return InstructionApplier(outline, locked=["/outline/*/title", "/outline/*/source_requirement_id"], lock_reason="一级标题对应评分项")


def test_locked_paths_refused() -> None:
    a = one_to_one()
    assert "已锁定" in rejected(a, {"op": "set", "path": "/outline/0/title", "value": "改名"})
    assert "一级标题对应评分项" in rejected(a, {"op": "set", "path": "/outline/1/source_requirement_id", "value": "R9"})
    assert "不能在 /outline 中增加" in rejected(a, {"op": "append", "path": "/outline", "value": {"title": "新章"}})
    assert "已锁定" in rejected(a, {"op": "remove", "path": "/outline/0"})
    assert "已锁定" in rejected(a, {"op": "move", "from": "/outline/0", "path": "/outline/1"})
    assert "已锁定" in rejected(a, {"op": "insert", "path": "/outline/0", "value": {"title": "x"}})
    assert "已锁定" in rejected(a, {"op": "set", "path": "/outline", "value": []})
    assert "改动了已锁定" in rejected(a, {"op": "set", "path": "/outline/0", "value": {"title": "别的"}})
    # below the locked level everything is open
    applied(a, {"op": "set", "path": "/outline/0", "value": {"title": "技术方案", "description": "新描述"}})
    assert [c.title for c in a.outline.chapters[0].children] == ["设计原则", "总体架构"]
    applied(a, {"op": "set", "path": "/outline/0/description", "value": "说明"})
    applied(a, {"op": "append", "path": "/outline/0/children", "value": {"title": "关键技术"}})
    applied(a, {"op": "set", "path": "/outline/0/children/0/title", "value": "设计思路"})
    applied(a, {"op": "remove", "path": "/outline/1/children/1"})


def test_lock_predicate() -> None:
    def no_content(ins: Instruction) -> str | None:
        return "正文不由目录生成填写" if ins.tokens[-1:] == ("content",) else None

    a = InstructionApplier(tree("甲"), is_locked=no_content)
    assert rejected(a, {"op": "set", "path": "/outline/0/content", "value": "x"}) == "正文不由目录生成填写"
    applied(a, {"op": "set", "path": "/outline/0/description", "value": "x"})


# ---------------------------------------------------------------------- applying through tree methods
def test_set_field_emits_changed() -> None:
    a = InstructionApplier(tree("甲"))
    rec = Recorder(a.outline)
    applied(a, {"op": "set", "path": "$.outline[0].title", "value": "新"})
    assert rec.events == [("before", Changed((0,), ("title",))), ("after", Changed((0,), ("title",)))]


def test_append_insert_remove_emit_tree_events() -> None:
    a = InstructionApplier(tree(("甲", ["一", "二"])))
    rec = Recorder(a.outline)
    applied(a, {"op": "append", "path": "/outline/0/children/-", "value": {"title": "三"}})
    applied(a, {"op": "insert", "path": "/outline/0/children/0", "value": {"title": "零"}})
    applied(a, {"op": "insert", "path": "/outline/0/children/4", "value": {"title": "四"}})
    assert "超出范围" in rejected(a, {"op": "insert", "path": "/outline/0/children/9", "value": {"title": "九"}})
    applied(a, {"op": "remove", "path": "/outline/0/children/1"})
    assert [c.title for c in a.outline.chapters[0].children] == ["零", "二", "三", "四"]
    afters = [ev for phase, ev in rec.events if phase == "after"]
    assert afters == [Inserted((0,), 2), Inserted((0,), 0), Inserted((0,), 4), Removed((0,), 1)]
    assert "只能作用于数组中的一项" in rejected(a, {"op": "remove", "path": "/outline/0/title"})


def test_replace_node_list_and_document() -> None:
    a = InstructionApplier(tree(("甲", ["一", "二"]), "乙"))
    rec = Recorder(a.outline)
    result = applied(a, {"op": "set", "path": "/outline/0", "value": {"title": "甲2"}})
    assert any("保留了原有的下级标题" in n for n in result.notes)
    assert [c.title for c in a.outline.chapters[0].children] == ["一", "二"]
    applied(a, {"op": "set", "path": "/outline/1/children", "value": [{"title": "x"}, {"title": "y"}]})
    assert [c.title for c in a.outline.chapters[1].children] == ["x", "y"]
    applied(a, {"op": "set", "path": "/outline", "value": [{"title": "新甲"}, {"title": "新乙"}]})
    assert [c.title for c in a.outline.chapters] == ["新甲", "新乙"]
    kinds = {type(ev) for _, ev in rec.events}
    assert {Removed, Inserted} <= kinds and Reset not in kinds  # replacing a list never resets the tree


@pytest.mark.parametrize(
    ("src", "dst", "expected"),
    [
        ("/outline/0/children/0", "/outline/0/children/2", [["二", "三", "一"], ["四"]]),
        ("/outline/0/children/2", "/outline/0/children/0", [["三", "一", "二"], ["四"]]),
        ("/outline/0/children/1", "/outline/1/children/1", [["一", "三"], ["四", "二"]]),
        ("/outline/1/children/0", "/outline/0/children/3", [["一", "二", "三", "四"], []]),
        ("/outline/1", "/outline/0", None),
    ],
)
def test_move_follows_rfc6902(src: str, dst: str, expected: list[list[str]] | None) -> None:
    a = InstructionApplier(tree(("甲", ["一", "二", "三"]), ("乙", ["四"])))
    rec = Recorder(a.outline)
    applied(a, {"op": "move", "from": src, "path": dst})
    if expected is None:
        assert [c.title for c in a.outline.chapters] == ["乙", "甲"]
    else:
        assert [[c.title for c in ch.children] for ch in a.outline.chapters] == expected
    assert any(isinstance(ev, Moved) for _, ev in rec.events)


def test_move_rejections() -> None:
    a = InstructionApplier(tree(("甲", ["一"]), "乙"))
    assert "缺少 from" in rejected(a, {"op": "move", "path": "/outline/1"})
    assert "自己的下级" in rejected(a, {"op": "move", "from": "/outline/0", "path": "/outline/0/children/0"})
    assert "超出范围" in rejected(a, {"op": "move", "from": "/outline/0/children/0", "path": "/outline/1/children/3"})


def test_done_and_malformed() -> None:
    a = InstructionApplier(tree("甲"))
    assert isinstance(a.apply(make({"op": "done"})), InstructionApplied)
    r = InstructionApplier.reject_malformed(MalformedInstruction("{\"op\":", "截断", truncated=True), round_no=2)
    assert (r.issue, r.truncated, r.round, r.instruction) == ("截断", True, 2, None)
    assert a.check(make({"op": "set", "path": "/outline/0/title", "value": ""})) is not None
    assert a.check(make({"op": "set", "path": "/outline/0/title", "value": "乙"})) is None
    assert a.outline.chapters[0].title == "甲"


# ---------------------------------------------------------------------- the schema checker itself
class _Kind(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: int = Field(ge=1, le=4)
    weight: float = 1.0
    mode: Literal["free", "aligned"] = "free"
    tags: list[str] = Field(default_factory=list, min_length=1, max_length=2)
    flag: bool = False


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ({"level": True, "tags": ["a"]}, "应为整数，实际是布尔值"),
        ({"level": 1.5, "tags": ["a"]}, "应为整数，实际是数字"),
        ({"level": 0, "tags": ["a"]}, "不能小于 1"),
        ({"level": 5, "tags": ["a"]}, "不能大于 4"),
        ({"level": 1, "mode": "strict", "tags": ["a"]}, "只能是：free、aligned"),
        ({"level": 1, "tags": []}, "至少需要 1 项"),
        ({"level": 1, "tags": ["a", "b", "c"]}, "最多允许 2 项"),
        ({"level": 1, "tags": [1]}, "/tags/0 应为字符串"),
        ({"level": 1, "tags": ["a"], "flag": 1}, "应为布尔值"),
        ({"tags": ["a"]}, "缺少必填字段“level”"),
        ({"level": 1, "tags": ["a"], "x": 1}, "不允许有字段“x”"),
    ],
)
def test_schema_rules(value: dict[str, Any], needle: str) -> None:
    schema = compile_model_schema(_Kind)
    issues: list[str] = []
    schema.check(value, "", issues)
    assert any(needle in i for i in issues), issues


def test_schema_accepts_valid_and_int_for_number() -> None:
    schema = compile_model_schema(_Kind)
    issues: list[str] = []
    schema.check({"level": 2, "weight": 3, "mode": "aligned", "tags": ["a"], "flag": True}, "", issues)
    assert issues == []
    assert schema.fill_defaults({"level": 2})["mode"] == "free"


def test_numbering_in_titles_is_removed_by_code() -> None:
    a = InstructionApplier(tree("甲"))
    r = applied(a, {"op": "set", "path": "/outline/0/title", "value": "1.2 设计原则"})
    assert a.outline.chapters[0].title == "设计原则" and any("编号" in n for n in r.notes)
    r = applied(a, {"op": "append", "path": "/outline", "value": {"title": "第二章 实施方案", "children": [{"title": "（一）进度计划"}]}})
    assert a.outline.chapters[1].title == "实施方案" and a.outline.chapters[1].children[0].title == "进度计划"
    applied(a, {"op": "append", "path": "/outline", "value": {"title": "5G 网络方案"}})
    assert a.outline.chapters[2].title == "5G 网络方案"
    applied(a, {"op": "set", "path": "/outline/2/title", "value": "第一部分 总体设计"})
    assert a.outline.chapters[2].title == "总体设计"  # not "分 总体设计"
    applied(a, {"op": "set", "path": "/outline/2/title", "value": "第一阶段工作安排"})
    assert a.outline.chapters[2].title == "第一阶段工作安排"
    keep = InstructionApplier(tree("甲"), strip_title_numbers=False)
    applied(keep, {"op": "set", "path": "/outline/0/title", "value": "1.2 设计原则"})
    assert keep.outline.chapters[0].title == "1.2 设计原则"

"""The fast path for plain appends and sets gives exactly the general applier's results."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.outline import Outline, OutlineNode
from app.core.stream_events import Instruction, InstructionApplied
from app.llm.instructions.apply import InstructionApplier

TEXTS = st.one_of(
    st.sampled_from(["总体方案", "设计原则", "", " ", "1.2 技术路线", "第一章 概述", "（一）保障", "a" * 61, "说" * 401,
                     "实施计划", "质量保证措施"]),
    st.text(min_size=0, max_size=8),
)
VALUES = st.one_of(TEXTS, st.none(), st.integers(-2, 3), st.lists(st.just("R1"), max_size=2))
KEYS = st.sampled_from(["title", "description", "content", "id", "source_requirement_id", "scoring_refs",
                        "origin", "children", "bogus"])
GOOD = st.sampled_from(["总体方案", "设计原则", "实施计划", "质量保证措施", "技术路线", "应急预案"])
PLAIN = st.fixed_dictionaries({"title": st.one_of(GOOD, GOOD, TEXTS)},
                              optional={"description": st.one_of(GOOD, TEXTS), "content": TEXTS})
OBJECTS = st.one_of(PLAIN, PLAIN, st.dictionaries(KEYS, VALUES, max_size=4)).map(
    lambda d: {**d, "children": [{"title": "子项"}]} if d.get("children") is not None else d)
INDEX = st.sampled_from(["0", "1", "2", "7", "01", "x", "-"])
FIELD = st.sampled_from(["title", "description", "content", "id", "source_requirement_id", "children", "bogus"])


@st.composite
def tokens(draw: Any) -> tuple[str, ...]:
    depth = draw(st.integers(0, 3))
    toks = ["outline"] if draw(st.integers(0, 9)) else ["chapters"]
    for d in range(depth):
        toks.append(draw(INDEX))
        if d < depth - 1 or draw(st.booleans()):
            toks.append("children" if draw(st.integers(0, 6)) else draw(FIELD))
    if draw(st.booleans()):
        toks.append(draw(FIELD))
    return tuple(toks)


@st.composite
def plausible_tokens(draw: Any, op: str) -> tuple[str, ...]:
    """Paths a model really writes: a children list to append to, or a field of a heading."""
    chapter = draw(st.sampled_from(["0", "1", "2"]))
    if op == "append":
        return draw(st.sampled_from([("outline",), ("outline", chapter, "children"),
                                     ("outline", "0", "children", draw(st.sampled_from(["0", "1", "3"])), "children")]))
    field = draw(st.sampled_from(["title", "description", "content"]))
    return draw(st.sampled_from([("outline", chapter, field), ("outline", "0", "children", "1", field)]))


@st.composite
def instructions(draw: Any) -> Instruction:
    op = draw(st.sampled_from(["append", "set", "append", "set", "insert", "done"]))
    toks = draw(st.one_of(tokens(), plausible_tokens(op), plausible_tokens(op)))
    value = draw(st.one_of(OBJECTS, VALUES)) if op == "append" else draw(st.one_of(GOOD, TEXTS, VALUES, OBJECTS))
    has_value = draw(st.integers(0, 9)) > 0
    return Instruction(op, "/" + "/".join(toks), toks, value if has_value else None, has_value, raw="{}")


def _tree() -> Outline:
    return Outline([OutlineNode(title="甲", children=[OutlineNode(title="甲一"), OutlineNode(title="甲二")]),
                    OutlineNode(title="乙")])


@settings(max_examples=300, deadline=None)
@given(st.lists(instructions(), min_size=1, max_size=12))
def test_fast_and_general_paths_agree(batch: list[Instruction]) -> None:
    fast = InstructionApplier(_tree())
    general = InstructionApplier(_tree())
    general.fast = None
    assert fast.fast is not None
    for ins in batch:
        took = fast.fast.apply(ins)
        a = InstructionApplied(ins, 0, ()) if took else fast.apply(ins)
        b = general.apply(ins)
        assert type(a) is type(b), ins
        if isinstance(a, InstructionApplied):
            assert a.notes == b.notes  # type: ignore[union-attr]
        assert fast.outline.to_data() == general.outline.to_data(), ins


def test_the_fast_path_takes_the_common_instructions_and_leaves_locked_ones() -> None:
    applier = InstructionApplier(_tree())
    assert applier.fast is not None
    append = Instruction("append", "/outline/0/children", ("outline", "0", "children"),
                         {"title": "甲三", "description": "说明"}, True)
    assert applier.fast.apply(append) and applier.outline.node((0, 2)).id == "1.3"
    numbered = Instruction("set", "/outline/1/title", ("outline", "1", "title"), "2. 乙章", True)
    assert not applier.fast.apply(numbered)  # numbering is stripped by the general path, with a note
    assert InstructionApplier(_tree(), locked=["/outline/*/title"]).fast is None

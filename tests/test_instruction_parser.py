"""Crafted hostile instruction streams: the six NovelForge pitfalls and more.

Each stream is checked fed whole, and again fed in random chunk sizes (hypothesis): the
events and the resulting tree must be identical. Pitfall 6 (errors counted per round) is a
round-level property and is tested in test_instruction_rounds.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.outline import Outline, OutlineDocument
from app.core.stream_events import Instruction, MalformedInstruction, ParseEvent, Thinking
from app.llm.instructions.apply import InstructionApplier
from app.llm.instructions.stream import MAX_CANDIDATE_LINES, InstructionParser, parse_text


def ins(op: str, path: str = "", value: Any = None) -> str:
    """One compact instruction line."""
    obj: dict[str, Any] = {"op": op}
    if path:
        obj["path"] = path
    if value is not None:
        obj["value"] = value
    return json.dumps(obj, ensure_ascii=False)


def instructions(events: list[ParseEvent]) -> list[tuple[str, str, Any]]:
    return [(e.op, e.path, e.value) for e in events if isinstance(e, Instruction)]


def malformed(events: list[ParseEvent]) -> list[MalformedInstruction]:
    return [e for e in events if isinstance(e, MalformedInstruction)]


def thinking(events: list[ParseEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, Thinking)]


@dataclass
class Case:
    """A hostile stream and what must come out of it."""

    text: str
    expect: list[tuple[str, str, Any]]
    malformed: int = 0
    truncated: int = 0
    fixes: dict[int, set[str]] = field(default_factory=dict)  # instruction index -> fixes expected
    thinking_contains: tuple[str, ...] = ()


A0 = {"title": "总体设计方案", "description": "总体思路"}
LONG_OPEN = '{"op":"set","path":"/outline/0/title","value":"没有闭合的引号'

CASES: dict[str, Case] = {
    # ---- the six NovelForge pitfalls (6 is in test_instruction_rounds.py)
    "p1_several_on_one_line": Case(
        "先建第一章。" + ins("append", "/outline", A0) + " 然后 " + ins("set", "/outline/0/title", "总体方案")
        + ins("append", "/outline/0/children", {"title": "设计原则"}) + "\n" + ins("done") + "\n",
        [("append", "/outline", A0), ("set", "/outline/0/title", "总体方案"),
         ("append", "/outline/0/children", {"title": "设计原则"}), ("done", "", None)],
        thinking_contains=("先建第一章。", " 然后 "),
    ),
    "p2_braces_in_thinking": Case(
        "标题模板是 {title}，描述写成 {description}；集合 {a, b} 与 {} 都不是指令。\n"
        "再看 {\"title\": \"示例\"} 这种对象也只是举例。\n" + ins("append", "/outline", A0) + "\n",
        [("append", "/outline", A0)],
        thinking_contains=("{title}", "{\"title\": \"示例\"}"),
    ),
    "p3_unmatched_brace_then_instructions": Case(
        "这里有一个没配对的 { 左括号，\n还有一个 {\"op\": \"set\", \"path\": 开头却没写完的片段\n"
        + ins("append", "/outline", A0) + "\n思考 " + ins("set", "/outline/0/description", "更新") + "\n",
        [("append", "/outline", A0), ("set", "/outline/0/description", "更新")],
        malformed=1,
    ),
    "p3b_unclosed_string_does_not_swallow_mid_line_instructions": Case(
        LONG_OPEN + "\n" + "继续思考……\n" * (MAX_CANDIDATE_LINES + 2)
        + "结论：" + ins("append", "/outline", A0) + "\n",
        [("append", "/outline", A0)],
        malformed=1,
    ),
    "p4_backslash_at_end_of_thinking": Case(
        "路径写成 C:\\\n" + ins("append", "/outline", A0) + "\n行尾两个反斜杠 \\\\\n"
        + ins("set", "/outline/0/title", "新标题") + "\n",
        [("append", "/outline", A0), ("set", "/outline/0/title", "新标题")],
        thinking_contains=("路径写成 C:\\",),
    ),
    "p5_truncated_final_instruction": Case(
        ins("append", "/outline", A0) + "\n" + '{"op":"set","path":"/outline/0/title","value":"被截断的标',
        [("append", "/outline", A0)],
        malformed=1, truncated=1,
    ),
    "p5b_truncated_inside_escape": Case(
        ins("append", "/outline", A0) + "\n" + '{"op":"set","path":"/outline/0/description","value":"a\\',
        [("append", "/outline", A0)],
        malformed=1, truncated=1,
    ),
    "p5c_truncated_pretty_printed": Case(
        ins("append", "/outline", A0) + '\n{\n  "op": "append",\n  "path": "/outline",\n  "value": {\n    "title": "第二',
        [("append", "/outline", A0)],
        malformed=1, truncated=1,
    ),
    # ---- more hostile streams
    "pretty_printed_multi_line": Case(
        "下面追加一章：\n{\n  \"op\": \"append\",\n  \"path\": \"/outline\",\n  \"value\": {\n"
        "    \"title\": \"总体设计方案\",\n    \"description\": \"总体思路\"\n  }\n}\n"
        "{ \"op\": \"set\",\n  \"path\": \"/outline/0/title\", \"value\": \"总体方案\" }\n",
        [("append", "/outline", A0), ("set", "/outline/0/title", "总体方案")],
        thinking_contains=("下面追加一章：",),
    ),
    "code_fences": Case(
        "```json\n" + ins("append", "/outline", A0) + "\n```\n说明文字\n~~~\n"
        + ins("set", "/outline/0/title", "总体方案") + "\n~~~\n内联：`" + ins("done") + "`\n",
        [("append", "/outline", A0), ("set", "/outline/0/title", "总体方案"), ("done", "", None)],
        thinking_contains=("说明文字",),
    ),
    "tolerant_fixes": Case(
        '{"op":"append","path":"/outline","value":{"title":"总体设计方案","description":"总体思路",},}\n'
        "{'op': 'set', 'path': '/outline/0/source_requirement_id', 'value': None}\n"
        '{"op":"set","path":"/outline/0/title", // 改标题\n "value":"总体方案"}\n',
        [("append", "/outline", A0), ("set", "/outline/0/source_requirement_id", None),
         ("set", "/outline/0/title", "总体方案")],
        fixes={0: {"trailing_comma"}, 1: {"single_quotes", "python_literals"}, 2: {"comment"}},
    ),
    "fullwidth_punctuation": Case(
        '{"op"："append"，"path"："/outline"，"value"：{"title"："总体设计方案"，"description"："总体思路"}}\n',
        [("append", "/outline", A0)],
        fixes={0: {"fullwidth_punctuation"}},
    ),
    "braces_quotes_escapes_inside_values": Case(
        ins("append", "/outline", {"title": "括号{}与\"引号\"", "description": '示例 {"op":"set"} 结尾\\'}) + "\n"
        + ins("set", "/outline/0/content", "a}b]c\\\\n") + "\n",
        [("append", "/outline", {"title": "括号{}与\"引号\"", "description": '示例 {"op":"set"} 结尾\\'}),
         ("set", "/outline/0/content", "a}b]c\\\\n")],
    ),
    "crlf_line_endings": Case(
        "思考\r\n" + ins("append", "/outline", A0) + "\r\n" + ins("done") + "\r\n",
        [("append", "/outline", A0), ("done", "", None)],
        thinking_contains=("思考",),
    ),
    "missing_closing_brace_before_next_instruction": Case(
        '{"op":"append","path":"/outline","value":{"title":"总体设计方案","description":"总体思路"}\n'
        + ins("set", "/outline/0/title", "总体方案") + "\n",
        [("append", "/outline", A0), ("set", "/outline/0/title", "总体方案")],
        fixes={0: {"missing_closing_brace"}},
    ),
    "pointer_dialects": Case(
        ins("append", "$.outline", A0) + "\n" + ins("set", "$.outline[0].title", "甲") + "\n"
        + ins("set", "outline.0.description", "乙") + "\n" + ins("append", "/outline/0/children/-", {"title": "丙"}) + "\n",
        [("append", "/outline", A0), ("set", "/outline/0/title", "甲"), ("set", "/outline/0/description", "乙"),
         ("append", "/outline/0/children/-", {"title": "丙"})],
    ),
    "not_instructions_but_instruction_like": Case(
        '{"path": "/outline/0/title", "value": "缺 op"}\n{"op": "set", "value": "缺 path"}\n'
        '{"op": "set", "path": ".", "value": 1}\n' + ins("append", "/outline", A0) + "\n",
        [("append", "/outline", A0)],
        malformed=3,
    ),
    "json_array_of_instructions": Case(
        "[" + ins("append", "/outline", A0) + ", " + ins("done") + "]\n",
        [("append", "/outline", A0), ("done", "", None)],
    ),
    "lone_open_brace_line_then_text": Case(
        "function() {\n  return 1;\n}\n" + ins("append", "/outline", A0) + "\n",
        [("append", "/outline", A0)],
        thinking_contains=("function() ", "{", "  return 1;", "}"),
    ),
    "raw_newline_inside_string": Case(
        '{"op":"set","path":"/outline/0/description","value":"第一行\n第二行"}\n',
        [("set", "/outline/0/description", "第一行\n第二行")],
        fixes={0: {"newline_in_string"}},
    ),
    "stray_closers_and_garbage": Case(
        "}}] ]] 乱码 \"\"\" ''' \\\\ \n" + ins("append", "/outline", A0) + "}}\n",
        [("append", "/outline", A0)],
    ),
    "unclosed_candidate_then_line_start_instruction": Case(
        '{"op":"set","path":"/outline/0/title","value":"引号没闭合\n还在想\n' + ins("append", "/outline", A0) + "\n",
        [("append", "/outline", A0)],
        malformed=1,
    ),
    "empty_and_blank": Case("\n\n   \n", []),
}


def parse_chunked(text: str, cuts: list[int]) -> list[ParseEvent]:
    parser = InstructionParser()
    events: list[ParseEvent] = []
    prev = 0
    for c in sorted(set(cuts)):
        events += parser.feed(text[prev:c])
        prev = c
    events += parser.feed(text[prev:])
    events += parser.close()
    return events


def apply_all(events: list[ParseEvent]) -> tuple[dict[str, Any], list[tuple[str, str]], list[tuple[str, Any]]]:
    """The tree, the applier results and the tree events after applying ``events``."""
    outline = Outline()
    tree_events: list[tuple[str, Any]] = []
    outline.subscribe(lambda phase, ev: tree_events.append((phase, ev)))
    applier = InstructionApplier(outline)
    results = []
    for e in events:
        if isinstance(e, Instruction):
            r = applier.apply(e)
            results.append((type(r).__name__, getattr(r, "issue", "")))
    return outline.to_data(), results, tree_events


@pytest.mark.parametrize("name", list(CASES))
def test_crafted_stream(name: str) -> None:
    case = CASES[name]
    events = parse_text(case.text)
    assert instructions(events) == case.expect
    bad = malformed(events)
    assert len(bad) == case.malformed, bad
    assert sum(m.truncated for m in bad) == case.truncated
    for i, wanted in case.fixes.items():
        got = [e for e in events if isinstance(e, Instruction)][i].fixes
        assert wanted <= set(got), got
    if not case.fixes:
        assert all(not e.fixes for e in events if isinstance(e, Instruction))
    texts = thinking(events)
    for snippet in case.thinking_contains:
        assert any(snippet in t for t in texts), (snippet, texts)
    # nothing of an instruction leaks into thinking
    for t in texts:
        assert '"op"' not in t or "示例" in t or "开头却没写完" in t or "继续" in t


@pytest.mark.parametrize("name", list(CASES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_crafted_stream_chunk_independent(name: str, data: st.DataObject) -> None:
    text = CASES[name].text
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=40))
    whole = parse_text(text)
    chunked = parse_chunked(text, cuts)
    assert chunked == whole
    assert apply_all(chunked) == apply_all(whole)


def test_char_by_char_equals_whole() -> None:
    text = "".join(c.text for c in CASES.values())
    assert parse_chunked(text, list(range(len(text)))) == parse_text(text)


def test_truncated_instruction_is_never_applied() -> None:
    text = ins("append", "/outline", A0) + "\n" + '{"op":"set","path":"/outline/0/title","value":"截断"'
    events = parse_text(text)
    tree, results, _ = apply_all(events)
    assert tree["outline"][0]["title"] == "总体设计方案"
    assert results == [("InstructionApplied", "")]
    (m,) = malformed(events)
    assert m.truncated and "截断" in m.issue


def test_in_instruction_flags_an_open_candidate() -> None:
    parser = InstructionParser()
    parser.feed("思考\n{\"op\":\"set\",\n")
    assert parser.in_instruction
    parser.feed('"path":"/outline/0/title","value":"x"}\n')
    assert not parser.in_instruction


def test_feed_after_close_is_an_error() -> None:
    parser = InstructionParser()
    parser.close()
    with pytest.raises(RuntimeError):
        parser.feed("x")


_THOUGHT = st.text(alphabet=list('ab中文 {}[]"\'\\:,`~$.-/'), max_size=30).filter(lambda s: "```" not in s and "~~~" not in s)
_VALUE = st.text(alphabet=list('xy设计 {}[]"\'\\:,\n\t'), max_size=12)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_THOUGHT, _VALUE), max_size=12), st.lists(st.integers(0, 2000), max_size=30))
def test_generated_streams_recover_every_instruction(items: list[tuple[str, str]], cuts: list[int]) -> None:
    """Random thinking lines full of braces and quotes never hide a line-start instruction."""
    lines = []
    expected = []
    for n, (thought, value) in enumerate(items):
        lines.append(thought)
        path = f"/outline/{n}/description"
        lines.append(ins("set", path, value))
        expected.append(("set", path, value))
    text = "\n".join(lines)
    events = parse_text(text)
    assert instructions(events) == expected
    assert not malformed(events)
    cuts = [c for c in cuts if c <= len(text)]
    assert parse_chunked(text, cuts) == events


_FRAGMENTS = st.sampled_from([
    '{"op":', '{"op": "set", ', '"path": "/outline/0/title"', '"value": ', '"x"', "}", "{", "]", "[", '"',
    "'", "\\", "\n", "\r\n", "```json\n", "```\n", ",", "：", "{'op': 'append', ", "True", "//", "思考", " ",
    '{"op":"done"}', '{"op":"append","path":"/outline","value":{"title":"章"}}', "\t", "{title}", "$.outline[0]",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=60), st.lists(st.integers(0, 3000), max_size=25))
def test_fuzzed_fragments_never_crash_and_are_chunk_independent(parts: list[str], cuts: list[int]) -> None:
    """Any mix of instruction fragments: no exception, same events chunked, applying never crashes."""
    text = "".join(parts)
    events = parse_text(text)
    assert parse_chunked(text, [c for c in cuts if c <= len(text)]) == events
    tree, results, tree_events = apply_all(events)
    OutlineDocument.model_validate(tree)
    assert len(results) == sum(isinstance(e, Instruction) for e in events)
    phases = [p for p, _ in tree_events]
    assert phases == ["before", "after"] * (len(phases) // 2)
    # events come in stream order
    lines = [e.line for e in events]
    assert lines == sorted(lines)

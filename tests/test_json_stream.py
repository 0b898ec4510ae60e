"""The incremental JSON reader: string values with their paths, the same however the text is chunked."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from app.llm.json.stream import JsonStreamReader, JsonString

DOC = {
    "outline": [
        {"title": "总体方案", "description": "说明\"引号\"与\\反斜杠", "children": [
            {"title": "设计原则", "children": []},
            {"title": "技术路线\n换行", "n": 3, "ok": True, "x": None, "f": -1.5e3},
        ]},
        {"description": "先写描述", "title": "实施计划"},
    ],
}


def _values(text: str, cuts: list[int] | None = None) -> list[tuple[tuple[object, ...], str]]:
    reader = JsonStreamReader()
    out: list[JsonString] = []
    last = 0
    for cut in sorted(cuts or []):
        out += reader.feed(text[last:cut])
        last = cut
    out += reader.feed(text[last:])
    return [(s.path, s.value) for s in out]


def test_paths_and_values_in_document_order() -> None:
    got = _values(json.dumps(DOC, ensure_ascii=False))
    assert got == [
        (("outline", 0, "title"), "总体方案"),
        (("outline", 0, "description"), '说明"引号"与\\反斜杠'),
        (("outline", 0, "children", 0, "title"), "设计原则"),
        (("outline", 0, "children", 1, "title"), "技术路线\n换行"),
        (("outline", 1, "description"), "先写描述"),
        (("outline", 1, "title"), "实施计划"),
    ]


def test_a_value_is_reported_when_its_closing_quote_arrives() -> None:
    reader = JsonStreamReader()
    assert reader.feed('{"chapters": [{"title": "项目理') == []
    assert reader.feed("解") == []
    got = reader.feed('", "description"')
    assert [(s.path, s.value) for s in got] == [(("chapters", 0, "title"), "项目理解")]


def test_prose_fences_and_brackets_before_the_json_are_skipped() -> None:
    text = '好的，[注] 以下是结果：\n```json\n{"children": [{"title": "人员配置"}]}\n```\n后面的 {"title": "不算"}'
    reader = JsonStreamReader()
    assert [(s.path, s.value) for s in reader.feed(text)] == [(("children", 0, "title"), "人员配置")]
    assert reader.finished


def test_broken_json_stops_reporting_without_raising() -> None:
    reader = JsonStreamReader()
    got = reader.feed('{"children": [{"title": "甲"} {"title": "乙"}]}')
    assert [s.value for s in got] == ["甲"]
    assert reader.failed


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=400), max_size=25))
def test_any_chunking_gives_the_same_values(cuts: list[int]) -> None:
    text = "思考一下。\n" + json.dumps(DOC, ensure_ascii=False, indent=1)
    cuts = [c for c in cuts if c <= len(text)]
    assert _values(text, cuts) == _values(text)

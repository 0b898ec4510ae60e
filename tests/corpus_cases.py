"""The broken-output corpus: loading the cases and the rules they are judged by.

Shared by tests/test_collect_json_corpus.py and tests/benchmarks/bench_collect_json.py.
Each case is a hand-written weak-model answer for the outline document model, with the
expected outcome (fixed locally / fixed by one model repair / structured failure) in
``tests/corpus/broken_outputs.json``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.outline import OutlineDocument
from app.core.rules.outline import generation_issues
from app.llm.json.normalize import strip_title_numbering
from tests.openai_server import OpenAIServer, RecordedRequest, Reply

CORPUS = Path(__file__).resolve().parent / "corpus"
BROKEN = CORPUS / "broken_outputs"
MESSAGES = [
    {"role": "system", "content": "你是投标文件编写专家，只输出 JSON。"},
    {"role": "user", "content": "根据评分项生成技术标三级目录，输出 {\"outline\": [...]}。"},
]
NORMALIZERS = (strip_title_numbering,)


@dataclass
class Case:
    """One corpus answer and what should become of it."""

    name: str
    text: str
    kind: str
    expect: str  # "local" | "model_repair" | "fail"
    reply: str | None = None  # "good" | "good_mapped" | "same"
    finish: str = "stop"
    requirements: list[str] = field(default_factory=list)
    uncertain: bool = False


def load_cases() -> list[Case]:
    """All corpus cases in file order; every file must be described in the manifest."""
    manifest: dict[str, Any] = json.loads((CORPUS / "broken_outputs.json").read_text("utf-8"))
    files = sorted(BROKEN.glob("*.txt"))
    names = {f.name for f in files}
    described = {k for k in manifest if not k.startswith("_")}
    if names != described:
        raise AssertionError(f"corpus and manifest differ: {sorted(names ^ described)}")
    return [Case(name=f.name, text=f.read_text("utf-8"), **manifest[f.name]) for f in files]


def good_answer(name: str) -> str:
    """The valid outline the test server plays as the model's repair."""
    files = {"good": "good_outline.json", "good_mapped": "good_outline_mapped.json"}
    return (CORPUS / files[name]).read_text("utf-8")


def mapping_rule(requirements: Sequence[str]) -> Callable[[OutlineDocument], list[str]]:
    """One-to-one mode: chapter i must map to scoring group i, and there must be as many."""

    def rule(doc: OutlineDocument) -> list[str]:
        issues = []
        if len(doc.outline) != len(requirements):
            issues.append(f"/outline: 一级章节应有 {len(requirements)} 个，与评分项一一对应，实际 {len(doc.outline)} 个")
        for i, (chapter, rid) in enumerate(zip(doc.outline, requirements, strict=False)):
            if chapter.source_requirement_id != rid:
                issues.append(f"/outline/{i}/source_requirement_id: 应为 {rid}，实际为 {chapter.source_requirement_id}")
        return issues

    return rule


def rules_for(case: Case) -> list[Callable[[Any], Sequence[object]]]:
    """Structure rules a whole outline asked of a model meets, plus the mapping rule when the case names requirements."""
    rules: list[Callable[[Any], Sequence[object]]] = [lambda doc: generation_issues(doc.outline)]
    if case.requirements:
        rules.append(mapping_rule(case.requirements))
    return rules


def script_server(server: OpenAIServer, case: Case) -> None:
    """Make the server answer the first call with the broken text, later calls with ``reply``."""
    first = Reply(content=case.text, finish_reason=case.finish)
    calls: list[int] = [0]

    def handler(req: RecordedRequest) -> Reply:
        calls[0] += 1
        if calls[0] == 1 or case.reply in (None, "same"):
            return first
        return Reply.text(good_answer(case.reply))

    server.script.clear()
    server.handler = handler

"""What the instruction rounds tell the model: document check, listing, repair/continue prompts.

After each streamed round the whole document is checked (pydantic, the structure rules of
:mod:`app.core.rules.outline`, required fields, the caller's own checks). What is wrong, what was
rejected and what was cut off goes back to the model in ``instructions_repair.md`` or
``instructions_continue.md``, together with a path-per-line listing of the current tree
so a weak model can address the nodes it must fix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from app.core.outline import Outline, OutlineDocument
from app.core.pointer import path_to_pointer
from app.core.resources import load_prompt
from app.core.rules.outline import OutlineLimits, check_outline
from app.core.stream_events import InstructionRejected

#: A caller's extra document check: Chinese issues (empty when fine).
DocumentCheck = Callable[[Outline], list[str]]

_MAX_LISTED_REJECTIONS = 12
_FIELD_ZH = {"description": "描述", "title": "标题", "content": "正文",
             "source_requirement_id": "对应评分项编号", "source_requirement_title": "对应评分项标题"}


def validate_document(
    outline: Outline,
    limits: OutlineLimits | None = None,
    required_fields: Sequence[str] = (),
    extra_checks: Sequence[DocumentCheck] = (),
) -> list[str]:
    """Every problem of the whole document as Chinese lines with their JSON pointers."""
    issues: list[str] = []
    try:
        OutlineDocument.model_validate(outline.to_data())
    except ValidationError as e:
        for err in e.errors()[:10]:
            where = "/" + "/".join(str(p) for p in err["loc"])
            issues.append(f"{where}: 不符合格式要求（{err['msg']}）")
    issues.extend(str(i) for i in check_outline(outline.chapters, limits))
    for path, node in outline.walk():
        for name in required_fields:
            value = getattr(node, name, None)
            if value is None or (isinstance(value, str) and not value.strip()):
                label = _FIELD_ZH.get(name, name)
                issues.append(f"{path_to_pointer(path, name)}: “{node.title}”缺少{label}")
    for check in extra_checks:
        issues.extend(check(outline))
    return issues


def document_listing(outline: Outline, max_description: int = 60) -> str:
    """One line per node: its pointer, title and (shortened) description."""
    lines = []
    for path, node in outline.walk():
        indent = "  " * (len(path) - 1)
        desc = node.description.strip().replace("\n", " ")
        if len(desc) > max_description:
            desc = desc[:max_description] + "…"
        extra = f"  描述：{desc}" if desc else ""
        if node.source_requirement_id:
            extra += f"  评分项：{node.source_requirement_id}"
        lines.append(f"{indent}{path_to_pointer(path)}  标题：{node.title}{extra}")
    return "\n".join(lines) if lines else "（目录还是空的）"


def _bullets(items: Sequence[str], empty: str) -> str:
    return "\n".join(f"- {i}" for i in items) if items else empty


def _rejections(rejected: Sequence[InstructionRejected]) -> str:
    shown = [r for r in rejected if not r.truncated][-_MAX_LISTED_REJECTIONS:]
    lines = []
    for r in shown:
        raw = r.raw.strip().replace("\n", " ")
        raw = raw if len(raw) <= 240 else raw[:240] + "…"
        lines.append(f"- 指令：{raw}\n  问题：{r.issue}")
    return "\n".join(lines) if lines else "（无）"


def repair_prompt(outline: Outline, issues: Sequence[str], rejected: Sequence[InstructionRejected]) -> str:
    """The repair request: current tree, its issues and this round's rejected instructions."""
    values: dict[str, Any] = {
        "document": document_listing(outline),
        "issues": _bullets(issues, "（文档检查没有发现问题，请处理被拒绝的指令，然后输出 done）"),
        "rejected": _rejections(rejected),
    }
    return load_prompt("instructions_repair").format_map(values)


def continue_prompt(outline: Outline, issues: Sequence[str], rejected: Sequence[InstructionRejected]) -> str:
    """The continuation request after a cut-off round: current tree, what is missing, the cut instruction."""
    cut = [r.raw.strip() for r in rejected if r.truncated]
    values: dict[str, Any] = {
        "document": document_listing(outline),
        "issues": _bullets(issues, "（按原来的要求把目录写完整）"),
        "truncated": cut[-1][:400] if cut else "（无）",
        "rejected": _rejections(rejected),
    }
    return load_prompt("instructions_continue").format_map(values)


def with_followup(messages: Sequence[dict[str, Any]], prompt: str) -> list[dict[str, Any]]:
    """The original conversation with ``prompt`` added to its last user message.

    Appending to the user turn (rather than adding a second user message) keeps the roles
    alternating, which strict chat templates of local models require.
    """
    out = [dict(m) for m in messages]
    for m in reversed(out):
        if m.get("role") == "user":
            m["content"] = f"{m.get('content') or ''}\n\n{prompt}"
            return out
    out.append({"role": "user", "content": prompt})
    return out

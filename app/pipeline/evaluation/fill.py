"""补写: where a missing or thin point's text goes, and a model's draft of that point alone.

:func:`fill_target` decides by code: a thin point answered inside the item's sections gets a
paragraph appended to the section that mentions it (nothing there is overwritten); a
missing point gets a new heading under the item's chapter — a level-3 heading under the
level-2 section it fits best, else a level-2 one. :func:`draft_point` asks the model for a
paragraph about that one point; the answer is kept only when it is prose that shows the
point (code's own match), never a heading list or an echo of the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.outline import OutlineNode, Path
from app.core.resources import load_prompt
from app.llm.client.context_fit import fit_text
from app.pipeline.evaluation.matching import coverage
from app.pipeline.evaluation.terms import specific_grams

if TYPE_CHECKING:
    from app.llm.client.completion import Message
    from app.llm.client.llm_client import LLMClient
    from app.pipeline.evaluation.review import ItemReview, PointReview

MAX_DEPTH = 3
MIN_DRAFT_CHARS = 40
MAX_DRAFT_CHARS = 1500
MAX_EXISTING_CHARS = 600
#: The paragraph asked of the fill call, and the least it is asked with.
FILL_ANSWER_TOKENS = 900
FILL_MIN_ANSWER_TOKENS = 400


@dataclass(frozen=True)
class FillTarget:
    """Where to write: append to the section at ``path``, or insert a new heading under ``parent``."""

    kind: str  # "append" | "insert"
    path: Path  # the section to append to, or the parent to insert under
    index: int = 0  # where the new heading goes among the parent's children
    title: str = ""


def _node(chapters: Sequence[OutlineNode], path: Path) -> OutlineNode | None:
    nodes: Sequence[OutlineNode] = chapters
    node: OutlineNode | None = None
    for i in path:
        if not 0 <= i < len(nodes):
            return None
        node = nodes[i]
        nodes = node.children
    return node


def heading_for(point: PointReview) -> str:
    """The title of a new section for a point ("应急处置预案"; a sub-item keeps only its own words)."""
    title = point.label.split("：")[-1].strip()
    return title[:40] or "补充说明"


def fill_target(item: ItemReview, point: PointReview, chapters: Sequence[OutlineNode]) -> FillTarget:
    """Where the text for ``point`` of ``item`` goes (see the module docstring)."""
    inside = [e for e in point.evidence if any(e.path[: len(s)] == s for s in item.sections)]
    if point.status == "thin" and inside:
        node = _node(chapters, inside[0].path)
        if node is not None and not node.children:
            return FillTarget("append", inside[0].path)
    title = heading_for(point)
    if not item.sections:
        return FillTarget("insert", (), len(chapters), title)
    chapter_path = item.sections[0]
    chapter = _node(chapters, chapter_path)
    if chapter is None:
        return FillTarget("insert", (), len(chapters), title)
    if _same_title(title, chapter.title):
        # the point is the item itself (no criteria points): its text is the chapter's own, never a
        # sub-heading repeating the chapter's title
        return FillTarget("append", chapter_path)
    words = specific_grams(title) | (point.terms.main if point.terms else frozenset())
    best: tuple[int, int] | None = None
    if len(chapter_path) + 2 <= MAX_DEPTH:
        for i, child in enumerate(chapter.children):
            if not child.children and child.content.strip():
                continue  # a written leaf: a heading under it would bury its text
            shared = len(words & specific_grams(child.title + child.description))
            if shared and (best is None or shared > best[0]):
                best = (shared, i)
    if best is not None:
        parent = (*chapter_path, best[1])
        return FillTarget("insert", parent, len(chapter.children[best[1]].children), title)
    return FillTarget("insert", chapter_path, len(chapter.children), title)


def _same_title(a: str, b: str) -> bool:
    """Whether two headings say the same (punctuation, spacing and points aside)."""
    def norm(t: str) -> str:
        return re.sub(r"[（(][^）)]*[分%％][)）]|[^\w]", "", t)
    return norm(a) == norm(b)


def _clean(text: str) -> str:
    text = re.sub(r"<think>.*?</think>", "", text, flags=re.S)
    text = re.sub(r"^```\w*\s*|\s*```$", "", text.strip())
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not re.match(r"^#{1,6}\s", ln.strip())]
    return "\n".join(lines)[:MAX_DRAFT_CHARS]


def draft_problem(text: str, point: PointReview) -> str | None:
    """Why a drafted paragraph cannot be used (None when it can)."""
    if len(text) < MIN_DRAFT_CHARS:
        return "模型返回的正文过短"
    if point.terms is not None and coverage(point.terms, text) < 1.0:
        return f"模型返回的正文没有回应“{point.label}”"
    return None


async def draft_point(client: LLMClient, item: ItemReview, point: PointReview, section: str,
                      existing: str = "") -> tuple[str, str | None]:
    """A paragraph about ``point`` alone, and the reason it was refused (None when usable)."""
    template = load_prompt("review_fill")

    def build(tail: str) -> list[Message]:
        return [{"role": "user", "content": template.format_map({
            "section": section, "item": item.group.title, "criteria": item.group.description[:400],
            "point": heading_for(point), "existing": tail or "（无）"})}]

    tail = existing[-MAX_EXISTING_CHARS:]
    # the section's existing text is context only: its tail is cut until prompt and paragraph fit
    fitted = fit_text(client, tail, build, answer_tokens=FILL_ANSWER_TOKENS, min_answer_tokens=FILL_MIN_ANSWER_TOKENS,
                      cut=lambda t, n: t[len(t) - n:], min_chars=0)
    messages, answer = (fitted.messages, fitted.max_tokens) if fitted is not None else (build(""), FILL_ANSWER_TOKENS)
    comp = await client.complete(messages, temperature=0.4, max_tokens=answer, stage="review/fill")
    text = _clean(comp.text)
    return text, draft_problem(text, point)

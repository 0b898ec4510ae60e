"""The LLM review of a finished outline, given facts that code has computed.

A weak reviewer cannot count, so code counts: chapters, depth, headings, uncovered criteria
points, titles repeated across chapters. The reviewer answers ``{passed, suggestions[]}``
through ``collect_json`` at low temperature. A review that fails (bad JSON three times, an
endpoint error) is a *warning*: the valid outline stays (the reference tool aborted here).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from app.core.outline import OutlineNode
from app.core.rules.outline import normalize_title
from app.llm.client.errors import LLMConnectionError, LLMResponseError
from app.llm.json.collect import collect_json
from app.pipeline.outline.job import OutlineJob, user_messages

_CHAPTER_NO = re.compile(r"\d+")


def _chapter_no(v: Any) -> Any:
    if isinstance(v, str):
        m = _CHAPTER_NO.search(v)
        return int(m.group()) if m else None
    return v


def _suggestions(v: Any) -> Any:
    if isinstance(v, list):
        return [{"text": s} if isinstance(s, str) else s for s in v][:5]
    if isinstance(v, str):
        return [{"text": v}] if v.strip() else []
    return v


class ReviewSuggestion(BaseModel):
    """One suggestion, optionally naming the chapter (1-based) it concerns."""

    model_config = ConfigDict(extra="ignore")
    chapter: Annotated[int | None, BeforeValidator(_chapter_no)] = None
    text: Annotated[str, Field(min_length=1, max_length=200)]


class ReviewVerdict(BaseModel):
    """What the reviewer returns."""

    model_config = ConfigDict(extra="ignore")
    passed: bool
    suggestions: Annotated[list[ReviewSuggestion], BeforeValidator(_suggestions), Field(max_length=5)] = []


@dataclass
class ReviewOutcome:
    """The review's result: ``passed`` is None when the review itself failed (see ``warning``)."""

    passed: bool | None
    suggestions: list[ReviewSuggestion] = field(default_factory=list)
    warning: str | None = None

    def concerned_chapters(self, chapter_count: int) -> list[int]:
        """0-based indexes of the chapters the suggestions name."""
        out = sorted({s.chapter - 1 for s in self.suggestions if s.chapter and 1 <= s.chapter <= chapter_count})
        return out

    def guidance_for(self, index: int) -> str:
        """The suggestions that concern chapter ``index`` (0-based) or no chapter in particular."""
        texts = [s.text for s in self.suggestions if s.chapter in (None, index + 1)]
        return "；".join(texts)


def outline_facts(chapters: list[OutlineNode], uncovered: dict[int, list[str]]) -> list[str]:
    """Facts about the outline computed by code, to give to the reviewer."""
    nodes = [n for ch in chapters for _, n in ch.walk()]
    depth = max((ch.depth() for ch in chapters), default=0)
    facts = [f"共 {len(chapters)} 章，{len(chapters) + len(nodes)} 个标题，最深 {depth} 级。"]
    where: dict[str, set[int]] = defaultdict(set)
    for i, ch in enumerate(chapters):
        for _, n in ch.walk():
            where[normalize_title(n.title)].add(i)
    repeated = [t for t, chs in where.items() if len(chs) > 1]
    if repeated:
        facts.append("在多个章中重复出现的标题：" + "、".join(repeated[:8]))
    for i, points in sorted(uncovered.items()):
        if points:
            facts.append(f"第 {i + 1} 章未覆盖的评分要点：" + "；".join(p[:40] for p in points[:5]))
    if len(facts) == 1:
        facts.append("结构检查全部通过，评分要点均已覆盖。")
    return facts


def outline_listing(chapters: list[OutlineNode], limit: int = 4000) -> str:
    """``1 标题`` / ``  1.1 标题`` lines of the outline, clipped to ``limit`` characters."""
    lines: list[str] = []
    for i, ch in enumerate(chapters):
        lines.append(f"{i + 1} {ch.title}")
        for path, n in ch.walk():
            number = ".".join(str(p + 1) for p in (i, *path))
            lines.append("  " * len(path) + f"{number} {n.title}")
    text = "\n".join(lines)
    return text if len(text) <= limit else text[:limit] + "\n……"


async def review_outline(job: OutlineJob, chapters: list[OutlineNode], uncovered: dict[int, list[str]]) -> ReviewOutcome:
    """Ask the model to review; never raises for model or endpoint trouble (budget aside)."""
    scoring = ""
    groups = job.analysis.technical_groups
    if groups:
        scoring = "技术评分项：" + "；".join(g.title for g in groups[:12]) + "\n"
    requirements = ""
    if job.settings.requirements.strip():
        requirements = "招标需求拆解（目录应能回应这些任务和实质性条款）：\n" + job.settings.requirements.strip()[:1500] + "\n"
    prompt = job.prompt("outline_review", project_name=job.project_name, scoring=scoring, requirements=requirements,
                        facts="\n".join("- " + f for f in outline_facts(chapters, uncovered)),
                        outline=outline_listing(chapters, max(1500, job.context_chars - 1500)))
    job.meter.check("review")
    try:
        res = await collect_json(job.client, user_messages(prompt), ReviewVerdict,
                                 max_attempts=job.meter.allowed_attempts(job.settings.json_attempts), stage="review",
                                 temperature=job.settings.review_temperature, max_tokens=600)
    except (LLMConnectionError, LLMResponseError) as exc:
        job.record("review", 1, 0, 0)
        return ReviewOutcome(None, warning=f"目录审核调用失败，已保留当前目录：{exc.message_zh}")
    job.record("review", max(1, res.attempts), res.prompt_tokens, res.completion_tokens,
               bool(getattr(res, "tokens_estimated", False)))
    if not res.ok or res.value is None:
        detail = "；".join(res.issues[:3])
        return ReviewOutcome(None, warning=f"目录审核没有得到有效结果，已保留当前目录（{detail}）")
    verdict = res.value
    assert isinstance(verdict, ReviewVerdict)
    return ReviewOutcome(verdict.passed, list(verdict.suggestions))

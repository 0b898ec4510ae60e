"""Closed questions to a model about one point and one passage, kept only with a real quote.

Code decides the statuses; where a model is configured it may be asked, for one point and
one passage at a time, 是否回应了“…”: 是/否/部分, with the sentence that does. The wire
schema is two small fields. An answer of 是 or 部分 counts only when its quote really is
in the passage (compared without spaces and punctuation); a quote that is not gets one
targeted repair (the issue names it), and if the answer still quotes what the passage does
not say it is rejected and code's status stays. Kept answers change the point's status (是 → answered, 部分 → thin)
and are marked ``decided_by="model"``; a 否 never overrides code.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from app.core.resources import load_prompt
from app.llm.client.context_fit import fit_text
from app.llm.client.errors import LLMConnectionError
from app.pipeline.evaluation.matching import BidText, Evidence, Passage
from app.pipeline.evaluation.review import BidReview, ItemReview, PointReview, rescore

if TYPE_CHECKING:
    from app.core.outline import OutlineNode
    from app.llm.client.llm_client import LLMClient

log = logging.getLogger(__name__)

MAX_PASSAGE_CHARS = 1500
#: The fewest passage characters worth asking about.
MIN_PASSAGE_CHARS = 120
#: The answer asked of one question (a quote of up to 300 characters), and the least it is asked with.
ANSWER_TOKENS = 200
MIN_ANSWER_TOKENS = 120
MIN_QUOTE_CHARS = 4
QUOTE_ISSUE = "quote: 引文"
_IGNORED = re.compile(r"[\s\u3000，,。.；;：:！!？?、“”\"‘’'（）()【】\[\]《》<>…—\-]+")


class PointAnswer(BaseModel):
    """The whole wire schema: the sentence that answers, then the verdict (a model that
    writes in schema order copies the sentence before it decides)."""

    quote: str = Field(default="", max_length=300)
    answer: Literal["是", "否", "部分"]


@dataclass
class QuestionStats:
    """What the closed questions did (for the log and the benchmark)."""

    asked: int = 0
    valid: int = 0
    kept: int = 0
    quote_rejected: int = 0
    failed: int = 0


@dataclass(frozen=True)
class Verdict:
    """A checked answer: the verdict, the quote, and whether code kept it (and why not)."""

    answer: str
    quote: str
    kept: bool
    reason: str = ""


def _plain(text: str) -> str:
    return _IGNORED.sub("", unicodedata.normalize("NFKC", text))


def quote_in_passage(quote: str, passage: str) -> bool:
    """Whether ``quote`` is really in ``passage`` (spaces, punctuation and full-width forms ignored)."""
    q = _plain(quote)
    return len(q) >= MIN_QUOTE_CHARS and q in _plain(passage)


def check_answer(answer: PointAnswer, passage: str) -> Verdict:
    """Code's check of one answer: a 是/部分 needs a quote that is in the passage."""
    if answer.answer == "否":
        return Verdict("否", "", True)
    if quote_in_passage(answer.quote, passage):
        return Verdict(answer.answer, answer.quote.strip(), True)
    return Verdict(answer.answer, answer.quote.strip(), False, "引用的句子不在该段正文中")


def passage_text(passages: Sequence[Passage], limit: int = MAX_PASSAGE_CHARS) -> str:
    """The text shown to the model: each section's heading and sentences, cut at ``limit``."""
    parts: list[str] = []
    size = 0
    for p in passages:
        block = p.heading + "\n" + "".join(p.sentences)
        if size + len(block) > limit:
            parts.append(block[: max(0, limit - size)])
            break
        parts.append(block)
        size += len(block) + 1
    return "\n".join(parts)


async def ask_point(client: LLMClient, point: str, passage: str, stats: QuestionStats | None = None) -> Verdict | None:
    """One closed question; the checked verdict, or None when no valid answer came."""
    stats = stats if stats is not None else QuestionStats()
    stats.asked += 1
    template = load_prompt("review_point")
    # the passage is cut until question and answer fit the context; the quote is checked against what was sent
    fitted = fit_text(client, passage, lambda t: [{"role": "user", "content": template.format_map({"point": point,
                                                                                                  "passage": t})}],
                      answer_tokens=ANSWER_TOKENS, min_answer_tokens=MIN_ANSWER_TOKENS, min_chars=MIN_PASSAGE_CHARS)
    if fitted is None:
        stats.failed += 1
        log.info("review/point: the context size %d has no room for the question; not asked",
                 client.config.context_size)
        return None
    passage = fitted.text
    prompt = str(fitted.messages[0]["content"])
    last: list[PointAnswer] = []

    def quote_rule(value: Any) -> list[str]:
        """A 是/部分 whose quote is not in the passage: one targeted repair, naming the quote."""
        assert isinstance(value, PointAnswer)
        last[:] = [value]
        if check_answer(value, passage).kept:
            return []
        return [f"{QUOTE_ISSUE}“{value.quote[:60]}”不在正文中，请从正文中原样复制回应该要点的一句话"]

    from app.llm.json.collect import collect_json  # (here: the model layer loads with the first question)

    res = await collect_json(client, [{"role": "user", "content": prompt}], PointAnswer, [quote_rule],
                             max_attempts=2, stage="review/point", temperature=0.0, max_tokens=fitted.max_tokens)
    if res.stopped_by == "connection":
        raise LLMConnectionError(res.issues[0] if res.issues else "模型服务连接失败")
    answered = res.value if res.ok and res.value is not None else (
        last[0] if last and any(i.startswith(QUOTE_ISSUE) for i in res.issues) else None)
    if answered is None:
        stats.failed += 1
        log.info("review/point: no valid answer (%s)", res.issues[:2])
        return None
    stats.valid += 1
    verdict = check_answer(answered, passage)
    if verdict.kept:
        stats.kept += 1
    else:
        stats.quote_rejected += 1
    return verdict


def _scope(item: ItemReview, point: PointReview, text: BidText) -> list[Passage]:
    """Where to ask about a point: its evidence's sections, else the item's sections."""
    if point.evidence:
        return [p for e in point.evidence if (p := text.at(e.path)) is not None]
    return [p for p in text.under(item.sections) if p.sentences]


def apply_verdict(item: ItemReview, point: PointReview, verdict: Verdict, scope: Sequence[Passage]) -> None:
    """A kept 是/部分 sets the point's status and evidence (decided by the model); 否 changes nothing."""
    if not verdict.kept or verdict.answer == "否":
        return
    where = next((p for p in scope if _plain(verdict.quote) in _plain("".join(p.sentences))), scope[0] if scope else None)
    point.status = "answered" if verdict.answer == "是" else "thin"
    point.decided_by = "model"
    point.note = "模型判断（引文已核对）"
    if where is not None:
        point.evidence = [Evidence(where.path, where.heading, verdict.quote[:80])]
    rescore(item)


async def ask_points(client: LLMClient, review: BidReview, chapters: Sequence[OutlineNode], *, limit: int = 20,
                     stats: QuestionStats | None = None, only_gaps: bool = True) -> QuestionStats:
    """Ask about up to ``limit`` points (the gaps, or every point) and apply the kept answers."""
    stats = stats if stats is not None else QuestionStats()
    text = BidText(chapters)
    asked = 0
    for item in review.items:
        for point in item.points:
            if asked >= limit:
                return stats
            if only_gaps and point.status == "answered":
                continue
            scope = _scope(item, point, text)
            passage = passage_text(scope)
            if not passage.strip():
                continue
            asked += 1
            verdict = await ask_point(client, point.label, passage, stats)
            if verdict is not None:
                apply_verdict(item, point, verdict, scope)
    return stats

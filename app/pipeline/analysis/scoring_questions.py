"""Closed questions to the model where code cannot decide the scoring table alone.

The model never re-extracts a table. It is asked to choose by number among what code
found — which of two or three candidate schemes is the scoring table, which category a
row belongs to — with a wire schema that is one bounded integer. Every answer is checked
against the sums (a chosen table must add up; a category move must make the stated
category totals hold) and recorded as the model's decision; an answer that fails the
check is not applied and the reason is recorded instead.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, create_model

from app.core.resources import load_prompt
from app.documents.scoring.cells import fmt_points
from app.documents.scoring.context import stated_category_totals
from app.documents.scoring.model import ScoreCategory, ScoringResult, ScoringTable
from app.documents.scoring.select import sums_hold
from app.documents.scoring.table import settle
from app.llm.client.errors import LLMConnectionError
from app.llm.json.collect import collect_json
from app.pipeline.analysis.scoring_groups import stated_by_category
from app.pipeline.outline.job import user_messages

if TYPE_CHECKING:
    from app.documents.model import TenderDocument
    from app.llm.client.llm_client import LLMClient
    from app.pipeline.outline.budget import RunMeter

log = logging.getLogger(__name__)

CATEGORIES = [ScoreCategory.TECHNICAL, ScoreCategory.COMMERCIAL, ScoreCategory.PRICE, ScoreCategory.OTHER]
_ZH = {"technical": "技术", "business": "商务", "price": "价格", "other": "其他"}
MAX_ROW_QUESTIONS = 6


def _answer_model(count: int) -> type[BaseModel]:
    """``{"answer": k}`` with 1 <= k <= count: the whole wire schema."""
    return create_model("ClosedAnswer", answer=(int, Field(ge=1, le=count)))


def _bare_number(value: Any) -> tuple[Any, list[str]]:
    """A weak model's bare ``2`` or ``"2"`` read as ``{"answer": 2}``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return {"answer": value}, ["裸数字答案按 answer 处理"]
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return {"answer": int(value.strip())}, ["字符串数字答案按 answer 处理"]
    return value, []


async def ask_number(client: LLMClient, prompt: str, count: int, stage: str, meter: RunMeter) -> int | None:
    """One closed question; the chosen number (1-based) or None when no valid answer came."""
    meter.check("analysis")
    res = await collect_json(client, user_messages(prompt), _answer_model(count), max_attempts=meter.allowed_attempts(2),
                             stage=stage, normalizers=[_bare_number], temperature=0.0, max_tokens=24)
    meter.record("analysis", max(1, res.attempts), res.prompt_tokens, res.completion_tokens, res.tokens_estimated)
    if res.stopped_by == "connection":
        raise LLMConnectionError(res.issues[0] if res.issues else "模型服务连接失败")
    if not res.ok or res.value is None:
        log.info("%s: no valid answer (%s)", stage, res.issues[:2])
        return None
    answer = getattr(res.value, "answer", None)
    return answer if isinstance(answer, int) else None


def _describe(tables: list[ScoringTable]) -> str:
    pages = sorted({p for t in tables for p in t.pages})
    names = [r.factor for t in tables for r in t.rows]
    label = "、".join(t.label for t in tables if t.label) or "（无标题）"
    where = f"第{pages[0]}–{pages[-1]}页" if len(pages) > 1 else f"第{pages[0]}页" if pages else ""
    shown = "、".join(names[:8]) + ("等" if len(names) > 8 else "")
    total = fmt_points(round(sum(t.points_sum for t in tables), 4))
    return f"{where} {label}：{len(names)} 项，合计 {total} 分；评分项：{shown}"


async def choose_table(client: LLMClient, doc: TenderDocument, scoring: ScoringResult,
                       meter: RunMeter) -> tuple[ScoringResult, str]:
    """Ask which candidate scheme is the scoring table; apply it when its sums hold."""
    options = [[scoring.candidates[i] for i in idx] for idx in scoring.options if idx]
    if len(options) < 2:
        return scoring, ""
    text = "\n".join(f"{k}. {_describe(o)}" for k, o in enumerate(options, start=1))
    prompt = load_prompt("scoring_choose_table").format_map({"options": text, "count": len(options)})
    answer = await ask_number(client, prompt, len(options), "analysis/scoring_table", meter)
    if answer is None:
        return scoring, "模型没有给出有效的评分表选择，沿用程序的判断"
    picked = options[answer - 1]
    if answer == 1:
        scoring.uncertain = [u for u in scoring.uncertain if u != "table"]
        scoring.decided_by = "model"
        return scoring, f"模型确认了程序选定的评分表（{_describe(picked)[:40]}）"
    if not sums_hold(picked) and sums_hold(options[0]):
        return scoring, f"模型选择了第{answer}个候选，但其分值合计不符，保留程序选定的评分表"
    result = settle(doc, picked, scoring.candidates)
    result.options = [scoring.options[answer - 1], *(o for k, o in enumerate(scoring.options) if k != answer - 1)]
    result.decided_by = "model"
    return result, f"评分表由模型在 {len(options)} 个候选中选定：{_describe(picked)[:60]}"


def stated_totals(doc: TenderDocument, scoring: ScoringResult) -> dict[str, float]:
    """Category totals stated by the used tables (captions, group subtotals) or nearby text, in 技术/商务/价格."""
    out: dict[str, float] = {}
    for t in scoring.tables:
        for key, value in stated_by_category(t).items():
            out[_ZH[key]] = round(out.get(_ZH[key], 0.0) + value, 4)
    pages = sorted({p for t in scoring.tables for p in t.pages})
    for key, value in stated_category_totals(doc, pages).items():
        out.setdefault(key, value)
    return out


def _mismatched(scoring: ScoringResult, stated: dict[str, float]) -> bool:
    got = scoring.points_by_category()
    return any(abs(got.get(k, 0.0) - v) > 0.01 for k, v in stated.items())


async def settle_categories(client: LLMClient, doc: TenderDocument, scoring: ScoringResult,
                            meter: RunMeter) -> tuple[ScoringResult, str]:
    """Ask about rows whose category was guessed when the stated category totals do not hold."""
    stated = stated_totals(doc, scoring)
    guessed = [r for r in scoring.rows if r.category_source == "guess"]
    if not stated or not guessed or not _mismatched(scoring, stated):
        return scoring, ""
    before = {id(r): (r.category, r.category_source) for r in guessed}
    asked = 0
    for row in guessed[:MAX_ROW_QUESTIONS]:
        context = "本项目标明的分值：" + "，".join(f"{k} {fmt_points(v)} 分" for k, v in stated.items())
        prompt = load_prompt("scoring_row_category").format_map({
            "name": row.factor, "points": fmt_points(row.points), "criteria": row.criteria[:300], "context": context})
        answer = await ask_number(client, prompt, len(CATEGORIES), "analysis/scoring_category", meter)
        asked += 1
        if answer is not None:
            row.category, row.category_source = CATEGORIES[answer - 1], "model"
    if _mismatched(scoring, stated):
        for row in guessed:
            row.category, row.category_source = before[id(row)]
        return scoring, f"模型对 {asked} 个评分项类别的判断与标明的分值不符，未采用"
    scoring.decided_by = "model"
    moved = [r.factor for r in guessed if r.category_source == "model"]
    return scoring, f"评分项类别由模型判断并经分值核对：{'、'.join(moved[:6])}"


async def resolve_uncertain(client: LLMClient, doc: TenderDocument, scoring: ScoringResult,
                            meter: RunMeter) -> tuple[ScoringResult, list[str]]:
    """Both closed questions where they apply; returns the (possibly re-chosen) result and the records."""
    notes: list[str] = []
    if "table" in scoring.uncertain:
        scoring, note = await choose_table(client, doc, scoring, meter)
        notes += [note] if note else []
    if scoring.found:
        scoring, note = await settle_categories(client, doc, scoring, meter)
        notes += [note] if note else []
    return scoring, notes

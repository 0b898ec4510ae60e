"""The scoring-extraction prompt, fitted to the endpoint's context before it is sent.

The model is asked for the technical scoring items. What it needs is the scoring tables
code already found (rows: factor, points, criteria, page), not the pages around them;
when code found no table, the located scoring pages are sent instead. Both are measured
in tokens as the client estimates them, against the (probed) context size: the answer
budget shrinks first, then the criteria are shortened, and a prompt that still does not
fit is not sent at all (the caller keeps what code read and says so).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.resources import load_prompt
from app.documents.locate import budget_text
from app.documents.scoring.cells import fmt_points
from app.llm.client.call_log import CONTEXT_MARGIN_TOKENS
from app.pipeline.outline.job import user_messages

if TYPE_CHECKING:
    from app.core.analysis import ScoringGroup
    from app.documents.locate import Section
    from app.documents.model import TenderDocument
    from app.documents.scoring.model import ScoringResult, ScoringTable
    from app.llm.client.completion import Message
    from app.llm.client.llm_client import LLMClient

log = logging.getLogger(__name__)

#: The answer asked of the scoring call when the context has room.
WANTED_ANSWER_TOKENS = 1500
#: The smallest answer worth asking for (a few groups with detail points).
MIN_ANSWER_TOKENS = 600
#: Criteria lengths tried, longest first; 0 sends factor names and points only.
CRITERIA_STEPS = (400, 200, 100, 40, 0)
#: Tokens a repair request adds besides the previous answer (the repair instructions).
REPAIR_OVERHEAD_TOKENS = 400
#: The fewest characters of page text worth sending when no table was found.
MIN_PAGE_CHARS = 300
MAX_TABLES = 4
MAX_TITLE_CHARS = 40
#: The token estimate is rough (one a CJK character, one per four others): this much more is kept free.
ESTIMATE_SLACK = 0.1
#: The most characters of page text sent when no table was found.
MAX_PAGE_CHARS = 12000


@dataclass
class ScoringPrompt:
    """What to send for the scoring call, or why nothing is sent.

    ``messages`` is empty when no prompt fits; ``note_zh`` then says so (and when the
    tables had to be shortened, what was left out).
    """

    messages: list[Message]
    max_tokens: int
    attempts: int
    prompt_tokens: int
    source: str  # "tables", "pages" or "" (nothing sent)
    note_zh: str = ""
    text: str = ""  # the tender text inside the prompt (tables as rows, or page text)


def _tables(scoring: ScoringResult) -> list[ScoringTable]:
    """The chosen tables, else the candidates code did not reject (best first)."""
    if scoring.tables:
        return list(scoring.tables)[:MAX_TABLES]
    usable = [t for t in scoring.candidates if not t.rejected and t.rows]
    return sorted(usable, key=lambda t: -t.score)[:MAX_TABLES]


def _title(table: ScoringTable) -> str:
    """A short caption for a table: its caption, label or section heading (last line, if short), else 评分表."""
    for text in (table.caption, table.label, table.section):
        lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
        if lines and len(lines[-1]) <= MAX_TITLE_CHARS:
            return lines[-1]
    return "评分表"


def render_tables(tables: list[ScoringTable], criteria_chars: int) -> str:
    """The tables as plain rows (序号｜评分因素｜分值｜评分标准), each headed by its page and caption."""
    parts: list[str] = []
    for t in tables:
        where = f"【第{t.pages[0]}页】" if t.pages else ""
        title = _title(t)
        total = f"（合计 {fmt_points(t.points_sum)} 分）" if t.rows else ""
        lines = [f"{where}{title}{total}", "序号｜评分因素｜分值｜评分标准" if criteria_chars else "序号｜评分因素｜分值"]
        for i, r in enumerate(t.rows, start=1):
            points = fmt_points(r.points) if r.points is not None else ""
            cells = [r.number or str(i), r.factor, points]
            if criteria_chars:
                text = " ".join(r.criteria.split())
                cells.append(text if len(text) <= criteria_chars else text[:criteria_chars] + "……")
            lines.append("｜".join(cells))
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _hint(table: list[ScoringGroup]) -> str:
    return ("评分表中的技术评分项（供参考）：" + "、".join(g.title for g in table) + "\n") if table else ""


class _Fitter:
    """Measures candidate prompts against the client's context size."""

    def __init__(self, client: LLMClient, hint: str) -> None:
        self.client = client
        self.hint = hint
        self.context = int(client.config.context_size)

    def messages(self, text: str) -> list[Message]:
        prompt = load_prompt("analysis_scoring").format_map({"text": text, "table_hint": self.hint})
        return user_messages(prompt)

    def fit(self, text: str, source: str) -> ScoringPrompt | None:
        """The prompt for ``text`` with the largest answer budget that fits, or None."""
        messages = self.messages(text)
        tokens = self.client.estimate_prompt_tokens(messages)
        room = self.context - CONTEXT_MARGIN_TOKENS - int(tokens * (1 + ESTIMATE_SLACK))
        if room < MIN_ANSWER_TOKENS:
            return None
        answer = min(WANTED_ANSWER_TOKENS, room)
        # a repair resends the prompt with the previous answer: only when that fits too
        attempts = 3 if room >= 2 * answer + REPAIR_OVERHEAD_TOKENS else 1
        return ScoringPrompt(messages, answer, attempts, tokens, source, text=text)


def fit_scoring_prompt(client: LLMClient, doc: TenderDocument, scoring: ScoringResult, section: Section | None,
                       table: list[ScoringGroup]) -> ScoringPrompt:
    """The scoring-extraction prompt that fits ``client``'s context, or an empty one with the reason."""
    fitter = _Fitter(client, _hint(table))
    tables = _tables(scoring)
    if tables:
        for chars in CRITERIA_STEPS:
            fitted = fitter.fit(render_tables(tables, chars), "tables")
            if fitted is None:
                continue
            if chars != CRITERIA_STEPS[0] and any(len(r.criteria) > chars for t in tables for r in t.rows):
                fitted.note_zh = (f"模型上下文较小（约 {fitter.context} tokens），发给模型的评分表中评分标准"
                                  f"{'只保留前 ' + str(chars) + ' 字' if chars else '已略去，只列评分因素和分值'}")
                log.info("analysis/scoring: scoring tables shortened to fit the context size %d (criteria cut at %d "
                         "characters)", fitter.context, chars)
            return fitted
        rows = sum(len(t.rows) for t in tables)
        tokens = client.estimate_prompt_tokens(fitter.messages(render_tables(tables, 0)))
        log.warning("analysis/scoring: the scoring tables (%d rows, ~%d tokens without criteria) do not fit the "
                    "context size %d; not sent, the table as read by code is kept", rows, tokens, fitter.context)
        return ScoringPrompt([], 0, 0, tokens, "", note_zh=(
            f"评分表共 {rows} 项，即使只列评分因素和分值也约需 {tokens} tokens，超出模型上下文（约 {fitter.context} "
            "tokens），未请模型提取技术评分项，沿用程序从评分表读取的结果；可换用上下文更大的模型后重新分析"))
    if section is None:
        return ScoringPrompt([], 0, 0, 0, "")
    chars = min(MAX_PAGE_CHARS, max(MIN_PAGE_CHARS, fitter.context - CONTEXT_MARGIN_TOKENS - MIN_ANSWER_TOKENS))
    while chars >= MIN_PAGE_CHARS:
        text = budget_text(doc, section.first_page, section.last_page, chars)
        if not text.strip():
            return ScoringPrompt([], 0, 0, 0, "")
        fitted = fitter.fit(text, "pages")
        if fitted is not None:
            return fitted
        chars = int(chars * 0.7)
    log.warning("analysis/scoring: even %d characters of the scoring pages do not fit the context size %d; not sent",
                MIN_PAGE_CHARS, fitter.context)
    return ScoringPrompt([], 0, 0, 0, "", note_zh=(
        f"模型上下文（约 {fitter.context} tokens）容不下评分办法的原文，未请模型提取技术评分项；"
        "可换用上下文更大的模型后重新分析"))

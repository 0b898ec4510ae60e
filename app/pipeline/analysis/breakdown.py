"""Requirement breakdown (需求拆解): code-found clauses plus the model's five fields.

:func:`run_breakdown` always returns a :class:`~app.core.breakdown.Breakdown`:

1. ★/▲ clauses and rejection phrases are found by code (:mod:`app.documents.clauses`);
2. thin or garbled input ends here as ``needs_clarification`` — no model call;
3. the text is cut at headings into chunks that fit the context, each chunk goes through
   ``collect_json`` with :class:`~app.core.breakdown.ModelBreakdown` and business rules;
4. chunk results are merged and de-duplicated; the code-found clauses are added to
   ``risks`` (model risks repeating them are dropped) — the model cannot lose them;
5. a failed model (garbage, connection, configuration) gives ``needs_clarification`` with
   the reason in ``risks`` and the clauses kept. Cancellation still propagates.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from app.core.breakdown import Breakdown, BreakdownItem, ModelBreakdown, ModelItem, RiskCategory, RiskItem
from app.core.resources import load_prompt
from app.core.similarity import char_ngrams, containment, normalize_text, similarity
from app.documents.clauses import Clause, PageText, as_pages, document_pages, find_clauses
from app.documents.locate import Section, locate_requirements
from app.llm.client.context_fit import CONTEXT_MARGIN_TOKENS, ESTIMATE_SLACK, MIN_ANSWER_TOKENS, room_for
from app.llm.client.errors import LLMConfigError, LLMError, PromptTooLong
from app.llm.json.collect import collect_json
from app.pipeline.analysis.breakdown_input import Chunk, assess_input, locate_page, split_into_chunks

if TYPE_CHECKING:
    from app.documents.model import TenderDocument
    from app.llm.client.llm_client import LLMClient

log = logging.getLogger(__name__)

#: The answer asked of one breakdown call (when the endpoint's max_tokens allows).
ANSWER_TOKENS = 1500
#: The requirement text of one call is at least this long (a smaller context gets PromptTooLong).
MIN_CHUNK_CHARS = 300
#: A tenth of the context is left for the list of code-found clauses.
CLAUSE_SHARE = 10
#: Clause lists tried, longest first, until the prompt fits.
CLAUSE_LIMITS = (30, 15, 8, 3, 0)
DUPLICATE_SIMILARITY = 0.75
CLARIFY_TASK = "请确认招标文件中采购需求/技术要求章节的位置与内容，必要时向采购人澄清。"
#: Words a weak model echoes from the prompt instead of content.
_ECHO = re.compile(r"^(?:目标|任务|风险|背景|goals?|tasks?|risks?|background|text|string|null|none|\.\.\.|…|示例|无)\d*$",
                   re.IGNORECASE)

BreakdownProgress = Callable[[str, float], None]


def _no_progress(message: str, fraction: float) -> None:
    del message, fraction


@dataclass
class BreakdownOutcome:
    """The breakdown plus what it cost and how it went (for logs, run history, the CLI)."""

    breakdown: Breakdown
    clauses: list[Clause] = field(default_factory=list)
    chunks: int = 0
    failed_chunks: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    config_error: str = ""  # set when the endpoint settings are wrong (the UI offers to fix them)
    issues: list[str] = field(default_factory=list)


@cache
def _prompt_words() -> str:
    """The breakdown prompt's own wording (placeholders removed), normalised, to spot echoes."""
    return normalize_text(re.sub(r"\{[a-z_]+\}", "", load_prompt("breakdown")))


def _self_repeating(text: str) -> bool:
    """A long text made of one phrase said over and over (weak-model loop)."""
    key = normalize_text(text)
    return len(key) >= 40 and len(char_ngrams(key)) < 0.35 * (len(key) - 2)


def breakdown_rules(value: ModelBreakdown) -> list[str]:
    """Business rules the model's answer must pass (Chinese issues sent back for repair)."""
    issues: list[str] = []
    if value.status == "executable" and not value.tasks:
        issues.append("status 为 executable 时 tasks 不能为空：请列出投标文件必须响应的内容。")
    background = value.background.strip()
    if _ECHO.match(background) or len(re.findall(r"[\u4e00-\u9fff]", background)) < 4:
        issues.append("background 必须用一句话写出项目背景（或写明缺少什么信息），不能只写字段名或一两个字。")
    for name, items in (("goals", value.goals), ("tasks", value.tasks), ("risks", value.risks)):
        seen: set[str] = set()
        for i, item in enumerate(items):
            text = item.text.strip()
            if _ECHO.match(text):
                issues.append(f"{name}[{i}] 的内容“{text}”是字段名或占位词，请写具体内容。")
            elif len(normalize_text(text)) >= 4 and normalize_text(text) in _prompt_words():
                issues.append(f"{name}[{i}] 照抄了提示词“{text[:30]}”，请根据招标原文写具体内容。")
            elif _self_repeating(text):
                issues.append(f"{name}[{i}] 的内容在重复同一个词语，请写成一句完整的话（60 字以内）。")
            key = re.sub(r"\W+", "", text)
            if key in seen:
                issues.append(f"{name}[{i}] 与前面的条目重复：“{text}”。")
            seen.add(key)
    return issues


def answer_tokens(client: LLMClient) -> int:
    """The answer asked of one breakdown call: the configured budget, at most :data:`ANSWER_TOKENS`."""
    return max(MIN_ANSWER_TOKENS, min(client.config.max_tokens, ANSWER_TOKENS, client.config.context_size // 4))


def context_chars(client: LLMClient) -> int:
    """Requirement characters one call may carry: the context minus the answer, the prompt and a
    share for the clause list, counted in tokens as the client counts them (a hanzi is a token)."""
    ctx = int(client.config.context_size)
    template = client.estimate_prompt_tokens([{"role": "user", "content": _template_only()}])
    usable = int((ctx - CONTEXT_MARGIN_TOKENS - answer_tokens(client)) / (1 + ESTIMATE_SLACK))
    return max(MIN_CHUNK_CHARS, usable - template - ctx // CLAUSE_SHARE)


@cache
def _template_only() -> str:
    return load_prompt("breakdown").format_map({"clauses": "", "first_page": 1, "last_page": 1, "text": ""})


def _clause_lines(clauses: Sequence[Clause], limit: int = 30) -> str:
    if not clauses or limit <= 0:
        return "（无）"
    lines = [f"- [第{c.page}页] {c.text[:80]}" for c in clauses[:limit]]
    if len(clauses) > limit:
        lines.append(f"- ……另有 {len(clauses) - limit} 条")
    return "\n".join(lines)


def build_messages(chunk: Chunk, clauses: Sequence[Clause], limit: int = 30) -> list[dict[str, str]]:
    """The chat messages for one chunk (prompt ``resources/prompts/breakdown.md``), ``limit`` clauses listed."""
    prompt = load_prompt("breakdown").format_map({
        "clauses": _clause_lines(clauses, limit),
        "first_page": chunk.first_page,
        "last_page": chunk.last_page,
        "text": chunk.prompt_text(),
    })
    return [{"role": "user", "content": prompt}]


def fitted_messages(client: LLMClient, chunk: Chunk, clauses: Sequence[Clause]) -> tuple[list[dict[str, str]], int]:
    """The messages for ``chunk`` with as many clauses listed as the context allows, and the answer budget.

    The clauses are a reminder (code adds them to the result anyway), so they are what is
    shortened; when even none leave room for a minimal answer, the smallest prompt is
    returned and the client refuses it (:class:`~app.llm.client.errors.PromptTooLong`).
    """
    wanted = answer_tokens(client)
    messages: list[dict[str, str]] = []
    room = 0
    for limit in CLAUSE_LIMITS:
        messages = build_messages(chunk, clauses, limit)
        room = room_for(client, messages)
        if room >= wanted:
            return messages, wanted
    return messages, max(1, min(wanted, room))


def clause_risk(clause: Clause) -> RiskItem:
    """A code-found clause as a risk: ★ and phrases are rejection risks, ▲ a scoring risk."""
    category: RiskCategory = "scoring" if clause.mark == "▲" else "rejection"
    text = clause.text if len(clause.text) <= 600 else clause.text[:599] + "…"
    return RiskItem(text=text, page=clause.page, category=category, origin="code",
                    mark="★" if clause.mark == "★" else "▲" if clause.mark == "▲" else None)


def system_risk(reason: str) -> RiskItem:
    """A risk explaining why the breakdown is incomplete (thin input, model failure)."""
    return RiskItem(text=reason[:600], page=None, category="other", origin="system")


def _items(items: Sequence[ModelItem], chunk: Chunk) -> list[BreakdownItem]:
    return [BreakdownItem(text=i.text.strip(), page=locate_page(i.text, chunk.pages, i.page)) for i in items]


def _is_dup(text: str, kept: Sequence[str]) -> bool:
    for other in kept:
        if similarity(text, other) >= DUPLICATE_SIMILARITY:
            return True
        short, long_ = (text, other) if len(text) <= len(other) else (other, text)
        if len(short) >= 8 and containment(short, long_) >= 0.9:
            return True
    return False


def _dedupe(items: Sequence[BreakdownItem]) -> list[BreakdownItem]:
    kept: list[BreakdownItem] = []
    for item in items:
        if not _is_dup(item.text, [k.text for k in kept]):
            kept.append(item)
    return kept


def merge(parts: Sequence[tuple[Chunk, ModelBreakdown]], clauses: Sequence[Clause],
          failures: Sequence[str]) -> Breakdown:
    """Merge chunk answers, de-duplicate, add code-found clauses and failure reasons."""
    goals: list[BreakdownItem] = []
    tasks: list[BreakdownItem] = []
    risks: list[BreakdownItem] = []
    categories: dict[int, RiskCategory] = {}
    statuses = [value.status for _, value in parts]
    lead = next(((c, v) for c, v in parts if v.status == "executable"), parts[0] if parts else None)
    background = lead[1].background.strip() if lead else ""
    background_page = lead[0].first_page if lead else None
    for chunk, value in parts:
        goals += _items(value.goals, chunk)
        tasks += _items(value.tasks, chunk)
        for r in value.risks:
            categories[len(risks)] = r.category
            risks.append(BreakdownItem(text=r.text.strip(), page=locate_page(r.text, chunk.pages, r.page)))
    code_risks = [clause_risk(c) for c in clauses]
    clause_texts = [c.text for c in clauses]
    model_risks: list[RiskItem] = []
    kept_texts: list[str] = []
    for i, item in enumerate(risks):
        repeats_clause = any(containment(item.text, ct) >= 0.7 for ct in clause_texts)
        if repeats_clause or _is_dup(item.text, kept_texts):
            continue
        kept_texts.append(item.text)
        model_risks.append(RiskItem(text=item.text, page=item.page, category=categories[i], origin="model"))

    if not parts:
        status = "needs_clarification"
    elif failures:
        status = "needs_clarification"
    elif all(s == "refused" for s in statuses):
        status = "refused"
    elif any(s == "executable" for s in statuses):
        status = "executable"
    else:
        status = "needs_clarification"
    final_tasks = _dedupe(tasks)
    if status == "needs_clarification" and not final_tasks:
        # a weak model may say "unclear" without asking anything: code adds the question
        final_tasks = [BreakdownItem(text=CLARIFY_TASK)]
    return Breakdown(
        status=status,  # type: ignore[arg-type]
        background=background[:600],
        background_page=background_page,
        goals=_dedupe(goals),
        tasks=final_tasks,
        risks=[*code_risks, *model_risks, *(system_risk(f) for f in failures)],
    )


def thin_input_breakdown(reason: str, clauses: Sequence[Clause]) -> Breakdown:
    """The breakdown for input no model should see: ``needs_clarification``, reason in risks."""
    return Breakdown(
        status="needs_clarification",
        background="需求信息不足：" + reason,
        tasks=[BreakdownItem(text=CLARIFY_TASK)],
        risks=[*(clause_risk(c) for c in clauses), system_risk(reason)],
    )


async def run_breakdown(client: LLMClient, pages: Sequence[PageText | tuple[int, str]], *,
                        headings: Sequence[tuple[int, str]] = (), max_chunk_chars: int | None = None,
                        max_attempts: int = 3, progress: BreakdownProgress = _no_progress) -> BreakdownOutcome:
    """Break the requirement pages down into the five-field protocol (never raises for
    model misbehaviour, connection or configuration trouble; cancellation propagates)."""
    page_list = as_pages(pages)
    clauses = find_clauses(page_list)
    reason = assess_input(page_list)
    if reason is not None:
        log.info("breakdown: input refused before any model call: %s", reason)
        return BreakdownOutcome(thin_input_breakdown(reason, clauses), clauses=clauses, issues=[reason])

    budget = max_chunk_chars or context_chars(client)
    chunks = split_into_chunks(page_list, budget, headings)
    outcome = BreakdownOutcome(Breakdown(), clauses=clauses, chunks=len(chunks))
    parts: list[tuple[Chunk, ModelBreakdown]] = []
    failures: list[str] = []
    for n, chunk in enumerate(chunks, 1):
        progress(f"正在拆解需求（第 {chunk.first_page}–{chunk.last_page} 页，{n}/{len(chunks)}）", (n - 1) / len(chunks))
        pages_here = set(chunk.page_numbers)
        local = [c for c in clauses if c.page in pages_here]
        where = f"第 {chunk.first_page}–{chunk.last_page} 页"
        messages, answer = fitted_messages(client, chunk, local)
        try:
            res = await collect_json(client, messages, ModelBreakdown, rules=[breakdown_rules],
                                     max_attempts=max_attempts, stage="breakdown", max_tokens=answer)
        except LLMConfigError as exc:
            outcome.config_error = exc.message_zh
            failures.append(f"模型设置有误，{where}的需求未能拆解：{exc.message_zh}")
            break  # every further call would fail the same way
        except LLMError as exc:
            failures.append(f"{where}的需求未能拆解（模型服务出错）：{exc.message_zh}")
            continue
        outcome.calls += res.attempts
        outcome.prompt_tokens += res.prompt_tokens
        outcome.completion_tokens += res.completion_tokens
        if res.ok and res.value is not None:
            parts.append((chunk, res.value))
        else:
            detail = "；".join(res.issues[:3]) or "输出无法解析"
            outcome.issues += res.issues
            if isinstance(res.error, PromptTooLong):
                failures.append(f"{where}的需求未能拆解：{detail}")
            elif res.stopped_by in ("connection", "response"):
                failures.append(f"{where}的需求未能拆解（模型服务出错）：{detail}")
            else:
                failures.append(f"{where}的需求未能拆解：模型 {res.attempts} 次输出都不合格（{detail}）。")
    progress("需求拆解完成", 1.0)
    outcome.failed_chunks = len(failures)
    outcome.breakdown = merge(parts, clauses, failures)
    return outcome


def requirement_input(doc: TenderDocument, section: Section | None = None) -> tuple[list[PageText], list[tuple[int, str]]]:
    """The readable pages of the located requirement section and the headings inside it.

    ``section`` defaults to :func:`~app.documents.locate.locate_requirements`; no section
    gives no pages (and so a ``needs_clarification`` breakdown without a model call).
    """
    if section is None:
        section = locate_requirements(doc)
    if section is None:
        return [], []
    pages = document_pages(doc, section.first_page, section.last_page)
    heads = [(h.page, h.text) for h in doc.headings if section.first_page <= h.page <= section.last_page]
    return pages, heads


async def run_document_breakdown(client: LLMClient, doc: TenderDocument, section: Section | None = None, *,
                                 max_attempts: int = 3,
                                 progress: BreakdownProgress = _no_progress) -> BreakdownOutcome:
    """:func:`run_breakdown` on a loaded tender's requirement section (located when not given)."""
    pages, heads = requirement_input(doc, section)
    if not pages:
        reason = "未能在招标文件中找到采购需求/技术要求/用户需求书章节，无法拆解需求；请手动指定需求所在页码。"
        return BreakdownOutcome(thin_input_breakdown(reason, []), issues=[reason])
    return await run_breakdown(client, pages, headings=heads, max_attempts=max_attempts, progress=progress)

"""Tender analysis: the project overview and the technical scoring groups, cross-checked.

What code can read for certain, code reads: the deterministic scoring-table parser gives
factor names, points and criteria. The model (through ``collect_json``) writes the
overview and, for the technical groups, descriptions and detail points. When the table
parse is confident, titles and points come from the table; where table and model
disagree both are kept as :class:`AnalysisDifference`. A tender without technical scoring
is not refused: the analysis says so and carries the technical requirements for free mode.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from app.core.analysis import (
    Analysis,
    AnalysisDifference,
    AnalysisSource,
    ProjectOverview,
    ScoringGroup,
    ScoringLotInfo,
    renumber_groups,
)
from app.core.rules.outline import normalize_title
from app.core.scoring_edit import with_lot_saved
from app.documents.locate import LocatedSections, chars_for_context, locate_sections, section_text
from app.documents.model import DiagnosticCode, TenderDocument
from app.documents.project_facts import read_project_facts
from app.documents.requirement_headings import requirement_headings
from app.documents.scoring.model import ScoringResult
from app.documents.scoring.table import parse_scoring, select_lot
from app.llm.client.context_fit import fit_text
from app.llm.client.errors import LLMConfigError, LLMConnectionError
from app.llm.json.collect import collect_json
from app.pipeline.analysis.overview_facts import apply_facts
from app.pipeline.analysis.reading_check import stated_totals
from app.pipeline.analysis.reading_compare import confirm_by_second_reading
from app.pipeline.analysis.scoring_groups import scoring_items, scoring_tables
from app.pipeline.analysis.scoring_prompt import ScoringPrompt, fit_scoring_prompt
from app.pipeline.analysis.scoring_questions import resolve_uncertain
from app.pipeline.headings.detail_points import split_points  # noqa: F401 (re-exported)
from app.pipeline.outline.budget import RunMeter
from app.pipeline.outline.job import user_messages

if TYPE_CHECKING:
    from app.llm.client.llm_client import LLMClient

log = logging.getLogger(__name__)

CONFIDENT = 0.8
_PRICE = re.compile(r"报价|价格|投标总价|评标价")
_BUSINESS = re.compile(r"业绩|履约经验|资质|信誉|财务|企业|综合实力|证书|荣誉|获奖|认证|诚信")
_PROJECT_NAME = re.compile(r"项目名称\s*[:：]\s*([^\n：:]{4,60})")


def _points(v: Any) -> Any:
    if isinstance(v, str):
        m = re.search(r"\d+(?:\.\d+)?", v)
        return float(m.group()) if m else None
    return v


def _str_list(v: Any) -> Any:
    if isinstance(v, str):
        return [p for p in re.split(r"[；;\n]", v) if p.strip()]
    if isinstance(v, list):
        return [str(x) if not isinstance(x, str) else x for x in v if x][:12]
    return v


def _page(v: Any) -> Any:
    if isinstance(v, str):
        m = re.search(r"\d+", v)
        return int(m.group()) if m else None
    return v


class ModelGroup(BaseModel):
    """A technical scoring item as the model reports it."""

    model_config = ConfigDict(extra="ignore")
    title: Annotated[str, Field(min_length=2, max_length=60)]
    description: Annotated[str, BeforeValidator(lambda v: v or ""), Field(max_length=600)] = ""
    detail_points: Annotated[list[Annotated[str, Field(max_length=120)]], BeforeValidator(_str_list),
                             Field(max_length=12)] = []
    points: Annotated[float | None, BeforeValidator(_points)] = None
    source_page: Annotated[int | None, BeforeValidator(_page)] = None


class ModelGroups(BaseModel):
    """The technical scoring groups of a tender (technical items only, no price, no business)."""

    model_config = ConfigDict(extra="ignore")
    groups: Annotated[list[ModelGroup], Field(max_length=15)] = []


class ModelOverview(ProjectOverview):
    """The project overview of a tender (项目名称、采购人、概况、范围、预算、服务期、技术要求)."""

    technical_requirements: Annotated[list[str], BeforeValidator(_str_list)] = Field(default_factory=list)
    source_pages: Annotated[list[int], BeforeValidator(lambda v: [x for x in v if isinstance(x, int)]
                                                       if isinstance(v, list) else [])] = Field(default_factory=list)


def _similar(a: str, b: str) -> bool:
    x, y = normalize_title(a), normalize_title(b)
    if not x or not y:
        return False
    if x in y or y in x:
        return True
    ga = {x[i:i + 2] for i in range(len(x) - 1)}
    gb = {y[i:i + 2] for i in range(len(y) - 1)}
    return bool(ga and gb) and len(ga & gb) / min(len(ga), len(gb)) >= 0.6


def _grounded(points: list[str], source: str) -> list[str]:
    """Keep model detail points that share wording with the tender text (drop inventions)."""
    src = normalize_title(source)
    grams = {src[i:i + 2] for i in range(len(src) - 1)}
    kept = []
    for p in points:
        k = normalize_title(p)
        pg = {k[i:i + 2] for i in range(len(k) - 1)}
        if pg and len(pg & grams) / len(pg) >= 0.5:
            kept.append(p.strip()[:80])
    return kept


def table_groups(scoring: ScoringResult) -> list[ScoringGroup]:
    """Every item of the used scoring tables (all categories), with code-split detail points."""
    return scoring_items(scoring_tables(scoring))


def cross_check(table: list[ScoringGroup], model: list[ModelGroup], confident: bool,
                source_text: str) -> tuple[list[ScoringGroup], list[AnalysisDifference]]:
    """Merge table and model groups; differences are kept, never silently resolved."""
    diffs: list[AnalysisDifference] = []
    used: set[int] = set()
    merged: list[ScoringGroup] = []
    technical = [g for g in table if g.category == "technical"]
    for g in table:
        if g.category != "technical":
            merged.append(g)
            continue
        match = next((i for i, m in enumerate(model) if i not in used and _similar(g.title, m.title)), None)
        if match is None:
            if model:
                diffs.append(AnalysisDifference(group_id=g.id, field="missing_in_model", table_value=g.title,
                                                message=f"评分表中的“{g.title}”在模型提取结果中没有出现"))
            merged.append(g)
            continue
        used.add(match)
        m = model[match]
        points = _grounded(m.detail_points, g.description) or g.detail_points
        update: dict[str, Any] = {"detail_points": points}
        if not g.description and m.description:
            update["description"] = m.description
        if normalize_title(m.title) != normalize_title(g.title):
            diffs.append(AnalysisDifference(group_id=g.id, field="title", table_value=g.title, model_value=m.title,
                                            message=f"名称不一致：评分表为“{g.title}”，模型提取为“{m.title}”"))
        if m.points is not None and g.points is not None and abs(m.points - g.points) > 1e-6:
            diffs.append(AnalysisDifference(group_id=g.id, field="points", table_value=f"{g.points:g}",
                                            model_value=f"{m.points:g}",
                                            message=f"“{g.title}”分值不一致：评分表 {g.points:g} 分，模型提取 {m.points:g} 分"))
        if not confident:
            update["title"] = m.title if len(m.title) >= 2 else g.title
        merged.append(g.model_copy(update=update))
    for i, m in enumerate(model):
        if i in used:
            continue
        if technical:
            diffs.append(AnalysisDifference(field="missing_in_table", model_value=m.title,
                                            message=f"模型提取的“{m.title}”在评分表中没有找到"))
        if not confident and (not technical or _grounded([m.title], source_text)):
            merged.append(ScoringGroup(id="", title=m.title, description=m.description,
                                       detail_points=_grounded(m.detail_points, source_text) or m.detail_points[:8],
                                       points=m.points, source_page=m.source_page, decided_by="model"))
    return renumber_groups(merged), diffs


def _raise_if_unreachable(stopped_by: str, issues: list[str], error: Exception | None = None) -> None:
    """A connection failure is the endpoint's, not the model's: let the caller say so (same error type)."""
    if stopped_by == "connection":
        if isinstance(error, LLMConnectionError):
            raise error
        raise LLMConnectionError(issues[0] if issues else "模型服务连接失败")


def _fallback_name(doc: TenderDocument) -> str:
    for p in doc.pages[:10]:
        if not p.readable:
            continue
        m = _PROJECT_NAME.search(p.text)
        if m:
            return m.group(1).strip()
    return ""


def choose_lot_reading(doc: TenderDocument, scoring: ScoringResult, lot: str | None) -> ScoringResult:
    """The reading of the lot named ``lot`` (the one the user chose before) when the tender scores lots apart;
    ``scoring`` itself without lots, without a name or when no lot has it."""
    if not scoring.lots or not lot:
        return scoring
    index = next((i for i, x in enumerate(scoring.lots) if x.name == lot), scoring.lot)
    return scoring if index == scoring.lot else select_lot(doc, scoring, index)


def lot_infos(doc: TenderDocument, scoring: ScoringResult, analysis: Analysis) -> list[ScoringLotInfo]:
    """Every lot's scheme as read and checked; the chosen lot's is the analysis' own (its items, its verdict)."""
    out: list[ScoringLotInfo] = []
    for i, lot in enumerate(scoring.lots):
        if i == scoring.lot:
            tables = [t for t in analysis.scoring_tables if t.used]
            out.append(ScoringLotInfo(name=lot.name, pages=lot.pages, total=lot.total, tables=tables,
                                      groups=list(analysis.groups), confirmed=analysis.scoring_confirmed,
                                      doubt=analysis.scoring_doubt))
            continue
        other = select_lot(doc, scoring.model_copy(deep=True), i)  # a copy: settling re-labels the candidates
        tables = [t for t in scoring_tables(other) if t.used]
        out.append(ScoringLotInfo(name=lot.name, pages=lot.pages, total=other.total_points, tables=tables,
                                  groups=scoring_items(tables), confirmed=other.confirmed, doubt=other.doubt_zh))
    return out


async def analyze_tender(client: LLMClient | None, doc: TenderDocument, *, scoring: ScoringResult | None = None,
                         meter: RunMeter | None = None, json_attempts: int = 3,
                         model_groups: bool | None = None, lot: str | None = None) -> Analysis:
    """Overview + technical scoring groups of ``doc``; without a client, the table-only analysis.

    ``model_groups``: ask the model for the scoring groups (True), never (False), or only
    when the table cannot stand alone (None: no confident table, or a technical group
    without detail points that code could read from its criteria).

    ``lot``: when the tender scores its lots apart, the name of the lot to read the items of (the
    one the user chose; the first lot otherwise). Every lot's scheme is kept in ``scoring_lots``;
    the second reader verifies the chosen lot's.

    Never raises for model misbehaviour (the table result and a note are kept instead);
    :class:`LLMConfigError` and :class:`LLMConnectionError` propagate: the endpoint is at fault.
    """
    scoring = choose_lot_reading(doc, scoring if scoring is not None else parse_scoring(doc), lot)
    meter = meter or RunMeter()
    decisions: list[str] = []
    if client is not None and scoring.found:
        meter.emit("analysis", "正在核对评分表")
        scoring, decisions = await resolve_uncertain(client, doc, scoring, meter)
    sections = locate_sections(doc, scoring)
    tables = scoring_tables(scoring) if scoring.found else []
    table = scoring_items(tables)
    has_table = any(g.category == "technical" for g in table)
    confident = has_table and scoring.confidence >= CONFIDENT
    notes: list[str] = []
    facts = read_project_facts(doc)
    overview, overview_checks = apply_facts(ProjectOverview(project_name=_fallback_name(doc)), facts)
    extracted: list[ModelGroup] = []
    asked: ScoringPrompt | None = None
    ctx = int(getattr(getattr(client, "config", None), "context_size", 8192) or 8192)
    # Page text for the overview and the free-mode requirements, counted one token a character; the
    # scoring call sends the tables themselves, fitted to the context in scoring_prompt.
    budget = max(1500, min(12000, chars_for_context(ctx, reserve_tokens=2500, chars_per_token=1.0)))
    scoring_text = section_text(doc, sections.scoring, budget)
    if client is not None:
        meter.emit("analysis", "正在提取项目概况")
        ov = await _overview(client, doc, sections, budget, meter, json_attempts)
        if ov is not None:
            ov = ov if ov.project_name else ov.model_copy(update={"project_name": overview.project_name})
            overview, overview_checks = apply_facts(ov, facts, from_model=True)
        else:
            notes.append("模型未能提取项目概况，已使用文件中能直接读到的信息")
        readable = scoring.found or scoring.absence in ("", "none")
        wanted = model_groups if model_groups is not None else (
            not has_table or any(not g.detail_points for g in table if g.category == "technical"))
        technical = [g for g in table if g.category == "technical"]
        asked = fit_scoring_prompt(client, doc, scoring, sections.scoring, technical) if wanted and readable else None
        notes += [asked.note_zh] if asked is not None and asked.note_zh else []
        if asked is not None and asked.messages:
            meter.emit("analysis", "正在提取技术评分项")
            try:
                extracted = await _groups(client, asked, meter, json_attempts)
            except LLMConnectionError as exc:
                if ov is None:
                    raise  # nothing came through: the endpoint is at fault, the caller says so
                kept = "项目概况和评分表中读到的内容" if table else "已收到的项目概况"
                notes.append(f"提取技术评分项时模型服务出错（{exc.message_zh}），已保留{kept}；可稍后重新分析")
    # a table that was read stays authoritative: the model only adds grounded detail points
    sent = asked.text if asked is not None else ""
    groups, diffs = cross_check(table, extracted, has_table, f"{scoring_text}\n{sent}" if sent else scoring_text)
    source: AnalysisSource = ("table+model" if has_table and extracted else "table" if table
                              else "model" if groups else "none")
    requirements = ""
    if not doc.has_readable_text:
        reason = next((d.message_zh for d in doc.diagnostics if d.code == DiagnosticCode.NO_READABLE_TEXT),
                      "招标文件没有可用的文字")
        notes.append(f"{reason}。需要先做文字识别（OCR），才能读取评分项和生成目录")
    elif not any(g.category == "technical" and g.chapter for g in groups):
        reason = (scoring.message_zh or "招标文件中没有找到技术评分项") if not scoring.found else "评分表中没有技术评分项"
        notes.append(f"{reason}；生成目录时将使用自由模式，依据采购需求编写")
        req = sections.requirements or sections.overview
        requirements = section_text(doc, req, min(budget, 4000))
    elif has_table and not confident:
        notes.append("评分表自检未完全通过，请在分析页核对评分项、分值和类别")
    if "weights" in scoring.uncertain:
        notes.append("按评标办法中的权重说明，整张评分表视为技术部分（技术标），请核对")
    analysis = Analysis(overview=overview, overview_checks=overview_checks, groups=groups, source=source,
                        table_confident=confident, differences=diffs, technical_requirements=requirements,
                        notes=[*decisions, *notes], requirement_headings=requirement_headings(doc),
                        scoring_tables=tables, scoring_message=scoring.message_zh, scoring_absence=scoring.absence,
                        scoring_decisions=decisions, scoring_confirmed=scoring.confirmed,
                        scoring_doubt=scoring.doubt_zh, scoring_stated_parts=stated_totals(doc))
    if scoring.lots:
        analysis = analysis.model_copy(update={"scoring_lots": lot_infos(doc, scoring, analysis),
                                               "scoring_lot": scoring.lot})
    if client is not None:  # a second, independent reading of the same pages: confirmed when the two agree
        analysis = await confirm_by_second_reading(client, doc, scoring, sections.scoring, analysis, meter)
        if scoring.lots:  # the chosen lot keeps the verdict of the two readings
            analysis = analysis.model_copy(update={"scoring_lots": with_lot_saved(analysis)})
    return analysis


#: The answer asked of the overview call, and the least it is sent for.
OVERVIEW_ANSWER_TOKENS = 800
OVERVIEW_MIN_ANSWER_TOKENS = 400


def _overview_text(doc: TenderDocument, sections: LocatedSections, cap: int) -> str:
    """The opening pages (``cap`` characters) and, when located, half as much of the requirements."""
    text = section_text(doc, sections.overview, cap)
    if sections.requirements is not None:
        text += "\n" + section_text(doc, sections.requirements, cap // 2)
    return text


async def _overview(client: LLMClient, doc: TenderDocument, sections: LocatedSections, budget: int,
                    meter: RunMeter, attempts: int) -> ProjectOverview | None:
    cap = min(budget // 2, 2500)  # the overview sits in the first pages; keep the call cheap
    text = _overview_text(doc, sections, cap)
    if not text.strip():
        return None
    from app.core.resources import load_prompt

    template = load_prompt("analysis_overview")
    # the tender text is cut (by tokens, as the client counts them) until prompt and answer fit the context
    fitted = fit_text(client, text, lambda t: user_messages(template.format_map({"text": t})),
                      answer_tokens=OVERVIEW_ANSWER_TOKENS, min_answer_tokens=OVERVIEW_MIN_ANSWER_TOKENS,
                      cut=lambda _t, chars: _overview_text(doc, sections, max(1, chars * 2 // 3)))
    if fitted is None:
        log.warning("analysis/overview: the context size %d leaves no room for the tender's opening pages; "
                    "not sent", client.config.context_size)
        return None
    if fitted.shortened:
        log.info("analysis/overview: tender text cut to %d characters to fit the context size %d",
                 len(fitted.text), client.config.context_size)
    meter.check("analysis")
    try:
        res = await collect_json(client, fitted.messages, ModelOverview, max_attempts=meter.allowed_attempts(attempts),
                                 stage="analysis/overview", temperature=0.1, max_tokens=fitted.max_tokens)
    except LLMConfigError:
        raise
    meter.record("analysis", max(1, res.attempts), res.prompt_tokens, res.completion_tokens, res.tokens_estimated)
    _raise_if_unreachable(res.stopped_by, res.issues, res.error)
    if not res.ok or res.value is None:
        log.info("overview extraction failed: %s", res.issues[:3])
        return None
    return ProjectOverview.model_validate(res.value.model_dump())


async def _groups(client: LLMClient, asked: ScoringPrompt, meter: RunMeter, attempts: int) -> list[ModelGroup]:
    """The model's technical groups from a prompt already fitted to the context (see scoring_prompt)."""
    meter.check("analysis")
    res = await collect_json(client, asked.messages, ModelGroups,
                             max_attempts=meter.allowed_attempts(min(attempts, asked.attempts)),
                             stage="analysis/scoring", temperature=0.1, max_tokens=asked.max_tokens)
    meter.record("analysis", max(1, res.attempts), res.prompt_tokens, res.completion_tokens, res.tokens_estimated)
    _raise_if_unreachable(res.stopped_by, res.issues, res.error)
    if not res.ok or res.value is None:
        log.info("scoring extraction failed: %s", res.issues[:3])
        return []
    return [g for g in res.value.groups if not _PRICE.search(g.title)]

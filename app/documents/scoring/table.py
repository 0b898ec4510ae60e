"""Deterministic scoring-table parser: what code can read for certain, code reads.

The steps, each in its own module of this package:

- ``candidates``: every block of rows with points in the tender's tables, with fragments joined
  across pages (lined up by ``align``) and across DOCX tables, column roles told by what the
  cells hold (``columns``), folded into factors (``fold``, ``rows``);
- ``weights``: parts scored out of 100 and weighted into the total, scaled to their weight;
- ``reconcile``: summary tables set aside when the details carry their parts;
- ``select``: candidates ranked by structure, look-alikes set aside, the best run of
  neighbouring tables chosen; ``lots``: a scheme per lot when lots are scored apart;
- ``paragraphs``: a scheme written as numbered paragraphs when there is no table;
- ``category``: 技术/商务/价格/其他 by the document's own grouping;
- ``absence``: why there is none, in Chinese; ``calibrate``: what is confirmed.

This module runs them and self-checks the sums against 100 and every stated subtotal.
"""

from __future__ import annotations

import re

from app.documents.model import Diagnostic, DiagnosticCode, Severity, TenderDocument
from app.documents.scoring.absence import LOWEST_REJECT, absence_reason
from app.documents.scoring.calibrate import calibrate
from app.documents.scoring.candidates import candidates_from_tables
from app.documents.scoring.category import assign_categories
from app.documents.scoring.cells import explicit_category, fmt_points
from app.documents.scoring.context import evaluation_method, technical_part_by_weight
from app.documents.scoring.explain import scheme_fit, stated_numbers
from app.documents.scoring.lots import find_lots
from app.documents.scoring.model import (
    ScoreCategory,
    ScoringItem,
    ScoringLot,
    ScoringResult,
    ScoringRow,
    ScoringTable,
)
from app.documents.scoring.paragraphs import paragraph_scheme
from app.documents.scoring.prose import PartStatement, part_statements, price_label, stated_parts
from app.documents.scoring.reconcile import reconcile_summaries
from app.documents.scoring.select import SURE_MARGIN, choose, rank
from app.documents.scoring.weights import weigh_parts
from app.documents.text_patterns import compact

_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def category_of(text: str) -> ScoreCategory | None:
    """Category named in a label ("技术评分细则表", "商务评分标准", "投标报价"), or None."""
    return explicit_category(text)


def parse_points(text: str | None) -> float | None:
    """Points in a points cell: "30分" -> 30, "0～5分" -> 5, "30%" -> 30, "/" -> None."""
    if text is None:
        return None
    t = compact(text)
    if t in {"", "/", "---", "--", "-", "—", "无"}:
        return None
    nums = [float(n) for n in _NUMBER.findall(t)]
    return max(nums) if nums else None


def parse_scoring(doc: TenderDocument) -> ScoringResult:
    """Find and parse the scoring scheme of a tender, with sums checked and a confidence.

    Never raises: a failure of the whole reading is a result without a table whose message
    says so in Chinese (the analysis goes on in free mode), with the error in ``notes``.
    """
    try:
        return _parse_scoring(doc)
    except Exception as exc:
        return ScoringResult(
            found=False, absence="error", confidence=0.0,
            message_zh="评分表解析出错，未能读取评分表；请在分析页手工填写评分项，或用自由模式",
            notes=[f"解析出错：{type(exc).__name__}: {str(exc)[:120]}"],
            doubt_zh="评分表解析出错，未能确认有无评分表；请查看评标办法一章，手工填写评分项",
        )


def _parse_scoring(doc: TenderDocument) -> ScoringResult:
    candidates = weigh_parts(doc, candidates_from_tables(doc))
    for c in candidates:
        if c.rejected.startswith("解析出错"):
            continue
        try:
            rank(c, doc)
        except Exception as exc:
            c.rejected = f"解析出错，已跳过（{type(exc).__name__}: {str(exc)[:80]}）"
    candidates = reconcile_summaries(candidates)
    statements = part_statements(doc)
    fit = scheme_fit(stated_numbers(statements))
    choice = choose(candidates, fit=fit)
    lowest = bool(evaluation_method(doc))
    while choice is not None and lowest and all(t.stated_total is None for t in choice.tables) \
            and abs(sum(t.points_sum for t in choice.tables) - 100) > 0.01:
        for t in choice.tables:  # a lowest-price method has no points: an unlabelled look-alike is not its table
            t.rejected = LOWEST_REJECT
        choice = choose(candidates, fit=fit)
    tables: list[ScoringTable] = choice.tables if choice is not None else []
    lots = find_lots(doc, [c for c in candidates if not c.rejected], tables) if choice is not None else []
    if lots:
        choice = choose(candidates, alternatives=len(lots) + 2, fit=fit)
        assert choice is not None  # the same candidates chose before
        tables = lots[0][1]
    if not tables and (para := paragraph_scheme(doc)) is not None:
        rank(para, None)
        candidates.append(para)
        tables = [para]
    sure = choice.sure if choice is not None else True
    if lots and choice is not None:
        in_lots = {id(t) for _, w in lots for t in w}
        rivals = [score for score, w in choice.alternatives if not in_lots & {id(t) for t in w}]
        best = max(score for score, w in [(choice.score, choice.tables), *choice.alternatives] if in_lots & {id(t) for t in w})
        sure = not rivals or best - rivals[0] >= SURE_MARGIN
    schemes = [w for _, w in lots]
    readings = [settle(doc, w, candidates, sure=sure, lots=schemes, statements=statements) for w in schemes[1:]]
    result = settle(doc, tables, candidates, sure=sure, lots=schemes, statements=statements)
    if lots:
        result.lots = [_lot(name, w, candidates, r) for (name, w), r in zip(lots, [result, *readings], strict=True)]
    if choice is not None:
        others = [choice.tables, *(w for _, w in choice.alternatives)]
        schemes = [tables, *(w for w in others if [id(t) for t in w] != [id(t) for t in tables])]
        result.options = [[_index(candidates, t) for t in w] for w in schemes]
    return result


def _lot(name: str, tables: list[ScoringTable], candidates: list[ScoringTable], reading: ScoringResult) -> ScoringLot:
    return ScoringLot(name=name, tables=[_index(candidates, t) for t in tables],
                      pages=sorted({p for t in tables for p in t.pages}), total=reading.total_points,
                      confirmed=reading.confirmed, doubt_zh=reading.doubt_zh)


def select_lot(doc: TenderDocument | None, result: ScoringResult, index: int) -> ScoringResult:
    """The reading of another lot (``result.lots[index]``), settled and checked like the first one."""
    lot = result.lots[index]
    tables = [result.candidates[i] for i in lot.tables]
    schemes = [[result.candidates[i] for i in x.tables] for x in result.lots]
    out = settle(doc, tables, result.candidates, sure="table" not in result.uncertain, lots=schemes)
    out.lots, out.lot = result.lots, index
    out.options = [lot.tables, *(o for o in result.options if o != lot.tables)]
    return out


def _index(candidates: list[ScoringTable], table: ScoringTable) -> int:
    return next(i for i, c in enumerate(candidates) if c is table)


def settle(doc: TenderDocument | None, tables: list[ScoringTable], candidates: list[ScoringTable], *,
           sure: bool = True, lots: list[list[ScoringTable]] | None = None,
           statements: list[PartStatement] | None = None) -> ScoringResult:
    """Categories, checks and the message for a chosen set of tables (also after a user's pick).

    ``lots``: every lot's scheme when the tender scores its lots apart (a number the prose states for
    another lot is that lot's to explain); ``statements``: ``prose.part_statements`` of ``doc`` when
    the caller has them."""
    if doc is not None and statements is None:
        statements = part_statements(doc)
    by_weight = doc is not None and len(tables) == 1 and technical_part_by_weight(doc)
    for c in candidates:
        if all(c is not t for t in tables):
            assign_categories([c])
    assign_categories(tables, technical_by_weight=by_weight)
    if doc is not None and tables and (price := prose_price(doc, tables, statements)) is not None:
        tables = [*tables, price]
    result = check_scoring(tables)
    result.candidates = candidates
    if not sure:
        result.uncertain.append("table")
    if not tables:
        code, message = absence_reason(doc) if doc is not None else ("none", result.message_zh)
        result.absence, result.message_zh = code, message
    elif by_weight and any(r.category_source == "weights" for t in tables for r in t.rows):
        result.uncertain.append("weights")
    others = [w for w in lots or [] if [id(t) for t in w] != [id(t) for t in tables]]
    return calibrate(doc, result, others=others, statements=statements)


def prose_price(doc: TenderDocument, tables: list[ScoringTable],
                statements: list[PartStatement] | None = None) -> ScoringTable | None:
    """The price part stated only in prose ("其中投标报价为70分") when the tables have no price row and
    the tables plus that part make the stated 100 points; None otherwise."""
    if any(r.category == ScoreCategory.PRICE for t in tables for r in t.rows):
        return None
    every = part_statements(doc) if statements is None else statements
    prices = [st for st in every if st.category == ScoreCategory.PRICE and not st.weight]
    total = sum(t.points_sum for t in tables)
    points = stated_parts(every).get(ScoreCategory.PRICE)
    fits = [st for st in prices if abs(total + st.points - 100) < 0.01]
    if points is None or abs(total + points - 100) > 0.01 or not fits:
        if not fits or len({st.points for st in prices}) > 1:
            return None  # nothing stated, or the prose names more than one price figure
        points = fits[0].points
    statement = fits[0]
    page, name = statement.page, price_label(statement)
    text = "价格分只在评标办法正文中规定（表格中没有价格行），分值按正文"
    row = ScoringRow(factor=name, factor_raw=name, points=points, stated_points=points, criteria=text,
                     category=ScoreCategory.PRICE, category_source="section", table_id="", pages=[page],
                     items=[ScoringItem(criteria=text, points=points, page=page)])
    label = f"正文规定的{name}" + ("" if name.endswith("分") else "分")
    return ScoringTable(table_ids=[], pages=[page], kind="paragraphs", label=label, rows=[row],
                        category=ScoreCategory.PRICE, stated_total=points)


def check_scoring(tables: list[ScoringTable]) -> ScoringResult:
    """Self-check the sums and grade the confidence; the result says what did not add up."""
    if not tables:
        return ScoringResult(
            found=False,
            confidence=0.0,
            message_zh="未找到评分表：文件中没有带分值的评分因素表格或条文",
        )
    passed: list[str] = []
    issues: list[str] = []
    for t in tables:
        passed.extend(x for x in t.reconciled if x not in passed)
        name = t.label or (f"第{t.pages[0]}页的评分表" if t.pages else "评分表")
        if t.stated_total is not None:
            msg = f"{name}：各项合计 {fmt_points(t.points_sum)} 分，标明 {fmt_points(t.stated_total)} 分"
            (passed if abs(t.points_sum - t.stated_total) < 0.01 else issues).append(msg)
        for label, stated in t.subtotals.items():
            rows = [r for r in t.rows if label in (r.group, r.category_label)]
            if not rows or (t.stated_total is not None and abs(stated - t.stated_total) < 0.01 and len(t.subtotals) == 1):
                continue
            got = round(sum(r.points or 0.0 for r in rows), 4)
            msg = f"{label}：各项合计 {fmt_points(got)} 分，标明 {fmt_points(stated)} 分"
            (passed if abs(got - stated) < 0.01 else issues).append(msg)
        for r in t.rows:
            if r.points is None:
                issues.append(f"“{r.factor}”（第{r.page}页）没有读到分值")
            elif r.stated_points is not None and len(r.items) > 1 and abs(r.points - r.stated_points) > 0.01:
                issues.append(f"“{r.factor}”各小项合计 {fmt_points(r.points)} 分，名称中标明 {fmt_points(r.stated_points)} 分")
            elif r.stated_points is not None and len(r.scored_items) > 1:
                passed.append(f"“{r.factor}”各小项合计 {fmt_points(r.points)} 分，与名称中标明的一致")
    total = round(sum(t.points_sum for t in tables), 4)
    stated_sum = [t.stated_total for t in tables]
    if abs(total - 100) < 0.01:
        passed.append("全部评分项合计 100 分")
    elif all(s is not None for s in stated_sum) and abs(total - sum(s or 0 for s in stated_sum)) < 0.01:
        passed.append(f"全部评分项合计 {fmt_points(total)} 分，与标明的总分一致")
        issues.append(f"全部评分项合计 {fmt_points(total)} 分，不是 100 分（其余分值可能在其他表格或正文中）")
    else:
        issues.append(f"全部评分项合计 {fmt_points(total)} 分，不是 100 分（可能有评分表未识别或分值读错）")
    confidence = max(0.1, min(1.0, 1.0 - 0.2 * len(issues) + (0.0 if passed else -0.2)))
    count = sum(len(t.rows) for t in tables)
    kind = "评分条文" if all(t.kind == "paragraphs" for t in tables) else "评分表"
    message = f"找到 {len(tables)} 处{kind}，共 {count} 个评分项，合计 {fmt_points(total)} 分"
    if issues:
        message += "；" + "；".join(issues[:3])
    return ScoringResult(
        found=True,
        tables=tables,
        confidence=round(confidence, 2),
        checks_passed=passed,
        issues=issues,
        message_zh=message,
    )


def scoring_diagnostics(result: ScoringResult) -> list[Diagnostic]:
    """The parse outcome as document diagnostics, for the same list the UI shows."""
    skipped = [
        Diagnostic(code=DiagnosticCode.SCORING_MISMATCH, severity=Severity.INFO, pages=c.pages,
                   message_zh=f"候选评分表（第{'、'.join(map(str, c.pages[:3]))}页）{c.rejected}")
        for c in result.candidates if c.rejected.startswith("解析出错")
    ] + [Diagnostic(code=DiagnosticCode.SCORING_MISMATCH, severity=Severity.INFO, message_zh=n)
         for n in result.notes if n.startswith("解析出错")]
    if not result.found:
        return [Diagnostic(code=DiagnosticCode.NO_SCORING_TABLE, severity=Severity.INFO, message_zh=result.message_zh),
                *skipped]
    return skipped + [
        Diagnostic(
            code=DiagnosticCode.SCORING_MISMATCH,
            severity=Severity.WARNING,
            message_zh="评分表自检未通过：" + issue,
            pages=sorted({p for t in result.tables for p in t.pages}),
        )
        for issue in result.issues
    ]

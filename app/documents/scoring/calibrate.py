"""Calibrated confidence: a reading is "confirmed" only when independent checks agree.

The checks, each independent of how the rows were read:

- arithmetic: the rows add up to 100 (or to every stated total), each stated subtotal
  (a group label "技术部分（70分）", a 小计 row, a 分值 column of part subtotals) is met, every
  row carries points, a factor's items add up to the points in its name;
- the prose: what the 评标办法 text states the parts are worth ("其中价格部分为30分、
  技术部分为70分") agrees with the categories read;
- where: the table sits under a scoring heading or caption, and no other scheme ranks close;
- the categories: a row whose category is only guessed from its name as non-technical,
  or a scheme without any price, cannot be confirmed by the sums.

``calibrate`` sets ``confirmed``, ``doubt_zh`` (one sentence saying what could not be
confirmed and where to look) and ``doubt`` on the rows that are doubtful. It also adds an
issue when the prose contradicts the table, so the reading never looks certain then.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.documents.model import TenderDocument
from app.documents.scoring.absence import LOWEST_REJECT, NO_POINTS_METHODS
from app.documents.scoring.cells import fmt_points
from app.documents.scoring.context import SCORING_TITLE, table_section
from app.documents.scoring.explain import another_lots, stated_numbers, unexplained_issues
from app.documents.scoring.model import ScoreCategory, ScoringResult, ScoringTable
from app.documents.scoring.prose import PartStatement, part_statements, stated_parts
from app.documents.scoring.reconcile import summary_parts
from app.documents.scoring.rows import bracket_balance
from app.documents.text_patterns import compact

_LONG_NAME = 30
_CRITERIA_WORDS = re.compile(r"得\d|不得分|扣\d|每[项个次]|满分为|[＞>≥]\d")
_EXPLAINED_ABSENCE = {"lowest_price", "lowest_offer", "single_source", "template", "announcement", "no_text", "garbled"}
_NO_PRICE = ("不设价格", "价格不参与", "价格不作为", "不进行价格", "不评价格", "报价不计分", "价格不计分", "不含价格分")


def _where(tables: list[ScoringTable]) -> str:
    pages = sorted({p for t in tables for p in t.pages if p})
    if not pages:
        return "评标办法"
    if len(pages) == 1:
        return f"第{pages[0]}页的评分表"
    return f"第{pages[0]}–{pages[-1]}页的评分表"


def _under_scoring_heading(doc: TenderDocument | None, table: ScoringTable) -> bool:
    if table.kind != "table" or not table.table_ids:
        return True
    text = compact(f"{table.caption[-60:]} {table.label} {table.section}")
    if SCORING_TITLE.search(text):
        return True
    if doc is None:
        return False
    chapter, section = table_section(doc, table.table_ids[0])
    return bool(SCORING_TITLE.search(compact(f"{chapter} {section}")))


def _details_of_summary(result: ScoringResult) -> list[ScoringTable]:
    """Other scoring-like tables near a chosen table that only lists the parts (价格 40 / 技术 60 …):
    details the summary could not be reconciled with (``reconcile`` sets aside the ones it can)."""
    summary = [t for t in result.tables if t.kind == "table"]
    if len(summary) != 1 or summary_parts(summary[0]) is None:
        return []
    pages = summary[0].pages
    return [c for c in result.candidates if c is not summary[0] and not c.rejected and len(c.rows) >= 2
            and c.pages and abs(c.pages[0] - pages[-1]) <= 4]


def prose_check(doc: TenderDocument, result: ScoringResult, statements: list[PartStatement] | None = None,
                others: Sequence[list[ScoringTable]] = ()) -> tuple[list[str], list[str]]:
    """(passed, issues) of the parts read against the parts the prose states (技术 first, then the others
    the same statement gives); parts another lot's scheme (``others``) carries are that lot's."""
    if statements is None:
        statements = part_statements(doc)
    parts = stated_parts(statements)
    tech = parts.get(ScoreCategory.TECHNICAL)
    got = result.points_by_category().get(ScoreCategory.TECHNICAL.value, 0.0)
    weights = {st.points for st in statements if st.weight and st.category == ScoreCategory.TECHNICAL}
    if tech is None and len(weights) == 1:
        weight = weights.pop()
        if abs(got - weight) < 0.01:
            return [f"正文规定技术部分权重 {fmt_points(weight)}%，与评分表一致"], []
        if abs(got - 100) < 0.01 and "weights" in result.uncertain:
            return [], []  # a 100-point technical table that the weight scales into the total
        return [], [f"正文规定技术部分权重 {fmt_points(weight)}%，评分表中的技术项合计 {fmt_points(got)} 分"]
    if tech is None or (abs(got - tech) >= 0.01 and another_lots(parts, others)):
        return [], []
    if abs(got - tech) < 0.01:
        by_category = result.points_by_category()
        for cat, stated in parts.items():  # the other parts the same sentence states must hold too
            other = by_category.get(cat.value, 0.0)
            if cat != ScoreCategory.TECHNICAL and abs(other - stated) >= 0.01 and not another_lots(parts, others):
                return [], [f"正文规定{cat.value}部分 {fmt_points(stated)} 分，评分表中的{cat.value}项合计 {fmt_points(other)} 分"]
        shown = "、".join(f"{c.value} {fmt_points(v)}" for c, v in parts.items())
        return [f"正文规定各部分分值（{shown}），与评分表一致"], []
    weighted = any(st.weight for st in statements) or "weights" in result.uncertain
    if weighted and abs(got - 100) < 0.01:
        return [], []  # a 100-point technical table weighted into the total: the prose states the weight
    return [], [f"正文规定技术部分 {fmt_points(tech)} 分，评分表中的技术项合计 {fmt_points(got)} 分"]


def calibrate(doc: TenderDocument | None, result: ScoringResult, others: Sequence[list[ScoringTable]] = (),
              statements: list[PartStatement] | None = None) -> ScoringResult:
    """Set ``confirmed``, ``doubt_zh`` and the rows' ``doubt`` of a settled reading (in place, returned).

    ``others``: the other lots' schemes, whose stated numbers this reading need not explain;
    ``statements``: ``prose.part_statements`` of ``doc`` when the caller has them."""
    if not result.found:
        set_aside = [c for c in result.candidates if c.rejected == LOWEST_REJECT]
        result.confirmed = result.absence in _EXPLAINED_ABSENCE and not (result.absence in NO_POINTS_METHODS and set_aside)
        if set_aside and not result.confirmed:
            pages = "、".join(str(c.pages[0]) for c in set_aside[:3] if c.pages)
            result.doubt_zh = (f"文件写明不打分的评审方法，但第{pages}页另有带分值的表格，未能确认没有评分表；"
                               "请查看这些表格，如是评分表请选用或手工填写评分项")
        elif not result.confirmed:
            result.doubt_zh = ("未能确认文件中没有评分表：没有读到带分值的评分项；"
                               "请查看评标办法一章，如有评分表请手工填写评分项")
        return result
    doubts: list[str] = []
    independent = [c for c in result.checks_passed if "全部评分项合计" not in c]
    if doc is not None:
        if statements is None:
            statements = part_statements(doc)
        passed, issues = prose_check(doc, result, statements, others)
        issues += unexplained_issues(result.tables, stated_numbers(statements), others, said=issues)
        result.checks_passed.extend(passed)
        independent.extend(passed)
        if issues:
            result.issues.extend(issues)
            result.confidence = round(max(0.1, result.confidence - 0.3), 2)
            result.message_zh += "；" + issues[0]
    for t in result.tables:
        for r in t.rows:
            if r.points is None:
                r.doubt = "没有读到分值"
            elif len(compact(r.factor)) > _LONG_NAME or _CRITERIA_WORDS.search(compact(r.factor)):
                r.doubt = "名称像是评分标准，评分项名称可能读错"
            elif bracket_balance(r.factor) != 0:
                r.doubt = "名称的括号不成对，可能是被分页截断的名称"
            elif r.category_source == "guess" and r.category != ScoreCategory.TECHNICAL:
                r.doubt = f"类别“{r.category.value}”是按名称推断的"
    doubtful = [r for r in result.rows if r.doubt]
    where = _where(result.tables)
    if result.issues:
        doubts.append(result.issues[0])
    if "table" in result.uncertain:
        doubts.append("还有其他表格也像评分表")
    if not all(_under_scoring_heading(doc, t) for t in result.tables):
        doubts.append("评分表不在评标办法章节之下")
    if doubtful:
        names = "、".join(f"“{r.factor}”" for r in doubtful[:3])
        doubts.insert(1 if result.issues else 0, f"{names}{'等' if len(doubtful) > 3 else ''}{doubtful[0].doubt}")
    if not independent:
        doubts.append("除合计外没有标明的总分、小计或正文说明可以核对")
    has_price = any(r.category == ScoreCategory.PRICE for r in result.rows)
    text = compact(doc.text()) if doc is not None else ""
    if not has_price and "weights" not in result.uncertain and not any(w in text for w in _NO_PRICE):
        doubts.append("没有读到价格分")
    if not result.technical_rows:
        doubts.append("没有读到技术评分项")
    if (details := _details_of_summary(result)):
        doubts.insert(0, f"所选评分表只列出各部分的分值（汇总表），第{details[0].pages[0]}页另有逐项的评分细则，两者不一致")
    result.confirmed = not doubts
    if doubts:
        result.doubt_zh = f"评分表未能确认：{doubts[0]}；请核对{where}"
        if len(doubts) > 1:
            result.doubt_zh += f"（另有 {len(doubts) - 1} 处待核对）"
    return result

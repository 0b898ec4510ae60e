"""Schemes whose parts are each scored out of 100 and weighted into the total.

"综合得分=资信分*10%+技术分*50%+商务分*40%", with a 100-point table per part ("资信分（100 分），权重
10%", "技术分（100 分），权重50%") and a part scored by a formula in the text ("（二）商务标评审（满分100
分，权重40%）" over the bid-price formula). Read as they print, the tables add up to 200 and either
one looks like the whole scheme. Read as one chapter, each part is worth its weight: a row printed
as 25 of the technical 100 is worth 12.5 of the total. When two or more part tables carry weights
the document states and those weights (with the parts scored only in the text) make 100, the
tables are scaled (the printed points stay in ``raw_points``) and a part scored only by a price
formula becomes the price row. One 100-point technical table beside a price formula is left as
printed (``context.technical_part_by_weight``): its 100 points are the scale the writer sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.documents.model import TenderDocument
from app.documents.scoring.model import ScoreCategory, ScoringItem, ScoringRow, ScoringTable
from app.documents.text_patterns import compact

_NUM = r"\d+(?:\.\d+)?"
_PART = r"(资信|技术|商务|价格|报价)"
_FORMULA = re.compile(rf"{_PART}(?:标|分|部分|得分|评分)*\s*[*×xX＊]\s*({_NUM})\s*[%％]")
_HEADED = re.compile(rf"{_PART}(?:标|分|部分)?[^。；;\n权]{{0,16}}?权重\s*(?:为|占|是)?\s*[:：]?\s*({_NUM})\s*[%％]")
_PRICE_FORMULA = re.compile(r"评标基准价|基准价|投标报价[^。；]{0,12}[=＝]|报价得分|价格分\s*[=＝]|[÷/]\s*评标基准价")
_HEADING_LINE = re.compile(r"^(?:[（(][一二三四五六七八九十\d]{1,3}[)）]|[一二三四五六七八九十]+[、.．]|\d{1,2}[、.．])")
_SECTION_LINES = 12  # lines after a part's heading read for its price formula


@dataclass(frozen=True)
class PartWeight:
    """A part's weight in the total, as the document states it, and where."""

    word: str  # 资信 / 技术 / 商务 / 价格
    weight: float
    page: int
    line: str


def part_weights(doc: TenderDocument) -> dict[str, PartWeight]:
    """The weights the text states per part: a formula line naming two or more, or headings; {} unless
    two or more parts are weighted and the weights make 100."""
    formula: dict[str, PartWeight] = {}
    headed: dict[str, PartWeight] = {}
    for page in doc.pages:
        if not page.readable:
            continue
        for line in page.text.split("\n"):
            t = compact(line)
            found = [(m.group(1), float(m.group(2))) for m in _FORMULA.finditer(t)]
            if len({w for w, _ in found}) >= 2 and not formula:
                formula = {w: PartWeight(w, v, page.number, line.strip()) for w, v in found}
            for m in _HEADED.finditer(t):
                headed.setdefault(m.group(1), PartWeight(m.group(1), float(m.group(2)), page.number, line.strip()))
    for weights in (formula, {**headed, **formula}):
        if len(weights) >= 2 and abs(sum(w.weight for w in weights.values()) - 100) < 0.01:
            # the weight as the formula states it, the place as the part's own heading does
            return {w: PartWeight(w, x.weight, headed[w].page, headed[w].line) if w in headed else x
                    for w, x in weights.items()}
    return {}


def _word_of(table: ScoringTable, weights: dict[str, PartWeight]) -> str:
    """The weighted part a 100-point table scores, named in its groups, label or caption."""
    texts = [*(r.group for r in table.rows), table.label, table.caption[-40:]]
    for text in texts:
        t = compact(text)
        if "权重" in t or "100分" in t:
            for word in weights:
                if word in t:
                    return word
    return ""


def _scale(table: ScoringTable, weight: float) -> None:
    factor = weight / 100.0
    for row in table.rows:
        row.raw_points = row.points
        row.points = None if row.points is None else round(row.points * factor, 4)
        row.stated_points = None if row.stated_points is None else round(row.stated_points * factor, 4)
        for item in row.items:
            item.points = None if item.points is None else round(item.points * factor, 4)
    table.subtotals = {k: round(v * factor, 4) for k, v in table.subtotals.items()}
    table.stated_total = weight
    table.weight = weight


def _price_part(doc: TenderDocument, part: PartWeight) -> ScoringTable | None:
    """A weighted part the text scores by the bid-price formula alone: one price row worth its weight."""
    page = doc.page(part.page)
    lines = [ln.strip() for ln in page.text.split("\n") if ln.strip()]
    if part.page < doc.page_count:
        lines += [ln.strip() for ln in doc.page(part.page + 1).text.split("\n") if ln.strip()]
    start = next((i for i, ln in enumerate(lines) if ln == part.line), None)
    if start is None or not _HEADING_LINE.match(compact(part.line)):
        return None
    body = []
    for ln in lines[start + 1 : start + 1 + _SECTION_LINES]:
        if _HEADING_LINE.match(compact(ln)) and len(compact(ln)) <= 40:
            break
        body.append(ln)
    text = "\n".join(body)
    if not _PRICE_FORMULA.search(compact(text)):
        return None
    name = re.split(r"[（(]", _HEADING_LINE.sub("", compact(part.line)), maxsplit=1)[0]
    name = re.sub(r"(?:评审|评分|评标|标准|细则)+$", "", name) or part.word
    row = ScoringRow(factor=name, factor_raw=part.line, points=part.weight, stated_points=part.weight, raw_points=100.0,
                     criteria=text[:600], category=ScoreCategory.PRICE, category_source="section", table_id="",
                     pages=[part.page], items=[ScoringItem(criteria=text[:600], points=part.weight, page=part.page)])
    return ScoringTable(table_ids=[], pages=[part.page], kind="paragraphs", label=part.line[:40], rows=[row],
                        category=ScoreCategory.PRICE, stated_total=part.weight, weight=part.weight)


def weigh_parts(doc: TenderDocument, candidates: list[ScoringTable]) -> list[ScoringTable]:
    """Scale the 100-point part tables the stated weights apply to and add the parts scored only by a
    price formula in the text; the candidates in document order (unchanged without such a scheme)."""
    weights = part_weights(doc)
    if not weights:
        return candidates
    parts = [(t, w) for t in candidates if not t.rejected and abs(t.points_sum - 100) < 0.01
             and (w := _word_of(t, weights))]
    if len({w for _, w in parts}) < 2:
        return candidates
    seen: set[str] = set()
    for table, word in parts:
        if word not in seen:
            part = weights[word]
            _scale(table, part.weight)
            table.reconciled.append(f"{word}部分满分 100 分，按权重 {part.weight:g}% 计入总分（第{part.page}页：{part.line[:40]}）")
            seen.add(word)
    extra = [p for w, part in weights.items() if w not in seen and (p := _price_part(doc, part)) is not None]
    return sorted([*candidates, *extra], key=lambda t: t.pages[0] if t.pages else 0)

"""Two readings of one scoring scheme, compared: what "confirmed" means when a model is configured.

Code read the tables (``app.documents.scoring``); the model read the same pages on its own
(:mod:`second_reader`) and code checked each of its rows against the text
(:mod:`reading_check`). :func:`compare` pairs the two readings row by row — same name (as
the text prints it), same points, same category; a factor one reading splits into the
sub-items the other lists counts as the same — and says in Chinese where they part.
:func:`settle` turns that into the analysis' verdict:

- the model's reading verified and agreeing with code's: confirmed by two readings;
- verified but different: not confirmed, both are kept for the analysis view to show side
  by side (one click takes either);
- not verified but credible (two rows in three found with their points) and different: code's
  reading is no longer confirmed either — two readings that part are never shown as certain;
- otherwise (a weak model's usual answer: names not in the text): nothing changes but a note —
  code's reading stands, confirmed or not as code's own checks said.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.core.analysis import Analysis, ScoringCategory, ScoringGroup, SecondReading, renumber_groups
from app.core.tender_titles import display_title
from app.pipeline.analysis.reading_check import PART_PROBLEM, check_reading, check_rows, fmt, name_core

if TYPE_CHECKING:
    from app.documents.locate import Section
    from app.documents.model import TenderDocument
    from app.documents.scoring.model import ScoringResult
    from app.llm.client.llm_client import LLMClient
    from app.pipeline.analysis.second_reader import ModelReading
    from app.pipeline.outline.budget import RunMeter

ZH_OF: dict[str, str] = {"technical": "技术", "business": "商务", "price": "价格", "other": "其他"}
CATEGORY_OF_ZH: dict[str, ScoringCategory] = {"技术": "technical", "商务": "business", "价格": "price", "其他": "other"}
MODEL_TABLE_KEY = "model"
#: The note code's analysis adds when its own checks did not all pass; a confirmation makes it moot.
SELF_CHECK_NOTE = "评分表自检未完全通过"
MAX_DIFFERENCES = 12


#: Share of the shorter name's character pairs the longer must hold for two names to be read as one
#: item when their points agree too ("类似业绩" / "具有与本项目类似的业绩").
LOOSE_SHARE = 0.6


def similar(a: str, b: str, loose: bool = False) -> bool:
    """Two names for the same item: equal once numbering and points are set aside, or one inside the other;
    ``loose`` (only where the points agree as well) also when most of the shorter's character pairs recur."""
    x, y = name_core(a), name_core(b)
    if not x or not y:
        return False
    if x == y or (min(len(x), len(y)) >= 2 and (x in y or y in x)):
        return True
    if not loose or min(len(x), len(y)) < 3:
        return False
    gx, gy = {x[i:i + 2] for i in range(len(x) - 1)}, {y[i:i + 2] for i in range(len(y) - 1)}
    return len(gx & gy) / min(len(gx), len(gy)) >= LOOSE_SHARE


def _eq(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) < 0.01


@dataclass
class Comparison:
    """How two readings pair up: pairs of (code row index, model row indices) and the differences."""

    pairs: list[tuple[int, list[int]]] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        """Row for row the same (and something to compare)."""
        return bool(self.pairs) and not self.differences


def _label(g: ScoringGroup) -> str:
    return f"{g.title}（{fmt(g.points)}分）" if g.points is not None else g.title


def compare(code: list[ScoringGroup], model: list[ScoringGroup]) -> Comparison:
    """Pair code's rows with the model's and list every difference (names, points, categories, rows only one has)."""
    out = Comparison()
    free = set(range(len(model)))
    left: list[int] = []
    for i, g in enumerate(code):  # same name, same points
        j = next((j for j in sorted(free) if similar(g.title, model[j].title) and _eq(g.points, model[j].points)), None)
        if j is None:  # a name shortened or worded a little differently, with the same points
            j = next((j for j in sorted(free) if similar(g.title, model[j].title, loose=True)
                      and _eq(g.points, model[j].points)), None)
        if j is None:
            left.append(i)
            continue
        free.discard(j)
        out.pairs.append((i, [j]))
    still: list[int] = []
    for i in left:  # one reading's factor is the other's sub-items (same total)
        g = code[i]
        subs = [j for j in sorted(free) if similar(model[j].group_label, g.title)
                or any(similar(s.name or s.criteria[:20], model[j].title) for s in g.sub_items if s.name or s.criteria)]
        if subs and _eq(sum(model[j].points or 0.0 for j in subs), g.points):
            free -= set(subs)
            out.pairs.append((i, subs))
        else:
            still.append(i)
    for j in sorted(free):  # the model's factor over code's finer rows
        r = model[j]
        rows = [i for i in still if similar(code[i].group_label, r.title)]
        if rows and _eq(sum(code[i].points or 0.0 for i in rows), r.points):
            free.discard(j)
            still = [i for i in still if i not in rows]
            out.pairs += [(i, [j]) for i in rows]
    for i in list(still):  # same name, other points
        g = code[i]
        j = next((j for j in sorted(free) if similar(g.title, model[j].title)), None)
        if j is not None:
            free.discard(j)
            still.remove(i)
            out.pairs.append((i, [j]))
            out.differences.append(f"“{g.title}”分值：程序读为 {fmt(g.points or 0)} 分，模型读为 "
                                   f"{fmt(model[j].points or 0)} 分")
    for i, js in out.pairs:
        cats = {model[j].category for j in js}
        if cats != {code[i].category}:
            theirs = "、".join(sorted(ZH_OF[c] for c in cats))
            out.differences.append(f"“{code[i].title}”类别：程序读为{ZH_OF[code[i].category]}，模型读为{theirs}")
    out.differences += [f"只有程序读到：{_label(code[i])}" for i in still]
    out.differences += [f"只有模型读到：{_label(model[j])}" for j in sorted(free)]
    return out


def model_groups(reading: ModelReading, problems: list[str], code: list[ScoringGroup]) -> list[ScoringGroup]:
    """The model's rows as scoring items (marked as the model's, with why a row failed the check);
    a row that names one of code's items takes that item's criteria and sub-items."""
    out: list[ScoringGroup] = []
    for r, problem in zip(reading.rows, problems, strict=True):
        title = display_title(r.name) or r.name[:60]
        twin = next((g for g in code if similar(g.title, title) and _eq(g.points, r.points)), None)
        group = ScoringGroup(id="", title=title, points=r.points, category=CATEGORY_OF_ZH.get(r.category, "other"),
                             group_label=r.group[:80], source_page=r.page or None, table_key=MODEL_TABLE_KEY,
                             decided_by="model", doubt=problem[:200])
        if twin is not None:
            group = group.model_copy(update={"description": twin.description, "detail_points": twin.detail_points,
                                             "sub_items": twin.sub_items, "weighted": twin.weighted})
        out.append(group)
    return renumber_groups(out)


def printed(code: list[ScoringGroup]) -> list[ScoringGroup]:
    """Code's rows with the points their tables print: a scheme whose parts are scored out of 100 and weighted
    into the total is compared with a reading of the page on the page's own scale."""
    return [g.model_copy(update={"points": g.raw_points}) if g.raw_points is not None else g for g in code]


def _weighted(groups: list[ScoringGroup], code: list[ScoringGroup], comparison: Comparison) -> list[ScoringGroup]:
    """The model's rows paired with code's weighted rows, on the weighted scale (the printed points kept)."""
    out = list(groups)
    for i, js in comparison.pairs:
        g = code[i]
        if g.raw_points is None or not g.raw_points or g.points is None:
            continue
        factor = g.points / g.raw_points
        for j in js:
            m = out[j]
            if m.points is not None:
                out[j] = m.model_copy(update={"points": round(m.points * factor, 4), "raw_points": m.points})
    return out


def second_reading(doc: TenderDocument, reading: ModelReading, code: list[ScoringGroup],
                   model: str = "") -> SecondReading:
    """The model's reading checked against the text and compared with code's rows.

    The model reads the points the page prints; where code's rows are weighted into the total (their
    ``raw_points`` printed), the two readings are compared on the printed points and the model's rows
    paired with them are weighted the same way before the sums are checked."""
    rows = [(r.name, r.points, r.category, r.group) for r in reading.rows]
    checks = check_rows(doc, reading.pages, rows)
    page_code = printed(code)
    groups = model_groups(reading, [c.problem for c in checks], page_code)
    for g, c in zip(groups, checks, strict=True):
        if c.page and g.source_page != c.page:
            g.source_page = c.page
    comparison = compare(page_code, groups) if code else Comparison()
    parts = {j for i, js in comparison.pairs for j in js
             if code[i].raw_points is not None and checks[j].problem == PART_PROBLEM}
    if parts:  # a weighted part scored as a whole, read as one row by both: checked where the page prints it
        again = check_rows(doc, reading.pages, rows, whole_parts=parts)
        checks = [again[k] if k in parts else c for k, c in enumerate(checks)]
        groups = [g.model_copy(update={"doubt": checks[k].problem[:200]}) if k in parts else g
                  for k, g in enumerate(groups)]
    weighted = any(g.raw_points is not None for g in code)
    if weighted:
        groups = _weighted(groups, code, comparison)
    sums = [(g.title, g.points, ZH_OF[g.category], g.group_label) for g in groups] if weighted else None
    raw = [g.raw_points if g.raw_points is not None else g.points for g in groups] if weighted else None
    check = check_reading(doc, reading.pages, rows, sums=sums, printed=raw, checks=checks)
    return SecondReading(rows=groups, pages=reading.pages, verified=check.verified, agrees=comparison.agrees,
                         problems=check.problems + [f"“{g.title}”{c.problem}" for g, c in zip(groups, checks,
                                                                                               strict=True) if c.problem],
                         differences=comparison.differences[:MAX_DIFFERENCES],
                         stated_by_category=check.stated_by_category, model=model)


def settle(analysis: Analysis, reading: SecondReading | None, note: str = "") -> Analysis:
    """The analysis with the second reading's verdict: confirmed by two readings, or both kept to compare."""
    notes = list(analysis.notes)
    if reading is None or not reading.rows:
        return analysis.model_copy(update={"notes": [*notes, note] if note else notes})
    update: dict[str, object] = {"second_reading": reading}
    count = len(reading.rows)
    total = fmt(round(sum(g.points or 0.0 for g in reading.rows), 4))
    if not reading.verified and not (reading.credible and analysis.groups and not reading.agrees):
        first = reading.problems[0] if reading.problems else "名称或分值在原文中找不到"
        notes.append(f"模型独立读取的评分表未通过原文核对（{first}），仍以程序读取为准")
    elif not analysis.groups:
        update |= {"scoring_confirmed": False,
                   "scoring_doubt": f"程序没有读到评分项，模型读到 {count} 项（合计 {total} 分，名称和分值都在原文中找到）；"
                                    "请对照原文后采用"}
        notes.append(f"模型独立读取评分表：读到 {count} 项，合计 {total} 分，见分析页的对照")
    elif reading.agrees:
        groups = [g.model_copy(update={"doubt": ""}) for g in analysis.groups]
        notes = [n for n in notes if SELF_CHECK_NOTE not in n]
        notes.append(f"评分表经程序和模型各自读取，逐项一致（{count} 项，合计 {total} 分），已确认")
        update |= {"scoring_confirmed": True, "scoring_doubt": "", "groups": groups}
    else:
        first = reading.differences[0] if reading.differences else "两种读法不同"
        more = f"等 {len(reading.differences)} 处" if len(reading.differences) > 1 else ""
        unchecked = "" if reading.verified else f"（模型的读法也有 {len(reading.problems)} 处未通过原文核对）"
        update |= {"scoring_confirmed": False,
                   "scoring_doubt": f"程序与模型各自读取的评分表不一致：{first}{more}{unchecked}；请对照原文选用一种读法"}
        notes.append(f"模型独立读取评分表：与程序的读法有 {len(reading.differences)} 处不同，见分析页的对照")
    if note:
        notes.append(note)
    update["notes"] = notes
    return analysis.model_copy(update=update)


async def confirm_by_second_reading(client: LLMClient, doc: TenderDocument, scoring: ScoringResult,
                                    section: Section | None, analysis: Analysis, meter: RunMeter) -> Analysis:
    """Have the model read the scoring pages on its own and settle the analysis with what it read."""
    if not doc.has_readable_text:
        return analysis
    # the model layer (the openai client) is loaded with its first use, not when the window starts
    from app.pipeline.analysis.second_reader import read_scoring_pages

    reading = await read_scoring_pages(client, doc, scoring, section, meter)
    if not reading.rows:
        return settle(analysis, None, reading.note)
    checked = second_reading(doc, reading, analysis.groups, str(getattr(client.config, "model", "") or ""))
    return settle(analysis, checked, reading.note)

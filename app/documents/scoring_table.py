"""Deterministic scoring-table parser: what code can read for certain, code reads.

Finds tables whose header names a scoring factor column (评分因素/评审因素/评分项/…)
and a points or criteria column, joins fragments that continue on the next page (with
or without a repeated header), folds merged cells (``None`` continuation cells) into
one factor with several items, joins wrapped names, labels each row 商务/技术/价格 from
a category column, the table caption or the factor name, and checks the sums against
100 and against every stated subtotal ("技术评分细则表（50分）", "技术评分标准 40分").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.documents.model import Diagnostic, DiagnosticCode, Severity, Table, TenderDocument
from app.documents.scoring_model import (
    CategorySource,
    ScoreCategory,
    ScoringItem,
    ScoringResult,
    ScoringRow,
    ScoringTable,
)
from app.documents.text_patterns import clean_cell_text, compact

# Header roles, tried in this order on each header cell (compacted text).
_ROLE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("number", re.compile(r"^(序号|条款号|编号|序|项次|条款)$")),
    ("factor", re.compile(r"评分因素|评审因素|评分项|评审项|评分内容|评审内容|评分项目|评审项目|考评因素|评价因素|评分因子|评审指标|评分指标")),
    ("criteria", re.compile(r"评分标准|评审标准|评审细则|评分细则|评审要求|评分要求|评分办法|评分说明|评分依据|评审办法|评分原则")),
    ("points", re.compile(r"^(分值|分数|权重|满分|标准分|最高分|分值[（(]分[)）]|权值|分值范围|得分)$|^分值")),
    ("note", re.compile(r"^(说明|备注|评分类型|类型)$")),
    ("category", re.compile(r"^(类别|评分类别|评审类别|大类|评分大类|评审项)$")),
]
_CATEGORY_WORDS = re.compile(r"商务|技术|价格|报价|服务|资信|其他因素|评分标准")
_POINTS_IN_TEXT = re.compile(r"[（(]\s*(?:权重)?\s*(\d+(?:\.\d+)?)\s*(分|%|％)\s*[)）]")
_TRAILING_WEIGHT = re.compile(r"\s*[（(][^（()）]{0,6}\d+(?:\.\d+)?\s*(?:分|%|％)[^（()）]{0,4}[)）]\s*$")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_STATED_TOTAL = re.compile(r"[（(]\s*(?:共|满分|总分)?\s*(\d+(?:\.\d+)?)\s*分\s*[)）]")
_LABEL = re.compile(r"([^\s。；，,:：]{0,14}?(?:评分|评审|打分)[^\s。；，,（(]{0,8})\s*[（(]\s*\d+(?:\.\d+)?\s*分\s*[)）]")
_TOTAL_ROW = re.compile(r"^(合计|总计|小计|总分|合计分值|总分值|分值合计)")
_PRICE_FACTOR = re.compile(r"价格|报价")
_COMMERCIAL_GUESS = re.compile(r"业绩|经验|资质|资信|认证|信誉|信用|财务|注册资本|实力|荣誉|获奖|证书|企业|社保")
_TECHNICAL_GUESS = re.compile(r"方案|技术|服务|人员|团队|培训|实施|措施|设备|性能|质量|进度|管理|保障|应急|售后|配送|响应|计划")
_HEADER_ROWS_MAX = 2
_EMPTY_POINTS = {"", "/", "---", "--", "-", "—", "无"}


@dataclass
class _Header:
    roles: dict[str, int]  # role -> column index
    names: list[str]
    rows: int  # how many leading rows the header takes
    stated_total: float | None


@dataclass
class _Group:
    header: _Header
    fragments: list[Table] = field(default_factory=list)
    rows: list[tuple[list[str | None], int, str]] = field(default_factory=list)  # (cells, page, table id)


def category_of(text: str) -> ScoreCategory | None:
    """Category named in a label ("技术评分细则表", "商务评分标准", "投标报价"), or None."""
    t = compact(text)
    if "技术" in t:
        return ScoreCategory.TECHNICAL
    if "商务" in t or "资信" in t:
        return ScoreCategory.COMMERCIAL
    if _PRICE_FACTOR.search(t):
        return ScoreCategory.PRICE
    return None


def parse_points(text: str | None) -> float | None:
    """Points in a points cell: "30分" -> 30, "0～5分" -> 5, "30%" -> 30, "/" -> None."""
    if text is None:
        return None
    t = compact(text)
    if t in _EMPTY_POINTS:
        return None
    nums = [float(n) for n in _NUMBER.findall(t)]
    return max(nums) if nums else None


def _detect_header(rows: list[list[str | None]]) -> _Header | None:
    """Column roles from the first rows, when they make a scoring-table header."""
    for n in range(1, min(_HEADER_ROWS_MAX, len(rows)) + 1):
        names: list[str] = []
        for j in range(max(len(r) for r in rows[:n])):
            parts = [compact(r[j] or "") for r in rows[:n] if j < len(r)]
            names.append("".join(dict.fromkeys(p for p in parts if p)))
        roles: dict[str, int] = {}
        total: float | None = None
        for j, name in enumerate(names):
            m = _STATED_TOTAL.search(name)
            if m and ("100" in m.group(1) or j > 0):
                total = float(m.group(1))
            bare = _STATED_TOTAL.sub("", name)
            for role, pat in _ROLE_PATTERNS:
                if role not in roles and bare and pat.search(bare):
                    roles[role] = j
                    break
        if "factor" in roles and ("points" in roles or "criteria" in roles):
            return _Header(roles=roles, names=names, rows=n, stated_total=total)
    return None


def _assign_unnamed(header: _Header, rows: list[list[str | None]]) -> None:
    """Give an unnamed column (merged header cell) the category role when its values are labels."""
    if "category" in header.roles:
        return
    used = set(header.roles.values())
    factor = header.roles["factor"]
    for j, name in enumerate(header.names):
        if j in used or name:
            continue
        values = [r[j] for r in rows if j < len(r) and r[j]]
        labels = [v for v in values if v and _CATEGORY_WORDS.search(v)]
        if values and len(labels) * 2 >= len(values):
            if j < factor:
                header.roles["category"] = j
            else:  # "评分因素" spans two columns: the left one holds the categories
                header.roles["category"] = factor
                header.roles["factor"] = j
            return


def _is_continuation(prev: Table, table: Table) -> bool:
    """True when ``table`` continues ``prev`` on the next page of a PDF."""
    return (
        prev.bbox is not None
        and table.bbox is not None
        and prev.ends_page
        and table.starts_page
        and table.page == prev.page + 1
        and abs(prev.col_count - table.col_count) <= 1
    )


def _group_tables(tables: list[Table]) -> list[_Group]:
    """Scoring tables with their continuation fragments."""
    groups: list[_Group] = []
    current: _Group | None = None
    for table in tables:
        if not table.rows:
            continue
        header = _detect_header(table.rows)
        prev = current.fragments[-1] if current else None
        if current is not None and prev is not None and _is_continuation(prev, table):
            repeated = header is not None and header.names == current.header.names
            if header is None or repeated:
                skip = header.rows if header is not None else 0
                current.fragments.append(table)
                current.rows += [(r, table.page, table.id) for r in table.rows[skip:]]
                continue
        if header is None:
            current = None
            continue
        current = _Group(header=header, fragments=[table])
        current.rows = [(r, table.page, table.id) for r in table.rows[header.rows :]]
        groups.append(current)
    return groups


def _cell(cells: list[str | None], header: _Header, role: str) -> str | None:
    """The cell of a role in a row; None when merged or the role is absent; "" when empty."""
    j = header.roles.get(role)
    if j is None:
        return ""
    return cells[j] if j < len(cells) else ""


def _is_note_row(cells: list[str | None], header: _Header) -> bool:
    """A row with one text cell spanning the table (a 说明/注 line)."""
    filled = [c for c in cells if c is not None and c.strip()]
    if len(filled) != 1:
        return False
    merged = sum(1 for c in cells if c is None)
    first = cells[0] or ""
    return merged >= len(cells) - 1 or bool(re.match(r"^\s*(说明|注|备注)[:：]", first))


def _label_of(caption: str) -> tuple[str, ScoreCategory | None, float | None]:
    """Label, category and stated subtotal of a table from its caption."""
    matches = list(_LABEL.finditer(caption))
    if matches:
        m = matches[-1]
        label = m.group(0).strip()
        total = _STATED_TOTAL.search(label)
        return label, category_of(m.group(1)), float(total.group(1)) if total else None
    tail = caption[-40:]
    return "", category_of(tail) if re.search(r"评分|评审|打分", tail) else None, None


def _factor_name(raw: str) -> tuple[str, float | None]:
    """Clean factor name without its trailing weight, and the weight as stated points."""
    text = clean_cell_text(raw, keep_breaks=False)
    m = _POINTS_IN_TEXT.search(text)
    stated = float(m.group(1)) if m else None
    name = _TRAILING_WEIGHT.sub("", text).strip() or text
    return name, stated


def _horizontal_factor(cells: list[str | None], header: _Header) -> str | None:
    """Factor text when the factor cell is merged with the cell on its left in this row."""
    j = header.roles["factor"]
    if j < len(cells) and cells[j] is None and j > 0 and cells[j - 1] is not None and (cells[j - 1] or "").strip():
        return cells[j - 1]
    return None


def _rows_of(
    group: _Group, caption_cat: ScoreCategory | None
) -> tuple[list[ScoringRow], list[str], float | None]:
    """Fold grid rows into factor rows (merged cells become items of one factor).

    Returns the rows, the note lines and the points of a 合计/总分 row when there is one.
    """
    header = group.header
    out: list[ScoringRow] = []
    notes: list[str] = []
    total_row: float | None = None
    cat_label = ""
    for cells, page, table_id in group.rows:
        if all(c is None or not c.strip() for c in cells):
            continue
        if [compact(c or "") for c in cells] == header.names[: len(cells)]:
            continue  # a header repeated inside the table
        if _is_note_row(cells, header):
            notes.append(clean_cell_text(next(c for c in cells if c and c.strip())))
            continue
        number, cat, fac = _cell(cells, header, "number"), _cell(cells, header, "category"), _cell(cells, header, "factor")
        pts_text, crit, note = _cell(cells, header, "points"), _cell(cells, header, "criteria"), _cell(cells, header, "note")
        if fac is None:
            fac = _horizontal_factor(cells, header) or fac
        if any(_TOTAL_ROW.match(compact(c or "")) for c in (number, cat, fac)):
            total_row = parse_points(pts_text) if "points" in header.roles else None
            if total_row is None:
                found = _NUMBER.findall(compact(" ".join(c for c in cells if c)))
                total_row = float(found[-1]) if found else None
            continue
        if cat:
            cat_label = clean_cell_text(cat, keep_breaks=False)
        points = parse_points(pts_text) if "points" in header.roles else None
        criteria = clean_cell_text(crit or "")
        last = out[-1] if out else None
        same_factor = fac is None or (
            last is not None and fac and compact(fac) == compact(last.factor_raw) and not (number and number != last.number)
        )
        if last is not None and (same_factor or (not (fac or "").strip() and not (number or "").strip())):
            if fac is not None and not (fac or "").strip() and points is None and last.items:
                item = last.items[-1]  # a cell split by the page break: its text continues
                item.criteria = (item.criteria + "\n" + criteria).strip() if criteria else item.criteria
            else:
                last.items.append(ScoringItem(criteria=criteria, points=points, page=page))
            if page not in last.pages:
                last.pages.append(page)
            if note and note not in last.note:
                last.note = (last.note + " " + clean_cell_text(note)).strip()
            continue
        if not (fac or "").strip() or compact(fac or "") in _EMPTY_POINTS:
            continue  # no factor, or a placeholder row like "其他因素 | --- | ---"
        name, stated = _factor_name(fac or "")
        category, source, label = _row_category(name, cat_label, caption_cat)
        out.append(
            ScoringRow(
                number=clean_cell_text(number or "", keep_breaks=False) or (last.number if last and number is None else ""),
                category=category,
                category_source=source,
                category_label=label,
                factor=name,
                factor_raw=fac or "",
                stated_points=stated,
                note=clean_cell_text(note or ""),
                items=[ScoringItem(criteria=criteria, points=points, page=page)],
                table_id=table_id,
                pages=[page],
            )
        )
    for row in out:
        _settle_points(row)
    return out, notes, total_row


def _row_category(
    name: str, cat_label: str, caption_cat: ScoreCategory | None
) -> tuple[ScoreCategory, CategorySource, str]:
    """Category of a row: category column, then table caption, then the factor name."""
    if cat_label and (c := category_of(cat_label)) is not None:
        return c, "column", cat_label
    if caption_cat is not None:
        return caption_cat, "caption", ""
    if _PRICE_FACTOR.search(name):
        return ScoreCategory.PRICE, "factor_name", ""
    if _COMMERCIAL_GUESS.search(name) and not re.search(r"方案", name):
        return ScoreCategory.COMMERCIAL, "guess", ""
    if _TECHNICAL_GUESS.search(name):
        return ScoreCategory.TECHNICAL, "guess", ""
    return ScoreCategory.OTHER, "none", cat_label


def _settle_points(row: ScoringRow) -> None:
    """Row points = sum of its items' points, else the points stated in its name."""
    item_points = [i.points for i in row.items if i.points is not None]
    row.points = round(sum(item_points), 4) if item_points else row.stated_points
    if len(row.items) == 1:
        row.criteria = row.items[0].criteria
    else:
        row.criteria = "\n".join(
            (f"（{_fmt(i.points)}分）" if i.points is not None else "") + i.criteria for i in row.items if i.criteria
        )


def _fmt(x: float | None) -> str:
    """Points without a useless ".0"."""
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def parse_scoring(doc: TenderDocument) -> ScoringResult:
    """Find and parse the scoring tables of a tender, with sums checked and a confidence."""
    tables: list[ScoringTable] = []
    for group in _group_tables(doc.tables):
        _assign_unnamed(group.header, [r for r, _, _ in group.rows])
        first = group.fragments[0]
        label, caption_cat, caption_total = _label_of(first.caption)
        rows, notes, total_row = _rows_of(group, caption_cat)
        with_points = [r for r in rows if r.points is not None]
        if not rows or len(with_points) * 2 < len(rows):
            continue  # a table of 评审因素 without points (形式评审, 资格评审): not a scoring table
        tables.append(
            ScoringTable(
                table_ids=[t.id for t in group.fragments],
                pages=sorted({t.page for t in group.fragments}),
                caption=first.caption,
                label=label,
                category=caption_cat,
                stated_total=next(
                    (v for v in (caption_total, group.header.stated_total, total_row) if v is not None), None
                ),
                header=group.header.names,
                rows=rows,
                notes=notes,
            )
        )
    return check_scoring(tables)


def check_scoring(tables: list[ScoringTable]) -> ScoringResult:
    """Self-check the sums and grade the confidence; the result says what did not add up."""
    if not tables:
        return ScoringResult(
            found=False,
            confidence=0.0,
            message_zh="未找到评分表：文件中没有可识别的评分因素/分值表格（可能没有评分办法，或评分表为图片）",
        )
    passed: list[str] = []
    issues: list[str] = []
    for t in tables:
        name = t.label or f"第{t.pages[0]}页的评分表"
        if t.stated_total is not None:
            msg = f"{name}：各项合计 {_fmt(t.points_sum)} 分，标明 {_fmt(t.stated_total)} 分"
            (passed if abs(t.points_sum - t.stated_total) < 0.01 else issues).append(msg)
        subtotals: dict[str, float] = {}
        for r in t.rows:
            if r.category_source == "column" and r.category_label:
                subtotals[r.category_label] = subtotals.get(r.category_label, 0.0) + (r.points or 0.0)
        for label, got in subtotals.items():
            m = re.search(r"(\d+(?:\.\d+)?)\s*分", label)
            if m:
                msg = f"{label}：各项合计 {_fmt(got)} 分，标明 {m.group(1)} 分"
                (passed if abs(got - float(m.group(1))) < 0.01 else issues).append(msg)
        for r in t.rows:
            if r.points is None:
                issues.append(f"“{r.factor}”（第{r.page}页）没有读到分值")
            elif r.stated_points is not None and len(r.items) > 1 and abs(r.points - r.stated_points) > 0.01:
                issues.append(f"“{r.factor}”各小项合计 {_fmt(r.points)} 分，名称中标明 {_fmt(r.stated_points)} 分")
    total = round(sum(t.points_sum for t in tables), 4)
    if abs(total - 100) < 0.01:
        passed.append("全部评分项合计 100 分")
    else:
        issues.append(f"全部评分项合计 {_fmt(total)} 分，不是 100 分（可能有评分表未识别或分值读错）")
    confidence = max(0.1, min(1.0, 1.0 - 0.2 * len(issues) + (0.0 if passed else -0.2)))
    rows = sum(len(t.rows) for t in tables)
    message = f"找到 {len(tables)} 张评分表，共 {rows} 个评分项，合计 {_fmt(total)} 分"
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
    if not result.found:
        return [Diagnostic(code=DiagnosticCode.NO_SCORING_TABLE, severity=Severity.INFO, message_zh=result.message_zh)]
    return [
        Diagnostic(
            code=DiagnosticCode.SCORING_MISMATCH,
            severity=Severity.WARNING,
            message_zh="评分表自检未通过：" + issue,
            pages=sorted({p for t in result.tables for p in t.pages}),
        )
        for issue in result.issues
    ]

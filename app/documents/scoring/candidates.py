"""Every table-like place a scoring scheme could be, read into candidate scoring tables.

1. Runs: a PDF table continued on the next page (it ends one page, the next starts at
   the top with a similar width) and DOCX tables with no text between them (one table
   that a conversion split into several) are joined into one grid.
2. Segments: a header row inside a run (a new table glued to the previous one) starts a
   new segment.
3. Blocks: within a segment, the rows that carry points (a bare points cell or points in a
   short name) with the continuation, label, total and note rows around them; a form
   table with a scoring block inside (评标办法前附表) gives just that block.
4. Each block is folded into factors (``scoring_fold``) and becomes a :class:`ScoringTable`
   candidate; ranking and choosing happen in ``scoring_select``.
"""

from __future__ import annotations

import re

from app.documents.model import Table, TenderDocument
from app.documents.pdf_tables import same_grid
from app.documents.scoring.align import aligned_rows, run_edges
from app.documents.scoring.cells import (
    TOTAL_ROW,
    is_empty,
    is_group_label,
    is_part_number,
    name_points,
    points_value,
    stated_points,
)
from app.documents.scoring.columns import Cells, Columns, detect_header, header_like, infer_columns
from app.documents.scoring.context import table_section
from app.documents.scoring.fold import GridRow, fold_rows, label_text
from app.documents.scoring.model import ScoringTable
from app.documents.text_patterns import PAGE_FURNITURE, compact, furniture_only

_MAX_BLANK_PAGES = 2  # pages with nothing but their number a table may run over
_MAX_CUT_GAP = 36.0  # points between two pieces of one table on one page (two blank lines at most)
_WHOLE_TABLE = re.compile(r"满分|总分|合计|共计|共\d")
MAX_RUN_ROWS = 600  # grid rows read per run of joined tables (a scoring table has tens)
_MAX_GAP_ROWS = 2  # named rows without points allowed inside one block
_MAX_TAIL_ROWS = 3
_CAPTION_LABEL = re.compile(
    r"([^\s。；，,:：]{0,16}?(?:评分|评审|打分|评标|评价)[^\s。；，,（(]{0,10})\s*[（(]\s*(?:满分|共|总分)?\s*\d+(?:\.\d+)?\s*分\s*[)）]"
)


def _running_header(doc: TenderDocument, prev: Table, table: Table) -> bool:
    """The only text above ``table`` is the running header that also tops the previous page,
    and the table keeps the previous fragment's left and right edges."""
    if prev.bbox is None or table.bbox is None or abs(prev.bbox[0] - table.bbox[0]) > 3 \
            or abs(prev.bbox[2] - table.bbox[2]) > 3 or not compact(table.caption):
        return False
    if not 1 <= prev.page <= doc.page_count:
        return False
    head = compact(table.caption)
    tops = [compact(b.text) for b in doc.page(prev.page).blocks[:3] if b.kind != "table"]
    return any(t and (t == head or (len(head) >= 6 and head in t)) for t in tops)


def _next_page(doc: TenderDocument, prev: Table, table: Table) -> bool:
    """``table`` is on the page after ``prev``'s, or after pages that hold nothing but their numbers and
    the running header and footer of the pages around them."""
    if table.page == prev.page + 1:
        return True
    gap = range(prev.page + 1, table.page)
    return 0 < len(gap) <= _MAX_BLANK_PAGES and table.page <= doc.page_count \
        and all(furniture_only(doc.page(n).text, (doc.page(n - 1).text, doc.page(n + 1).text)) for n in gap)


def _right_below(doc: TenderDocument, prev: Table, table: Table) -> bool:
    """``table`` starts on ``prev``'s page just under it (a blank line or two) with no text between
    them: one table a writer or a conversion cut in two Word tables, printed to PDF."""
    if prev.bbox is None or table.bbox is None or table.page != prev.page or not prev.col_x or not table.col_x:
        return False
    top, bottom = prev.bbox[3], table.bbox[1]
    if not 0 <= bottom - top <= _MAX_CUT_GAP:
        return False
    return not any(b.bbox is not None and b.text.strip() and top - 1 < (b.bbox[1] + b.bbox[3]) / 2 < bottom + 1
                   and b.bbox[0] < table.bbox[2] and b.bbox[2] > table.bbox[0]
                   for b in doc.page(table.page).blocks if b.kind != "table")


def _continues(prev: Table, table: Table, doc: TenderDocument) -> bool:
    """True when ``table`` continues ``prev`` (next PDF page, right below it on the same page with
    nothing between, or DOCX with nothing between)."""
    if prev.col_x and table.col_x:  # PDF: a page whose piece lacks a sub-column has fewer columns
        if not same_grid(prev, table):
            return False
    elif abs(prev.col_count - table.col_count) > 1:
        return False
    if _right_below(doc, prev, table):
        return True
    if doc.kind == "pdf" or (prev.bbox is not None and table.bbox is not None):
        if not (prev.ends_page and _next_page(doc, prev, table)):
            return False
        return table.starts_page or _running_header(doc, prev, table)
    return not table.caption.strip() or bool(PAGE_FURNITURE.match(compact(table.caption)))


def table_runs(doc: TenderDocument) -> list[list[Table]]:
    """Tables joined where one continues the previous."""
    runs: list[list[Table]] = []
    for table in doc.tables:
        if not table.rows:
            continue
        if runs and _continues(runs[-1][-1], table, doc):
            runs[-1].append(table)
        else:
            runs.append([table])
    return runs


def _is_label_row(cells: Cells) -> bool:
    """A row whose filled cells all say one thing ("二、技术部分（80 分）" spanning the table)."""
    return _distinct_filled(cells) == 1 and label_text(cells) is not None and not header_like(cells)


def _lead_labels(rows: list[Cells]) -> int:
    """How many label rows open a segment before its header row (at most two)."""
    k = 0
    while k < min(2, len(rows) - 1) and _is_label_row(rows[k]):
        k += 1
    return k if k and header_like(rows[k]) else 0


def _segments(grid: list[GridRow]) -> list[list[GridRow]]:
    """Split a run at header rows that are not its first row; the label rows right above such a
    header ("二、技术部分（80 分）") open the new segment with it."""
    out: list[list[GridRow]] = [[]]
    for i, g in enumerate(grid):
        if i > 0 and header_like(g.cells) and out[-1]:
            k = _lead_labels([x.cells for x in out[-1]])
            prev_header = out[-1][k].cells
            if [compact(c or "") for c in g.cells] != [compact(c or "") for c in prev_header]:
                lead: list[GridRow] = []
                while len(lead) < 2 and out[-1] and _is_label_row(out[-1][-1].cells):
                    lead.insert(0, out[-1].pop())
                out.append(lead)
        out[-1].append(g)
    return [s for s in out if s]


def _number_column(rows: list[Cells], hint: int | None) -> int | None:
    if hint is not None:
        return hint
    cols = infer_columns(rows)
    return cols.number if cols else None


def _distinct_filled(cells: Cells) -> int:
    return len({compact(c) for c in cells if c is not None and not is_empty(c)})


def _is_evidence(cells: Cells, number: int | None) -> bool:
    """A row that carries points: a bare points cell or a short name with points, beside other text."""
    if _distinct_filled(cells) < 2:
        return False
    for j, c in enumerate(cells):
        if j == number or c is None or is_empty(c):
            continue
        if points_value(c) is not None or name_points(c) is not None:
            return True
    return False


def _lent_points(body: list[GridRow]) -> set[int]:
    """Rows that are the only named row under a label row stating points ("一、价格分（10 分）" over
    "投标报价 | 价格分采用低价优先法…"): the label's points are that row's."""
    out: set[int] = set()
    i = 0
    while i < len(body):
        label = label_text(body[i].cells) if _is_label_row(body[i].cells) else None
        if label is None or len(compact(label)) > 30 or stated_points(label) is None:
            i += 1
            continue
        j = i + 1
        while j < len(body) and not _is_label_row(body[j].cells):
            j += 1
        named = [k for k in range(i + 1, j) if _distinct_filled(body[k].cells) >= 2]
        if len(named) == 1 and not any(_is_evidence(body[k].cells, None) for k in range(i + 1, j)):
            out.add(named[0])
        i = j
    return out


def _total_row(cells: Cells) -> bool:
    """A 合计/总分 row: its numbers are the table's total, not a row's."""
    first = next((c for c in cells if c is not None and not is_empty(c)), "")
    return bool(TOTAL_ROW.match(compact(first)))


def _heading_row(cells: Cells, number: int | None) -> bool:
    """A label spanning the table ("技术部分（70分）"), or a numbered part without points ("（一） | 商务部分")."""
    if _distinct_filled(cells) == 1 and label_text(cells) is not None:
        return True
    filled = [c for c in cells if c is not None and not is_empty(c)]
    return number is not None and number < len(cells) and is_part_number(cells[number]) and len(filled) == 2 \
        and is_group_label(next(c for j, c in enumerate(cells) if j != number and c is not None and not is_empty(c)))


def _cut_points(body: list[GridRow]) -> set[int]:
    """Rows whose points in a name are cut by a page break ("投标人类似业绩（25" + "分）"): the last row
    of a page piece and the first of the next, whose cells joined state points neither states alone."""
    out: set[int] = set()
    for i in range(len(body) - 1):
        a, b = body[i], body[i + 1]
        if a.table_id == b.table_id or len(a.cells) != len(b.cells):
            continue
        for x, y in zip(a.cells, b.cells, strict=True):
            if x is None or y is None or is_empty(x) or is_empty(y) or name_points(x) is not None:
                continue
            if name_points(compact(x) + compact(y)) is not None and name_points(y) is None:
                out.update((i, i + 1))
                break
    return out


def _blocks(body: list[GridRow], number: int | None) -> list[tuple[int, int]]:
    """(first, last) index ranges of the scoring blocks in a segment body."""
    lent = _lent_points(body) | _cut_points(body)
    evidence = [i for i, g in enumerate(body) if i in lent or _is_evidence(g.cells, number)]
    if not evidence:
        return []
    spans: list[list[int]] = [[evidence[0], evidence[0]]]
    for i in evidence[1:]:
        gap = [g for g in body[spans[-1][1] + 1 : i] if _distinct_filled(g.cells) >= 2]
        if len(gap) > _MAX_GAP_ROWS:
            spans.append([i, i])
        else:
            spans[-1][1] = i
    out: list[tuple[int, int]] = []
    for first, last in spans:
        floor = out[-1][1] + 1 if out else 0
        lead = 0
        while first - 1 >= floor and lead < 2 and _heading_row(body[first - 1].cells, number):
            first -= 1
            lead += 1
        tail = 0
        while last + 1 < len(body) and tail < _MAX_TAIL_ROWS and _distinct_filled(body[last + 1].cells) <= 1:
            last += 1
            tail += 1
        out.append((first, last))
    return out


def _weighted(block: list[GridRow], cols: Columns) -> bool:
    """Points given as 权重 percentages ("35%" cells, or "（35%）" in the names): a table scored by weights."""
    j = cols.points if cols.points is not None else cols.factor if cols.names_carry_points else None
    if j is None:
        return False
    cells = [compact(g.cells[j] or "") for g in block if j < len(g.cells) and g.cells[j] and not is_empty(g.cells[j])]
    scored = [c for c in cells if points_value(c) is not None or name_points(c) is not None]
    pct = [c for c in scored if re.search(r"\d\s*[%％]", c)]
    return bool(scored) and len(pct) >= 0.6 * len(scored)


def caption_label(caption: str) -> tuple[str, float | None]:
    """The scoring label inside a caption ("附表2：技术评分细则表（50分）") and its stated points."""
    matches = list(_CAPTION_LABEL.finditer(compact(caption)))
    if matches:
        label = matches[-1].group(0)
        return label, stated_points(label)
    return "", None


def candidates_from_tables(doc: TenderDocument) -> list[ScoringTable]:
    """Every scoring block found in the document's tables, in document order.

    Nothing here is fatal: a run of tables whose reading raises becomes a rejected candidate
    that says why (``rejected`` starts with "解析出错"), and the other runs are still read.
    """
    out: list[ScoringTable] = []
    for run in table_runs(doc):
        try:
            out.extend(_run_candidates(doc, run))
        except Exception as exc:
            out.append(failed_candidate(run, exc))
    return out


def failed_candidate(run: list[Table], exc: BaseException) -> ScoringTable:
    """A rejected stand-in for a run of tables whose reading raised, with the reason in Chinese."""
    pages = sorted({t.page for t in run})
    return ScoringTable(table_ids=[t.id for t in run], pages=pages, caption=run[0].caption if run else "",
                        rejected=f"解析出错，已跳过（{type(exc).__name__}: {str(exc)[:80]}）")


def _run_candidates(doc: TenderDocument, run: list[Table]) -> list[ScoringTable]:
    out: list[ScoringTable] = []
    edges = run_edges(run)
    grid = [GridRow(cells=r, page=t.page, table_id=t.id) for t in run for r in aligned_rows(t, edges)][:MAX_RUN_ROWS]
    for seg in _segments(grid):
        rows = [g.cells for g in seg]
        k = _lead_labels(rows)
        n, names, hints, header_total = detect_header(rows[k:])
        body = seg[:k] + seg[k + n :]  # the labels above the header stay as the body's first group
        number = _number_column([g.cells for g in body], hints.get("number"))
        top = next(t for t in run if t.id == seg[0].table_id)
        seg_caption = top.caption if seg[0].cells == top.rows[0] else ""
        for first, last in _blocks(body, number):
            block = body[first : last + 1]
            table = _candidate(run, block, names, hints, n, header_total, seg_caption if first == 0 else None)
            if table is not None:
                table.section = table_section(doc, table.table_ids[0])[1]
                out.append(table)
    return out


def _candidate(run: list[Table], block: list[GridRow], names: list[str], hints: dict[str, int], header_rows: int,
               header_total: float | None, seg_caption: str | None = None) -> ScoringTable | None:
    stat_rows = [g.cells for g in block if _distinct_filled(g.cells) >= 2 and not header_like(g.cells)
                 and not _total_row(g.cells)]
    cols = infer_columns(stat_rows, names, hints, header_rows, header_total, label_points=bool(_lent_points(block)))
    if cols is None:
        return None
    folded = fold_rows(block, cols)
    if not folded.rows:
        return None
    ids = list(dict.fromkeys(g.table_id for g in block))
    first = next(t for t in run if t.id == ids[0])
    if seg_caption:  # the block starts right under its segment's header: the caption is the segment's
        caption = seg_caption
    else:
        caption = first.caption if first is run[0] or block[0].cells == first.rows[0] else ""
    label, caption_total = caption_label(caption)
    whole = [x for x in folded.labels if _WHOLE_TABLE.search(compact(x))
             or (len(folded.subtotals) == 1 and stated_points(x) is not None)]
    label_total = next((v for v in (stated_points(x) for x in whole) if v is not None), None)
    if whole:
        label = label or whole[-1]
    tail = re.split(r"[。；;：:]", caption.strip())[-1].strip() if caption else ""
    if not label and tail and len(compact(tail)) <= 30 and re.search(r"评分|评审|打分|评标", tail):
        label = tail
    return ScoringTable(
        weighted=_weighted(block, cols),
        table_ids=ids,
        pages=sorted({g.page for g in block}),
        caption=caption,
        label=label,
        stated_total=next((v for v in (caption_total, label_total, cols.stated_total, folded.total) if v is not None),
                          None),
        header=names,
        rows=folded.rows,
        notes=folded.notes,
        subtotals=folded.subtotals,
    )

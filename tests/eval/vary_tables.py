"""The labelled DOCX tenders with their scoring tables written another common way, same labels.

``python tests/eval/vary_tables.py SRC DST --kind KIND`` writes a copy of every labelled DOCX tender
of ``SRC`` into ``DST`` (with ``labels.json`` and ``README.md``) in which each scoring-like table
(a header row naming a factor column and a points column) and the headerless tables continuing it
are changed in one way publishers differ; ``python tests/eval/score_tables.py DST`` then reads them.
The labels stay right because no name, point or row changes:

- ``headers``: the header words another publisher would use (评审因素 for 评分项目, 分数 for 分值,
  评分细则 for 评分标准 …);
- ``swap``: the points column and the criteria column change places;
- ``units``: points cells that print a bare number print it with 分 ("10" → "10分"), and those with
  分 print the bare number;
- ``fullwidth``: the digits of the points column in full-width forms ("１０"), as some
  word-processor templates type them;
- ``no-number``: the 序号 column taken out (a merged cell across it loses that column);
- ``cn-numbers``: the 序号 column counts in Chinese numerals ("1" → "一", "2、" → "二、");
- ``points-in-name``: the points written after the factor's name ("服务方案（10分）") and the points
  column taken out, in tables whose factors are short names not merged over sub-rows and whose points
  are plain numbers;
- ``split``: each scoring table cut in two Word tables at its middle row, a paragraph between (what a
  PDF-to-Word conversion makes of a page break; merged cells carry on empty in the second piece);
- ``split-header``: the same with the header row repeated at the top of the second piece;
- ``scale``: the labelled PDF tenders (not the DOCX) with every page drawn ``--factor`` times its size
  (0.86: an A4 document printed to B5; 1.06: to Letter's width), the same text and rules at other
  coordinates, so no tolerance in points holds by luck of one page size.

A table whose merged cells straddle the two columns of ``swap``, or that has both a 分值 and a 权重
column (which one holds the row points is the table's own business), is left as it is (and counted).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import docx
from docx.oxml.ns import qn

_FACTOR = re.compile(r"^(?:评分|评审|评价|考核|评标)?(?:因素|项目|内容|指标|分项名称|评分项|评审项)(?:及权重|及标准)?$")
_POINTS = re.compile(r"^(?:标准|满分|最高)?(?:分值|分数|满分值|分值区间|满分分值)(?:[（(]分[)）])?$")
_CRITERIA = re.compile(r"^(?:评分|评审|评价)(?:标准|办法|细则|要求|内容及规则)$")

#: Replacement header words, each different from the common ones it stands for.
_RENAME = {
    "factor": ["评审因素", "评分项目", "评分内容"],
    "points": ["分数", "分值（分）", "最高分值"],
    "criteria": ["评分细则", "评审标准", "评分办法及标准"],
}
_FULLWIDTH = str.maketrans("0123456789.", "０１２３４５６７８９．")
_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*$")
_NUMBER_UNIT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*分\s*$")


def _text(tc: Any) -> str:
    return re.sub(r"\s+", "", "".join(t.text or "" for t in tc.iter(qn("w:t"))))


def _grid(tr: Any) -> list[tuple[int, int, Any]]:
    """(first grid column, span, tc) of a row's cells."""
    out, col = [], 0
    for tc in tr.findall(qn("w:tc")):
        span_el = tc.find(f"{qn('w:tcPr')}/{qn('w:gridSpan')}")
        span = int(span_el.get(qn("w:val"))) if span_el is not None else 1
        out.append((col, span, tc))
        col += span
    return out


def _width(tbl: Any) -> int:
    grid = tbl.find(qn("w:tblGrid"))
    return len(grid.findall(qn("w:gridCol"))) if grid is not None else 0


@dataclass
class Layout:
    """The grid columns of one scoring table's factor, points and criteria cells."""

    columns: dict[str, int] = field(default_factory=dict)
    header_rows: int = 0
    weights: bool = False


def _layout(tbl: Any) -> Layout | None:
    for i, tr in enumerate(tbl.findall(qn("w:tr"))[:40]):  # a form table may hold its scoring block low down
        cols: dict[str, int] = {}
        for col, span, tc in _grid(tr):
            if span != 1:
                continue
            t = _text(tc)
            if "number" not in cols and t in ("序号", "编号", "条款号"):
                cols["number"] = col
            for kind, rx in (("factor", _FACTOR), ("points", _POINTS), ("criteria", _CRITERIA)):
                if kind not in cols and rx.match(t):
                    cols[kind] = col
        if "factor" in cols and "points" in cols:
            return Layout(cols, i + 1, any("权重" in _text(tc) for _, _, tc in _grid(tr)))
    return None


def _set_text(tc: Any, text: str) -> None:
    """Put ``text`` in the cell's first run (keeping its format) and empty the others."""
    runs = list(tc.iter(qn("w:t")))
    if not runs:
        return
    runs[0].text = text
    for t in runs[1:]:
        t.text = ""


def _cell_at(tr: Any, col: int) -> Any | None:
    for first, span, tc in _grid(tr):
        if first == col and span == 1:
            return tc
    return None


def _straddles(tr: Any, a: int, b: int) -> bool:
    """A merged cell covering one of the two columns and more: swapping would tear it."""
    return any(span > 1 and (first <= a < first + span or first <= b < first + span) and
               not (first <= a < first + span and first <= b < first + span) for first, span, _ in _grid(tr))


_SEQ = re.compile(r"^(\d{1,2})([、.．]?)$")
_CN = "零一二三四五六七八九十"
_POINTS_TEXT = re.compile(r"^(\d+(?:\.\d+)?)分?$")


def _merged_below(tr: Any, col: int) -> bool:
    """The cell at ``col`` starts or continues a vertical merge."""
    for first, _span, tc in _grid(tr):
        if first == col:
            return tc.find(f"{qn('w:tcPr')}/{qn('w:vMerge')}") is not None
    return False


def _drop_column(tbl: Any, col: int) -> None:
    """Take grid column ``col`` out of every row (a cell spanning it loses one column)."""
    for tr in tbl.findall(qn("w:tr")):
        for first, span, tc in _grid(tr):
            if first <= col < first + span:
                if span == 1:
                    tr.remove(tc)
                else:
                    tc.find(f"{qn('w:tcPr')}/{qn('w:gridSpan')}").set(qn("w:val"), str(span - 1))
                break
    grid = tbl.find(qn("w:tblGrid"))
    if grid is not None and col < len(grid.findall(qn("w:gridCol"))):
        grid.remove(grid.findall(qn("w:gridCol"))[col])


def _vary_table(tbl: Any, layout: Layout, kind: str, header: bool, turn: int, counts: dict[str, int]) -> None:
    rows = tbl.findall(qn("w:tr"))
    body = rows[layout.header_rows:] if header else rows
    if kind == "headers" and header:
        tr = rows[layout.header_rows - 1]
        for role, col in layout.columns.items():
            tc = _cell_at(tr, col)
            if tc is not None:
                words = [w for w in _RENAME[role] if w != _text(tc)]
                _set_text(tc, words[turn % len(words)])
                counts["renamed"] += 1
    elif kind == "swap" and "criteria" in layout.columns:
        a, b = layout.columns["points"], layout.columns["criteria"]
        if any(_straddles(tr, a, b) for tr in rows) or layout.weights:
            counts["left"] += 1
            return
        grid = tbl.find(qn("w:tblGrid"))
        cols = grid.findall(qn("w:gridCol")) if grid is not None else []
        if max(a, b) < len(cols):  # the columns' widths change places with them
            wa, wb = cols[a].get(qn("w:w")), cols[b].get(qn("w:w"))
            if wa is not None and wb is not None:
                cols[a].set(qn("w:w"), wb)
                cols[b].set(qn("w:w"), wa)
        for tr in rows:
            ta, tb = _cell_at(tr, a), _cell_at(tr, b)
            if ta is None or tb is None:
                continue
            marker = copy.deepcopy(ta)
            tr.replace(ta, marker)
            tr.replace(tb, ta)
            tr.replace(marker, tb)
            counts["rows swapped"] += 1
    elif kind == "no-number" and "number" in layout.columns:
        _drop_column(tbl, layout.columns["number"])
        counts["cells"] += 1
    elif kind == "cn-numbers" and "number" in layout.columns:
        for tr in body:
            tc = _cell_at(tr, layout.columns["number"])
            if tc is not None and (m := _SEQ.match(_text(tc))) and 0 < int(m.group(1)) < len(_CN):
                _set_text(tc, _CN[int(m.group(1))] + m.group(2))
                counts["cells"] += 1
    elif kind == "points-in-name":
        f, col = layout.columns["factor"], layout.columns["points"]
        cells = [(_cell_at(tr, f), _cell_at(tr, col)) for tr in body]
        if any(_straddles(tr, f, col) or _merged_below(tr, f) for tr in body) or any(
                pts is not None and _text(pts) and not (name is not None and 0 < len(_text(name)) <= 30
                                                        and _POINTS_TEXT.match(_text(pts))) for name, pts in cells):
            counts["left"] += 1  # merged names, long names or points that are no plain number: left as they are
            return
        for tr in body:
            name, pts = _cell_at(tr, f), _cell_at(tr, col)
            if name is not None and pts is not None and _text(name) and (m := _POINTS_TEXT.match(_text(pts))):
                _set_text(name, f"{_text(name)}（{m.group(1)}分）")
                counts["cells"] += 1
        _drop_column(tbl, col)
    elif kind in ("units", "fullwidth"):
        col = layout.columns["points"]
        for tr in body:
            tc = _cell_at(tr, col)
            if tc is None:
                continue
            t = _text(tc)
            if kind == "units" and (m := _NUMBER.match(t)):
                _set_text(tc, f"{m.group(1)}分")
            elif kind == "units" and (m := _NUMBER_UNIT.match(t)):
                _set_text(tc, m.group(1))
            elif kind == "fullwidth" and re.search(r"\d", t):
                _set_text(tc, t.translate(_FULLWIDTH))
            else:
                continue
            counts["cells"] += 1


def _split(tbl: Any, layout: Layout, repeat_header: bool, counts: dict[str, int]) -> None:
    """Cut ``tbl`` in two Word tables at its middle body row (a paragraph between them)."""
    rows = tbl.findall(qn("w:tr"))
    body = rows[layout.header_rows:]
    if len(body) < 4:
        return
    second = copy.deepcopy(tbl)
    for tr in second.findall(qn("w:tr")):
        second.remove(tr)
    cut = len(body) // 2
    if repeat_header:
        for tr in rows[:layout.header_rows]:
            second.append(copy.deepcopy(tr))
    for tr in body[cut:]:
        tbl.remove(tr)
        second.append(tr)
    gap = tbl.makeelement(qn("w:p"), {})
    tbl.addnext(gap)
    gap.addnext(second)
    counts["tables split"] += 1


def vary(path: Path, out: Path, kind: str) -> dict[str, int]:
    """Write ``path`` varied by ``kind`` to ``out``; what was changed, counted."""
    d = docx.Document(str(path))
    counts: dict[str, int] = {"tables": 0, "renamed": 0, "rows swapped": 0, "cells": 0, "left": 0,
                              "tables split": 0}
    body = d.element.body
    current: Layout | None = None
    width = 0
    if kind.startswith("split"):
        for tbl in list(body.iter(qn("w:tbl"))):
            if (layout := _layout(tbl)) is not None:
                counts["tables"] += 1
                _split(tbl, layout, kind == "split-header", counts)
        d.save(str(out))
        return counts
    for turn, tbl in enumerate(body.iter(qn("w:tbl"))):
        layout = _layout(tbl)
        if layout is not None:
            current, width = layout, _width(tbl)
            counts["tables"] += 1
            _vary_table(tbl, layout, kind, True, turn, counts)
        elif current is not None and _width(tbl) == width:
            _vary_table(tbl, current, kind, False, turn, counts)
        else:
            current = None
    d.save(str(out))
    return counts


def scale_pdf(path: Path, out: Path, factor: float) -> None:
    """Every page of ``path`` drawn ``factor`` times its size into ``out`` (text and rules kept)."""
    import pymupdf

    src = pymupdf.open(str(path))
    dst = pymupdf.open()
    for page in src:
        new = dst.new_page(width=page.rect.width * factor, height=page.rect.height * factor)
        new.show_pdf_page(new.rect, src, page.number)
    dst.save(str(out), garbage=3, deflate=True)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("src", type=Path, help="folder with the labelled tenders and labels.json")
    ap.add_argument("dst", type=Path, help="folder to write the varied copies into")
    ap.add_argument("--kind", required=True,
                    choices=["headers", "swap", "units", "fullwidth", "no-number", "cn-numbers",
                             "points-in-name", "split", "split-header", "scale"])
    ap.add_argument("--factor", type=float, default=0.86, help="page size factor of --kind scale")
    args = ap.parse_args(argv)
    args.dst.mkdir(parents=True, exist_ok=True)
    if (args.src / "README.md").is_file():
        shutil.copyfile(args.src / "README.md", args.dst / "README.md")
    labels = json.loads((args.src / "labels.json").read_text(encoding="utf-8"))
    if args.kind.startswith("split"):  # the tables are numbered anew: a label's table numbers no longer hold
        labels = {name: {k: v for k, v in label.items() if k != "location"} for name, label in labels.items()}
    (args.dst / "labels.json").write_text(json.dumps(labels, ensure_ascii=False, indent=1), encoding="utf-8")
    if args.kind == "scale":
        for path in sorted(args.src.glob("*.pdf")):
            if path.name in labels:
                scale_pdf(path, args.dst / path.name, args.factor)
                print(f"{path.name}: scaled {args.factor:g}")
        return 0
    for path in sorted(args.src.glob("*.docx")):
        counts = vary(path, args.dst / path.name, args.kind)
        print(f"{path.name}: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v))
    return 0


if __name__ == "__main__":
    sys.exit(main())

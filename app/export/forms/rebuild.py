"""A form read from a PDF written again as Word paragraphs and ruled tables, its blanks filled.

The text keeps the tender's words and order; each blank becomes its value, underlined, or stays
visibly empty (its underscores, or underlined spaces where the PDF drew a line). A centred line
stays centred. A table is written with every border drawn and its merged cells merged again
(``None`` in the grid continues the cell on its left, else the one above).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from app.core.bid_forms import FilledBlank, FormBlank, FormParagraph, FormTable

#: What an empty blank with nothing printed shows (after 地址：): underlined spaces.
EMPTY_BLANK = "\u3000" * 6


def write_paragraph(doc: Any, item: FormParagraph, blanks: Sequence[tuple[FormBlank, FilledBlank]]) -> Any:
    """One paragraph: the tender's text with each blank's value (or its placeholder) underlined."""
    p = doc.add_paragraph()
    if item.align == "center":
        p.alignment = WD_ALIGN_PARAGRAPH.CENTER
    elif item.align == "right":
        p.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    text = item.text
    pos = 0
    for b, v in sorted(blanks, key=lambda bv: bv[0].start):
        if b.start < pos:
            continue
        if b.start > pos:
            run = p.add_run(text[pos:b.start])
            run.bold = item.bold or None
        shown = v.value or (text[b.start:b.end] if text[b.start:b.end].strip(" \u3000") else "") or EMPTY_BLANK
        if not v.value and b.field == "signature":
            shown = text[b.start:b.end] or EMPTY_BLANK
        run = p.add_run(shown)
        run.underline = True
        pos = b.end
    if pos < len(text):
        run = p.add_run(text[pos:])
        run.bold = item.bold or None
    return p


def _borders(table: Any) -> None:
    """Every border of the table drawn (single lines), whatever styles the document has."""
    tbl_pr = table._tbl.tblPr
    borders = OxmlElement("w:tblBorders")
    for edge in ("top", "left", "bottom", "right", "insideH", "insideV"):
        el = OxmlElement(f"w:{edge}")
        el.set(qn("w:val"), "single")
        el.set(qn("w:sz"), "4")
        el.set(qn("w:space"), "0")
        el.set(qn("w:color"), "000000")
        borders.append(el)
    tbl_pr.append(borders)


def write_table(doc: Any, item: FormTable, blanks: Sequence[tuple[FormBlank, FilledBlank]]) -> Any:
    """The table with its merged cells, cell text as read and the cell blanks filled."""
    rows = item.rows
    width = max((len(r) for r in rows), default=0)
    if not rows or width == 0:
        return None
    table = doc.add_table(rows=len(rows), cols=width)
    _borders(table)
    origin: dict[tuple[int, int], tuple[int, int]] = {}
    for r, row in enumerate(rows):
        for c in range(width):
            cell = row[c] if c < len(row) else ""
            if cell is None:
                src = origin.get((r, c - 1)) if c > 0 else None
                if src is None or src[0] != r:
                    src = origin.get((r - 1, c)) if r > 0 else src
                if src is not None:
                    origin[(r, c)] = src
                    continue
            origin[(r, c)] = (r, c)
    for (r, c), (sr, sc) in origin.items():
        if (r, c) != (sr, sc):
            try:
                table.cell(sr, sc).merge(table.cell(r, c))
            except Exception:  # a grid that is not rectangular: keep the cells apart
                continue
    values = {(b.row, b.col): v for b, v in blanks}
    for r, row in enumerate(rows):
        for c in range(width):
            if origin.get((r, c)) != (r, c):
                continue
            text = (row[c] if c < len(row) else "") or ""
            cell = table.cell(r, c)
            p = cell.paragraphs[0]
            if text:
                p.add_run(text)
            v = values.get((r, c))
            if v is not None and v.value:
                run = p.add_run(v.value)
                run.underline = True
    return table

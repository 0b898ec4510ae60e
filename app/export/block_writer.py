"""Render parsed markdown blocks into a python-docx document: paragraphs, lists, tables.

Lists are real Word lists (``w:numPr`` pointing at numbering definitions created here, one
restartable instance per numbered list); tables are real Word tables with a repeated,
bold header row and column widths that add up to the page's text width.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from docx.enum.table import WD_CELL_VERTICAL_ALIGNMENT, WD_TABLE_ALIGNMENT
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Twips
from docx.text.paragraph import Paragraph
from lxml.etree import SubElement

from app.export.markdown_blocks import Block, ListBlock, ParagraphBlock, Runs, TableBlock
from app.export.styles import LIST_TEXT, SUBHEADING, TABLE_TEXT, insert_before_any

if TYPE_CHECKING:
    from docx.document import Document
    from docx.oxml.xmlchemy import BaseOxmlElement
    from docx.table import Table

    from app.export.presets import ExportPreset

_TWIPS_PER_CM = 1440 / 2.54
# Clark names for the hot paths (qn() per element is measurable on 1,000-node outlines).
_W_PPR, _W_PSTYLE, _W_VAL = qn("w:pPr"), qn("w:pStyle"), qn("w:val")
_W_R, _W_RPR, _W_T, _W_B, _W_BCS = qn("w:r"), qn("w:rPr"), qn("w:t"), qn("w:b"), qn("w:bCs")
_W_NUM_MAC_CLEANUP = qn("w:numIdMacAtCleanup")
_XML_SPACE = qn("xml:space")
_TCPR_AFTER_SHD = ("w:noWrap", "w:tcMar", "w:textDirection", "w:tcFitText", "w:vAlign", "w:hideMark")
_MIN_COLUMN_TWIPS = 900  # about 1.6 cm: room for two CJK characters plus cell margins
#: One list level: numFmt, lvlText, left indent, hanging (negative: first-line indent) in twips,
#: what follows the number ("tab" or "nothing") and the bullet font (None: the paragraph's).
_Level = tuple[str, str, int, int, str, str | None]
#: Bullets hang: the mark sits at two characters, wrapped lines align with the text.
_BULLET_LEVELS: tuple[_Level, ...] = (
    ("bullet", "\uf0b7", 900, 420, "tab", "Symbol"),
    ("bullet", "–", 1380, 420, "tab", "Times New Roman"),
)
#: Numbered items read like Chinese body paragraphs: "（1）" indented two characters,
#: text straight after it, wrapped lines back at the margin.
_ORDERED_LEVELS: tuple[_Level, ...] = (
    ("decimal", "（%1）", 0, -480, "nothing", None),
    ("decimal", "%2）", 480, -480, "nothing", None),
)


def _visual_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class ListNumbering:
    """Numbering definitions for bullet and numbered lists in one document."""

    def __init__(self, doc: Document) -> None:
        self._numbering = doc.part.numbering_part.element
        self._bullet_abstract: int | None = None
        self._ordered_abstract: int | None = None
        self._bullet_num: int | None = None
        self._next_num_id: int | None = None

    def _next_abstract_id(self) -> int:
        ids = [int(el.get(qn("w:abstractNumId"), "0")) for el in self._numbering.findall(qn("w:abstractNum"))]
        return max(ids, default=-1) + 1

    def _add_abstract(self, levels: tuple[_Level, ...]) -> int:
        abstract_id = self._next_abstract_id()
        abstract = OxmlElement("w:abstractNum")
        abstract.set(qn("w:abstractNumId"), str(abstract_id))
        multi = OxmlElement("w:multiLevelType")
        multi.set(qn("w:val"), "hybridMultilevel")
        abstract.append(multi)
        for ilvl, (fmt, text, left, hanging, suffix, font) in enumerate(levels):
            lvl = OxmlElement("w:lvl")
            lvl.set(qn("w:ilvl"), str(ilvl))
            for tag, val in (
                ("w:start", "1"),
                ("w:numFmt", fmt),
                ("w:suff", suffix),
                ("w:lvlText", text),
                ("w:lvlJc", "left"),
            ):
                el = OxmlElement(tag)
                el.set(qn("w:val"), val)
                lvl.append(el)
            ppr = OxmlElement("w:pPr")
            ind = OxmlElement("w:ind")
            ind.set(qn("w:left"), str(left))
            if hanging >= 0:
                ind.set(qn("w:hanging"), str(hanging))
            else:
                ind.set(qn("w:firstLine"), str(-hanging))
            ppr.append(ind)
            lvl.append(ppr)
            if font:
                rpr = OxmlElement("w:rPr")
                rfonts = OxmlElement("w:rFonts")
                for attr in ("w:ascii", "w:hAnsi", "w:hint"):
                    rfonts.set(qn(attr), font if attr != "w:hint" else "default")
                rpr.append(rfonts)
                lvl.append(rpr)
            abstract.append(lvl)
        existing = self._numbering.findall(qn("w:abstractNum"))
        if existing:
            existing[-1].addnext(abstract)
        else:
            self._numbering.insert(0, abstract)
        return abstract_id

    def _add_num(self, abstract_id: int, restart: bool) -> int:
        # python-docx's add_num() rescans every w:num per call (quadratic); count here instead.
        if self._next_num_id is None:
            ids = [int(el.get(qn("w:numId"), "0")) for el in self._numbering.findall(qn("w:num"))]
            self._next_num_id = max(ids, default=0) + 1
        num_id = self._next_num_id
        self._next_num_id += 1
        num = OxmlElement("w:num")
        num.set(qn("w:numId"), str(num_id))
        ref = OxmlElement("w:abstractNumId")
        ref.set(qn("w:val"), str(abstract_id))
        num.append(ref)
        if restart:
            override = OxmlElement("w:lvlOverride")
            override.set(qn("w:ilvl"), "0")
            start = OxmlElement("w:startOverride")
            start.set(qn("w:val"), "1")
            override.append(start)
            num.append(override)
        if self._numbering.find(_W_NUM_MAC_CLEANUP) is None:
            self._numbering.append(num)
        else:
            insert_before_any(self._numbering, num, ("w:numIdMacAtCleanup",))
        return num_id

    def bullet_num_id(self) -> int:
        """The shared numbering instance for bullet lists."""
        if self._bullet_abstract is None:
            self._bullet_abstract = self._add_abstract(_BULLET_LEVELS)
        if self._bullet_num is None:
            self._bullet_num = self._add_num(self._bullet_abstract, restart=False)
        return self._bullet_num

    def new_ordered_num_id(self) -> int:
        """A fresh numbering instance, so this numbered list starts again at 1."""
        if self._ordered_abstract is None:
            self._ordered_abstract = self._add_abstract(_ORDERED_LEVELS)
        return self._add_num(self._ordered_abstract, restart=True)


class BodyAppender:
    """Appends paragraphs to the document body in O(1) each.

    python-docx's ``add_paragraph(style=...)`` scans every style (to find the default) and
    every body child (to find ``w:sectPr``) per call, which is quadratic on long documents.
    """

    def __init__(self, doc: Document) -> None:
        self._doc = doc
        body = doc.element.body
        self._anchor = body.find(qn("w:sectPr"))
        self._body = body

    def paragraph(self, style_id: str | None = None, text: str = "") -> Paragraph:
        """A new paragraph at the end of the body with style ``style_id`` and optional text."""
        p = OxmlElement("w:p")
        if style_id:
            SubElement(SubElement(p, _W_PPR), _W_PSTYLE).set(_W_VAL, style_id)
        if text:
            t = SubElement(SubElement(p, _W_R), _W_T)
            t.set(_XML_SPACE, "preserve")
            t.text = text
        if self._anchor is not None:
            self._anchor.addprevious(p)
        else:
            self._body.append(p)
        return Paragraph(p, self._doc._body)


def set_style_id(p: BaseOxmlElement, style_id: str) -> None:
    """Point a ``w:p`` at a paragraph style by id, without python-docx's style lookup."""
    ppr = p.find(_W_PPR)
    if ppr is None:
        ppr = OxmlElement("w:pPr")
        p.insert(0, ppr)
    pstyle = ppr.find(_W_PSTYLE)
    if pstyle is None:
        pstyle = OxmlElement("w:pStyle")
        ppr.insert(0, pstyle)
    pstyle.set(_W_VAL, style_id)


def _set_num_pr(paragraph: Paragraph, num_id: int, level: int) -> None:
    ppr = paragraph._p.get_or_add_pPr()
    num_pr = ppr.get_or_add_numPr()
    num_pr.get_or_add_ilvl().val = level
    num_pr.get_or_add_numId().val = num_id


def add_runs(paragraph: Paragraph, runs: Runs, bold_all: bool = False) -> None:
    """Append inline runs; a run is bold if marked ``**`` or when ``bold_all``."""
    p = paragraph._p
    for inline in runs:
        run = SubElement(p, _W_R)
        if inline.bold or bold_all:
            rpr = SubElement(run, _W_RPR)
            SubElement(rpr, _W_B)
            SubElement(rpr, _W_BCS)
        t = SubElement(run, _W_T)
        t.set(_XML_SPACE, "preserve")
        t.text = inline.text


class BlockWriter:
    """Writes blocks at the end of a document with the preset's styles."""

    def __init__(self, doc: Document, preset: ExportPreset) -> None:
        self._doc = doc
        self._preset = preset
        self._lists = ListNumbering(doc)
        self.body = BodyAppender(doc)
        styles = doc.styles
        self._normal = styles["Normal"].style_id
        self._list_style = styles[LIST_TEXT].style_id
        self._sub_style = styles[SUBHEADING].style_id
        self._table_text = styles[TABLE_TEXT].style_id
        self._grid_style = styles["Table Grid"].style_id
        self._text_width = round(preset.page.text_width_cm * _TWIPS_PER_CM)

    def write(self, blocks: list[Block]) -> None:
        """Render every block in order."""
        for block in blocks:
            if isinstance(block, ParagraphBlock):
                style = self._sub_style if block.subheading else self._normal
                add_runs(self.body.paragraph(style), block.runs)
            elif isinstance(block, ListBlock):
                self._write_list(block)
            else:
                self._write_table(block)

    def _write_list(self, block: ListBlock) -> None:
        num_id = self._lists.new_ordered_num_id() if block.ordered else self._lists.bullet_num_id()
        for item in block.items:
            paragraph = self.body.paragraph(self._list_style)
            _set_num_pr(paragraph, num_id, item.level)
            add_runs(paragraph, item.runs)

    def column_widths(self, block: TableBlock) -> list[int]:
        """Column widths in twips, proportional to content, each at least ~1.6 cm, summing to the text width."""
        cols = block.column_count
        weights = [4] * cols
        for row in block.rows:
            for c, cell in enumerate(row):
                text = "".join(r.text for r in cell)
                weights[c] = max(weights[c], min(_visual_width(text), 40))
        total = sum(weights)
        widths = [max(_MIN_COLUMN_TWIPS, self._text_width * w // total) for w in weights]
        excess = sum(widths) - self._text_width
        while excess > 0:
            widest = max(range(cols), key=lambda i: widths[i])
            take = min(excess, widths[widest] - _MIN_COLUMN_TWIPS)
            if take <= 0:
                break
            widths[widest] -= take
            excess -= take
        widths[-1] += self._text_width - sum(widths)
        return widths

    def _write_table(self, block: TableBlock) -> None:
        cols = block.column_count
        if cols == 0:
            return
        table = self._doc.add_table(rows=len(block.rows), cols=cols)
        style = table._tbl.tblPr.get_or_add_tblStyle()
        style.val = self._grid_style
        table.alignment = WD_TABLE_ALIGNMENT.CENTER
        table.autofit = False
        widths = self.column_widths(block)
        fix_table_geometry(table, widths)
        centred = _short_columns(block)
        for r, row in enumerate(block.rows):
            is_header = block.header and r == 0
            cells = table.rows[r].cells
            for c in range(cols):
                cell = cells[c]
                cell.width = Twips(widths[c])
                cell.vertical_alignment = WD_CELL_VERTICAL_ALIGNMENT.CENTER
                paragraph = cell.paragraphs[0]
                set_style_id(paragraph._p, self._table_text)
                if is_header or c in centred:
                    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
                if is_header:
                    if self._preset.table_header_fill:
                        shade_cell(cell._tc, self._preset.table_header_fill)
                if c < len(row):
                    add_runs(paragraph, row[c], bold_all=is_header)
            if is_header:
                repeat_header_row(table.rows[r]._tr)
        # A small gap after the table so the next paragraph does not touch the border.
        self.body.paragraph(self._normal)


def _short_columns(block: TableBlock) -> set[int]:
    """Columns whose body cells are all short (序号, 数量, 工期): centred, as offices lay them out."""
    body = block.rows[1:] if block.header else block.rows
    if not body:
        return set()
    short = set()
    for c in range(block.column_count):
        texts = ["".join(r.text for r in row[c]) if c < len(row) else "" for row in body]
        if all(_visual_width(t) <= 8 for t in texts):
            short.add(c)
    return short


def fix_table_geometry(table: Table, widths: list[int]) -> None:
    """Fixed layout: the table and grid widths in twips, compact cell margins."""
    tbl = table._tbl
    tbl_pr = tbl.tblPr
    width = tbl_pr.find(qn("w:tblW"))
    if width is None:
        width = OxmlElement("w:tblW")
        tbl_pr.append(width)
    width.set(qn("w:w"), str(sum(widths)))
    width.set(qn("w:type"), "dxa")
    margins = OxmlElement("w:tblCellMar")
    for side, value in (("top", 45), ("left", 100), ("bottom", 45), ("right", 100)):
        el = OxmlElement(f"w:{side}")
        el.set(qn("w:w"), str(value))
        el.set(qn("w:type"), "dxa")
        margins.append(el)
    insert_before_any(tbl_pr, margins, ("w:tblLook", "w:tblCaption", "w:tblDescription", "w:tblPrChange"))
    for grid_col, w in zip(tbl.tblGrid.findall(qn("w:gridCol")), widths, strict=False):
        grid_col.set(qn("w:w"), str(w))


def shade_cell(tc: BaseOxmlElement, fill: str) -> None:
    """Fill a cell with the colour ``fill`` (hex RGB)."""
    tc_pr = tc.get_or_add_tcPr()
    shd = OxmlElement("w:shd")
    shd.set(qn("w:val"), "clear")
    shd.set(qn("w:color"), "auto")
    shd.set(qn("w:fill"), fill)
    insert_before_any(tc_pr, shd, _TCPR_AFTER_SHD)


def repeat_header_row(tr: BaseOxmlElement) -> None:
    """Repeat this row at the top of every page the table runs onto."""
    tr_pr = tr.get_or_add_trPr()
    header = OxmlElement("w:tblHeader")
    header.set(qn("w:val"), "true")
    insert_before_any(
        tr_pr, header, ("w:tblCellSpacing", "w:jc", "w:hidden", "w:ins", "w:del", "w:trPrChange")
    )

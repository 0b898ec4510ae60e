"""Any read tender (PDF, text, OCR) as a flow of paragraphs and tables, lines joined back together.

The reader's blocks give the text a page at a time. :func:`document_flow` joins a line that
reaches the text's right edge with the next one (unless that one starts a numbered item), keeps
a short centred line alone (a title), leaves page numbers out and puts each table where it
stands. ``closer`` holds pages read again line by line (:mod:`.pdf_lines`): their lines keep the
gaps and drawn rules that are a PDF form's blanks, and their ruled tables are used.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.documents.forms.flow import FlowItem, FlowParagraph, FlowTable, docx_flow
from app.documents.model import TenderDocument

if TYPE_CHECKING:
    from app.documents.forms.pdf_lines import ChapterPages

_SPACES = re.compile(r"[\s\u3000]+")
_PAGE_NUMBER = re.compile(r"^\s*(?:[-—－]\s*)?(?:第\s*)?\d{1,4}\s*(?:页)?(?:\s*[/共]\s*\d{1,4}\s*页?)?(?:\s*[-—－])?\s*$")
#: One line to place: text, right edge, source, centred, underlined spans.
Line = tuple[str, float, int, bool, list[tuple[int, int]]]


def _inside(b: tuple[float, float, float, float], t: tuple[float, float, float, float]) -> bool:
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    return t[0] - 2 <= cx <= t[2] + 2 and t[1] - 2 <= cy <= t[3] + 2


def document_flow(doc: TenderDocument, closer: ChapterPages | None = None) -> list[FlowItem]:
    """The flow of a read tender: lines joined into paragraphs, tables in place (see the module)."""
    items: list[FlowItem] = []
    source = -1
    tables_by_page: dict[int, list[Any]] = {}
    for t in doc.tables:
        if t.bbox is not None:
            tables_by_page.setdefault(t.page, []).append(t)
    right = _text_right_edge(doc)
    left = _text_left_edge(doc)
    headers = _running_headers(doc, closer)
    for page in doc.pages:
        if not page.readable:
            continue
        if closer is not None and page.number in closer.lines:
            source = _closer_page(items, closer, page.number, source, left, right, headers)
            continue
        lines: list[Line] = []
        placed: set[str] = set()
        for block in page.blocks:
            source += 1
            table = next((t for t in tables_by_page.get(page.number, [])
                          if block.bbox is not None and t.bbox is not None and _inside(block.bbox, t.bbox)), None)
            if block.kind == "table" or table is not None:
                found = table if table is not None else next((x for x in doc.tables if x.id == block.table_id), None)
                if found is not None and found.id not in placed:
                    placed.add(found.id)
                    _flush(items, lines, page.number, right)
                    items.append(FlowTable(len(items), [list(r) for r in found.rows], page.number, source))
                continue
            edge = block.bbox[2] if block.bbox is not None else 0.0
            parts = [p for p in block.text.split("\n") if p.strip()]
            for k, part in enumerate(parts):
                if _PAGE_NUMBER.match(part) or _SPACES.sub("", part) in headers:
                    continue
                last = k == len(parts) - 1
                centred = (len(parts) == 1 and block.bbox is not None and right > left
                           and abs((block.bbox[0] + block.bbox[2]) / 2 - (left + right) / 2) < 18
                           and block.bbox[2] - block.bbox[0] < (right - left) * 0.7)
                lines.append((part.strip(), edge if last else right, source, centred, []))
        _flush(items, lines, page.number, right)
    return items


def _running_headers(doc: TenderDocument, closer: ChapterPages | None) -> set[str]:
    """Lines printed at the top of many pages (the tender's or the template's title as a running header),
    compacted: left out of the flow, so they neither join the first line below nor pass for a title."""
    counts: Counter[str] = Counter()
    pages = 0
    for page in doc.pages:
        if not page.readable:
            continue
        pages += 1
        if closer is not None and page.number in closer.lines:
            lines = sorted(closer.lines[page.number], key=lambda ln: ln.bbox[1])
            firsts = [ln.text for ln in lines[:2]]
        else:
            firsts = [part for b in page.blocks[:2] for part in b.text.split("\n") if part.strip()][:2]
        counts.update({_SPACES.sub("", t) for t in firsts})
    return {t for t, n in counts.items() if n >= 3 and n * 5 >= pages and 4 <= len(t) <= 60 and not _PAGE_NUMBER.match(t)}


def _text_left_edge(doc: TenderDocument) -> float:
    """Where the body text's lines start: the median over pages of the leftmost long line (0 without boxes)."""
    edges = sorted(min(b.bbox[0] for b in p.blocks if b.bbox is not None and len(b.text) >= 12)
                   for p in doc.pages if any(b.bbox is not None and len(b.text) >= 12 for b in p.blocks))
    return edges[len(edges) // 2] if edges else 0.0


def _text_right_edge(doc: TenderDocument) -> float:
    """Where the body text's lines end: the median over pages of the rightmost long line (0 without boxes)."""
    edges = sorted(max(b.bbox[2] for b in p.blocks if b.bbox is not None and len(b.text) >= 12)
                   for p in doc.pages if any(b.bbox is not None and len(b.text) >= 12 for b in p.blocks))
    return edges[len(edges) // 2] if edges else 0.0


_STARTS_ITEM = re.compile(r"^\s*(?:[（(]?[一二三四五六七八九十\d]{1,3}[)）、.．:：]|[①-⑳]|第[一二三四五六七八九十\d]+|注[：:]|附[件：:]|格式)")


def _closer_page(items: list[FlowItem], closer: ChapterPages, number: int, source: int, left: float,
                 right: float, headers: set[str] | frozenset[str] = frozenset()) -> int:
    """A page read again: its lines and ruled tables in reading order; returns the last source number."""
    entries: list[tuple[float, Any]] = [(ln.bbox[1], ln) for ln in closer.lines.get(number, [])]
    entries += [(t.bbox[1] if t.bbox else 0.0, t) for t in closer.tables.get(number, [])]
    entries.sort(key=lambda e: e[0])
    lines: list[Line] = []
    for _y, entry in entries:
        source += 1
        if hasattr(entry, "rows"):
            _flush(items, lines, number, right)
            items.append(FlowTable(len(items), [list(r) for r in entry.rows], number, source))
            continue
        if _PAGE_NUMBER.match(entry.text) or not entry.text.strip() or _SPACES.sub("", entry.text) in headers:
            continue
        b = entry.bbox
        centred = (right > left and abs((b[0] + b[2]) / 2 - (left + right) / 2) < 18 and b[2] - b[0] < (right - left) * 0.7)
        lead = len(entry.text) - len(entry.text.lstrip())
        spans = [(a - lead, e - lead) for a, e in entry.underlined if e > lead]
        lines.append((entry.text[lead:], b[2], source, centred, spans))
    _flush(items, lines, number, right)
    return source


def _flush(items: list[FlowItem], lines: list[Line], page: int, right: float = 0.0) -> None:
    """Join the collected lines into paragraphs and append them (a centred line stays alone)."""
    current: list[str] = []
    spans: list[tuple[int, int]] = []
    first_source = -1
    for k, (text, edge, source, centred, under) in enumerate(lines):
        if not current:
            first_source = source
        offset = sum(len(c) for c in current)
        spans += [(offset + a, offset + b) for a, b in under if a >= 0]
        current.append(text)
        nxt = lines[k + 1][0] if k + 1 < len(lines) else ""
        wraps = (right > 0 and edge >= right - 14 and len(text.strip()) >= 12 and not (under and under[-1][1] >= len(text) - 1)
                 and not text.rstrip().endswith(("。", "！", "？", "；", "：", ":", "!", "?", "_", "＿")))
        if centred or not (wraps and nxt and not _STARTS_ITEM.match(nxt)):
            top = not items or items[-1].page != page
            items.append(FlowParagraph(len(items), "".join(current), page, first_source, list(spans),
                                       align="center" if centred and len(current) == 1 else "", page_top=top))
            current = []
            spans = []
    lines.clear()


def read_flow(path: Path, doc: TenderDocument | None = None) -> list[FlowItem]:
    """The flow of a tender file: a DOCX through its runs, anything else through its read document."""
    if path.suffix.lower() == ".docx" and (doc is None or doc.kind == "docx"):
        return docx_flow(path)
    if doc is None:
        from app.documents.loader import load_tender

        doc = load_tender(path)
    return document_flow(doc)

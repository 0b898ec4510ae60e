"""Write a value into a Word paragraph where a blank was, keeping the runs around it as they are.

A blank is a character span of the paragraph (:mod:`app.core.word_runs` numbers the characters
the same way the reader did). The runs are split at both ends of the span, the runs inside are
replaced by one new run holding the value — with the formatting of the first run it replaces
(or of the run before it) and underlined, so a filled blank still reads as one — and nothing
else of the paragraph moves. An empty span (after ``地址：``) gets the new run at that place.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from app.core.word_runs import W, char_length, segments

_CONTENT = frozenset(f"{W}{t}" for t in ("t", "tab", "br", "cr", "noBreakHyphen"))


def _split_run(run: Any, at: int) -> None:
    """Split ``run`` so its first ``at`` characters stay and the rest go to a copy placed after it."""
    tail = copy.deepcopy(run)
    pos = 0
    for keep_child, tail_child in zip(list(run), list(tail), strict=True):
        if keep_child.tag not in _CONTENT:
            continue  # rPr and the like stay in both halves
        n = char_length(keep_child)
        if pos + n <= at:
            tail.remove(tail_child)
        elif pos >= at:
            run.remove(keep_child)
        else:  # a w:t across the cut
            text = keep_child.text or ""
            keep_child.text = text[: at - pos]
            tail_child.text = text[at - pos:]
            for el in (keep_child, tail_child):
                el.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
        pos += n
    run.addnext(tail)


def split_at(p: Any, pos: int) -> None:
    """Make ``pos`` fall between two runs of paragraph ``p``."""
    for run, start, end in segments(p):
        if start < pos < end:
            _split_run(run, pos - start)
            return


def _value_run(template: Any | None, value: str, underline: bool) -> Any:
    """A new ``<w:r>`` with ``value``, the formatting of ``template`` and an underline."""
    from docx.oxml import OxmlElement

    run = OxmlElement("w:r")
    if template is not None:
        rpr = template.find(f"{W}rPr")
        if rpr is not None:
            rpr = copy.deepcopy(rpr)
            for old in rpr.findall(f"{W}u"):
                rpr.remove(old)
            run.append(rpr)
    if underline:
        rpr = run.find(f"{W}rPr")
        if rpr is None:
            rpr = OxmlElement("w:rPr")
            run.insert(0, rpr)
        u = OxmlElement("w:u")
        u.set(f"{W}val", "single")
        rpr.append(u)
    lines = value.split("\n")
    for k, line in enumerate(lines):
        if k:
            run.append(OxmlElement("w:br"))
        t = OxmlElement("w:t")
        t.text = line
        t.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
        run.append(t)
    return run


def replace_span(p: Any, start: int, end: int, value: str, *, underline: bool = True) -> None:
    """Put ``value`` in place of characters ``start..end`` of paragraph ``p`` (an empty span inserts)."""
    split_at(p, start)
    split_at(p, end)
    segs = segments(p)
    inside = [r for r, s, e in segs if s >= start and e <= end and e > s]
    before = [r for r, s, e in segs if e <= start and e > s]
    template = inside[0] if inside else (before[-1] if before else (segs[0][0] if segs else None))
    new = _value_run(template, value, underline)
    if inside:
        inside[0].addprevious(new)
        for r in inside:
            r.getparent().remove(r)
    elif before:
        before[-1].addnext(new)
    else:
        ppr = p.find(f"{W}pPr")
        if ppr is not None:
            ppr.addnext(new)
        else:
            p.insert(0, new)


def fill_paragraph(p: Any, spans: Iterable[tuple[int, int, str]]) -> int:
    """Write each ``(start, end, value)`` into paragraph ``p``, last first so offsets hold; returns how many."""
    n = 0
    for start, end, value in sorted(spans, key=lambda s: -s[0]):
        if value:
            replace_span(p, start, end, value)
            n += 1
    return n


def strip_breaks(element: Any) -> None:
    """Page and section breaks out of copied content (each form starts its own page in the volume)."""
    for br in list(element.iter(f"{W}br")):
        if br.get(f"{W}type") in ("page", "column"):
            br.getparent().remove(br)
    for tag in ("lastRenderedPageBreak", "sectPr", "pageBreakBefore"):
        for el in list(element.iter(f"{W}{tag}")):
            parent = el.getparent()
            if parent is not None:
                parent.remove(el)

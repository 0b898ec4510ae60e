"""How a Word paragraph's text lies in its runs — one walk shared by the reader and the writer.

The forms reader (``app.documents.forms.flow``) numbers a paragraph's characters by walking its
``<w:r>`` elements; the forms export (``app.export.forms``) finds a blank again by the same
numbers and writes the value into those runs. Both use these functions, so an offset means the
same character on both sides. They work on lxml elements without importing lxml.
"""

from __future__ import annotations

from typing import Any

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
#: Elements that hold other runs inside a paragraph (a hyperlink, a smart tag, a tracked insertion …).
RUN_CONTAINERS = frozenset(f"{W}{t}" for t in ("hyperlink", "smartTag", "ins", "fldSimple", "customXml"))


def run_text(run: Any) -> str:
    """The text a ``<w:r>`` shows: ``w:t`` text, tabs as ``\\t``, line breaks as ``\\n``."""
    out = []
    for child in run:
        tag = child.tag
        if tag == f"{W}t":
            out.append(child.text or "")
        elif tag == f"{W}tab":
            out.append("\t")
        elif tag in (f"{W}br", f"{W}cr"):
            if child.get(f"{W}type") not in ("page", "column"):
                out.append("\n")
        elif tag == f"{W}noBreakHyphen":
            out.append("-")
    return "".join(out)


def char_length(child: Any) -> int:
    """How many characters one child of a run counts for in :func:`run_text`."""
    tag = child.tag
    if tag == f"{W}t":
        return len(child.text or "")
    if tag == f"{W}tab" or tag == f"{W}noBreakHyphen":
        return 1
    if tag in (f"{W}br", f"{W}cr"):
        return 0 if child.get(f"{W}type") in ("page", "column") else 1
    return 0


def paragraph_runs(p: Any) -> list[Any]:
    """The ``<w:r>`` elements of a paragraph in order (inside hyperlinks, smart tags and insertions too)."""
    runs = []
    for child in p:
        tag = child.tag
        if tag == f"{W}r":
            runs.append(child)
        elif tag in RUN_CONTAINERS:
            runs.extend(paragraph_runs(child))
    return runs


def segments(p: Any) -> list[tuple[Any, int, int]]:
    """Each run of a paragraph with the character span it covers: ``(run, start, end)``."""
    out = []
    pos = 0
    for r in paragraph_runs(p):
        n = len(run_text(r))
        out.append((r, pos, pos + n))
        pos += n
    return out

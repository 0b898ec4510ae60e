"""Reference material for drafting: the user's past sections that best match a heading.

The heading (and its scoring item's name and criteria) is searched in the library; the top
few sections that have text are offered to the model, each labelled with its source, and
the sources are recorded on the draft (rule 16: what the user's material contributed is marked).
"""

from __future__ import annotations

import logging

from app.core.analysis import ScoringGroup
from app.library.facts import table_for_heading
from app.library.search import search_sections
from app.library.store import LibraryError, LibraryStore

log = logging.getLogger(__name__)
MAX_REFERENCES = 2
MAX_REFERENCE_CHARS = 600
MIN_SCORE = 0.35


def library_references(library: LibraryStore, title: str, group: ScoringGroup | None,
                       limit: int = MAX_REFERENCES) -> tuple[list[str], list[str]]:
    """``(texts, sources)`` of up to ``limit`` past sections for ``title``; empty when nothing fits."""
    context = f"{group.title} {group.description}" if group is not None else ""
    texts: list[str] = []
    sources: list[str] = []
    try:  # an office library whose server went away: the section is drafted without references
        table = table_for_heading(title, library)
        hits = search_sections(library, title, limit * 3, context=context)
    except LibraryError as exc:
        log.warning("library references skipped for %r: %s", title, exc.message_zh)
        return [], []
    if table is not None:  # the company's own staff / references: used as they are, never invented
        label, markdown = table
        texts.append(f"（企业资料：{label}。本节须原样使用下表，不要增删或改动其中的人名、证书、金额和日期）\n{markdown}")
        sources.append(f"企业资料：{label}")
    for hit in hits:
        body = hit.section.body.strip()
        if hit.score < MIN_SCORE or not body:
            continue
        clipped = body[:MAX_REFERENCE_CHARS] + ("…" if len(body) > MAX_REFERENCE_CHARS else "")
        texts.append(f"（{hit.source}）\n{clipped}")
        sources.append(hit.source)
        if len(texts) >= limit:
            break
    return texts, sources

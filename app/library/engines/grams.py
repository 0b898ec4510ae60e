"""The PostgreSQL engine's Chinese full-text index: character 3-grams built by the app, stored as ``tsvector``.

PostgreSQL's own parsers split words on spaces and its character classes follow the
database's locale (in the ``C`` locale a Chinese character is no letter at all), so neither
``to_tsvector`` nor the ``pg_trgm`` extension can be trusted with Chinese on every office
server. The app writes the lexemes itself instead: every character 3-gram of the normalised
title (weight A) and body with its tables (weight D), as a ``tsvector`` literal, whose input
function takes quoted lexemes verbatim in any locale. A query is the OR of its 3-grams as a
``tsquery`` literal; ``ts_rank`` weighs a title gram ten times a body gram (PostgreSQL's
default weights), close to the SQLite engine's bm25 with titles weighted 8:1. Body grams are
stored once without positions (a section's vector stays small: faster to store and to rank;
the app re-ranks the candidates itself). Needs no extension and no server setting.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.core.similarity import normalize_text

#: tsvector limits: positions above this are stored as this; a lexeme keeps at most 256 positions.
MAX_POSITION = 16383
_MAX_POSITIONS_PER_GRAM = 32


def _quote(gram: str) -> str:
    return "'" + gram.replace("\\", "\\\\").replace("'", "''") + "'"


def text_grams(text: str, n: int = 3) -> list[str]:
    """The character n-grams of the normalised text in order (the whole text when shorter than ``n``)."""
    norm = normalize_text(text)
    if len(norm) <= n:
        return [norm] if norm else []
    return [norm[i:i + n] for i in range(len(norm) - n + 1)]


def tsvector_literal(title: str, body: str) -> str:
    """The ``tsvector`` input text of a section: title grams with their positions at weight A, the body's other
    grams once each without positions (which ``ts_rank`` counts once at weight D): a small vector, quick to
    store and to rank, that matches every 3-gram of the section."""
    in_title: dict[str, list[str]] = {}
    for pos, gram in enumerate(text_grams(title), start=1):
        kept = in_title.setdefault(gram, [])
        if len(kept) < _MAX_POSITIONS_PER_GRAM:
            kept.append(f"{min(pos, MAX_POSITION)}A")
    norm = normalize_text(body)
    body_only = ({norm[i:i + 3] for i in range(len(norm) - 2)} if len(norm) > 3 else {norm} - {""}) - in_title.keys()
    head = " ".join(f"{_quote(g)}:{','.join(p)}" for g, p in in_title.items())
    if not body_only:
        return head
    if "'" in norm or "\\" in norm:  # never after normalize_text (word characters only); quoted one by one then
        return f"{head} " + " ".join(_quote(g) for g in body_only)
    return f"{head} '" + "' '".join(body_only) + "'"


def tsquery_any(grams: Iterable[str]) -> str:
    """A ``tsquery`` literal matching any of ``grams`` (3-grams of a normalised query)."""
    return " | ".join(_quote(g) for g in dict.fromkeys(grams) if g)


def tsquery_all(text: str) -> str:
    """A ``tsquery`` literal matching sections that hold every 3-gram of ``text`` (a prefilter for a substring)."""
    return " & ".join(_quote(g) for g in dict.fromkeys(text_grams(text)))


def query_grams(grams: Sequence[str]) -> list[str]:
    """The grams a query keeps for the index (3 characters; a shorter query is its whole text)."""
    long = [g for g in grams if len(g) >= 3]
    return long or [g for g in grams if g]

"""Finding past sections for a heading: full-text candidates, then a ranking that favours titles.

The query is a heading (and optionally a scoring item's name and criteria). Candidates come
from the engine's full-text index (any of the query's character 3-grams, titles weighted above
bodies: FTS5 trigram with bm25 in SQLite, n-gram ``tsvector`` with ``ts_rank`` in PostgreSQL);
without one a scan of titles and bodies does the same job.
They are re-ranked by how much of the query the title covers, then the body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.similarity import char_ngrams, normalize_text
from app.library.store import LibraryStore, StoredSection

CANDIDATES = 80
_RANK_BODY_CHARS = 600
_MAX_GRAMS = 48
_GENERIC = frozenset({"方案", "措施", "计划", "管理", "服务", "保障", "体系", "项目", "工作", "说明"})


@dataclass(frozen=True)
class SectionHit:
    """A past section that matches a query, with its score and where it came from."""

    section: StoredSection
    score: float

    @property
    def source(self) -> str:
        """Where the section came from, for the user (历史标书：bid name › heading path)."""
        where = f"{self.section.heading_path} > {self.section.title}" if self.section.heading_path else self.section.title
        return f"历史标书：{self.section.bid_name} › {where}"


def _grams(text: str) -> list[str]:
    """The query's character 3-grams in order (at most ``_MAX_GRAMS``), generic words' grams last."""
    norm = normalize_text(text)
    grams = list(dict.fromkeys(norm[i:i + 3] for i in range(max(0, len(norm) - 2))))
    if not grams and norm:
        grams = [norm]
    specific = [g for g in grams if not any(w in g for w in _GENERIC)]
    generic = [g for g in grams if g not in specific]
    return (specific + generic)[:_MAX_GRAMS]


def candidate_ids(store: LibraryStore, query: str, limit: int = CANDIDATES) -> list[int]:
    """Section ids that share text with ``query`` (the engine's full-text index, else a scan)."""
    grams = _grams(query)
    return store.candidate_ids(grams, limit) if grams else []


def search_sections(store: LibraryStore, query: str, limit: int = 10, *, context: str = "") -> list[SectionHit]:
    """The best past sections for a heading ``query`` (``context``: the scoring item's criteria), best first.

    Ranking reads only titles and the start of each candidate's body; whole sections are
    loaded for the ``limit`` kept.
    """
    ids = candidate_ids(store, f"{query} {context}".strip())
    if not ids:
        return []
    q = char_ngrams(query)
    wanted = q | (char_ngrams(context) if context else frozenset())
    rows = store.section_previews(ids, _RANK_BODY_CHARS)
    scored: list[tuple[float, int]] = []
    for sid, title, body, has_tables in rows:
        t = char_ngrams(str(title))
        title_cover = len(q & t) / len(q) if q else 0.0
        title_precision = len(q & t) / len(t) if t else 0.0
        flat = normalize_text(str(body))
        body_cover = sum(1 for g in wanted if g in flat) / len(wanted) if wanted else 0.0
        score = 0.55 * title_cover + 0.2 * title_precision + 0.25 * body_cover
        if not str(body).strip() and not has_tables:
            score *= 0.8  # a heading with nothing under it is less useful to reuse
        scored.append((round(score, 4), int(sid)))
    scored.sort(key=lambda x: (-x[0], x[1]))
    top = scored[:limit]
    by_id = {s.id: s for s in store.sections([sid for _, sid in top])}
    return [SectionHit(by_id[sid], score) for score, sid in top if sid in by_id]


def snippet(text: str, length: int = 80) -> str:
    """The first ``length`` characters of a body on one line."""
    one = re.sub(r"\s+", " ", text).strip()
    return one if len(one) <= length else one[:length] + "…"

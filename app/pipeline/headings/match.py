"""Pick heading-library entries for a scoring item: by its name first, its criteria and project second.

Evidence, strongest first: an alias of the entry inside the item's name (longer aliases are
more specific: "售后服务方案" beats "服务方案"), the entry's keywords in the name, then its
aliases, keywords and context words in the criteria, and the project's own words (a canteen
tender makes the canteen entry likelier for a bare "服务方案"). Generic entries (服务方案,
实施方案…) are discounted so that a specific one wins when there is one, and an entry whose
match in the name lies inside a stronger entry's match is discounted too. A compound name
("劳务派遣服务项目和突发应急预案") keeps both entries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.core.analysis import ScoringGroup
from app.pipeline.headings.domain import TenderProfile
from app.pipeline.headings.library import HeadingLibrary, LibraryEntry, LibraryVariant, default_library
from app.pipeline.headings.tender_kind import tender_kind

MIN_SCORE = 6.0
_TAIL_WORDS = re.compile(r"(?:的)?(?:情况|方案|能力|措施|计划|要求|评价|程度|水平|内容)+$")
_POINTS = re.compile(r"[（(]\s*\d+(?:\.\d+)?\s*[分%％]\s*[)）]")


@dataclass(frozen=True)
class EntryMatch:
    """A library entry chosen for an item, with its score and the part of the name it matched."""

    entry: LibraryEntry
    score: float
    span: tuple[int, int] | None  # where in the item's name the entry matched (None: criteria only)
    reasons: tuple[str, ...]


def _clean_name(name: str) -> str:
    return re.sub(r"\s+", "", _POINTS.sub("", name or ""))


def _best_span(name: str, words: tuple[str, ...]) -> tuple[int, int, str] | None:
    best: tuple[int, int, str] | None = None
    for w in words:
        i = name.find(w)
        if i >= 0 and (best is None or len(w) > best[1] - best[0]):
            best = (i, i + len(w), w)
    return best


def _span_of(name: str, word: str) -> tuple[int, int]:
    i = name.rfind(word)
    return (i, i + len(word))


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _score(entry: LibraryEntry, name: str, criteria: str, project: str) -> EntryMatch | None:
    score = 0.0
    reasons: list[str] = []
    span: tuple[int, int] | None = None
    hit = _best_span(name, (entry.name, *entry.aliases))
    if hit:
        score += 10 + 2 * len(_TAIL_WORDS.sub("", hit[2]) or hit[2])  # 方案/措施 add no specificity
        span = (hit[0], hit[1])
        reasons.append(f"名称含“{hit[2]}”")
    kws = [k for k in entry.keywords if k in name]
    if kws:
        outside = [k for k in kws if span is None or not _overlaps(_span_of(name, k), span)]  # no double count
        score += sum(3 + len(k) for k in sorted(outside, key=len, reverse=True)[:2])
        if span is None:
            k = max(kws, key=len)
            span = _span_of(name, k)
        reasons.append("名称关键词：" + "、".join(kws[:3]))
    if span is not None:  # a Chinese compound's head comes last ("配送车辆" is about vehicles)
        core = _TAIL_WORDS.sub("", name) or name
        score += 2 * min(span[1], len(core)) / max(1, len(core))
    in_criteria = [a for a in (entry.name, *entry.aliases) if a in criteria]
    score += 2 * min(3, len(in_criteria))
    kw_criteria = [k for k in entry.keywords if k in criteria]
    score += min(4, len(kw_criteria))
    ctx = [c for c in entry.context if c in criteria]
    score += 0.5 * min(4, len(ctx))
    if in_criteria or kw_criteria or ctx:
        reasons.append("评分标准提及：" + "、".join((in_criteria + kw_criteria + ctx)[:4]))
    proj = [w for w in (*entry.keywords, *entry.context) if w in project]
    score += 0.5 * min(3, len(proj))
    if entry.generic:
        score *= 0.6
    if score <= 0:
        return None
    return EntryMatch(entry=entry, score=round(score, 2), span=span, reasons=tuple(reasons))


def match_item(name: str, criteria: str = "", project: str = "", *, library: HeadingLibrary | None = None,
               limit: int = 3, min_score: float = MIN_SCORE, profile: TenderProfile | None = None) -> list[EntryMatch]:
    """Library entries for a scoring item, best first (only those scoring at least ``min_score``).

    A library structure is used only for the tender it was written for: ``profile`` (the tender's kind and
    domains, :func:`~app.pipeline.headings.domain.tender_profile`; without it, the kind read from ``project``).
    """
    lib = library or default_library()
    clean = _clean_name(name)
    crit = re.sub(r"\s+", "", criteria or "")
    prof = profile or TenderProfile(tender_kind(project))
    found = [m for m in (_score(e, clean, crit, project) for e in lib if prof.fits_entry(e)) if m is not None]
    # A structure written for some trades, for a tender whose trade its words do not say: only when the item names it
    # (its name or keywords in the item's name, its name in the criteria).
    found = [m for m in found if prof.fits(m.entry.kinds, m.entry.domains, strict=True)
             or any(r.startswith(("名称含", "名称关键词")) for r in m.reasons)
             or any(a in crit for a in (m.entry.name, *m.entry.aliases))]
    found.sort(key=lambda m: -m.score)
    out: list[EntryMatch] = []
    for m in found:
        inside = any(o.span and m.span and o.span[0] <= m.span[0] and m.span[1] <= o.span[1]
                     and (o.span[1] - o.span[0]) > (m.span[1] - m.span[0]) for o in found if o is not m)
        out.append(EntryMatch(m.entry, round(m.score * 0.3, 2), m.span, (*m.reasons, "被更具体的条目覆盖"))
                   if inside else m)
    out.sort(key=lambda m: -m.score)
    return [m for m in out if m.score >= min_score][:limit]


def match_group(group: ScoringGroup, project: str = "", *, library: HeadingLibrary | None = None,
                limit: int = 3, profile: TenderProfile | None = None) -> list[EntryMatch]:
    """Library entries for a scoring group (name, criteria and detail points)."""
    criteria = "\n".join([group.description, *group.detail_points])
    return match_item(group.title, criteria, project, library=library, limit=limit, profile=profile)


def distinct_parts(matches: list[EntryMatch]) -> list[EntryMatch]:
    """The matches that answer different parts of the name (a compound item gets one per part).

    The best match always stays; another one stays when its span does not overlap any kept
    span and its score is at least half the best.
    """
    if not matches:
        return []
    kept = [matches[0]]
    for m in matches[1:]:
        if m.span is None or m.score < matches[0].score / 2:
            continue
        if all(k.span is None or m.span[1] <= k.span[0] or m.span[0] >= k.span[1] for k in kept):
            kept.append(m)
    return kept


def _grams(text: str) -> set[str]:
    t = re.sub(r"[^\u4e00-\u9fff]", "", text)
    return {t[i:i + 2] for i in range(len(t) - 1)}


def rank_variants(entry: LibraryEntry, text: str, context: str = "",
                  profile: TenderProfile | None = None) -> list[LibraryVariant]:
    """The entry's variants, the one sharing most wording with ``text`` first (file order on ties).

    A variant that ``requires`` words none of which ``text`` or ``context`` (the item's name, the
    project) has comes after those that fit: the training of a system's users does not structure the
    training of a service contract's own staff. A variant written for another kind or domain of
    tender than ``profile``'s is left out (a data service's 安全性 never gets a building site's safety).
    """
    grams = _grams(text)
    flat = re.sub(r"\s+", "", text + context)

    def misfit(v: LibraryVariant) -> bool:
        return bool(v.requires) and not any(w in flat for w in v.requires)

    def overlap(v: LibraryVariant) -> int:
        own: set[str] = set()
        for s in v.sections:
            own |= _grams(s.title)
            for c in s.children:
                own |= _grams(c)
        return len(own & grams)

    def own_domain(v: LibraryVariant) -> bool:  # written for the tender's own domain: before a general one
        return profile is not None and bool(set(v.domains) & profile.domains)

    order = {v.id: i for i, v in enumerate(entry.variants)}
    usable = [v for v in entry.variants if profile is None or profile.fits(v.kinds, v.domains)]
    return sorted(usable, key=lambda v: (misfit(v), not own_domain(v), -overlap(v), order[v.id]))

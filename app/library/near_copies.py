"""Near copies: a sentence of this bid that another file has with a few characters changed.

Two bids by one hand share sentences verbatim (:func:`app.library.checks.compare_with_bid`
finds those by hash); a careful copier changes a word or two (“每月” → “每周”, a name), which a
hash misses. Each of this bid's sentences is looked up in an index of the other file's
character 3-grams: a sentence sharing most of its 3-grams with one of theirs is compared
character by character (:class:`difflib.SequenceMatcher`), and kept when the two differ in
only a few places. Sentences the tender itself has (or nearly) are left out: both bidders
quote the tender.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from app.library.bid_import import sentence_pairs

#: Least similarity (SequenceMatcher ratio) of a near copy: 3 characters changed in 80 give 0.96.
MIN_RATIO = 0.85
#: Shortest sentence (normalised characters) looked at: shorter ones repeat by chance.
MIN_CHARS = 30
#: Share of a sentence's 3-grams a candidate must have before it is compared character by character.
_CANDIDATE_SHARE = 0.5
#: A 3-gram found in more sentences than this says nothing about which sentence is copied.
_COMMON_GRAM = 40

Path = tuple[int, ...]


@dataclass(frozen=True)
class NearCopy:
    """A sentence of this bid (as written), where it is, the other file's sentence and how alike they are."""

    path: Path | None
    where: str
    mine: str
    theirs: str
    ratio: float


def _grams(norm: str) -> set[str]:
    return {norm[i:i + 3] for i in range(len(norm) - 2)}


class _Index:
    """The 3-grams of a file's sentences, for finding the sentences most like a given one."""

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        self.sentences: list[tuple[str, str]] = list(dict.fromkeys(pairs))
        self.by_gram: dict[str, list[int]] = defaultdict(list)
        for i, (_, norm) in enumerate(self.sentences):
            for g in _grams(norm):
                self.by_gram[g].append(i)

    def closest(self, norm: str) -> tuple[float, int] | None:
        """The most alike sentence (ratio, index) when it is a near copy of ``norm``, else None."""
        grams = _grams(norm)
        counts: dict[int, int] = defaultdict(int)
        for g in grams:
            ids = self.by_gram.get(g)
            if ids and len(ids) <= _COMMON_GRAM:
                for i in ids:
                    counts[i] += 1
        need = _CANDIDATE_SHARE * len(grams)
        best: tuple[float, int] | None = None
        for i, n in sorted(counts.items(), key=lambda kv: -kv[1])[:5]:
            if n < need:
                break
            other = self.sentences[i][1]
            ratio = SequenceMatcher(None, norm, other, autojunk=False).ratio()
            if ratio >= MIN_RATIO and (best is None or ratio > best[0]):
                best = (ratio, i)
        return best


def near_copies(sections: Sequence[tuple[Path, str, str]], theirs: str, *, tender: str = "",
                exact: set[str] | None = None) -> list[NearCopy]:
    """This bid's sentences (``sections``: path, label, text) the other file has nearly word for word.

    ``exact``: normalised sentences already reported as identical (left out here); sentences the
    ``tender`` has, or nearly has, are left out too.
    """
    index = _Index(sentence_pairs(theirs))
    if not index.sentences:
        return []
    quoted = _Index(sentence_pairs(tender)) if tender else None
    out: list[NearCopy] = []
    seen: set[str] = set(exact or ())
    for path, where, text in sections:
        for written, norm in sentence_pairs(text):
            if len(norm) < MIN_CHARS or norm in seen:
                continue
            seen.add(norm)
            hit = index.closest(norm)
            if hit is None or index.sentences[hit[1]][1] == norm:
                continue
            if quoted is not None and quoted.closest(norm) is not None:
                continue  # both bids say what the tender says
            out.append(NearCopy(path, where, written, index.sentences[hit[1]][0], hit[0]))
    return out

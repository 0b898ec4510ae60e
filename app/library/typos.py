"""Identical unusual strings in two bidders' files: a shared typo is a sign of one author (围标).

No list of known misspellings is needed. A string is a *shared typo* when

* it appears in both files, rarely in each (at most ``MAX_RARE`` times) — it is unusual;
* it appears nowhere in the tender, the library of past bids or any other common text the
  caller gives — nobody else writes it;
* one of its characters is a slip: with a neighbour it makes a pair nobody else writes
  (按装), where a character of the same sound (pinyin, tones aside) makes a pair that is
  frequent in the documents — both files and the tender together, at least ``MIN_VARIANT``
  times and ``VARIANT_RATIO`` times as often as the odd string (安装) — and the string with
  that character put right occurs in them too. A slip at the first or last character of a
  string needs a string longer than ``EDGE_CONTEXT`` (more fixed context).

Strings are runs of ``GRAM_SIZES`` Chinese characters. One slip shows in several overlapping
windows (行按装, 按装调, 按装调试 …); those are reported once per wrong → right character pair.
On 66 pairs of the real tenders of ``../shared`` (each pair compared as two "bidders", the
other ten as common text, no tender, no library) it reported 23 strings, about one for every
three pairs; with a tender and a library of past bids there is more common text to rule
strings out.

A short list of frequent wrong forms can be given as seeds: a seed both files share is
reported whether or not its right form is frequent.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

GRAM_SIZES = (3, 4)
MAX_RARE = 3
MIN_VARIANT = 4
VARIANT_RATIO = 3
MAX_CANDIDATES = 400  # unusual shared strings looked up in the library at most (rarest first)
_HAN_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")


@dataclass(frozen=True)
class SharedTypo:
    """A string both files share that looks like a slip of ``usual`` (empty for a seed)."""

    text: str
    usual: str = ""
    count_mine: int = 0
    count_theirs: int = 0


EDGE_CONTEXT = 3


@lru_cache(maxsize=8192)
def _sounds(ch: str) -> frozenset[str]:
    """The toneless readings of a character (式 → {shi, te}); empty when pypinyin does not know it."""
    from pypinyin.constants import PINYIN_DICT

    readings = PINYIN_DICT.get(ord(ch), "")
    plain = unicodedata.normalize("NFKD", readings)
    return frozenset("".join(c for c in plain if not unicodedata.combining(c)).split(","))


def sounds_alike(a: str, b: str) -> bool:
    """Whether two characters share a reading, tones aside (a slip of the pinyin input method)."""
    return bool(_sounds(a) & _sounds(b) - {""})


def _grams(text: str, sizes: Sequence[int] = GRAM_SIZES) -> Counter[str]:
    out: Counter[str] = Counter()
    for run in _HAN_RUN.findall(text):
        for n in sizes:
            out.update(run[i:i + n] for i in range(len(run) - n + 1))
    return out


def _pair_index(pairs: Iterable[str]) -> dict[tuple[int, str], list[str]]:
    """Character pairs keyed by (position, the pair's other character): (1, 调) → [调试, 调度 …]."""
    index: dict[tuple[int, str], list[str]] = {}
    for p in pairs:
        index.setdefault((0, p[1]), []).append(p)
        index.setdefault((1, p[0]), []).append(p)
    return index


def _slip(g: str, i: int, counts: Counter[str], usual_pairs: dict[tuple[int, str], list[str]],
          odd: Callable[[str], bool]) -> str:
    """The usual form ``g`` is a slip of at position ``i``, or "" (see the module doc)."""
    rare = counts[g]
    best = ""
    for a in (i - 1, i):  # the pair left of the slip, then the pair right of it
        if a < 0 or a + 2 > len(g) or not odd(g[a:a + 2]):
            continue
        k = i - a  # the slip's place in the pair
        for pair in usual_pairs.get((k, g[a + 1 - k]), ()):
            u = pair[k]
            if u == g[i] or counts[pair] < VARIANT_RATIO * rare or not sounds_alike(g[i], u):
                continue
            v = g[:i] + u + g[i + 1:]
            if counts[v] and counts[v] > counts[best]:
                best = v
    return best


def shared_typos(mine: str, theirs: str, *, tender: str = "", common: Sequence[str] = (),
                 known: Callable[[str], bool] | None = None, seeds: Sequence[str] = ()) -> list[SharedTypo]:
    """Unusual strings both files share that are a one-character slip of a usual form (see module doc).

    ``known(s)`` tells whether the library (or any other source too large to pass as text)
    holds ``s``; it is asked only about the few strings left after every other test.
    """
    sizes = (2, *GRAM_SIZES)
    cm, ct = _grams(mine, sizes), _grams(theirs, sizes)
    everywhere = cm + ct + _grams(tender, sizes)
    usual_pairs = _pair_index(g for g, n in everywhere.items() if len(g) == 2 and n >= MIN_VARIANT)
    refs = [tender, *common]

    def odd(pair: str) -> bool:  # a character pair nobody else writes (the slip and its neighbour)
        return (cm[pair] <= MAX_RARE and ct[pair] <= MAX_RARE and everywhere[pair] == cm[pair] + ct[pair]
                and not any(pair in r for r in common))

    candidates: list[tuple[int, str, str, int]] = []  # (count, string, usual form, slip position)
    for g, n_mine in cm.items():
        n_theirs = ct.get(g, 0)
        if len(g) < 3 or not n_theirs or n_mine > MAX_RARE or n_theirs > MAX_RARE:
            continue
        for i in range(len(g)):
            if i in (0, len(g) - 1) and len(g) <= EDGE_CONTEXT:
                continue  # a slip at a string's edge needs a longer fixed context on its other side
            usual = _slip(g, i, everywhere, usual_pairs, odd)
            if usual and not any(g in r for r in refs):
                candidates.append((n_mine + n_theirs, g, usual, i))
    candidates.sort(key=lambda c: (c[0], -everywhere[c[2]], c[1]))
    found: dict[tuple[str, str], SharedTypo] = {}
    for _count, g, usual, pos in candidates[:MAX_CANDIDATES]:
        key = (g[pos], usual[pos])
        if key in found or (known is not None and known(g)):
            continue
        found[key] = SharedTypo(g, usual, cm[g], ct[g])
    out = list(found.values())
    for seed in seeds:
        if seed in mine and seed in theirs and not any(seed in t.text for t in out):
            out.append(SharedTypo(seed, "", mine.count(seed), theirs.count(seed)))
    return out
